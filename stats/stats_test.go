package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/stats"
)

// TestWilsonShare: a share of whole units is Wilson's interval of its
// count, a fractional one lies between its neighbours', and a share
// outside [0, 1] or of no units has none.
func TestWilsonShare(t *testing.T) {
	for _, tc := range []struct{ k, n int }{{0, 5}, {2, 5}, {5, 5}, {1, 66}, {40, 41}} {
		assert.Equal(t, stats.Wilson(tc.k, tc.n), stats.WilsonShare(float64(tc.k)/float64(tc.n), tc.n), "%d of %d", tc.k, tc.n)
	}
	mid, lo, hi := stats.WilsonShare(2.5/5, 5), stats.Wilson(2, 5), stats.Wilson(3, 5)
	assert.Equal(t, 0.5, mid.Value)
	assert.True(t, lo.Lo < mid.Lo && mid.Lo < hi.Lo && lo.Hi < mid.Hi && mid.Hi < hi.Hi, "%v between %v and %v", mid, lo, hi)
	for _, iv := range []stats.Interval{stats.WilsonShare(-0.1, 5), stats.WilsonShare(1.1, 5), stats.WilsonShare(math.NaN(), 5), stats.WilsonShare(0.5, 0)} {
		assert.True(t, math.IsNaN(iv.Value) && math.IsNaN(iv.Lo) && math.IsNaN(iv.Hi), "%v", iv)
	}
}

func TestWilson(t *testing.T) {
	// Known values (R: binom::binom.wilson).
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.27753},
		{5, 10, 0.23659, 0.76341},
		{10, 10, 0.72247, 1},
		{1, 3, 0.06149, 0.79234},
	} {
		iv := stats.Wilson(tc.k, tc.n)
		assert.InDelta(t, float64(tc.k)/float64(tc.n), iv.Value, 1e-15)
		assert.InDelta(t, tc.lo, iv.Lo, 5e-5, "%d/%d", tc.k, tc.n)
		assert.InDelta(t, tc.hi, iv.Hi, 5e-5, "%d/%d", tc.k, tc.n)
	}
	// Inside [0, 1] and holding k/n for every k and n, with exact ends:
	// 100% success at n = 30 or 300 must not give a bound below the rate.
	for n := 1; n <= 300; n++ {
		for k := 0; k <= n; k++ {
			iv := stats.Wilson(k, n)
			require.True(t, 0 <= iv.Lo && iv.Lo <= iv.Value && iv.Value <= iv.Hi && iv.Hi <= 1, "%d/%d: %+v", k, n, iv)
		}
		assert.Equal(t, 1.0, stats.Wilson(n, n).Hi)
		assert.Equal(t, 1.0, stats.Wilson(n, n).Value)
		assert.Equal(t, 0.0, stats.Wilson(0, n).Lo)
	}
	for _, iv := range []stats.Interval{stats.Wilson(0, 0), stats.Wilson(0, -1)} {
		assert.True(t, math.IsNaN(iv.Value) && math.IsNaN(iv.Lo) && math.IsNaN(iv.Hi), "no trials: %+v", iv)
	}
	assert.True(t, math.IsNaN(stats.Wilson(3, 2).Value))
}

func TestStatistics(t *testing.T) {
	for _, tc := range []struct {
		xs                []float64
		mean, median, iqm float64
	}{
		{[]float64{4, 1, 3, 2}, 2.5, 2.5, 2.5},
		{[]float64{1, 2, 3, 100}, 26.5, 2.5, 2.5},
		// n = 8: trim two from each end.
		{[]float64{8, 7, 6, 5, 4, 3, 2, -100}, -65.0 / 8, 4.5, 4.5},
		// n = 3: quartiles at 0.75 and 2.25; weights 1/4, 1, 1/4.
		{[]float64{0, 1, 10}, 11.0 / 3, 1, (0.25*0 + 1 + 0.25*10) / 1.5},
		{[]float64{7}, 7, 7, 7},
	} {
		assert.InDelta(t, tc.mean, stats.Mean(append([]float64(nil), tc.xs...)), 1e-12, "%v", tc.xs)
		assert.InDelta(t, tc.median, stats.Median(append([]float64(nil), tc.xs...)), 1e-12, "%v", tc.xs)
		assert.InDelta(t, tc.iqm, stats.IQM(append([]float64(nil), tc.xs...)), 1e-12, "%v", tc.xs)
	}
	for _, f := range []stats.Statistic{stats.Mean, stats.Median, stats.IQM} {
		assert.True(t, math.IsNaN(f(nil)))
	}
}

// Percentile intervals lie between the data's minimum and maximum, so
// inside any convex domain, for every statistic and sample size.
func TestBootstrapInsideTheData(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 5, 20} {
		for range 50 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = r.Float64() // success rates, say: in [0, 1]
			}
			lo, hi := minMax(xs)
			for name, f := range map[string]stats.Statistic{"mean": stats.Mean, "median": stats.Median, "iqm": stats.IQM} {
				iv := stats.Default.CI(xs, f)
				require.True(t, lo <= iv.Lo && iv.Lo <= iv.Hi && iv.Hi <= hi, "%s of %v: %+v", name, xs, iv)
				require.True(t, iv.Contains(iv.Value) || n < 3, "%s of %v: %+v", name, xs, iv)
			}
		}
	}
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func TestBootstrapDeterministic(t *testing.T) {
	xs := []float64{3.1, 1.4, 4.1, 1.5, 5.9, 9.2, 2.6, 6.5, 3.5, 8.9, 7.9, 3.2}
	a := stats.Default.CI(xs, stats.IQM)
	b := stats.Default.CI(xs, stats.IQM)
	assert.Equal(t, a, b)
	assert.Equal(t, []float64{3.1, 1.4, 4.1, 1.5, 5.9, 9.2, 2.6, 6.5, 3.5, 8.9, 7.9, 3.2}, xs, "the data are not reordered")
	other := stats.Default
	other.Seed++
	assert.NotEqual(t, a, other.CI(xs, stats.IQM), "the seed matters")
	one := stats.Default.CI([]float64{2}, stats.Mean)
	assert.Equal(t, 2.0, one.Value)
	assert.True(t, math.IsNaN(one.Lo) && math.IsNaN(one.Hi))
}

// coverage draws m samples of size n of standard normal values,
// computes the 95% interval of stat on each (b resamples), and returns the
// fraction that holds 0, the true mean, median and IQM by symmetry.
func coverage(seed uint64, m, n, b int, stat stats.Statistic) float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	hits := 0
	xs := make([]float64, n)
	bs := stats.Bootstrap{Resamples: b, Level: 0.95}
	for k := range m {
		for i := range xs {
			xs[i] = r.NormFloat64()
		}
		bs.Seed = uint64(k) // each replicate its own resampling stream
		if bs.CI(xs, stat).Contains(0) {
			hits++
		}
	}
	return float64(hits) / float64(m)
}

// TestBootstrapCoverage checks the 95% percentile bootstrap against a
// known distribution, the standard normal: the fraction of m intervals
// that hold the true value must be within 2.576 Monte-Carlo standard
// errors, sqrt(0.95·0.05/m), of 0.95 (a two-sided binomial test at alpha
// = 0.01): ±0.018 for the mean (m = 1,000 samples of n = 100) and ±0.028
// for the IQM (m = 400 samples of n = 40, fewer because each resample is
// sorted). The percentile interval's known small-sample shortfall (its
// width uses the plug-in standard deviation and a normal quantile, so
// coverage ≈ P(|t_99| < 1.95) = 0.946 for the mean at n = 100) is inside
// that error. Two seeds: the second was not used while writing the test.
func TestBootstrapCoverage(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	for _, seed := range []uint64{1, 2} {
		for _, tc := range []struct {
			name    string
			stat    stats.Statistic
			m, n, b int
		}{
			{"mean", stats.Mean, 1000, 100, 300},
			{"iqm", stats.IQM, 400, 40, 300},
		} {
			c := coverage(seed, tc.m, tc.n, tc.b, tc.stat)
			tol := 2.576 * math.Sqrt(0.95*0.05/float64(tc.m))
			t.Logf("seed %d, %s: coverage %.3f (want 0.95 ± %.3f)", seed, tc.name, c, tol)
			assert.InDelta(t, 0.95, c, tol, "seed %d, %s", seed, tc.name)
		}
	}
}

// The paired and stratified differences cover the true difference too:
// b = a + 0.3 + noise (paired), and two independent normal samples whose
// means differ by 0.3 (stratified), m = 600 times with n = 100: within
// 2.576·sqrt(0.95·0.05/600) = ±0.023 of 0.95 (binomial test, alpha 0.01).
func TestDiffCoverage(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	const m, n = 600, 100
	tol := 2.576 * math.Sqrt(0.95*0.05/m)
	r := rand.New(rand.NewPCG(3, 4))
	var paired, strat int
	a, b := make([]float64, n), make([]float64, n)
	bs := stats.Bootstrap{Resamples: 200, Level: 0.95}
	for k := range m {
		for i := range a {
			a[i] = 10 * r.NormFloat64() // shared draws: large, cancel in pairs
			b[i] = a[i] + 0.3 + r.NormFloat64()
		}
		bs.Seed = uint64(k)
		if bs.PairedDiff(a, b).Contains(0.3) {
			paired++
		}
		for i := range a {
			a[i], b[i] = r.NormFloat64(), 0.3+r.NormFloat64()
		}
		if bs.Diff(a, b, stats.Mean).Contains(0.3) {
			strat++
		}
	}
	t.Logf("paired %.3f, stratified %.3f", float64(paired)/m, float64(strat)/m)
	assert.InDelta(t, 0.95, float64(paired)/m, tol)
	assert.InDelta(t, 0.95, float64(strat)/m, tol)
}

// TestDiffExcludesZeroByChance measures how often the stratified
// difference of two samples of the same distribution (standard normal)
// excludes 0, the rate at which a comparison of few seeds, or a
// difference map's cell, is marked by chance (docs/statistics.md). With
// two values a side, the interval is [min b − max a, max b − min a] up
// to the resampling, so it excludes 0 exactly when the samples do not
// overlap: 2·(2!·2!/4!) = 1/3 (a binomial test at alpha 0.01). The rate
// falls as n grows, towards the nominal 5% and above it: the percentile
// interval is too narrow for small samples (at n = 10, about
// P(|t₁₈| > 1.96·sqrt(9/10)) = 8%). m = 2,000 datasets each.
func TestDiffExcludesZeroByChance(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	const m = 2000
	r := rand.New(rand.NewPCG(5, 6))
	bs := stats.Bootstrap{Resamples: 2000, Level: 0.95}
	rate := map[int]float64{}
	for _, n := range []int{2, 3, 5, 10} {
		a, b := make([]float64, n), make([]float64, n)
		out := 0
		for k := range m {
			for i := range a {
				a[i], b[i] = r.NormFloat64(), r.NormFloat64()
			}
			bs.Seed = uint64(k)
			if !bs.Diff(a, b, stats.Mean).Contains(0) {
				out++
			}
		}
		rate[n] = float64(out) / m
	}
	t.Logf("excludes 0 under the null: %v", rate)
	assert.InDelta(t, 1.0/3, rate[2], 2.576*math.Sqrt(1.0/3*2.0/3/m))
	assert.Greater(t, rate[2], rate[3])
	assert.Greater(t, rate[3], rate[5])
	assert.Greater(t, rate[10], 0.05, "above the nominal rate")
}

func TestProbImprovement(t *testing.T) {
	assert.Equal(t, 1.0, stats.ProbImprovement([]float64{1, 2}, []float64{3, 4}))
	assert.Equal(t, 0.0, stats.ProbImprovement([]float64{3, 4}, []float64{1, 2}))
	assert.Equal(t, 0.5, stats.ProbImprovement([]float64{1, 2}, []float64{1, 2}))
	// b = {2}: beats 1, ties 2, loses to 3.
	assert.Equal(t, 0.5, stats.ProbImprovement([]float64{1, 2, 3}, []float64{2}))
	// Two wins, a tie and a loss.
	assert.Equal(t, 0.625, stats.PairedProbImprovement([]float64{1, 1, 1, 1}, []float64{2, 2, 1, 0.5}))
	assert.True(t, math.IsNaN(stats.ProbImprovement(nil, []float64{1})))
	assert.True(t, math.IsNaN(stats.PairedProbImprovement([]float64{1}, []float64{1, 2})))
}

func TestProfile(t *testing.T) {
	xs := []float64{0.1, 0.5, 0.9, math.NaN()}
	p := stats.Default.Profile(xs, []float64{0, 0.5, 1})
	require.Len(t, p, 3)
	// Strictly above: 0.5 does not exceed 0.5.
	assert.Equal(t, []float64{1, 1.0 / 3, 0}, []float64{p[0].Value, p[1].Value, p[2].Value})
	for _, iv := range p {
		assert.True(t, 0 <= iv.Lo && iv.Lo <= iv.Value && iv.Value <= iv.Hi && iv.Hi <= 1, "%+v", iv)
	}
}

func TestAggregate(t *testing.T) {
	a := stats.Default.Aggregate([]float64{1, 2, 3, 4, math.Inf(1)})
	assert.Equal(t, 4, a.N)
	assert.Equal(t, 2.5, a.Mean.Value)
	assert.Equal(t, 2.5, a.Median.Value)
	assert.Equal(t, 2.5, a.IQM.Value)
	assert.True(t, a.IQM.Lo >= 1 && a.IQM.Hi <= 4)
}

// TestLastTenth: a tenth rounded down, at least one, none of nothing.
func TestLastTenth(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 0}, {1, 1}, {9, 1}, {10, 1}, {19, 1}, {20, 2}, {100, 10}, {105, 10}} {
		xs := make([]int, tc.n)
		for i := range xs {
			xs[i] = i
		}
		got := stats.LastTenth(xs)
		require.Len(t, got, tc.want, "n=%d", tc.n)
		if tc.want > 0 {
			assert.Equal(t, tc.n-1, got[len(got)-1], "n=%d: the tenth ends at the last", tc.n)
		}
	}
}

// TestPercentileInterval checks the interval's quantiles (type 7) by hand:
// the statistic returns 7 for the estimate, then 10, 2, 8, 4, 6 for the
// resamples, whatever they draw, so the bounds are quantiles of 2, 4, ..., 10.
func TestPercentileInterval(t *testing.T) {
	for _, tc := range []struct {
		level, lo, hi float64
	}{
		// q = 0.05: h = 0.05·4 = 0.2, 2 + 0.2·(4 − 2); q = 0.95: h = 3.8.
		{0.9, 2.4, 9.6},
		{0.5, 4, 8},
		{1, 2, 10}, // the extremes: q = 0 and q = 1
	} {
		script := []float64{7, 10, 2, 8, 4, 6}
		calls := 0
		iv := stats.Bootstrap{Resamples: 5, Seed: 1, Level: tc.level}.Units(3, func([]int) float64 {
			calls++
			return script[calls-1]
		})
		assert.Equal(t, 6, calls, "the estimate and five resamples")
		assert.Equal(t, 7.0, iv.Value)
		assert.InDelta(t, tc.lo, iv.Lo, 1e-12, "level %v", tc.level)
		assert.InDelta(t, tc.hi, iv.Hi, 1e-12, "level %v", tc.level)
	}
}

// TestDiffByHand: samples of one repeated value resample to themselves,
// so the difference and both bounds are known; a single value on both
// sides gives no interval, on one side only it does.
func TestDiffByHand(t *testing.T) {
	bs := stats.Bootstrap{Resamples: 50, Seed: 1, Level: 0.95}
	iv := bs.Diff([]float64{10, 10}, []float64{1, 1}, stats.Mean)
	assert.Equal(t, stats.Interval{Value: -9, Lo: -9, Hi: -9}, iv)

	// One value on either side says nothing of that side's spread: the
	// difference has no interval.
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1}, []float64{4}, 3},
		{[]float64{1, 3}, []float64{4}, 2},
		{[]float64{1}, []float64{4, 6}, 4},
	} {
		iv := bs.Diff(tc.a, tc.b, stats.Mean)
		assert.Equal(t, tc.want, iv.Value, "%v, %v", tc.a, tc.b)
		assert.True(t, math.IsNaN(iv.Lo) && math.IsNaN(iv.Hi), "%v, %v: %+v", tc.a, tc.b, iv)
	}
	two := bs.Diff([]float64{1, 3}, []float64{4, 6}, stats.Mean)
	assert.True(t, two.Lo <= two.Value && two.Value <= two.Hi && two.Lo < two.Hi, "%+v", two)

	// The pairs' differences are 3 and 4.
	p := bs.PairedDiff([]float64{1, 2}, []float64{4, 6})
	assert.Equal(t, 3.5, p.Value)
	assert.True(t, 3 <= p.Lo && p.Hi <= 4, "%+v", p)
	assert.True(t, math.IsNaN(bs.PairedDiff([]float64{1}, []float64{1, 2}).Value))
}

// TestIntervalMethods: Contains includes both ends; Scale multiplies all
// three parts, and a negative factor keeps Lo ≤ Hi.
func TestIntervalMethods(t *testing.T) {
	iv := stats.Interval{Value: 1, Lo: 0.5, Hi: 2}
	for x, want := range map[float64]bool{0.4: false, 0.5: true, 1: true, 2: true, 2.1: false} {
		assert.Equal(t, want, iv.Contains(x), "%v", x)
	}
	assert.Equal(t, stats.Interval{Value: 3, Lo: 1.5, Hi: 6}, iv.Scale(3))
	assert.Equal(t, stats.Interval{Value: -3, Lo: -6, Hi: -1.5}, iv.Scale(-3))
	assert.Equal(t, stats.Interval{}, iv.Scale(0))
}

// CI computes the statistic of each ordered resample of two to four values
// once: the interval is, to the bit, the one computed at every draw, also
// for a statistic that depends on the values' order.
func TestCIRemembersResamples(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	firstMinusLast := func(v []float64) float64 { return v[0] - 2*v[len(v)-1] }
	bits := func(iv stats.Interval) [3]uint64 {
		return [3]uint64{math.Float64bits(iv.Value), math.Float64bits(iv.Lo), math.Float64bits(iv.Hi)}
	}
	for n := 1; n <= 6; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64()
		}
		for name, stat := range map[string]stats.Statistic{"mean": stats.Mean, "median": stats.Median, "iqm": stats.IQM, "first minus last": firstMinusLast} {
			res := make([]float64, n)
			want := stats.Default.Units(n, func(idx []int) float64 {
				for i, j := range idx {
					res[i] = xs[j]
				}
				return stat(res)
			})
			assert.Equal(t, bits(want), bits(stats.Default.CI(xs, stat)), "%d values, %s", n, name)
		}
	}
}

// Of two to four values CI computes the statistic at most once for each
// ordered resample, not at each of the 2,000 draws.
func TestCIComputesEachResampleOnce(t *testing.T) {
	for n := 2; n <= 4; n++ {
		calls := 0
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i) // distinct: n copies of one value take no resample at all
		}
		stats.Default.CI(xs, func(v []float64) float64 { calls++; return v[0] })
		tuples := int(math.Pow(float64(n), float64(n)))
		assert.LessOrEqual(t, calls, tuples, "%d values", n)
	}
}

// unitsCI is CI as Units defines it: the statistic of each resample of
// the values, in the order drawn, with nothing remembered or skipped.
func unitsCI(xs []float64, stat stats.Statistic) stats.Interval {
	res := make([]float64, len(xs))
	return stats.Default.Units(len(xs), func(idx []int) float64 {
		for i, j := range idx {
			res[i] = xs[j]
		}
		return stat(res)
	})
}

// TestAggregateIsThreeIntervals: Aggregate's three intervals, drawn from
// one set of resamples, are to the bit those of three separate
// bootstraps, for counts that take the remembered resamples (2 to 4),
// that do not, and copies of one value (whose resamples are all alike, so
// none is drawn); infinite values are left out first.
func TestAggregateIsThreeIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	bits := func(iv stats.Interval) [3]uint64 {
		return [3]uint64{math.Float64bits(iv.Value), math.Float64bits(iv.Lo), math.Float64bits(iv.Hi)}
	}
	for trial := range 60 {
		n := trial%9 + 1
		xs := make([]float64, n)
		for i := range xs {
			switch {
			case trial%3 == 0:
				xs[i] = 0.1 // copies of one value, whose mean is not exactly 0.1 from every sum
			case trial%4 == 1 && i == 0:
				xs[i] = math.Inf(-1)
			default:
				xs[i] = math.Round(r.NormFloat64()*100) / 7
			}
		}
		a := stats.Default.Aggregate(xs)
		finite := stats.Finite(xs)
		assert.Equal(t, len(finite), a.N)
		for name, c := range map[string]struct {
			got  stats.Interval
			stat stats.Statistic
		}{"mean": {a.Mean, stats.Mean}, "median": {a.Median, stats.Median}, "iqm": {a.IQM, stats.IQM}} {
			want := unitsCI(finite, c.stat)
			assert.Equal(t, bits(want), bits(c.got), "trial %d, %s of %v", trial, name, xs)
			assert.Equal(t, bits(want), bits(stats.Default.CI(finite, c.stat)), "trial %d, CI's %s of %v", trial, name, xs)
		}
	}
}

// TestCIOfCopiesOfOneValue: n copies of a value need no resample, and the
// interval is still the one every resample would give, also for 0 and
// −0 mixed (which are not copies: their sums differ in sign).
func TestCIOfCopiesOfOneValue(t *testing.T) {
	calls := 0
	counted := func(v []float64) float64 { calls++; return stats.Mean(v) }
	// From two copies up, the fewest that give an interval at all; two to
	// four copies would otherwise take the remembered resamples, which
	// still compute up to n^n of them.
	for n := 2; n <= 7; n++ {
		copies := slices.Repeat([]float64{0.1}, n)
		calls = 0
		iv := stats.Default.CI(copies, counted)
		assert.Equal(t, 1, calls, "%d copies: the estimate only", n)
		assert.Equal(t, unitsCI(copies, stats.Mean), iv, "%d copies", n)
	}
	mixed := []float64{0, math.Copysign(0, -1), 0, 0, 0}
	calls = 0
	stats.Default.CI(mixed, counted)
	assert.Greater(t, calls, 1, "0 and −0 are resampled")

	// A statistic that overflows: the median of two copies of 1e308 is
	// +Inf, and so are its bounds, with or without resampling.
	huge := []float64{1e308, 1e308}
	inf := stats.Interval{Value: math.Inf(1), Lo: math.Inf(1), Hi: math.Inf(1)}
	assert.Equal(t, inf, stats.Default.CI(huge, stats.Median))
	assert.Equal(t, inf, unitsCI(huge, stats.Median))
}

// TestBootstrapRefusesNoInterval: a Bootstrap without resamples or with a
// level outside [0, 1] panics where it would resample, rather than give
// NaN bounds or none at all.
func TestBootstrapRefusesNoInterval(t *testing.T) {
	xs, same := []float64{1, 2, 3, 5, 8}, []float64{2, 2, 2}
	for _, b := range []stats.Bootstrap{{}, {Resamples: 10, Level: 1.5}, {Resamples: 10, Level: -0.1}, {Resamples: 10, Level: math.NaN()}} {
		assert.Panics(t, func() { b.CI(xs, stats.Mean) }, "%+v", b)
		assert.Panics(t, func() { b.CI(same, stats.Mean) }, "%+v, copies of one value", b)
		assert.Panics(t, func() { b.Diff(xs, same, stats.Mean) }, "%+v, Diff", b)
	}
	assert.NotPanics(t, func() { stats.Bootstrap{Resamples: 1, Level: 1}.CI(xs, stats.Mean) }, "the widest level")
	assert.NotPanics(t, func() { stats.Bootstrap{Resamples: 1, Level: 0}.CI(xs, stats.Mean) }, "the narrowest")
	assert.NotPanics(t, func() { stats.Bootstrap{}.CI([]float64{4}, stats.Mean) }, "one value: no interval, nothing resampled")
}

// BenchmarkAggregate: the three intervals of one summary.csv row, over
// five seeds that differ and five that agree (most of a training's rows).
func BenchmarkAggregate(b *testing.B) {
	for _, bc := range []struct {
		name string
		xs   []float64
	}{{"differ", []float64{0.3, 1.7, 0.9, 2.2, 1.1}}, {"agree", []float64{1, 1, 1, 1, 1}}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				stats.Default.Aggregate(bc.xs)
			}
		})
	}
}
