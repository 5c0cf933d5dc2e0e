package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// Chart is one chart of a sweep's results, as data for package plots: a
// line chart when Series is set, points over categories when Points is,
// a heat map when Grid is (a difference map when Sides is set too).
type Chart struct {
	// Name is the chart's file name without extension.
	Name string
	// Title, when set, says which slice of the sweep a chart shows.
	Title                  string
	XLabel, YLabel, ZLabel string
	// Stat says what the lines, points or cells are ("IQM, 2 seeds"),
	// Interval what the bands and whiskers are.
	Stat, Interval string
	Series         []plots.Series
	Points         []plots.Bar
	Grid           *plots.Grid
	Sides          *plots.Sides
	// Page draws the chart a page wide instead of a column: for the
	// facets, whose titles name the facet beside the statistic.
	Page bool
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

// valueLabel returns value i of axis ax as a scenario writes it: numbers
// in plain decimals ("30000", not "3e+04"), durations in their largest
// units ("2m", "1h30m", not "2m0s"), other values as they are.
func valueLabel(ax *results.Axis, i int) string {
	v := ax.Values[i]
	switch {
	case ax.Unit == "s":
		if d, err := time.ParseDuration(v); err == nil {
			v = d.String()
			for _, zero := range []string{"m0s", "h0m"} {
				if strings.HasSuffix(v, zero) {
					v = strings.TrimSuffix(v, zero[1:])
				}
			}
		}
	case numeric(ax):
		v = strconv.FormatFloat(ax.Numbers[i], 'f', -1, 64)
	}
	return v
}

// chartName turns a field path into a part of a file name.
func chartName(path string) string {
	return strings.NewReplacer(".", "_", "[", "", "]", "").Replace(path)
}

// Charts returns the charts of a sweep's results (the records present),
// for each variant (names get a "_VARIANT" suffix when the sweep has
// several) and each metric. Every value drawn is an IQM over seeds (and
// random samples, and further axes) with its 95% bootstrap interval, the
// statistic the terminal prints:
//
//   - METRIC_vs_AXIS: the metric against each grid axis: lines over a
//     numeric axis, with one curve per value of the other axis when there
//     are exactly two grid axes, or per value of the one categorical axis;
//     points with whiskers over a categorical axis;
//   - METRIC_heatmap: the metric over the first two grid axes, numeric or
//     categorical, each cell named as the scenario writes its value;
//   - with one categorical axis (such as policy.organization) beside two
//     numeric ones, instead: METRIC_heatmap_VALUE per value over the
//     numeric axes, and METRIC_diff_VALUE_minus_FIRST, the difference of
//     each later value from the first on a diverging scale, the cells
//     whose interval excludes zero outlined;
//   - phase_parallelism, when the axes include reward.latency and
//     task.coupling: parallelism_mean over latency weight and coupling;
//   - with two categorical axes, all of the above again for each value of
//     the first, with a "_VALUE" suffix (facets).
//
// Charts left out (a cell without a finite value) are explained in the
// warnings.
func Charts(plan *results.Plan, recs map[string]*Record) ([]Chart, []string) {
	var charts []Chart
	var warnings []string
	// Records by variant, in plan order.
	byVariant := map[string][]*trialResult{}
	for j, t := range plan.Trials {
		if r, ok := recs[t.ID]; ok {
			byVariant[t.Variant] = append(byVariant[t.Variant], &trialResult{info: &plan.Trials[j], rec: r})
		}
	}
	const interval = "95% bootstrap CI"

	// One categorical axis (such as policy.organization) beside numeric
	// ones gets a curve per value in the line charts, and, beside two
	// numeric axes, a heat map per value over them.
	var nums []int
	category := -1
	for a := range plan.Grid {
		switch {
		case numeric(&plan.Grid[a]):
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
	perValueMaps := category >= 0 && len(nums) >= 2
	// What a line's point pools (one axis drawn), and a heat map's cell
	// (two drawn, and the category fixed in the per-value maps).
	statOf := func(v, m string) (seeds, line, heat string) {
		seeds = seedsOf(plan, recs, v, m)
		line, heat = pooled("IQM", seeds, plan, 1), pooled("IQM", seeds, plan, 2)
		if perValueMaps {
			heat = pooled("IQM", seeds, plan, 3)
		}
		return seeds, line, heat
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
			seeds, lineStat, mapStat := statOf(v, m)
			md := metricData{plan, rs, m, scale}
			for a := range plan.Grid {
				name := fmt.Sprintf("%s_vs_%s%s", m, chartName(plan.Grid[a].Path), suffix)
				c := Chart{Name: name, XLabel: axisLabel(&plan.Grid[a]), YLabel: label, Stat: lineStat, Interval: interval}
				if !numeric(&plan.Grid[a]) {
					c.Points = md.points(a)
					if len(c.Points) == 0 {
						warnings = append(warnings, fmt.Sprintf("chart %s left out: no finite values", name))
						continue
					}
					charts = append(charts, c)
					continue
				}
				other := -1
				switch {
				case category >= 0:
					other = category
				case len(plan.Grid) == 2 && len(plan.Grid[1-a].Values) <= plots.MaxSeries:
					other = 1 - a
				}
				if other >= 0 {
					c.Stat = pooled("IQM", seeds, plan, 2) // the other axis is drawn as curves
				}
				c.Series = md.lineSeries(a, other)
				if len(c.Series) == 0 {
					warnings = append(warnings, fmt.Sprintf("chart %s left out: no finite values", name))
					continue
				}
				charts = append(charts, c)
			}
			switch {
			case perValueMaps:
				c, w := md.categoryHeatmaps(label, mapStat, category, nums[0], nums[1], suffix)
				charts, warnings = append(charts, c...), append(warnings, w...)
			case len(plan.Grid) >= 2:
				name := m + "_heatmap" + suffix
				if g, ok := md.heatGrid(0, 1, nil); ok {
					charts = append(charts, Chart{Name: name, XLabel: axisLabel(&plan.Grid[0]), YLabel: axisLabel(&plan.Grid[1]), ZLabel: label, Stat: mapStat, Grid: g})
				} else {
					warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
				}
			}
		}
		lat, coup := axisIndex(plan, "reward.latency"), axisIndex(plan, "task.coupling")
		if lat >= 0 && coup >= 0 && numeric(&plan.Grid[lat]) && numeric(&plan.Grid[coup]) {
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
				_, _, phaseStat := statOf(v, "parallelism_mean")
				charts = append(charts, Chart{Name: name, XLabel: axisLabel(&plan.Grid[lat]), YLabel: axisLabel(&plan.Grid[coup]), ZLabel: z, Stat: phaseStat, Grid: g})
			}
		}
	}
	fc, fw := facets(plan, recs)
	return append(charts, fc...), append(warnings, fw...)
}

// facets returns, for a grid with exactly two categorical axes (such as
// task.kind and policy.organization), the charts of each value of the
// first as if it were a sweep of its own over the other axes, named
// CHART_VALUE, titled with the value and drawn a page wide: there the
// second axis gets its curves, its per-value maps and its differences
// from its first value.
// Other grids have none.
func facets(plan *results.Plan, recs map[string]*Record) ([]Chart, []string) {
	var cats []int
	for a := range plan.Grid {
		if !numeric(&plan.Grid[a]) {
			cats = append(cats, a)
		}
	}
	if len(cats) != 2 {
		return nil, nil
	}
	f := cats[0]
	ax, other := &plan.Grid[f], plan.Grid[cats[1]].Path
	var charts []Chart
	var warnings []string
	for k, val := range ax.Values {
		sub := *plan
		sub.Grid = slices.Delete(slices.Clone(plan.Grid), f, f+1)
		sub.Trials = nil
		for _, t := range plan.Trials {
			if t.Point[f] == k {
				t.Point = slices.Delete(slices.Clone(t.Point), f, f+1)
				sub.Trials = append(sub.Trials, t)
			}
		}
		cs, ws := Charts(&sub, recs) // one categorical axis left: no facets of facets
		for i := range cs {
			cs[i].Name += "_" + chartName(val)
			// The title names the value alone, and the other axis's
			// values without its path: a column's title line holds little.
			title := strings.TrimPrefix(strings.TrimPrefix(cs[i].Title, other+" = "), other+": ")
			cs[i].Title = strings.TrimSuffix(val+"; "+title, "; ")
			cs[i].Page = true
		}
		for _, w := range ws {
			warnings = append(warnings, fmt.Sprintf("%s = %s: %s", ax.Path, val, w))
		}
		charts = append(charts, cs...)
	}
	return charts, warnings
}

// pooled returns what a chart's value is, "IQM, 10 seeds", and what else
// it pools beyond the seeds: the random samples, and the grid axes beyond
// the drawn ones (kept short: the legend's note must fit a column).
func pooled(what, seeds string, plan *results.Plan, drawn int) string {
	s := what + ", " + seeds
	switch {
	case len(plan.Random) > 0 && len(plan.Grid) > drawn:
		s += ", samples, axes"
	case len(plan.Random) > 0:
		s += ", samples"
	case len(plan.Grid) > drawn:
		s += ", other axes"
	}
	return s
}

// seedsOf says over how many seeds variant v's charts of metric m are:
// the sweep's seeds, or, where recs lack some of its trials (one shard's,
// a partial merge's) or some trials' values of m are not finite (a mean
// over no successful episode), the fewest to the most that a drawn point
// of the sweep has: "1 to 2 of 2 seeds".
func seedsOf(plan *results.Plan, recs map[string]*Record, v, m string) string {
	per := map[string]int{}
	for _, t := range plan.Trials {
		if r, ok := recs[t.ID]; ok && t.Variant == v && experiment.Finite(float64(r.Metrics[m])) {
			per[fmt.Sprint(t.Sample, t.Point)]++
		}
	}
	lo, hi := plan.Seeds, plan.Seeds
	if len(per) > 0 {
		lo, hi = plan.Seeds, 0
		for _, n := range per {
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	switch {
	case lo == plan.Seeds && hi == plan.Seeds && plan.Seeds == 1:
		return "1 seed"
	case lo == plan.Seeds && hi == plan.Seeds:
		return fmt.Sprintf("%d seeds", plan.Seeds)
	case lo == hi:
		return fmt.Sprintf("%d of %d seeds", lo, plan.Seeds)
	}
	return fmt.Sprintf("%d to %d of %d seeds", lo, hi, plan.Seeds)
}

func numeric(ax *results.Axis) bool { return ax.Numbers != nil }

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

// ascending returns the value indices of axis a sorted by number, or in
// the scenario's order when its values are not numbers.
func ascending(ax *results.Axis) []int {
	idx := make([]int, len(ax.Values))
	for i := range idx {
		idx[i] = i
	}
	if !numeric(ax) {
		return idx
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
			iv := stats.Default.CI(values(rs, m, scale, axes, want), stats.IQM)
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

// points returns the metric at each value of the categorical axis a, in
// the scenario's order, with its interval; a value without a finite
// result is left out.
func (md metricData) points(a int) []plots.Bar {
	var out []plots.Bar
	for i, val := range md.plan.Grid[a].Values {
		iv := stats.Default.CI(values(md.rs, md.m, md.scale, []int{a}, []int{i}), stats.IQM)
		if bar, ok := experiment.CIBar(val, iv); ok {
			out = append(out, bar)
		}
	}
	return out
}

// categoryHeatmaps returns, for a categorical axis c, the heat map of
// the metric over the numeric axes x and y for each of c's values
// (METRIC_heatmap_VALUE), and the difference of each later value from the
// first (METRIC_diff_VALUE_minus_FIRST): where one organization starts to
// beat another.
func (md metricData) categoryHeatmaps(label, stat string, c, x, y int, suffix string) ([]Chart, []string) {
	plan, m := md.plan, md.m
	var charts []Chart
	var warnings []string
	ax := &plan.Grid[c]
	for k, val := range ax.Values {
		name := fmt.Sprintf("%s_heatmap_%s%s", m, chartName(val), suffix)
		g, ok := md.heatGrid(x, y, []int{c, k})
		if !ok {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
			continue
		}
		charts = append(charts, Chart{Name: name, Title: fmt.Sprintf("%s = %s", ax.Path, val),
			XLabel: axisLabel(&plan.Grid[x]), YLabel: axisLabel(&plan.Grid[y]), ZLabel: label, Stat: stat, Grid: g})
	}
	for k := 1; k < len(ax.Values); k++ {
		name := fmt.Sprintf("%s_diff_%s_minus_%s%s", m, chartName(ax.Values[k]), chartName(ax.Values[0]), suffix)
		g, ok := md.diffGrid(x, y, c, k)
		if !ok {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: a cell has no finite value", name))
			continue
		}
		sides := diffSides(metric.Of(m).Better, ax.Values[0], ax.Values[k])
		charts = append(charts, Chart{
			Name:     name,
			Title:    fmt.Sprintf("%s: %s minus %s", ax.Path, ax.Values[k], ax.Values[0]),
			XLabel:   axisLabel(&plan.Grid[x]),
			YLabel:   axisLabel(&plan.Grid[y]),
			ZLabel:   label, // the title and the scale's ends say it is a difference
			Stat:     "IQM difference, " + strings.TrimPrefix(stat, "IQM, "),
			Interval: "95% CI",
			Grid:     g,
			Sides:    &sides,
		})
	}
	return charts, warnings
}

// diffSides names the signs of b − a for a metric whose better direction
// is better: "a better" below zero and "b better" above when higher is
// better, the other way round when lower is, and "b lower" and "b higher"
// when neither is.
func diffSides(better metric.Better, a, b string) plots.Sides {
	switch better {
	case metric.Higher:
		return plots.Sides{Low: a + " better", High: b + " better"}
	case metric.Lower:
		return plots.Sides{Low: b + " better", High: a + " better"}
	}
	return plots.Sides{Low: b + " lower", High: b + " higher"}
}

// cells returns a grid over axes x and y (numbers ascending, categories
// in the scenario's order), named as the scenario writes the values,
// whose cell (i, j) holds cell(i, j), the interval of value i of x and j
// of y; false when a cell's value is not finite. Intervals are kept when
// keep is set, NaN in a cell that has none.
func (md metricData) cells(x, y int, keep bool, cell func(i, j int) stats.Interval) (*plots.Grid, bool) {
	ax, ay := &md.plan.Grid[x], &md.plan.Grid[y]
	xi, yi := ascending(ax), ascending(ay)
	g := &plots.Grid{Annotate: len(xi) <= 8 && len(yi) <= 8}
	for _, i := range xi {
		g.X = append(g.X, valueLabel(ax, i))
	}
	for _, j := range yi {
		g.Y = append(g.Y, valueLabel(ay, j))
		z, lo, hi := make([]float64, len(xi)), make([]float64, len(xi)), make([]float64, len(xi))
		for c, i := range xi {
			iv := cell(i, j)
			if !experiment.Finite(iv.Value) {
				return nil, false
			}
			z[c], lo[c], hi[c] = iv.Value, iv.Lo, iv.Hi
			if !experiment.Finite(iv.Lo) || !experiment.Finite(iv.Hi) {
				lo[c], hi[c] = math.NaN(), math.NaN()
			}
		}
		g.Z, g.Lo, g.Hi = append(g.Z, z), append(g.Lo, lo), append(g.Hi, hi)
	}
	if !keep {
		g.Lo, g.Hi = nil, nil
	}
	return g, true
}

// heatGrid returns the IQM of the metric over axes x and y, of the
// results whose point has value fix[1] on axis fix[0] when fix is given;
// false when a cell has no finite value.
func (md metricData) heatGrid(x, y int, fix []int) (*plots.Grid, bool) {
	return md.cells(x, y, false, func(i, j int) stats.Interval {
		axes, want := []int{x, y}, []int{i, j}
		if fix != nil {
			axes, want = append(axes, fix[0]), append(want, fix[1])
		}
		return stats.Default.CI(values(md.rs, md.m, md.scale, axes, want), stats.IQM)
	})
}

// diffGrid returns, over axes x and y, the IQM of the metric at value k
// of axis c minus its IQM at value 0, with the stratified bootstrap
// interval of the difference (each value's seeds resampled on their
// own); false when a cell has no finite value.
func (md metricData) diffGrid(x, y, c, k int) (*plots.Grid, bool) {
	return md.cells(x, y, true, func(i, j int) stats.Interval {
		at := func(v int) []float64 { return values(md.rs, md.m, md.scale, []int{x, y, c}, []int{i, j, v}) }
		return stats.Default.Diff(at(0), at(k), stats.IQM)
	})
}

// Draw draws c and saves it through cw: a heat map drawn without its
// values where they are too wide for the cells, points or lines.
func (c *Chart) Draw(cw *experiment.ChartWriter) error {
	spec := plots.Spec{Name: c.Name, Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, Stat: c.Stat, Interval: c.Interval, Size: "column"}
	if c.Page {
		spec.Size = "page"
	}
	switch {
	case c.Grid != nil:
		spec.Kind, spec.ZLabel, spec.Annotate = "heatmap", c.ZLabel, c.Grid.Annotate
		if c.Sides != nil {
			spec.Kind, spec.Low, spec.High = "diffmap", c.Sides.Low, c.Sides.High
		}
		err := cw.Draw(spec, plots.GridTable(*c.Grid))
		if err != nil && spec.Annotate {
			spec.Annotate = false // values too wide for the cells
			err = cw.Draw(spec, plots.GridTable(*c.Grid))
		}
		return err
	case c.Points != nil:
		spec.Kind = "points"
		return cw.Draw(spec, plots.BarsTable("iqm", c.Points))
	}
	spec.Kind = "lines"
	return cw.Draw(spec, plots.LinesTable(c.Series))
}
