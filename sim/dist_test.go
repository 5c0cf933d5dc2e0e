package sim_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/sim"
)

func TestParseDistValid(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result
		mean float64
	}{
		{"0.3", "0.3", 0.3},
		{" 5m ", "300", 300},
		{"90s", "90", 90},
		{"1h30m", "5400", 5400},
		{"250ms", "0.25", 0.25},
		{"1e-3", "0.001", 0.001},
		{"0", "0", 0},
		{"-0", "0", 0},
		{"const(2)", "2", 2},
		{"const( value = 1m )", "60", 60},
		{"exp(5m)", "exp(300)", 300},
		{"exp( mean = 2 )", "exp(2)", 2},
		{"exp (2)", "exp(2)", 2},
		{"uniform(2, 5)", "uniform(2, 5)", 3.5},
		{"uniform(hi=1m, lo=30s)", "uniform(30, 60)", 45},
		{"uniform(3,3)", "uniform(3, 3)", 3},
		{"lognormal(mean=5m, cv=0.5)", "lognormal(mean=300, cv=0.5)", 300},
		{"lognormal(300, 0.5)", "lognormal(mean=300, cv=0.5)", 300},
		{"lognormal(300, cv=0.5)", "lognormal(mean=300, cv=0.5)", 300},
		{"lognormal(cv=0, mean=1)", "lognormal(mean=1, cv=0)", 1},
		{"gamma(mean=2, cv=1)", "gamma(mean=2, cv=1)", 2},
		{"gamma(\tmean=1m30s,\ncv=3 )", "gamma(mean=90, cv=3)", 90},
		{"normal(mean=10, sd=0)", "normal(mean=10, sd=0)", 10},
		{"normal(10, 2)", "normal(mean=10, sd=2)", 10 + 2*phiOverSurvival(-5)},
		// Truncating N(0, 1) at 0 leaves the half-normal, mean sqrt(2/pi).
		{"normal(mean=0, sd=1)", "normal(mean=0, sd=1)", math.Sqrt(2 / math.Pi)},
		{"normal(mean=1, sd=2)", "normal(mean=1, sd=2)", 1 + 2*phiOverSurvival(-0.5)},
		{"exp(1e15)", "exp(1e+15)", 1e15},
		{"poisson(2)", "poisson(2)", 2},
		{"poisson( mean = 0.5 )", "poisson(0.5)", 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := sim.ParseDist(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.String())
			assert.InDelta(t, tt.mean, d.Mean(), 1e-12*math.Max(1, tt.mean))
		})
	}
}

// phiOverSurvival returns φ(a)/(1−Φ(a)) for the standard normal, written out
// independently of the code under test.
func phiOverSurvival(a float64) float64 {
	phi := math.Exp(-a*a/2) / math.Sqrt(2*math.Pi)
	return phi / (0.5 * math.Erfc(a/math.Sqrt2))
}

func TestParseDistInvalid(t *testing.T) {
	tests := []struct {
		in, want string // want: a fragment of the error message
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"expo(1)", `unknown distribution "expo" (allowed: const, exp, uniform, lognormal, gamma, normal`},
		{"Exp(1)", `unknown distribution "Exp"`},
		{"(1)", `unknown distribution ""`},
		{"exp", "exp needs arguments in parentheses, as in exp(mean=M)"},
		{"weibull", `unknown distribution "weibull"`},
		{"azAZ", `unknown distribution "azAZ"`}, // the letters' edges are letters
		{"uniform(5, 2)", "uniform: lo (5) must not exceed hi (2)"},
		{"exp(-1)", "negative mean"},
		{"-3", "negative value"},
		{"-5s", "negative value"},
		{"lognormal(mean=1, cv=-0.1)", "negative cv"},
		{"NaN", "must be finite"},
		{"Inf", "must be finite"},
		{"exp(-Inf)", "must be finite"},
		{"exp(1e400)", "out of range"},
		{"exp(2e15)", "exceeds the limit 1e+15"},
		{"lognormal(mean=1)", `missing argument "cv" (want mean=M, cv=C)`},
		{"exp()", `missing argument "mean"`},
		{"lognormal(mean=1, mean=2)", `argument "mean" given twice`},
		{"lognormal(1, mean=2)", `argument "mean" given twice`},
		{"gamma(mean=1, sd=2)", `unknown argument "sd" (allowed: mean, cv)`},
		{"normal(mean=1, cv=2)", `unknown argument "cv" (allowed: mean, sd)`},
		{"uniform(1, 2, 3)", "too many arguments (want lo=L, hi=H)"},
		{"lognormal(mean=1, cv=2, 3)", "positional argument"},
		{"exp(1,)", "empty argument 2"},
		{"exp(mean=)", "empty value"},
		{"exp(1", "missing closing parenthesis"},
		{"exp(1)x", "missing closing parenthesis"},
		{"exp(abc)", `invalid value "abc" (want a number such as 0.3 or a duration such as 90s)`},
		{"exp(5 m)", `invalid value "5 m"`},
		{"90x", `invalid value "90x"`},
		{"exp(exp(1))", `invalid value "exp(1)"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := sim.ParseDist(tt.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, sim.ErrBadDist)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), `"`+tt.in+`"`, "the error quotes the input")
			assert.True(t, d.IsZero())

			var u sim.Dist = sim.Const(7)
			require.Error(t, u.UnmarshalText([]byte(tt.in)))
			assert.Equal(t, sim.Const(7), u, "UnmarshalText leaves the Dist unchanged on error")
		})
	}
}

// awkward values that must survive the trip through text exactly.
var awkward = []float64{0, 0.1 + 0.2, 1.0 / 3, 5e-324, math.SmallestNonzeroFloat64 * 3, 1e15, 123456.789e-3, math.Nextafter(1, 2)}

func allKinds(v, w float64) []sim.Dist {
	return []sim.Dist{
		sim.Const(v),
		sim.Exponential(v),
		sim.Uniform(math.Min(v, w), math.Max(v, w)),
		sim.LogNormal(v, w),
		sim.Gamma(v, w),
		sim.TruncNormal(v, w),
		sim.Poisson(v),
	}
}

func TestDistRoundTrip(t *testing.T) {
	for _, v := range awkward {
		for _, w := range awkward {
			for _, d := range allKinds(v, w) {
				s := d.String()
				got, err := sim.ParseDist(s)
				require.NoError(t, err, s)
				require.Equal(t, d, got, s)

				b, err := d.MarshalText()
				require.NoError(t, err)
				var u sim.Dist
				require.NoError(t, u.UnmarshalText(b))
				require.Equal(t, d, u, s)
			}
		}
	}
}

func TestDistZero(t *testing.T) {
	var d sim.Dist
	assert.True(t, d.IsZero())
	assert.Equal(t, "0", d.String())
	assert.Zero(t, d.Mean())
	assert.Zero(t, d.Sample(rand.New(rand.NewPCG(1, 2))))
	assert.Equal(t, d, sim.Const(0))
	assert.Equal(t, d, sim.MustParseDist("0s"))
	assert.False(t, sim.Exponential(0).IsZero(), "only the constant 0 is the zero Dist")
	assert.False(t, sim.Const(1).IsZero())
}

func TestDistConstructorsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"Const(-1)":          func() { sim.Const(-1) },
		"Exponential(NaN)":   func() { sim.Exponential(math.NaN()) },
		"Uniform(2, 1)":      func() { sim.Uniform(2, 1) },
		"LogNormal(1, Inf)":  func() { sim.LogNormal(1, math.Inf(1)) },
		"Gamma(2e15, 1)":     func() { sim.Gamma(2e15, 1) },
		"TruncNormal(-1, 1)": func() { sim.TruncNormal(-1, 1) },
		"MustParseDist":      func() { sim.MustParseDist("expo(1)") },
	} {
		assert.Panics(t, f, name)
	}
}

func TestDistScale(t *testing.T) {
	for _, d := range allKinds(3, 0.5) {
		s := d.Scale(2.5)
		assert.InDelta(t, 2.5*d.Mean(), s.Mean(), 1e-12, "%v → %v", d, s)
	}
	assert.Equal(t, sim.LogNormal(6, 0.5), sim.LogNormal(3, 0.5).Scale(2), "cv is kept")
	assert.Equal(t, sim.Gamma(6, 0.5), sim.Gamma(3, 0.5).Scale(2), "cv is kept")
	assert.Equal(t, sim.TruncNormal(6, 1), sim.TruncNormal(3, 0.5).Scale(2), "sd is scaled")
	assert.Equal(t, sim.Uniform(2, 4), sim.Uniform(1, 2).Scale(2))
	for _, k := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		assert.Panics(t, func() { sim.Const(1).Scale(k) }, "k = %v", k)
	}
	assert.Panics(t, func() { sim.Exponential(1e10).Scale(1e10) }, "beyond the limit")
}

// TestDistSupport: Support is the smallest and largest value a draw can
// take. A distribution that cannot vary (zero mean, zero cv, zero sd) is
// its point, as a constant is; one with a positive mean and spread has an
// unbounded right tail (exponential, log-normal, gamma, normal) or, for a
// uniform, its two bounds. Every draw lies inside what Support says.
func TestDistSupport(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		d      sim.Dist
		lo, hi float64
	}{
		{sim.Const(3), 3, 3},
		{sim.Uniform(1, 3), 1, 3},
		{sim.Uniform(2, 2), 2, 2},
		{sim.Exponential(2), 0, inf},
		{sim.Exponential(0), 0, 0},
		{sim.LogNormal(5, 0.5), 0, inf},
		{sim.LogNormal(5, 0), 5, 5},
		{sim.LogNormal(0, 0.5), 0, 0},
		{sim.Gamma(5, 0.5), 0, inf},
		{sim.Gamma(5, 0), 5, 5},
		{sim.Gamma(0, 0.5), 0, 0},
		{sim.TruncNormal(5, 1), 0, inf},
		{sim.TruncNormal(5, 0), 5, 5},
		{sim.Poisson(3), 0, inf},
		{sim.Poisson(0), 0, 0}, // draws 0 without looking at r
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			lo, hi := tt.d.Support()
			assert.Equal(t, tt.lo, lo, "lo")
			assert.Equal(t, tt.hi, hi, "hi")
			r := rand.New(rand.NewPCG(1, 2))
			for range 1000 {
				x := tt.d.Sample(r)
				require.True(t, lo <= x && x <= hi, "%v drew %v outside [%v, %v]", tt.d, x, lo, hi)
			}
		})
	}
}

// moments returns the sample mean and standard deviation of xs, the standard
// error of the mean, and the standard error of the sample standard deviation
// (from the fourth central moment: Var(s²) ≈ (m4 − s⁴)/n, SE(s) ≈ SE(s²)/2s).
func moments(xs []float64) (mean, sd, seMean, seSD float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var m2, m4 float64
	for _, x := range xs {
		d2 := (x - mean) * (x - mean)
		m2 += d2
		m4 += d2 * d2
	}
	m2 /= n
	m4 /= n
	sd = math.Sqrt(m2)
	seMean = sd / math.Sqrt(n)
	if sd > 0 {
		seSD = math.Sqrt((m4-m2*m2)/n) / (2 * sd)
	}
	return mean, sd, seMean, seSD
}

func TestDistSampleMoments(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	const n = 200_000
	tests := []struct {
		d      sim.Dist
		wantSD float64 // if > 0, the sample sd is checked too
	}{
		{sim.Const(4), 0},
		{sim.Exponential(2), 2},
		{sim.Uniform(1, 3), 2 / math.Sqrt(12)},
		{sim.LogNormal(5, 0.5), 2.5},
		{sim.LogNormal(5, 2), 0}, // heavy tail: the sample sd converges too slowly
		{sim.LogNormal(0, 1), 0},
		{sim.Gamma(5, 0.5), 2.5},
		{sim.Gamma(5, 1), 5},
		{sim.Gamma(5, 3), 15}, // shape 1/9 < 0.2: gonum's small-shape algorithm
		{sim.Gamma(5, 0), 0},
		{sim.TruncNormal(10, 2), 2}, // truncation at 5 sd: negligible
		{sim.TruncNormal(1, 2), 0},
		{sim.TruncNormal(0, 1), math.Sqrt(1 - 2/math.Pi)},
		{sim.Poisson(0.3), math.Sqrt(0.3)}, // product of uniforms
		{sim.Poisson(9.5), math.Sqrt(9.5)},
		{sim.Poisson(10), math.Sqrt(10)}, // rejection (PTRS) from here on
		{sim.Poisson(250), math.Sqrt(250)},
		{sim.Poisson(0), 0},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			xs := make([]float64, n)
			for i := range xs {
				x := tt.d.Sample(r)
				require.False(t, math.IsNaN(x) || math.IsInf(x, 0) || x < 0, "sample %d = %v", i, x)
				xs[i] = x
			}
			mean, sd, seMean, seSD := moments(xs)
			if seMean == 0 {
				assert.Equal(t, tt.d.Mean(), mean)
				return
			}
			assert.InDelta(t, tt.d.Mean(), mean, 5*seMean, "mean (SE %.3g)", seMean)
			if tt.wantSD > 0 {
				assert.InDelta(t, tt.wantSD, sd, 5*seSD, "sd (SE %.3g)", seSD)
			}
		})
	}
}

// TestPoissonPMF compares Poisson draws with the probability mass function,
// by a chi-square goodness-of-fit test at α = 0.001 on each of 10 seeds,
// for means on both sides of the switch between the two samplers.
func TestPoissonPMF(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	const n = 50_000
	for _, mean := range []float64{0.7, 3, 9.9, 10, 17, 120} {
		d := sim.Poisson(mean)
		pois := distuv.Poisson{Lambda: mean}
		for seed := range uint64(10) {
			r := rand.New(rand.NewPCG(seed, 99))
			counts := map[int]int{}
			for range n {
				x := d.Sample(r)
				require.Equal(t, math.Trunc(x), x, "whole numbers only")
				counts[int(x)]++
			}
			// Cells: every k with expected count ≥ 5, the two tails pooled.
			lo, hi := int(mean), int(mean)
			for lo > 0 && n*pois.Prob(float64(lo-1)) >= 5 {
				lo--
			}
			for n*pois.Prob(float64(hi+1)) >= 5 {
				hi++
			}
			var chi2 float64
			cells := 0
			add := func(obs int, p float64) {
				e := n * p
				chi2 += (float64(obs) - e) * (float64(obs) - e) / e
				cells++
			}
			below, above := 0, 0
			for k, c := range counts {
				switch {
				case k < lo:
					below += c
				case k > hi:
					above += c
				}
			}
			if lo > 0 {
				add(below, pois.CDF(float64(lo-1)))
			}
			for k := lo; k <= hi; k++ {
				add(counts[k], pois.Prob(float64(k)))
			}
			add(above, pois.Survival(float64(hi)))
			crit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(0.999)
			assert.Less(t, chi2, crit, "mean %v seed %d: χ² = %.1f with %d cells", mean, seed, chi2, cells)
		}
	}
}

// TestPoissonPMFLarge repeats TestPoissonPMF's chi-square test at mean
// 10, the smallest mean the rejection sampler serves, on 2 million draws:
// enough to see a hat constant that is a few per cent off (its acceptance
// step is rare, so the distortion it makes is small), which 50 000 draws
// do not.
func TestPoissonPMFLarge(t *testing.T) {
	const n, mean = 2_000_000, 10.0
	d, pois := sim.Poisson(mean), distuv.Poisson{Lambda: mean}
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{}
	for range n {
		counts[int(d.Sample(r))]++
	}
	var chi2 float64
	cells := 0
	for k := 0; k < 100; k++ {
		if e := n * pois.Prob(float64(k)); e >= 5 { // the tails' few draws are left out
			chi2 += (float64(counts[k]) - e) * (float64(counts[k]) - e) / e
			cells++
		}
	}
	crit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(0.999)
	assert.Less(t, chi2, crit, "χ² = %.1f with %d cells", chi2, cells)
}

// counting is a rand.Source that counts the numbers drawn from it.
type counting struct {
	src rand.Source
	n   int
}

func (c *counting) Uint64() uint64 { c.n++; return c.src.Uint64() }

// TestPoissonCost: below a mean of 10 a draw multiplies uniforms, one more
// than the count drawn (mean+1 on average); from 10 on it is a rejection
// sampler with a constant cost, two uniforms a try and few tries, so that
// a large mean does not cost a draw per unit of it.
func TestPoissonCost(t *testing.T) {
	const n = 10_000
	perDraw := func(mean float64) float64 {
		c := &counting{src: rand.NewPCG(1, 2)}
		r := rand.New(c)
		d := sim.Poisson(mean)
		for range n {
			d.Sample(r)
		}
		return float64(c.n) / n
	}
	assert.InDelta(t, 9.9+1, perDraw(9.9), 0.15, "product of uniforms") // 5 standard errors, √9.9/√n each
	assert.Less(t, perDraw(10), 3.0, "rejection")
	assert.Less(t, perDraw(1000), 3.0, "rejection")

	// The product stops as soon as it is at or below e^−mean: with mean
	// ln 2, a first uniform of exactly e^−mean = 0.5 draws 0.
	r := rand.New(&scripted{first: []uint64{1 << 52}, rest: rand.NewPCG(1, 2)})
	assert.Equal(t, 0.0, sim.Poisson(math.Ln2).Sample(r))
}

// TestPoissonTailTry: a try of the rejection sampler far in a tail (the
// uniform u within 0.013 of an end) is accepted when it lies under the
// density. At mean 10 (b = 8.932, a = 0.1628, 1/α = 1.3287), u = 0.488
// gives us = 0.012 and proposes k = ⌊(2a/us + b)·u + 10.43⌋ = ⌊28.03⌋ = 28;
// v = 0.0005 passes the test, log v + log(1/α) − log(a/us² + b) =
// −7.601 + 0.284 − 7.038 = −14.355 ≤ log P(28) = −13.417: the first two
// uniforms make the draw.
func TestPoissonTailTry(t *testing.T) {
	u01 := func(f float64) uint64 { return uint64(f * (1 << 53)) } // rand.Rand's Float64 of it is f, to 2^-53
	c := &counting{src: &scripted{first: []uint64{u01(0.988), u01(0.0005)}, rest: rand.NewPCG(1, 2)}}
	x := sim.Poisson(10).Sample(rand.New(c))
	assert.Equal(t, 28.0, x)
	assert.Equal(t, 2, c.n, "one try")
}

// TestLogNormalSameDraws pins the log-normal sampler to gonum's: the same
// generator state gives the same value, so that dropping gonum's per-draw
// allocation changed no result.
func TestLogNormalSameDraws(t *testing.T) {
	r1, r2, r3 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for _, d := range []struct{ mean, cv float64 }{{5, 0.5}, {0.6, 1}, {3e4, 2}} {
		s2 := math.Log1p(d.cv * d.cv)
		mu, sigma := math.Log(d.mean)-s2/2, math.Sqrt(s2)
		ln := distuv.LogNormal{Mu: mu, Sigma: sigma, Src: r3}
		for range 1000 {
			got := sim.LogNormal(d.mean, d.cv).Sample(r1)
			// exp(N·σ + μ) of the same normal deviate, the product
			// rounded on every machine (internal/portable).
			require.Equal(t, math.Exp(float64(r2.NormFloat64()*sigma)+mu), got)
			// gonum's draw: the same where Go does not fuse its N·σ + μ
			// into a multiply-add (arm64 and GOAMD64=v3 do), else a few
			// units in the last place apart.
			require.InEpsilon(t, ln.Rand(), got, 1e-14)
		}
	}
}

// scripted is a rand.Source that yields its first numbers and then those
// of rest: a draw that depends on r's first numbers meets a value of our
// choice. Uint64 0 makes rand.Rand's Float64 and NormFloat64 exactly 0.
type scripted struct {
	first []uint64
	rest  rand.Source
}

func (s *scripted) Uint64() uint64 {
	if len(s.first) > 0 {
		v := s.first[0]
		s.first = s.first[1:]
		return v
	}
	return s.rest.Uint64()
}

// TestMixtureWeightEdges: a mixture draws its first component with
// probability w, so w = 0 never draws it, even when the uniform that picks
// the component is exactly 0, and w = 1 always does. Point masses make the
// component seen in the value.
func TestMixtureWeightEdges(t *testing.T) {
	for _, tt := range []struct {
		w, want float64
	}{
		{0, 30}, // the second component's point
		{1, 2},  // the first's
	} {
		d := sim.LogNormalMixture(2, 0, 30, 0, tt.w)
		s := d.Sampler()
		for _, draw := range []func(*rand.Rand) float64{d.Sample, s.Sample} {
			r := rand.New(&scripted{first: []uint64{0}, rest: rand.NewPCG(1, 2)})
			assert.Equal(t, tt.want, draw(r), "w = %v, uniform 0", tt.w)
			for range 100 {
				require.Equal(t, tt.want, draw(r), "w = %v", tt.w)
			}
		}
	}
}

// TestTruncNormalDraw: TruncNormal draws mean + sd·Z from r's normal
// deviates Z, the first that is not below 0, so that a stream gives the same
// draws from one release to the next. A draw of exactly 0 is not below 0:
// it is kept, not redrawn.
func TestTruncNormalDraw(t *testing.T) {
	d := sim.TruncNormal(1, 2)
	r1, r2 := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		want := -1.0
		for want < 0 {
			want = 1 + float64(2*r2.NormFloat64())
		}
		require.Equal(t, want, d.Sample(r1))
	}

	// Uint64 0 makes the first deviate 0: TruncNormal(0, 1) draws 0.
	r := rand.New(&scripted{first: []uint64{0}, rest: rand.NewPCG(1, 2)})
	assert.Equal(t, 0.0, sim.TruncNormal(0, 1).Sample(r))
}

func TestDistSampleAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []sim.Dist{sim.Exponential(2), sim.LogNormal(5, 0.5), sim.Poisson(3), sim.Poisson(40), sim.TruncNormal(1, 2)} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { d.Sample(r) }), d.String())
	}
}

func TestDistSampleDeterministic(t *testing.T) {
	for _, d := range allKinds(3, 0.7) {
		r1, r2, r3 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(3, 4))
		differ := false
		for range 1000 {
			x := d.Sample(r1)
			require.Equal(t, x, d.Sample(r2), d.String())
			differ = differ || x != d.Sample(r3)
		}
		if d != sim.Const(3) {
			assert.True(t, differ, "%v draws from r", d)
		}
	}
}

func TestDistSampleExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, v := range []float64{0, 5e-324, 1e-300, 1, 1e15} {
		for _, w := range []float64{0, 5e-324, 1e-160, 1e-150, 1e-8, 1, 1e15} {
			for _, d := range allKinds(v, w) {
				for range 200 {
					x := d.Sample(r)
					require.False(t, math.IsNaN(x) || math.IsInf(x, 0) || x < 0, "%v sampled %v", d, x)
				}
				m := d.Mean()
				require.False(t, math.IsNaN(m) || math.IsInf(m, 0) || m < 0, "%v has mean %v", d, m)
			}
		}
	}
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{
		"0.3", "5m", "1h30m", "const(2)", "exp(5m)", "uniform(2, 5)", "uniform(hi=1m, lo=30s)",
		"lognormal(mean=5m, cv=0.5)", "gamma(mean=2, cv=3)", "normal(mean=0, sd=1)", "poisson(2)",
		"expo(1)", "uniform(5, 2)", "exp(-1)", "NaN", "exp(1e400)", "lognormal(1, mean=2)",
		"gamma(mean=1e15, cv=1e15)", "normal(1e15, 1e15)", "exp(0x1p-1074)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := sim.ParseDist(s)
		if err != nil {
			require.ErrorIs(t, err, sim.ErrBadDist)
			return
		}
		again, err := sim.ParseDist(d.String())
		require.NoError(t, err, "%q → %q", s, d.String())
		require.Equal(t, d, again, "%q → %q", s, d.String())
		require.False(t, strings.ContainsAny(d.String(), "\n\t"))

		m := d.Mean()
		require.False(t, math.IsNaN(m) || math.IsInf(m, 0) || m < 0, "%v has mean %v", d, m)
		r := rand.New(rand.NewPCG(1, 2))
		for range 20 {
			x := d.Sample(r)
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0) || x < 0, "%v sampled %v", d, x)
		}
	})
}

// TestUnknownDistError: a distribution of an unknown name is an
// *sim.UnknownDistError, through ParseDist's wrapping, naming what was
// written, so that a caller can suggest the nearest of DistNames.
func TestUnknownDistError(t *testing.T) {
	for _, s := range []string{"expo(1)", "expo", " weibull (1, 2)"} {
		_, err := sim.ParseDist(s)
		var u *sim.UnknownDistError
		require.ErrorAs(t, err, &u, s)
		assert.Equal(t, strings.Fields(strings.SplitN(s, "(", 2)[0])[0], u.Name)
		assert.ErrorIs(t, err, sim.ErrBadDist)
	}
	_, err := sim.ParseDist("exp(-1)")
	var u *sim.UnknownDistError
	assert.Error(t, err)
	assert.NotErrorAs(t, err, &u, "a known name with a bad argument")
}
