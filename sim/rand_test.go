package sim_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

func draws(r *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestStreamsReproducible(t *testing.T) {
	s := sim.NewStreams(42)
	require.Equal(t, uint64(42), s.Seed())
	a := draws(s.New("work", 7), 100)
	b := draws(sim.NewStreams(42).New("work", 7), 100)
	require.Equal(t, a, b)

	// PCG is the source behind New.
	require.Equal(t, a, draws(rand.New(s.PCG("work", 7)), 100))

	// Reseed starts a used generator where PCG starts.
	pcg := s.PCG("other", 0)
	r := rand.New(pcg)
	r.Uint64()
	s.Reseed(pcg, "work", 7)
	require.Equal(t, a, draws(r, 100))

	// The zero Streams is seed 0.
	var zero sim.Streams
	require.Equal(t, draws(sim.NewStreams(0).New("x", 1), 10), draws(zero.New("x", 1), 10))
}

func TestStreamsDiffer(t *testing.T) {
	base := sim.NewStreams(1)
	type name struct {
		s       sim.Streams
		purpose string
		id      uint64
	}
	names := []name{
		{base, "work", 0},
		{base, "work", 1},
		{base, "work", 2},
		{base, "wor", 0},
		{base, "workk", 0},
		{base, "", 0},
		{base, "", 1},
		{base, "msg", 0},
		{sim.NewStreams(2), "work", 0},
		{sim.NewStreams(0), "work", 0},
		{base.Derive("episode", 0), "work", 0},
		{base.Derive("episode", 1), "work", 0},
		{base.Derive("episode", 0).Derive("episode", 0), "work", 0},
		{base.Derive("other", 0), "work", 0},
	}
	firsts := map[uint64]name{}
	for _, n := range names {
		d := draws(n.s.New(n.purpose, n.id), 4)
		prev, dup := firsts[d[0]]
		require.False(t, dup, "%+v and %+v start alike", n, prev)
		firsts[d[0]] = n
	}
}

// TestStreamsManyIDs checks that streams for consecutive ids, the usual
// case (agent 0, 1, 2, ...), never start alike.
func TestStreamsManyIDs(t *testing.T) {
	s := sim.NewStreams(99)
	seen := map[uint64]uint64{}
	for id := range uint64(20000) {
		v := s.New("work", id).Uint64()
		prev, dup := seen[v]
		require.False(t, dup, "ids %d and %d", prev, id)
		seen[v] = id
	}
}

func TestDerive(t *testing.T) {
	s := sim.NewStreams(5)
	// Deriving is a pure function of (seed, purpose, id).
	require.Equal(t, s.Derive("episode", 3), sim.NewStreams(5).Derive("episode", 3))
	require.NotEqual(t, s.Derive("episode", 3), s.Derive("episode", 4))
	require.NotEqual(t, s.Seed(), s.Derive("episode", 0).Seed())
	// A derived family does not replay the parent's streams.
	require.NotEqual(t, draws(s.New("work", 0), 8), draws(s.Derive("episode", 0).New("work", 0), 8))
}

func correlation(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, syy, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		syy += y[i] * y[i]
		sxy += x[i] * y[i]
	}
	cov := sxy/n - sx/n*sy/n
	return cov / math.Sqrt((sxx/n-sx/n*sx/n)*(syy/n-sy/n*sy/n))
}

// TestStreamsStatistics is a sanity check, not a randomness test suite:
// neighbouring streams and derived families look uncorrelated, and a
// stream's uniform draws have the right mean. The bounds are 5 standard
// errors, and the seeds are fixed, so the test is deterministic.
func TestStreamsStatistics(t *testing.T) {
	const n = 100_000
	se := 1 / math.Sqrt(n) // standard error of a correlation near 0
	s := sim.NewStreams(2026)
	pairs := []struct {
		name string
		a, b *rand.Rand
	}{
		{"neighbour ids", s.New("work", 0), s.New("work", 1)},
		{"purposes", s.New("work", 0), s.New("msg", 0)},
		{"derived", s.Derive("episode", 0).New("work", 0), s.Derive("episode", 1).New("work", 0)},
		{"parent and derived", s.New("work", 0), s.Derive("episode", 0).New("work", 0)},
		{"neighbour seeds", sim.NewStreams(1).New("work", 0), sim.NewStreams(2).New("work", 0)},
	}
	for _, p := range pairs {
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = p.a.Float64(), p.b.Float64()
		}
		r := correlation(x, y)
		require.Less(t, math.Abs(r), 5*se, "%s: correlation %.4f", p.name, r)

		var sum float64
		for _, v := range x {
			sum += v
		}
		mean := sum / n
		require.InDelta(t, 0.5, mean, 5*math.Sqrt(1.0/12/n), p.name)
	}
}

func TestKeyReproducible(t *testing.T) {
	k := sim.NewStreams(3).Key("outcome")
	require.Equal(t, k, sim.NewStreams(3).Key("outcome"))
	require.Equal(t, k.Uint64(5, 17, 2), sim.NewStreams(3).Key("outcome").Uint64(5, 17, 2))
	// A draw does not depend on the draws made before it.
	before := k.Float64(5, 17, 2)
	for i := range uint64(100) {
		k.Float64(i, i, i)
	}
	require.Equal(t, before, k.Float64(5, 17, 2))

	require.NotEqual(t, k.Uint64(1, 2, 3), sim.NewStreams(4).Key("outcome").Uint64(1, 2, 3), "seed")
	require.NotEqual(t, k.Uint64(1, 2, 3), sim.NewStreams(3).Key("check").Uint64(1, 2, 3), "purpose")
	require.NotEqual(t, k.Uint64(1, 2, 3), sim.NewStreams(3).Derive("episode", 1).Key("outcome").Uint64(1, 2, 3), "derived")
}

// TestKeyCounters checks that every counter, and its position, matters:
// no two of a grid of small counters, the usual case, draw alike.
func TestKeyCounters(t *testing.T) {
	k := sim.NewStreams(1).Key("outcome")
	seen := map[uint64][3]uint64{}
	for a := range uint64(24) {
		for b := range uint64(24) {
			for c := range uint64(24) {
				v := k.Uint64(a, b, c)
				prev, dup := seen[v]
				require.False(t, dup, "%v and %v", prev, [3]uint64{a, b, c})
				seen[v] = [3]uint64{a, b, c}
			}
		}
	}
}

func TestKeyStatistics(t *testing.T) {
	const n = 100_000
	k := sim.NewStreams(2026).Key("outcome")
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	var sum float64
	lo, hi := 1.0, 0.0
	for i := range uint64(n) {
		x[i] = k.Float64(i, 0, 0)
		y[i] = k.Float64(i, 0, 1) // neighbouring counter
		z[i] = k.Float64(0, i, 0) // counter moved to another position
		lo, hi = min(lo, x[i]), max(hi, x[i])
		sum += x[i]
	}
	require.GreaterOrEqual(t, lo, 0.0)
	require.Less(t, hi, 1.0)
	require.InDelta(t, 0.5, sum/n, 5*math.Sqrt(1.0/12/n))
	require.Less(t, math.Abs(correlation(x, y)), 5/math.Sqrt(n))
	require.Less(t, math.Abs(correlation(x, z)), 5/math.Sqrt(n))
}

func TestSourceIsNamedByItsCounters(t *testing.T) {
	k := sim.NewStreams(3).Key("ttft")
	var s sim.Source
	next := func(a, b, c uint64) []uint64 {
		s.Seed(k, a, b, c)
		return []uint64{s.Uint64(), s.Uint64(), s.Uint64()}
	}
	first := next(1, 2, 3)
	next(4, 5, 6)
	require.Equal(t, first, next(1, 2, 3), "the same counters give the same numbers, whatever came between")
	seen := map[uint64]bool{}
	for _, c := range [][3]uint64{{1, 2, 3}, {1, 2, 4}, {1, 3, 3}, {2, 2, 3}, {0, 0, 0}} {
		got := next(c[0], c[1], c[2])
		require.NotEqual(t, got[0], got[1])
		require.False(t, seen[got[0]], "counters %v repeat another draw", c)
		seen[got[0]] = true
	}
	s.Seed(sim.NewStreams(4).Key("ttft"), 1, 2, 3)
	require.NotEqual(t, first[0], s.Uint64(), "another master seed, other numbers")
}

// TestSourceLogNormal checks that log-normal draws fed by a Source, one
// draw per counter as a hosted API's times to first token are, follow the
// log-normal: a one-sample Kolmogorov–Smirnov test at α = 0.001 on 20000
// draws, on three seeds, and the same test rejecting a log-normal whose cv
// is 10% off (so that it can fail).
func TestSourceLogNormal(t *testing.T) {
	const n = 20000
	crit := 1.949 / math.Sqrt(n) // the asymptotic critical value at α = 0.001
	mean, cv := 0.6, 0.5
	s2 := math.Log1p(cv * cv)
	want := distuv.LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2)}
	s2 = math.Log1p(1.1 * cv * 1.1 * cv)
	off := distuv.LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2)}
	d := sim.LogNormal(mean, cv).Sampler()
	for _, seed := range []uint64{1, 2, 3} {
		k := sim.NewStreams(seed).Key("ttft")
		var src sim.Source
		r := rand.New(&src)
		xs := make([]float64, n)
		for i := range xs {
			src.Seed(k, uint64(i)<<32|7, uint64(i%5), 0)
			xs[i] = d.Sample(r)
		}
		slices.Sort(xs)
		require.Less(t, stats.KSDistance(xs, want.CDF), crit, "seed %d", seed)
		require.Greater(t, stats.KSDistance(xs, off.CDF), crit, "seed %d: the test tells a 10%% larger cv apart", seed)
	}
}

// TestSourceNormalTails checks the standard normals that math/rand/v2's
// ziggurat makes from a Source named per draw (as the hosted API's times
// to first token are) where the Kolmogorov–Smirnov test looks least: the
// sign, and the tails beyond 3 and 4, whose draws take the ziggurat's
// rejection and tail paths. On each of 10 seeds, 100,000 draws: the
// negatives, and the draws beyond ±3, are within 4.5 binomial standard
// deviations of their expectation (two-sided α ≈ 7·10⁻⁶ each), and over
// all seeds the draws beyond ±4 are too, half of them on each side.
func TestSourceNormalTails(t *testing.T) {
	const n, seeds = 100_000, 10
	within := func(k int, n, p float64) bool { return math.Abs(float64(k)-n*p) < 4.5*math.Sqrt(n*p*(1-p)) }
	p3, p4 := math.Erfc(3/math.Sqrt2), math.Erfc(4/math.Sqrt2) // P(|Z| > 3), P(|Z| > 4)
	var beyond4, beyond4Neg int
	for seed := range uint64(seeds) {
		k := sim.NewStreams(seed + 100).Key("ttft")
		var src sim.Source
		r := rand.New(&src)
		var neg, beyond3 int
		for i := range uint64(n) {
			src.Seed(k, i, 0, 0)
			z := r.NormFloat64()
			if z < 0 {
				neg++
			}
			if math.Abs(z) > 3 {
				beyond3++
			}
			if math.Abs(z) > 4 {
				beyond4++
				if z < 0 {
					beyond4Neg++
				}
			}
		}
		require.True(t, within(neg, n, 0.5), "seed %d: %d negative of %d", seed, neg, n)
		require.True(t, within(beyond3, n, p3), "seed %d: %d beyond ±3 of %d, want about %.0f", seed, beyond3, n, n*p3)
	}
	require.True(t, within(beyond4, n*seeds, p4), "%d beyond ±4 of %d, want about %.0f", beyond4, n*seeds, n*seeds*p4)
	require.True(t, within(beyond4Neg, float64(beyond4), 0.5), "%d of the %d beyond ±4 negative", beyond4Neg, beyond4)
}
