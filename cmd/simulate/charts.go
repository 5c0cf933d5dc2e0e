package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/swarmsim/swarmsim/rundir"
	"math"
	"os"
	"path"
	"slices"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
	"gonum.org/v1/plot"
)

// chartsDir is the subdirectory of a run that holds the charts.
const chartsDir = "charts"

// maxTimelineRows bounds the agents of a timeline: beyond it the rows are
// too thin to read, and the chart is left out with a warning.
const maxTimelineRows = 40

// chartExts are the files plots.Save writes for one chart.
var chartExts = []string{".csv", ".svg", ".pdf", ".png"}

// writeCharts draws the comparison bars and a timeline of episode 0 of
// each variant into dir/charts. A chart that cannot be drawn (no variant
// with an acceptable episode, too many agents for a timeline) is left out
// with a warning: the tables are the results, the charts views of them.
func writeCharts(ctx context.Context, s *session, dir *rundir.Dir, sc *scenarios.Scenario, seed uint64, sums []scenarios.Summary) (err error) {
	if err := dir.Mkdir(chartsDir); err != nil {
		return err
	}
	type chart struct {
		name string
		draw func() error
	}
	var charts []chart
	for _, b := range []struct {
		name, ylabel string
		value        func(*scenarios.Summary) scenarios.Interval
	}{
		{"finish_time", "finish time, acceptable episodes (min)", func(s *scenarios.Summary) scenarios.Interval {
			return scaled(s.FinishAcceptable, 1.0/60)
		}},
		{"success_rate", "success rate (%)", func(s *scenarios.Summary) scenarios.Interval { return scaled(s.Success, 100) }},
		{"agent_time", "agent time (min)", func(s *scenarios.Summary) scenarios.Interval { return scaled(s.AgentTime, 1.0/60) }},
	} {
		charts = append(charts, chart{b.name, func() error {
			var data []plots.Bar
			for i := range sums {
				if bar, ok := ciBar(sums[i].Variant, b.value(&sums[i])); ok {
					data = append(data, bar)
				}
			}
			if len(data) == 0 {
				return errors.New("no variant has a value")
			}
			p, err := plots.Bars(plots.Chart{YLabel: b.ylabel, Size: plots.Column}, data)
			if err != nil {
				return err
			}
			return save(dir, b.name, p, plots.Column, plots.BarsTable(data))
		}})
	}
	for i := range sc.Variants {
		v := &sc.Variants[i]
		name := "timeline_" + fileName(v.Name)
		charts = append(charts, chart{name, func() error { return timeline(ctx, dir, name, sc, v, seed) }})
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
	return nil
}

// timeline re-runs episode 0 of v with a trace and draws it as a Gantt
// chart: one row per agent, spans coloured by kind, messages as arrows.
func timeline(ctx context.Context, dir *rundir.Dir, name string, sc *scenarios.Scenario, v *scenarios.Variant, seed uint64) error {
	streams, g, err := drawEpisode(v, seed, 0)
	if err != nil {
		return err
	}
	ep := &episode{sc: sc, variant: v, seed: seed, graph: g, streams: streams}
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
	c := plots.Chart{
		Title:  fmt.Sprintf("%s, episode 0", v.Name),
		XLabel: "virtual time (min)",
		Size:   plots.Page,
	}
	p, err := plots.Timeline(c, spans, flows)
	if err != nil {
		return err
	}
	return save(dir, name, p, plots.Page, plots.TimelineTable(spans, flows))
}

// ganttData converts a trace to the plots' spans and flows, in minutes,
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
			Start: sp.Start.Minutes(),
			End:   sp.End.Minutes(),
			Kind:  sp.Kind,
			Label: sp.Label,
		})
	}
	flows := make([]plots.Flow, 0, len(tr.Flows))
	for _, f := range tr.Flows {
		flows = append(flows, plots.Flow{FromRow: agentRow(f.From), From: f.Send.Minutes(), ToRow: agentRow(f.To), To: f.Arrive.Minutes()})
	}
	return spans, flows
}

func agentRow(a int) string {
	if a == 0 {
		return "main"
	}
	return fmt.Sprintf("agent %d", a)
}

// save writes chart name (PNG, SVG, PDF and CSV) into dir/charts.
func save(dir *rundir.Dir, name string, p *plot.Plot, size plots.Size, data plots.Table) error {
	base := path.Join(chartsDir, name)
	if err := plots.Save(p, size, dir.Join(base), data); err != nil {
		// Save may have renamed some files into place before failing.
		for _, ext := range chartExts {
			os.Remove(dir.Join(base + ext))
		}
		return err
	}
	for _, ext := range chartExts {
		dir.Record(base+ext, false)
	}
	return nil
}

// ciBar returns the bar of a mean with its interval; false when the mean
// is undefined. An undefined interval (a single episode) draws no
// whisker, and intervals of means that cannot be negative stop at zero.
func ciBar(label string, iv scenarios.Interval) (plots.Bar, bool) {
	if !finite(iv.Value) {
		return plots.Bar{}, false
	}
	if !finite(iv.Lo) || !finite(iv.Hi) {
		iv.Lo, iv.Hi = iv.Value, iv.Value
	}
	return plots.Bar{Label: label, Mean: iv.Value, Lo: max(iv.Lo, 0), Hi: iv.Hi}, true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
