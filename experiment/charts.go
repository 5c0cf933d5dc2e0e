package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// chartsDir is the subdirectory of a run that holds the charts.
const chartsDir = "charts"

// maxTimelineRows bounds the agents of a timeline: beyond it the rows are
// too thin to read, and the chart is left out with a warning. A timeline
// of more than pageTimelineRows is drawn tall, since its row labels would
// overlap on a page (TestTimelineRowsFit).
const (
	maxTimelineRows  = 40
	pageTimelineRows = 24
)

// chartExts are the files plots.Save writes for one chart.
var chartExts = []string{".csv", ".svg", ".pdf", ".png"}

// writeCharts draws the comparison bars and a timeline of episode 0 of
// each variant into dir/charts. A chart that cannot be drawn (no variant
// with an acceptable episode, too many agents for a timeline) is left out
// with a warning: the tables are the results, the charts views of them.
// maxEvents is the episodes' event bound, as they ran (0: the default).
func writeCharts(ctx context.Context, s *session, dir *rundir.Dir, sc *scenarios.Scenario, seed, maxEvents uint64, sums []experiment.Summary) (err error) {
	cw, err := newChartWriter(dir)
	if err != nil {
		return err
	}
	type chart struct {
		name string
		draw func() error
	}
	var charts []chart
	type barChart struct {
		name, ylabel string
		value        func(*experiment.Summary) stats.Interval
		interval     string
	}
	bars := []barChart{
		{"finish_time", "finish time, acceptable episodes (s)", func(s *experiment.Summary) stats.Interval { return s.FinishAcceptable }, bootInterval},
		{"success_rate", "success rate (fraction)", func(s *experiment.Summary) stats.Interval { return s.Success }, "95% Wilson interval"},
		{"agent_time", "agent time (s)", func(s *experiment.Summary) stats.Interval { return s.AgentTime }, bootInterval},
	}
	if slices.ContainsFunc(sums, func(s experiment.Summary) bool { return s.CallLatency.Value > 0 }) {
		bars = append(bars, barChart{"call_latency", "time per call at the server (s)", func(s *experiment.Summary) stats.Interval { return s.CallLatency }, bootInterval})
	}
	for _, b := range bars {
		charts = append(charts, chart{b.name, func() error {
			var data []plots.Bar
			var left []string
			for i := range sums {
				if bar, ok := ciBar(sums[i].Variant, b.value(&sums[i])); ok {
					data = append(data, bar)
				} else {
					left = append(left, sums[i].Variant)
				}
			}
			if len(data) == 0 {
				return errors.New("no variant has a value")
			}
			spec := plots.Spec{Name: b.name, Kind: "bars", YLabel: b.ylabel, Interval: b.interval, Size: "column", Note: leftOut(left, "no acceptable episode")}
			return cw.draw(spec, plots.BarsTable(data))
		}})
	}
	for i := range sc.Variants {
		v := &sc.Variants[i]
		name := "timeline_" + fileName(v.Name)
		charts = append(charts, chart{name, func() error { return timeline(ctx, cw, name, sc, v, seed, maxEvents) }})
	}

	// Warnings wait until the progress bar is gone.
	var warnings []string
	bar := newProgress(s.stderr, "charts", len(charts))
	defer func() {
		bar.finish(err == nil)
		for _, w := range warnings {
			s.warnf("%s", w)
		}
	}()
	for _, c := range charts {
		if err := c.draw(); err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", c.name, err))
		}
		bar.increment()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return cw.close()
}

// bootInterval names the interval of means over episodes.
const bootInterval = "95% bootstrap CI"

// leftOut returns the note of a chart that leaves out the series names,
// for the reason why; "" when none is left out.
func leftOut(names []string, why string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("left out (%s): %s", why, strings.Join(names, ", "))
}

// timeline re-runs episode 0 of v with a trace and draws it as a Gantt
// chart: one row per agent, spans coloured by kind, messages as arrows.
func timeline(ctx context.Context, cw *chartWriter, name string, sc *scenarios.Scenario, v *scenarios.Variant, seed, maxEvents uint64) error {
	streams, g, err := drawEpisode(v, seed, 0)
	if err != nil {
		return err
	}
	ep := &episode{sc: sc, variant: v, seed: seed, graph: g, streams: streams, maxEvents: maxEvents}
	res, err := ep.run(ctx, true)
	if err != nil {
		return err
	}
	spans, flows := ganttData(res.Trace)
	if len(spans) == 0 {
		return fmt.Errorf("episode 0 of variant %s has no activity", v.Name)
	}
	agents := 0
	for _, sp := range res.Trace.Spans {
		agents = max(agents, sp.Agent+1)
	}
	if agents > maxTimelineRows {
		return fmt.Errorf("%d agents are too many rows (at most %d); see 'simulate trace'", agents, maxTimelineRows)
	}
	return cw.draw(timelineSpec(name, v.Name, agents), plots.TimelineTable(spans, flows))
}

// timelineSpec is the spec of a timeline of rows agents: a page wide, and
// as tall as a page of text where a page's height is too short for them.
func timelineSpec(name, variant string, rows int) plots.Spec {
	size := "page"
	if rows > pageTimelineRows {
		size = "tall"
	}
	return plots.Spec{Name: name, Kind: "timeline", Title: fmt.Sprintf("%s, episode 0", variant), XLabel: "virtual time (s)", Size: size}
}

// ganttData converts a trace to the plots' spans and flows, in seconds,
// with the agents' rows in order (agent 0, the main agent, on top).
func ganttData(tr *collective.Trace) ([]plots.Span, []plots.Flow) {
	ss := slices.Clone(tr.Spans)
	slices.SortStableFunc(ss, func(a, b collective.Span) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Start, b.Start))
	})
	spans := make([]plots.Span, 0, len(ss))
	for _, sp := range ss {
		spans = append(spans, plots.Span{
			Row:   agentRow(sp.Agent),
			Start: sp.Start.Seconds(),
			End:   sp.End.Seconds(),
			Kind:  sp.Kind,
			Label: sp.Label,
		})
	}
	flows := make([]plots.Flow, 0, len(tr.Flows))
	for _, f := range tr.Flows {
		flows = append(flows, plots.Flow{FromRow: agentRow(f.From), From: f.Send.Seconds(), ToRow: agentRow(f.To), To: f.Arrive.Seconds()})
	}
	return spans, flows
}

func agentRow(a int) string {
	if a == 0 {
		return "main"
	}
	return fmt.Sprintf("agent %d", a)
}

// chartIndex is the file of a charts directory that lists the charts
// with their specs, so that 'simulate plot' can draw them again.
const chartIndex = "charts.json"

// A chartWriter draws charts into a directory from their specs and
// tables, and keeps the index of what it drew.
type chartWriter struct {
	dir     *rundir.Dir
	sub     string // the charts' subdirectory of dir, "" for dir itself
	formats []string
	specs   []plots.Spec
}

func newChartWriter(dir *rundir.Dir) (*chartWriter, error) {
	if err := dir.Mkdir(chartsDir); err != nil {
		return nil, err
	}
	return &chartWriter{dir: dir, sub: chartsDir, formats: plots.Formats}, nil
}

// draw draws the chart spec describes from table t and saves it.
func (w *chartWriter) draw(spec plots.Spec, t plots.Table) error {
	p, err := plots.Draw(&spec, t)
	if err != nil {
		return err
	}
	return w.save(spec, p, t)
}

// save saves p, which plots.Draw drew from spec and t, in the chosen
// formats with the CSV of t; the chart then belongs to the index.
func (w *chartWriter) save(spec plots.Spec, p *plot.Plot, t plots.Table) error {
	c, _ := spec.Chart() // Draw checked the size
	base := path.Join(w.sub, spec.Name)
	if err := plots.SaveFormats(p, c.Size, w.dir.Join(base), t, w.formats); err != nil {
		// Save may have renamed some files into place before failing.
		for _, ext := range chartExts {
			os.Remove(w.dir.Join(base + ext))
		}
		return err
	}
	w.dir.Record(base+".csv", false)
	for _, f := range w.formats {
		w.dir.Record(base+"."+f, false)
	}
	w.specs = append(w.specs, spec)
	return nil
}

// close writes the index of the charts drawn.
func (w *chartWriter) close() error {
	return w.dir.Write(path.Join(w.sub, chartIndex), plots.MarshalSpecs(w.specs))
}

// ciBar returns the bar of a mean with its interval; false when the mean
// is undefined. An undefined interval (a single episode) draws no
// whisker.
func ciBar(label string, iv stats.Interval) (plots.Bar, bool) {
	if !finite(iv.Value) {
		return plots.Bar{}, false
	}
	if !finite(iv.Lo) || !finite(iv.Hi) {
		iv.Lo, iv.Hi = iv.Value, iv.Value
	}
	return plots.Bar{Label: label, Mean: iv.Value, Lo: iv.Lo, Hi: iv.Hi}, true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
