package experiments

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// signedRankP returns the exact one-sided p-value of Wilcoxon's
// signed-rank test that the differences d are centred above 0: the
// fraction of the 2^n sign assignments whose signed-rank sum is at least
// the observed one. Zero differences are dropped, ties get mean ranks.
func signedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	if n > 24 {
		panic("signedRankP: enumerating more than 2^24 sign flips")
	}
	abs := make([]float64, n)
	for i, x := range nz {
		abs[i] = math.Abs(x)
	}
	ranks := midRanks(abs)
	observed := 0.0
	for i, x := range nz {
		if x > 0 {
			observed += ranks[i]
		}
	}
	count := 0
	for mask := range 1 << n {
		s := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		if s >= observed-1e-9 {
			count++
		}
	}
	return float64(count) / float64(int(1)<<n)
}

// midRanks returns the ranks (1-based) of xs, ties sharing their mean rank.
func midRanks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			ranks[idx[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return ranks
}

// jonckheere returns the Jonckheere–Terpstra statistic of groups ordered
// by dose: the number of pairs (x in an earlier group, y in a later one)
// with x < y, ties counting one half.
func jonckheere(groups [][]float64) float64 {
	s := 0.0
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			for _, x := range groups[i] {
				for _, y := range groups[j] {
					switch {
					case x < y:
						s++
					case x == y:
						s += 0.5
					}
				}
			}
		}
	}
	return s
}

// trendP returns the one-sided permutation p-value of Jonckheere–
// Terpstra's test that the groups increase with their index: the fraction
// of perms random reassignments of the pooled values to groups of the same
// sizes (with a fixed seed) whose statistic is at least the observed one,
// counting the observed assignment.
func trendP(groups [][]float64, perms int) float64 {
	observed := jonckheere(groups)
	var pool []float64
	for _, g := range groups {
		pool = append(pool, g...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := make([][]float64, len(groups))
	count := 1
	for range perms {
		rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		k := 0
		for g := range groups {
			shuffled[g] = pool[k : k+len(groups[g])]
			k += len(groups[g])
		}
		if jonckheere(shuffled) >= observed-1e-9 {
			count++
		}
	}
	return float64(count) / float64(perms+1)
}

// negate returns −xs, to test a decreasing trend or a negative shift.
func negate(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

func TestSignedRankP(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		want float64
	}{
		// All ten positive: only the observed assignment reaches its sum.
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1.0 / 1024},
		// All negative: every assignment reaches it.
		{[]float64{-1, -2, -3}, 1},
		// One negative among four, ranks 1..4 with rank 1 negative: the
		// sum 9 is reached by {2,3,4} and {1,2,3,4}: 2 of 16.
		{[]float64{-0.5, 1, 2, 3}, 2.0 / 16},
		// Zeros are dropped: the same as two positives.
		{[]float64{0, 1, 0, 2}, 1.0 / 4},
		// Ties share ranks 1.5 and 1.5: sums 0, 1.5, 1.5, 3; observed 1.5.
		{[]float64{1, -1}, 3.0 / 4},
	} {
		assert.InDelta(t, c.want, signedRankP(c.d), 1e-12, "%v", c.d)
	}
	assert.Equal(t, 1.0, signedRankP(nil))
}

func TestTrendP(t *testing.T) {
	up := [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	assert.Equal(t, 27.0, jonckheere(up), "every cross-group pair is in order")
	assert.Equal(t, 0.0, jonckheere([][]float64{{3}, {2}, {1}}))
	assert.Equal(t, 1.5, jonckheere([][]float64{{1}, {1}, {1}}), "ties count one half")
	// Only 1 of the 9!/(3!3!3!) = 1680 assignments is perfectly ordered.
	assert.Less(t, trendP(up, 20000), 0.002)
	down := [][]float64{{7, 8, 9}, {4, 5, 6}, {1, 2, 3}}
	assert.Greater(t, trendP(down, 2000), 0.99)
	// Under the null the p-value is roughly uniform: about 5% of
	// no-trend data sets fall below 0.05.
	rng := rand.New(rand.NewPCG(3, 4))
	below := 0
	for range 200 {
		g := make([][]float64, 3)
		for i := range g {
			for range 5 {
				g[i] = append(g[i], rng.NormFloat64())
			}
		}
		if trendP(g, 400) < 0.05 {
			below++
		}
	}
	assert.InDelta(t, 10, below, 9, "false positives at α = 0.05 out of 200")
}
