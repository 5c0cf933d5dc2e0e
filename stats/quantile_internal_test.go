package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sortedQuantile is quantile as the definition reads: sort, then
// interpolate between the two order statistics around q·(n−1).
func sortedQuantile(xs []float64, q float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	h := q * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	if math.IsInf(xs[i], 0) && xs[i+1] == xs[i] {
		return xs[i] // not Inf − Inf
	}
	v := xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
	return min(max(v, xs[i]), xs[i+1])
}

// TestQuantilesSelectAsSortWould: the bounds found by selection are, to
// the bit, those of a full sort, for samples with many ties, a few
// values, infinities, NaNs (which slices.Sort puts first; any NaN is a
// NaN) and the extreme levels.
func TestQuantilesSelectAsSortWould(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		n := 1 + r.IntN(300)
		distinct := 1 + r.IntN(n+1)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(r.IntN(distinct)) * 0.37
			switch {
			case trial%5 == 0 && r.IntN(20) == 0:
				xs[i] = math.NaN()
			case trial%7 == 0 && r.IntN(3) == 0:
				xs[i] = math.Inf(1 - 2*r.IntN(2))
			}
		}
		level := []float64{0.95, 0.5, 0.8, 0, 1}[trial%5]
		b := Bootstrap{Level: level}
		a := (1 - level) / 2
		want := Interval{1, sortedQuantile(xs, a), sortedQuantile(xs, 1-a)}
		got := b.quantiles(1, slices.Clone(xs))
		bits := func(iv Interval) [2]uint64 { return [2]uint64{bitsOf(iv.Lo), bitsOf(iv.Hi)} }
		if !assert.Equal(t, bits(want), bits(got), "trial %d: %d values, level %v: %v", trial, n, level, xs) {
			return
		}
	}
}

// bitsOf is x's bits, one NaN for all: which payload an arithmetic NaN
// carries is not a result (every table writes it as NaN).
func bitsOf(x float64) uint64 {
	if math.IsNaN(x) {
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(x)
}

// TestSelectNth: the k-th smallest lands at k, nothing smaller after it,
// nothing larger before it.
func TestSelectNth(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		xs := make([]float64, 1+r.IntN(100))
		for i := range xs {
			xs[i] = float64(r.IntN(1 + len(xs)/3))
		}
		k := r.IntN(len(xs))
		sorted := slices.Sorted(slices.Values(xs))
		selectNth(xs, k)
		assert.Equal(t, sorted[k], xs[k])
		assert.Equal(t, sorted[k], slices.Max(xs[:k+1]))
		assert.Equal(t, sorted[k], slices.Min(xs[k:]))
	}
}
