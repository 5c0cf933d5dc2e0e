package calibrate

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// TestFitRecovers draws samples from known distributions and requires the
// fit to choose the family and recover its parameters, on 10 seeds each.
// The tolerance is 4 standard errors of the estimator at n = 1000.
func TestFitRecovers(t *testing.T) {
	const n = 1000
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 42))
		ln := distuv.LogNormal{Mu: 0.3, Sigma: 0.8, Src: r}
		g := distuv.Gamma{Alpha: 3, Beta: 2, Src: r}
		var xl, xg, xm []float64
		for range n {
			xl = append(xl, ln.Rand())
			xg = append(xg, g.Rand())
			if r.Float64() < 0.8 {
				xm = append(xm, math.Exp(r.NormFloat64()*0.3))
			} else {
				xm = append(xm, math.Exp(3+r.NormFloat64()*0.5))
			}
		}
		cl, err := FitPositive(xl)
		require.NoError(t, err)
		d := cl.Best()
		assert.Equal(t, LogNormal, d.Family, "seed %d: %s", seed, cl.Why)
		assert.InDelta(t, 0.3, d.Mu, 4*0.8/math.Sqrt(n))
		assert.InDelta(t, 0.8, d.Sigma, 4*0.8/math.Sqrt(2*n))
		assert.Less(t, d.KS, 1.63/math.Sqrt(n), "KS below the 1% critical value")

		cg, err := FitPositive(xg)
		require.NoError(t, err)
		d = cg.Best()
		assert.Equal(t, Gamma, d.Family, "seed %d: %s", seed, cg.Why)
		assert.InDelta(t, 3, d.Shape, 4*0.127) // se of the MLE shape: sqrt(k/(n(kψ'(k)−1))) = 0.127 at k = 3
		assert.InDelta(t, 1.5, d.Mean(), 4*math.Sqrt(3)/2/math.Sqrt(n))

		cm, err := FitPositive(xm)
		require.NoError(t, err)
		d = cm.Best()
		assert.Equal(t, Mixture, d.Family, "seed %d: %s", seed, cm.Why)
		assert.InDelta(t, 0.8, d.W, 4*math.Sqrt(0.16/n))
		assert.InDelta(t, 0, d.Mu, 0.05)
		assert.InDelta(t, 3, d.Mu2, 0.15)
		sd := cm.BestSim()
		assert.InDelta(t, d.Mean(), sd.Mean(), 1e-3*d.Mean(), "the scenario's mixture has the fit's mean (to 4 digits)")
	}
}

// TestMixtureWeightRoundsToOne: a mixture whose weight rounds to 1 is
// written as its first component, which a scenario reads back (it refuses
// a weight of 1, whose second component is never drawn).
func TestMixtureWeightRoundsToOne(t *testing.T) {
	d := Dist{Family: Mixture, W: 0.99996, Mu: 0, Sigma: 0.5, Mu2: 3, Sigma2: 0.8}
	sd, ok := d.Sim()
	require.True(t, ok)
	back, err := sim.ParseDist(sd.String())
	require.NoError(t, err, sd.String())
	first, _ := Dist{Family: LogNormal, Mu: 0, Sigma: 0.5}.Sim()
	assert.Equal(t, first, back)
}

func TestFitCountKS(t *testing.T) {
	// Constant counts: Poisson(2) is off by its mass away from 2, the
	// rounded uniform on [2, 2] not at all.
	c, err := FitCount([]int{2, 2, 2}, 1)
	require.NoError(t, err)
	require.Len(t, c.Fits, 2)
	assert.InDelta(t, 2, c.Fits[0].Mu, 0)
	p := distuv.Poisson{Lambda: 2}
	assert.InDelta(t, math.Max(p.CDF(1), 1-p.CDF(2)), c.Fits[0].KS, 1e-12)
	assert.Equal(t, Uniform, c.Best().Family)
	assert.InDelta(t, 0, c.Best().KS, 0)
	// Poisson counts choose Poisson.
	r := rand.New(rand.NewPCG(3, 4))
	var ns []int
	for range 500 {
		ns = append(ns, int(distuv.Poisson{Lambda: 4, Src: r}.Rand()))
	}
	c, err = FitCount(ns, 1)
	require.NoError(t, err)
	assert.Equal(t, Poisson, c.Best().Family, c.Why)
	assert.InDelta(t, 4, c.Best().Mu, 4*math.Sqrt(4.0/500))
	// Sums of 4 parts: the per-part mean is a quarter of theirs.
	c, err = FitCount(ns, 4)
	require.NoError(t, err)
	require.Len(t, c.Fits, 1)
	assert.InDelta(t, 1, c.Best().Mu, math.Sqrt(4.0/500))
	assert.Less(t, c.Best().KS, 1.63/math.Sqrt(500))
	_, err = FitCount(ns, 0)
	assert.Error(t, err)
}

func TestFitLine(t *testing.T) {
	l := FitLine([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7})
	assert.InDelta(t, 1, l.Intercept, 1e-12)
	assert.InDelta(t, 2, l.Slope, 1e-12)
	assert.InDelta(t, 1, l.R2, 1e-12)
	l = FitLine([]float64{0, 1, 0, 1}, []float64{1, 1, 3, 3})
	assert.InDelta(t, 0, l.R2, 1e-12)
}

func TestFitErrors(t *testing.T) {
	_, err := FitPositive([]float64{1})
	assert.ErrorIs(t, err, errNoData)
	_, err = FitPositive([]float64{1, math.NaN()})
	assert.ErrorContains(t, err, "value 1 is NaN")
	c, err := FitPositive([]float64{0, 0, 0})
	require.NoError(t, err, "zero durations count as 1 µs")
	assert.InDelta(t, 1e-6, c.Best().Mean(), 1e-8)
}

// TestUniqueNames: every model gets a valid variant name of its own,
// however its name is written: a provider's prefix is dropped unless two
// models share what remains.
func TestUniqueNames(t *testing.T) {
	for _, tt := range []struct{ models, want []string }{
		{[]string{"mistral/mistral-small", "gpt-4.1-mini"}, []string{"mistral-small", "gpt-4.1-mini"}},
		{[]string{"openai/gpt-4o", "azure/gpt-4o"}, []string{"openai-gpt-4o", "azure-gpt-4o"}},
		{[]string{"gpt-4o", "azure/gpt-4o"}, []string{"gpt-4o", "azure-gpt-4o"}},
		{[]string{"a/b c", "a/b:c", "a/b-c"}, []string{"a-b-c", "a-b-c-2", "a-b-c-3"}},
		{[]string{"モデル", "/", ""}, []string{"model-1", "model-2", "model-3"}},
		{[]string{"openai/GPT-4o", "azure/gpt-4o"}, []string{"openai-GPT-4o", "azure-gpt-4o"}},
		{[]string{"GPT-4o", "gpt-4o", "Gpt-4o-2"}, []string{"GPT-4o", "gpt-4o-2", "Gpt-4o-2-2"}},
		{[]string{strings.Repeat("x", 200)}, []string{strings.Repeat("x", 128)}},
	} {
		got := uniqueNames(tt.models, "model")
		assert.Equal(t, tt.want, got, "%q", tt.models)
		seen := map[string]bool{}
		for _, n := range got {
			assert.NoError(t, scenarios.CheckName(n), "%q", tt.models)
			assert.False(t, seen[strings.ToLower(n)], "%q: %s twice, ignoring case", tt.models, n)
			seen[strings.ToLower(n)] = true
		}
	}
}

// wantRoundedMean is the mean of round(U(lo, hi)), summed over the integers
// the interval reaches: what a rounded uniform count actually averages.
func wantRoundedMean(lo, hi float64) float64 {
	if hi == lo {
		return math.Round(lo)
	}
	m := 0.0
	for k := math.Round(lo); k <= math.Round(hi); k++ {
		a, b := math.Max(k-0.5, lo), math.Min(k+0.5, hi)
		m += k * math.Max(b-a, 0) / (hi - lo)
	}
	return m
}

// TestFitCountKeepsMean requires the rounded uniform's counts to average
// what the data average, and its reported mean to be the one its counts
// have. The recorded runs make 3 model calls, 4 in 7 of 66: their variance
// (0.095) is barely above rounding's 1/12, and a moment fit of the width
// gave U(2.92, 3.29), which rounds to 3 every time.
func TestFitCountKeepsMean(t *testing.T) {
	rep := func(pairs ...int) []int {
		var ns []int
		for i := 0; i < len(pairs); i += 2 {
			for range pairs[i+1] {
				ns = append(ns, pairs[i])
			}
		}
		return ns
	}
	for _, tc := range []struct {
		name string
		ns   []int
		tol  float64 // of the counts' mean against the data's
	}{
		{"recorded model calls (3 or 4)", rep(3, 59, 4, 7), 1e-9},
		{"recorded tool calls (2 or 3)", rep(2, 50, 3, 16), 1e-9},
		{"constant", rep(2, 10), 1e-9},
		{"two values a step apart, evenly", rep(5, 10, 6, 10), 1e-9},
		{"0 or 1, mostly 0", rep(0, 16, 1, 4), 1e-9},
		{"0 or 1, mostly 1", rep(0, 4, 1, 16), 1e-9},
		{"0 alone", rep(0, 5), 1e-9},
		{"a narrow spread", rep(3, 10, 4, 20, 5, 10), 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FitCount(tc.ns, 1)
			require.NoError(t, err)
			u := c.Fits[1]
			require.Equal(t, Uniform, u.Family)
			m, _ := meanSD(func() []float64 {
				x := make([]float64, len(tc.ns))
				for i, n := range tc.ns {
					x[i] = float64(n)
				}
				return x
			}())
			if slices.Max(tc.ns)-slices.Min(tc.ns) <= 1 {
				// On two neighbouring counts the fit is exact: KS 0.
				assert.InDelta(t, 0, u.KS, 1e-12, "U(%g, %g)", u.Lo, u.Hi)
			}
			got := wantRoundedMean(u.Lo, u.Hi)
			assert.InDelta(t, m, got, tc.tol, "round(U(%g, %g)) averages %g, the data %g", u.Lo, u.Hi, got, m)
			assert.InDelta(t, got, u.Mean(), 1e-9, "the reported mean is the counts' mean")
		})
	}
}
