package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// ChartsDir is the subdirectory of a run that holds the charts.
const ChartsDir = "charts"

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

// A Chart is one chart to draw: Draw draws it from its data and saves it
// through a ChartWriter, or says why it cannot be drawn.
type Chart struct {
	Name string
	Draw func(cw *ChartWriter) error
}

// RunCharts returns the charts of a run of sc: the
// comparison bars of the variants' summaries, and a timeline of episode 0
// of each variant from the trace its row keeps (EvalOptions.Trace). A
// chart that cannot be drawn (no variant with an acceptable episode, too
// many agents for a timeline) says why: the tables are the results, the
// charts views of them.
func RunCharts(sc *scenarios.Scenario, rows []Row, sums []Summary) []Chart {
	var charts []Chart
	type barChart struct {
		name, ylabel string
		value        func(*Summary) stats.Interval
		interval     string
	}
	bars := []barChart{
		{"finish_time", metric.Of("finish_time_acceptable").Label, func(s *Summary) stats.Interval { return s.FinishAcceptable }, BootInterval},
		{"success_rate", metric.Of("success_rate").Label, func(s *Summary) stats.Interval { return s.Success }, "95% Wilson interval"},
		{"agent_time", metric.Of("agent_time").Label, func(s *Summary) stats.Interval { return s.AgentTime }, BootInterval},
	}
	if slices.ContainsFunc(sums, func(s Summary) bool { return s.CallLatency.Value > 0 }) {
		bars = append(bars, barChart{"call_latency", metric.Of("call_latency").Label, func(s *Summary) stats.Interval { return s.CallLatency }, BootInterval})
	}
	for _, b := range bars {
		charts = append(charts, Chart{b.name, func(cw *ChartWriter) error {
			var data []plots.Bar
			var left []string
			for i := range sums {
				if bar, ok := CIBar(sums[i].Variant, b.value(&sums[i])); ok {
					data = append(data, bar)
				} else {
					left = append(left, sums[i].Variant)
				}
			}
			if len(data) == 0 {
				return errors.New("no variant has a value")
			}
			spec := plots.Spec{Name: b.name, Kind: "bars", YLabel: b.ylabel, Interval: b.interval, Size: "column", Note: LeftOut(left, "no acceptable episode")}
			return cw.Draw(spec, plots.BarsTable("mean", data))
		}})
	}
	traces := map[string]*collective.Trace{}
	for i := range rows {
		if rows[i].Episode == 0 {
			traces[rows[i].Variant] = rows[i].Trace
		}
	}
	for _, v := range sc.Variants {
		name := "timeline_" + FileName(v.Name)
		charts = append(charts, Chart{name, func(cw *ChartWriter) error { return timeline(cw, name, v.Name, traces[v.Name]) }})
	}
	return charts
}

// RunChartNames returns the names of every chart that RunCharts may
// return for sc, before anything runs: call_latency is among them, though
// RunCharts draws it only where some call waited at a shared server or
// API.
func RunChartNames(sc *scenarios.Scenario) []string {
	var names []string
	for _, c := range RunCharts(sc, nil, []Summary{{CallLatency: stats.Interval{Value: 1}}}) {
		names = append(names, c.Name)
	}
	return names
}

// BootInterval names the interval of means over episodes.
const BootInterval = "95% bootstrap CI"

// LeftOut returns the note of a chart that leaves out the series names,
// for the reason why; "" when none is left out.
func LeftOut(names []string, why string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("left out (%s): %s", why, strings.Join(names, ", "))
}

// timeline draws the trace of episode 0 of a variant as a Gantt chart:
// one row per agent, spans coloured by kind, messages as arrows.
func timeline(cw *ChartWriter, name, variant string, tr *collective.Trace) error {
	if tr == nil {
		return fmt.Errorf("episode 0 of variant %s kept no trace", variant)
	}
	spans, flows := ganttData(tr)
	if len(spans) == 0 {
		return fmt.Errorf("episode 0 of variant %s has no activity", variant)
	}
	agents := 0
	for _, sp := range tr.Spans {
		agents = max(agents, sp.Agent+1)
	}
	if agents > maxTimelineRows {
		return fmt.Errorf("%d agents are too many rows (at most %d); see 'simulate trace'", agents, maxTimelineRows)
	}
	return cw.Draw(timelineSpec(name, variant, agents), plots.TimelineTable(spans, flows))
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

// ChartIndex is the file of a charts directory that lists the charts
// with their specs, so that 'simulate plot' can draw them again.
const ChartIndex = "charts.json"

// LeftOutFile is the file of a charts directory that says, a line each,
// which charts were left out and why ("chart X left out: a cell has no
// finite value"), so that the report says it too, not only the terminal;
// it is written only where one was.
const LeftOutFile = "left_out.txt"

// A ChartWriter draws charts into a directory from their specs and
// tables, and keeps the index of what it drew.
type ChartWriter struct {
	dir     *rundir.Dir
	sub     string // the charts' subdirectory of dir, "" for dir itself
	formats []string
	specs   []plots.Spec
	// held, when not nil, keeps the files Save wrote for DrawAll to
	// record in the charts' order, instead of recording them at once.
	held *[]string
	// leftOut are the notes of the charts left out, for LeftOutFile.
	leftOut []string
}

// LeftOut notes charts left out before any was drawn (a sweep's chart
// whose cells have no value), for the report; DrawAll notes those it
// cannot draw itself.
func (w *ChartWriter) LeftOut(notes ...string) { w.leftOut = append(w.leftOut, notes...) }

// NewChartWriter returns a writer of charts into dir/charts, in the given
// formats of plots.Formats (all of them for nil).
func NewChartWriter(dir *rundir.Dir, formats []string) (*ChartWriter, error) {
	if formats == nil {
		formats = plots.Formats
	}
	if err := dir.Mkdir(ChartsDir); err != nil {
		return nil, err
	}
	return &ChartWriter{dir: dir, sub: ChartsDir, formats: formats}, nil
}

// NewFormatsWriter returns a writer of charts into dir itself, in the
// given formats: charts redrawn from their tables.
func NewFormatsWriter(dir *rundir.Dir, formats []string) *ChartWriter {
	return &ChartWriter{dir: dir, formats: formats}
}

// Draw draws the chart spec describes from table t and saves it.
func (w *ChartWriter) Draw(spec plots.Spec, t plots.Table) error {
	p, err := plots.Draw(&spec, t)
	if err != nil {
		return err
	}
	return w.Save(spec, p, t)
}

// Save saves p, which plots.Draw drew from spec and t, in the chosen
// formats with the CSV of t; the chart then belongs to the index.
func (w *ChartWriter) Save(spec plots.Spec, p *plot.Plot, t plots.Table) error {
	c, _ := spec.Chart() // Draw checked the size
	base := path.Join(w.sub, spec.Name)
	if err := plots.SaveFormats(p, c.Size, w.dir.Join(base), t, w.formats); err != nil {
		// Save may have renamed some files into place before failing.
		for _, ext := range chartExts {
			os.Remove(w.dir.Join(base + ext))
		}
		return err
	}
	files := []string{base + ".csv"}
	for _, f := range w.formats {
		files = append(files, base+"."+f)
	}
	if w.held != nil {
		*w.held = append(*w.held, files...)
	} else {
		for _, f := range files {
			w.dir.Record(f, false)
		}
	}
	w.specs = append(w.specs, spec)
	return nil
}

// DrawAll draws the charts on up to workers goroutines (GOMAXPROCS for
// 0), each chart on its own, and records them in the order given: the
// files, the index and the warnings do not depend on the number of
// workers. A chart that cannot be drawn is left out with a warning that
// says why, in the charts' order; one that could not be written (a full
// or read-only disk) is an error, the first in the charts' order. done,
// if not nil, is called after each chart, from the goroutine that drew
// it.
func (w *ChartWriter) DrawAll(ctx context.Context, charts []Chart, workers int, done func()) ([]string, error) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	each := make([]ChartWriter, len(charts))
	held := make([][]string, len(charts))
	errs := make([]error, len(charts))
	err := pool.Run(ctx, len(charts), workers, func(ctx context.Context, _, i int) error {
		each[i] = ChartWriter{dir: w.dir, sub: w.sub, formats: w.formats, held: &held[i]}
		errs[i] = charts[i].Draw(&each[i])
		if done != nil {
			done()
		}
		return ctx.Err()
	})
	var warnings []string
	for i := range charts {
		// A directory that cannot take the files would otherwise be
		// committed as complete without its charts, and a training's
		// checkpoints removed with it: the command fails instead, and
		// the same command finishes the work once there is room.
		switch {
		case isWriteError(errs[i]):
			if err == nil {
				err = errs[i]
			}
		case errs[i] != nil:
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", charts[i].Name, errs[i]))
		}
		for _, f := range held[i] {
			w.dir.Record(f, false)
		}
		w.specs = append(w.specs, each[i].specs...)
	}
	w.LeftOut(warnings...)
	return warnings, err
}

// isWriteError reports whether err comes from the file system rather
// than from the chart's data.
func isWriteError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se)
}

// Close writes the index of the charts drawn, and LeftOutFile where a
// chart was left out. An index that 'simulate plot' would refuse to read
// back (two charts of one name, one drawn over the other) is an error, and
// is not written.
func (w *ChartWriter) Close() error {
	index := path.Join(w.sub, ChartIndex)
	b := plots.MarshalSpecs(w.specs)
	if _, err := plots.ParseSpecs(index, b); err != nil {
		return fmt.Errorf("charts: the index would not read back: %w", err)
	}
	if err := w.dir.Write(index, b); err != nil || len(w.leftOut) == 0 {
		return err
	}
	return w.dir.Write(path.Join(w.sub, LeftOutFile), []byte(strings.Join(w.leftOut, "\n")+"\n"))
}

// CIBar returns the bar of a mean with its interval; false when the mean
// is undefined. An undefined interval (a single episode) draws no
// whisker.
func CIBar(label string, iv stats.Interval) (plots.Bar, bool) {
	if !Finite(iv.Value) {
		return plots.Bar{}, false
	}
	if !Finite(iv.Lo) || !Finite(iv.Hi) {
		iv.Lo, iv.Hi = iv.Value, iv.Value
	}
	return plots.Bar{Label: label, Mean: iv.Value, Lo: iv.Lo, Hi: iv.Hi}, true
}

// Finite reports whether v is a number: neither NaN nor infinite.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
