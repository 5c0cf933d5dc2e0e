package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// Chart is one chart of a sweep's results, as data for package plots: a
// line chart when Series is set, a heat map when Grid is.
type Chart struct {
	// Name is the chart's file name without extension.
	Name string
	// Title, when set, says which slice of the sweep a chart shows.
	Title                  string
	XLabel, YLabel, ZLabel string
	// Stat says what the lines are ("mean, 2 seeds"), Interval what the
	// bands are.
	Stat, Interval string
	Series         []plots.Series
	Grid           *plots.Grid
}

// PhaseChart is the name of the phase diagram: learned parallelism over
// the latency weight and the coupling.
const PhaseChart = "phase_parallelism"

// metricLabel returns metric m's axis label, from the table of metrics,
// and the factor from its table unit to the chart's: 1, since charts and
// tables share one unit per quantity (seconds for times), kept so that a
// chart could rescale a metric without touching the tables.
func metricLabel(m string) (string, float64) { return metric.Of(m).Label, 1 }

// axisLabels name well-known swept fields.
var axisLabels = map[string]string{
	"reward.latency":                 "latency weight (reward.latency)",
	"reward.cost":                    "cost weight (reward.cost)",
	"task.coupling":                  "coupling (task.coupling)",
	"collective.agents":              "agents (collective.agents)",
	"collective.comm.message_tokens": "message size (tokens)",
	"collective.strength":            "base-model strength (collective.strength)",
	"train.lr":                       "learning rate (train.lr)",
}

func axisLabel(ax *results.Axis) string {
	if l, ok := axisLabels[ax.Path]; ok {
		return l
	}
	if ax.Unit != "" {
		return fmt.Sprintf("%s (%s)", ax.Path, ax.Unit)
	}
	return ax.Path
}

// chartName turns a field path into a part of a file name.
func chartName(path string) string {
	return strings.NewReplacer(".", "_", "[", "", "]", "").Replace(path)
}

// Charts returns the charts of a sweep's results (the records present),
// for each variant (names get a "_VARIANT" suffix when the sweep has
// several) and each metric:
//
//   - METRIC_vs_AXIS: the metric against each grid axis, the mean over
//     seeds (and random samples, and further axes) with its 95% interval,
//     with one curve per value of the other axis when there are exactly
//     two grid axes;
//   - METRIC_heatmap: the mean over the first two grid axes;
//   - phase_parallelism, when the axes include reward.latency and
//     task.coupling: parallelism_mean over latency weight and coupling.
//
// Axes whose values are not numbers get no charts; those left out are
// explained in the warnings.
func Charts(plan *results.Plan, recs map[string]*Record) ([]Chart, []string) {
	var charts []Chart
	var warnings []string
	numeric := make([]bool, len(plan.Grid))
	for a, ax := range plan.Grid {
		numeric[a] = ax.Numbers != nil
		if !numeric[a] {
			warnings = append(warnings, fmt.Sprintf("axis %s has values that are not numbers: no charts over it", ax.Path))
		}
	}
	// Records by variant, in plan order.
	byVariant := map[string][]*trialResult{}
	for j, t := range plan.Trials {
		if r, ok := recs[t.ID]; ok {
			byVariant[t.Variant] = append(byVariant[t.Variant], &trialResult{info: &plan.Trials[j], rec: r})
		}
	}
	// Short: the legend's note must fit a column.
	stat := fmt.Sprintf("mean, %d seeds", plan.Seeds)
	switch {
	case len(plan.Random) > 0 && len(plan.Grid) > 2:
		stat += ", samples, axes"
	case len(plan.Random) > 0:
		stat += ", samples"
	case len(plan.Grid) > 2:
		stat += ", other axes"
	}
	const interval = "95% bootstrap CI"

	// Two numeric axes carry the heat maps: the first two, unless one
	// axis is categorical (such as policy.organization), which then gets
	// a heat map per value over the numeric ones, and a curve per value
	// in the line charts.
	var nums []int
	category := -1
	for a := range plan.Grid {
		switch {
		case numeric[a]:
			nums = append(nums, a)
		case category == -1:
			category = a
		default:
			category = -2 // more than one: no per-value charts
		}
	}
	if category >= 0 && len(plan.Grid[category].Values) > plots.MaxSeries {
		category = -2
	}
	for _, v := range plan.Variants {
		suffix := ""
		if len(plan.Variants) > 1 {
			suffix = "_" + v
		}
		rs := byVariant[v]
		if len(rs) == 0 {
			continue
		}
		for _, m := range plan.Metrics {
			label, scale := metricLabel(m)
			md := metricData{plan, rs, m, scale}
			for a := range plan.Grid {
				if !numeric[a] {
					continue
				}
				other := -1
				switch {
				case category >= 0:
					other = category
				case len(plan.Grid) == 2 && len(plan.Grid[1-a].Values) <= plots.MaxSeries:
					other = 1 - a
				}
				series := md.lineSeries(a, other)
				if len(series) == 0 {
					warnings = append(warnings, fmt.Sprintf("chart %s_vs_%s%s left out: no finite values", m, chartName(plan.Grid[a].Path), suffix))
					continue
				}
				charts = append(charts, Chart{
					Name:     fmt.Sprintf("%s_vs_%s%s", m, chartName(plan.Grid[a].Path), suffix),
					XLabel:   axisLabel(&plan.Grid[a]),
					YLabel:   label,
					Stat:     stat,
					Interval: interval,
					Series:   series,
				})
			}
			if category < 0 && len(plan.Grid) >= 2 && numeric[0] && numeric[1] {
				name := m + "_heatmap" + suffix
				if g, ok := md.heatGrid(0, 1, nil); ok {
					charts = append(charts, Chart{Name: name, XLabel: axisLabel(&plan.Grid[0]), YLabel: axisLabel(&plan.Grid[1]), ZLabel: label, Grid: g})
				} else {
					warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
				}
			}
			if category >= 0 && len(nums) >= 2 {
				c, w := md.categoryHeatmaps(label, category, nums[0], nums[1], suffix)
				charts, warnings = append(charts, c...), append(warnings, w...)
			}
		}
		lat, coup := axisIndex(plan, "reward.latency"), axisIndex(plan, "task.coupling")
		if lat >= 0 && coup >= 0 && numeric[lat] && numeric[coup] {
			name := PhaseChart + suffix
			switch g, ok := (metricData{plan, rs, "parallelism_mean", 1}).heatGrid(lat, coup, nil); {
			case !slices.Contains(plan.Metrics, "parallelism_mean"):
				warnings = append(warnings, fmt.Sprintf("chart %s left out: parallelism_mean is not among the sweep's metrics", name))
			case !ok:
				warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
			default:
				z := metric.Of("parallelism_mean").Label
				if plan.Command == scenarios.SweepTrain {
					z = "learned " + z
				}
				charts = append(charts, Chart{Name: name, XLabel: axisLabel(&plan.Grid[lat]), YLabel: axisLabel(&plan.Grid[coup]), ZLabel: z, Grid: g})
			}
		}
	}
	return charts, warnings
}

type trialResult struct {
	info *results.TrialInfo
	rec  *Record
}

func axisIndex(plan *results.Plan, path string) int {
	for a, ax := range plan.Grid {
		if ax.Path == path {
			return a
		}
	}
	return -1
}

// ascending returns the value indices of axis a sorted by number.
func ascending(ax *results.Axis) []int {
	idx := make([]int, len(ax.Numbers))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case ax.Numbers[i] < ax.Numbers[j]:
			return -1
		case ax.Numbers[i] > ax.Numbers[j]:
			return 1
		}
		return 0
	})
	return idx
}

// values returns the finite values of metric m (scaled) of the results
// whose point matches want on the given axes.
func values(rs []*trialResult, m string, scale float64, axes, want []int) []float64 {
	var xs []float64
outer:
	for _, r := range rs {
		for k, a := range axes {
			if r.info.Point[a] != want[k] {
				continue outer
			}
		}
		if v := float64(r.rec.Metrics[m]) * scale; !math.IsNaN(v) && !math.IsInf(v, 0) {
			xs = append(xs, v)
		}
	}
	return xs
}

// metricData is a metric m of the results rs of a plan's trials, with the
// scale its values are drawn at.
type metricData struct {
	plan  *results.Plan
	rs    []*trialResult
	m     string
	scale float64
}

// lineSeries returns the metric against axis a: one series per value of
// axis other, or one series when other is -1.
func (md metricData) lineSeries(a, other int) []plots.Series {
	plan, rs, m, scale := md.plan, md.rs, md.m, md.scale
	ax := &plan.Grid[a]
	groups := []int{-1}
	if other >= 0 {
		groups = groups[:0]
		for i := range plan.Grid[other].Values {
			groups = append(groups, i)
		}
	}
	var out []plots.Series
	for _, g := range groups {
		s := plots.Series{}
		switch {
		case g >= 0 && plan.Grid[other].Numbers == nil:
			s.Name = plan.Grid[other].Values[g] // a category names itself: "team"
		case g >= 0:
			s.Name = fmt.Sprintf("%s = %s", plan.Grid[other].Path, plan.Grid[other].Values[g])
		}
		band := true
		var lo, hi []float64
		for _, i := range ascending(ax) {
			axes, want := []int{a}, []int{i}
			if g >= 0 {
				axes, want = append(axes, other), append(want, g)
			}
			iv := stats.Default.CI(values(rs, m, scale, axes, want), stats.Mean)
			if math.IsNaN(iv.Value) {
				continue
			}
			s.X = append(s.X, ax.Numbers[i])
			s.Y = append(s.Y, iv.Value)
			lo, hi = append(lo, iv.Lo), append(hi, iv.Hi)
			if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) || math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) {
				band = false
			}
		}
		if len(s.X) == 0 {
			continue
		}
		if band {
			s.Lo, s.Hi = lo, hi
		}
		out = append(out, s)
	}
	if len(out) > 1 {
		// Series without bands next to series with them would read as
		// certain: drop all bands unless every series has one.
		for _, s := range out {
			if s.Lo == nil {
				for k := range out {
					out[k].Lo, out[k].Hi = nil, nil
				}
				break
			}
		}
	}
	return out
}

// categoryHeatmaps returns, for a categorical axis c, the heat map of
// the metric over the numeric axes x and y for each of c's values
// (METRIC_heatmap_VALUE), and the difference of each later value from the
// first (METRIC_diff_VALUE_minus_FIRST): where one organization starts to
// beat another.
func (md metricData) categoryHeatmaps(label string, c, x, y int, suffix string) ([]Chart, []string) {
	plan, m := md.plan, md.m
	var charts []Chart
	var warnings []string
	ax := &plan.Grid[c]
	grids := make([]*plots.Grid, len(ax.Values))
	for k, val := range ax.Values {
		name := fmt.Sprintf("%s_heatmap_%s%s", m, chartName(val), suffix)
		g, ok := md.heatGrid(x, y, []int{c, k})
		if !ok {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
			continue
		}
		grids[k] = g
		charts = append(charts, Chart{Name: name, Title: fmt.Sprintf("%s = %s", ax.Path, val),
			XLabel: axisLabel(&plan.Grid[x]), YLabel: axisLabel(&plan.Grid[y]), ZLabel: label, Grid: g})
	}
	for k := 1; k < len(grids); k++ {
		if grids[0] == nil || grids[k] == nil {
			continue
		}
		d := &plots.Grid{X: grids[0].X, Y: grids[0].Y, Annotate: grids[0].Annotate}
		for r := range grids[0].Z {
			row := make([]float64, len(grids[0].Z[r]))
			for i := range row {
				row[i] = grids[k].Z[r][i] - grids[0].Z[r][i]
			}
			d.Z = append(d.Z, row)
		}
		charts = append(charts, Chart{
			Name:   fmt.Sprintf("%s_diff_%s_minus_%s%s", m, chartName(ax.Values[k]), chartName(ax.Values[0]), suffix),
			Title:  fmt.Sprintf("%s: %s minus %s", ax.Path, ax.Values[k], ax.Values[0]),
			XLabel: axisLabel(&plan.Grid[x]), YLabel: axisLabel(&plan.Grid[y]),
			ZLabel: "difference in " + label,
			Grid:   d,
		})
	}
	return charts, warnings
}

// heatGrid returns the mean of the metric over axes x and y, of the
// results whose point has value fix[1] on axis fix[0] when fix is given;
// false when a cell has no finite value.
func (md metricData) heatGrid(x, y int, fix []int) (*plots.Grid, bool) {
	plan, rs, m, scale := md.plan, md.rs, md.m, md.scale
	ax, ay := &plan.Grid[x], &plan.Grid[y]
	xi, yi := ascending(ax), ascending(ay)
	g := &plots.Grid{Annotate: len(xi) <= 8 && len(yi) <= 8}
	for _, i := range xi {
		g.X = append(g.X, ax.Numbers[i])
	}
	for _, j := range yi {
		g.Y = append(g.Y, ay.Numbers[j])
		row := make([]float64, len(xi))
		for c, i := range xi {
			axes, want := []int{x, y}, []int{i, j}
			if fix != nil {
				axes, want = append(axes, fix[0]), append(want, fix[1])
			}
			iv := stats.Default.CI(values(rs, m, scale, axes, want), stats.Mean)
			if math.IsNaN(iv.Value) {
				return nil, false
			}
			row[c] = iv.Value
		}
		g.Z = append(g.Z, row)
	}
	return g, true
}

// Draw draws c and saves it through cw: a heat map drawn without its
// values where they are too wide for the cells, or lines.
func (c *Chart) Draw(cw *experiment.ChartWriter) error {
	if c.Grid != nil {
		spec := plots.Spec{Name: c.Name, Kind: "heatmap", Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, ZLabel: c.ZLabel, Size: "column", Annotate: c.Grid.Annotate}
		err := cw.Draw(spec, plots.GridTable(*c.Grid))
		if err != nil && spec.Annotate {
			spec.Annotate = false // values too wide for the cells
			err = cw.Draw(spec, plots.GridTable(*c.Grid))
		}
		return err
	}
	spec := plots.Spec{Name: c.Name, Kind: "lines", Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, Stat: c.Stat, Interval: c.Interval, Size: "column"}
	return cw.Draw(spec, plots.LinesTable(c.Series))
}
