package plots_test

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/plots"
)

// Fixtures: small deterministic result tables shaped like swarmsim's.

func learningCurves() []plots.Series {
	orgs := []struct {
		name          string
		start, end, t float64
	}{{"team", 2, 9, 12}, {"hierarchy", 3, 7.5, 6}, {"swarm", 1, 8.2, 25}}
	var out []plots.Series
	for k, o := range orgs {
		s := plots.Series{Name: o.name}
		for i := 0; i <= 60; i += 2 {
			x := float64(i)
			y := o.end - (o.end-o.start)*math.Exp(-x/o.t) + 0.15*math.Sin(x/3+float64(k))
			w := 1.6 / math.Sqrt(x/4+1)
			s.X = append(s.X, x)
			s.Y = append(s.Y, y)
			s.Lo = append(s.Lo, y-w)
			s.Hi = append(s.Hi, y+w)
		}
		out = append(out, s)
	}
	return out
}

func finishTimes() []plots.Bar {
	return []plots.Bar{
		{Label: "solo", Mean: 42.5, Lo: 39.1, Hi: 46.0},
		{Label: "pair", Mean: 27.3, Lo: 25.0, Hi: 29.9},
		{Label: "team", Mean: 18.9, Lo: 17.2, Hi: 20.4},
		{Label: "hierarchy", Mean: 21.4, Lo: 19.0, Hi: 24.2},
	}
}

// longBars have labels too long to stand under vertical bars.
func longBars() []plots.Bar {
	return []plots.Bar{
		{Label: "flat organization", Mean: 3.1, Lo: 2.2, Hi: 4},
		{Label: "strict hierarchy", Mean: 2, Lo: 1.5, Hi: 2.5},
		{Label: "self-organizing swarm", Mean: 4.2, Lo: 3, Hi: 5.1},
		{Label: "manager with critics", Mean: 1.4, Lo: 1.4, Hi: 1.4},
	}
}

// allOrganizations are points over the eight fixed organizations, whose
// names are wider than the room each has on a column-wide chart: a sweep
// over policy.organization lost its charts to overlapping labels.
func allOrganizations() []plots.Bar {
	names := []string{"sequential", "single", "independent", "split", "centralized", "team", "hybrid", "decentralized"}
	out := make([]plots.Bar, len(names))
	for i, n := range names {
		m := 40 + 5*float64(i%3)
		out[i] = plots.Bar{Label: n, Mean: m, Lo: m - 4, Hi: m + 3}
	}
	return out
}

// rewardDiffs are differences B − A of a mean reward, on either side of 0,
// whose lowest whisker is the chart's extreme (issue 26: it ended on the
// axis).
func rewardDiffs() []plots.Bar {
	return []plots.Bar{
		{Label: "none", Mean: -0.099, Lo: -0.180, Hi: -0.018},
		{Label: "low", Mean: -0.066, Lo: -0.137, Hi: 0.005},
		{Label: "medium", Mean: -0.063, Lo: -0.134, Hi: 0.009},
		{Label: "high", Mean: 0.02, Lo: -0.02, Hi: 0.06},
	}
}

func trace() ([]plots.Span, []plots.Flow) {
	spans := []plots.Span{
		{Row: "lead", Start: 0, End: 1, Kind: "spawn"},
		{Row: "lead", Start: 1, End: 4, Kind: "work", Label: "plan"},
		{Row: "lead", Start: 4, End: 5, Kind: "message"},
		{Row: "lead", Start: 5, End: 12, Kind: "wait"},
		{Row: "lead", Start: 12, End: 15, Kind: "check", Label: "review"},
		{Row: "worker 1", Start: 1, End: 5, Kind: "wait"},
		{Row: "worker 1", Start: 5, End: 10, Kind: "work", Label: "task A"},
		{Row: "worker 1", Start: 10, End: 11, Kind: "message"},
		{Row: "worker 2", Start: 1, End: 5, Kind: "wait"},
		{Row: "worker 2", Start: 5, End: 9, Kind: "work", Label: "task B"},
		{Row: "worker 2", Start: 9, End: 11, Kind: "check"},
		{Row: "worker 2", Start: 11, End: 11.5, Kind: "message"},
		{Row: "critic", Start: 3, End: 5, Kind: "wait"},
		{Row: "critic", Start: 11, End: 13, Kind: "check", Label: "critique"},
	}
	flows := []plots.Flow{
		{FromRow: "lead", From: 4.5, ToRow: "worker 1", To: 5},
		{FromRow: "lead", From: 4.7, ToRow: "worker 2", To: 5},
		{FromRow: "worker 1", From: 10.5, ToRow: "lead", To: 12},
		{FromRow: "worker 2", From: 11.2, ToRow: "critic", To: 11.4},
	}
	return spans, flows
}

func sweepGrid() plots.Grid {
	g := plots.Grid{
		X:        []string{"6s", "30s", "1m", "2m", "5m"},
		Y:        []string{"2", "4", "8", "16"},
		Annotate: true,
	}
	for _, n := range []float64{2, 4, 8, 16} {
		var row []float64
		for _, c := range []float64{0.1, 0.5, 1, 2, 5} {
			row = append(row, math.Round((60/n+c*math.Log2(n)*3)*10)/10)
		}
		g.Z = append(g.Z, row)
	}
	return g
}

// built is a chart built from the fixtures, with the data behind it.
type built struct {
	name  string
	plot  *plot.Plot
	table plots.Table
}

// buildAll builds one chart of each kind at size.
func buildAll(size plots.Size) ([]built, error) {
	var out []built
	add := func(name string, p *plot.Plot, t plots.Table, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, built{name, p, t})
		return nil
	}
	series := learningCurves()
	p, err := plots.Lines(plots.Chart{XLabel: "training iteration", YLabel: "episode reward (points)", Size: size}, series)
	if err := add("lines", p, plots.LinesTable(series), err); err != nil {
		return nil, err
	}
	scaling := teamScaling()
	p, err = plots.Scaling(plots.Chart{XLabel: "team size (agents)", YLabel: "iterations to target", Size: size}, scaling)
	if err := add("scaling", p, plots.LinesTable(scaling), err); err != nil {
		return nil, err
	}
	bars := finishTimes()
	p, err = plots.Bars(plots.Chart{XLabel: "organization", YLabel: "finish time (min)", Size: size}, bars)
	if err := add("bars", p, plots.BarsTable("mean", bars), err); err != nil {
		return nil, err
	}
	p, err = plots.Points(plots.Chart{XLabel: "organization", YLabel: "finish time (min)", Stat: "IQM", Size: size}, bars)
	if err := add("points", p, plots.BarsTable("mean", bars), err); err != nil {
		return nil, err
	}
	orgs := allOrganizations()
	p, err = plots.Points(plots.Chart{XLabel: "organization", YLabel: "finish time (min)", Stat: "IQM", Size: size}, orgs)
	if err := add("vpoints", p, plots.BarsTable("mean", orgs), err); err != nil {
		return nil, err
	}
	long := longBars()
	p, err = plots.Bars(plots.Chart{XLabel: "organization", YLabel: "cost per task (USD)", Size: size}, long)
	if err := add("hbars", p, plots.BarsTable("mean", long), err); err != nil {
		return nil, err
	}
	diffs := rewardDiffs()
	p, err = plots.Bars(plots.Chart{YLabel: "mean reward, high – none", Difference: true, Size: size}, diffs)
	if err := add("diffbars", p, plots.BarsTable("mean", diffs), err); err != nil {
		return nil, err
	}
	spans, flows := trace()
	p, err = plots.Timeline(plots.Chart{XLabel: "simulated time (min)", Size: size}, spans, flows)
	if err := add("timeline", p, plots.TimelineTable(spans, flows), err); err != nil {
		return nil, err
	}
	g := sweepGrid()
	p, err = plots.Heatmap(plots.Chart{XLabel: "message cost (min)", YLabel: "team size (agents)", ZLabel: "finish time (min)", Size: size}, g)
	if err := add("heatmap", p, plots.GridTable(g), err); err != nil {
		return nil, err
	}
	d := organizationDiff()
	p, err = plots.DiffMap(plots.Chart{XLabel: "coupling", YLabel: "message size (tokens)", ZLabel: "difference in reward",
		Stat: "IQM difference, 10 seeds", Size: size}, d, plots.Sides{Low: "split better", High: "team better"})
	if err := add("diffmap", p, plots.GridTable(d), err); err != nil {
		return nil, err
	}
	obs, fitted := latencyFit()
	p, err = plots.CDF(plots.Chart{XLabel: "call latency (s)", YLabel: "P(latency <= x)", Size: size}, obs, fitted, true)
	if err := add("cdf", p, plots.LinesTable(append([]plots.Series{obs}, fitted...)), err); err != nil {
		return nil, err
	}
	return out, nil
}

// organizationDiff is the difference in reward of two organizations over
// coupling and message size: positive where coupling is moderate and
// messages small, negative beside, near zero at no coupling; the interval
// is as wide as 0.15 everywhere, so that some cells exclude zero and some
// do not.
func organizationDiff() plots.Grid {
	g := plots.Grid{
		X:        []string{"0", "0.05", "0.25", "1"},
		Y:        []string{"300", "3000", "30000"},
		Annotate: true,
	}
	for i, size := range []float64{300, 3000, 30000} {
		var z, lo, hi []float64
		for j, c := range []float64{0, 0.05, 0.25, 1} {
			v := math.Round((c*(1-c)*4-0.3*float64(i)*c-0.0017*float64(j))*1000) / 1000
			v -= 0.2 * size / 30000
			z, lo, hi = append(z, v), append(lo, v-0.15), append(hi, v+0.15)
		}
		g.Z, g.Lo, g.Hi = append(g.Z, z), append(g.Lo, lo), append(g.Hi, hi)
	}
	return g
}

// teamScaling is a measure at doubling team sizes: one estimator's grows
// linearly, the other's logarithmically, with bands.
func teamScaling() []plots.Series {
	sizes := []float64{2, 4, 8, 16, 32}
	linear := plots.Series{Name: "global reward"}
	logarithmic := plots.Series{Name: "local rewards"}
	for _, n := range sizes {
		linear.X, linear.Y = append(linear.X, n), append(linear.Y, 3*n)
		linear.Lo, linear.Hi = append(linear.Lo, 2.5*n), append(linear.Hi, 3.5*n)
		l := 10 * math.Log2(n)
		logarithmic.X, logarithmic.Y = append(logarithmic.X, n), append(logarithmic.Y, l)
		logarithmic.Lo, logarithmic.Hi = append(logarithmic.Lo, l-3), append(logarithmic.Hi, l+3)
	}
	return []plots.Series{linear, logarithmic}
}

// latencyFit is a heavy-tailed latency sample (most calls near 1 s, a
// few near 18 s) with two fitted CDFs: one lognormal, one mixture.
func latencyFit() (plots.Series, []plots.Series) {
	var sample []float64
	for i := range 40 {
		u := (float64(i) + 0.5) / 40
		v := math.Exp(0.6 * (u - 0.5) * 3)
		if i%8 == 7 {
			v *= 18
		}
		sample = append(sample, v)
	}
	obs, err := plots.ECDF("observed", sample)
	if err != nil {
		panic(err)
	}
	lognormal := plots.Series{Name: "lognormal"}
	mixture := plots.Series{Name: "mixture"}
	for x := 0.3; x < 60; x *= 1.15 {
		z := math.Log(x) / 1.3
		lognormal.X = append(lognormal.X, x)
		lognormal.Y = append(lognormal.Y, 0.5*math.Erfc(-z/math.Sqrt2))
		z1, z2 := math.Log(x)/0.5, (math.Log(x)-math.Log(18))/0.5
		mixture.X = append(mixture.X, x)
		mixture.Y = append(mixture.Y, 0.875*0.5*math.Erfc(-z1/math.Sqrt2)+0.125*0.5*math.Erfc(-z2/math.Sqrt2))
	}
	return obs, []plots.Series{lognormal, mixture}
}
