package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestSamplerEqualsSample: a Sampler draws bit for bit what Dist.Sample
// draws from the same generator state, and leaves the generator in the
// same state, for every kind (point masses included) over awkward
// parameters and 20 seeds.
func TestSamplerEqualsSample(t *testing.T) {
	var dists []sim.Dist
	for _, v := range awkward {
		for _, w := range []float64{0, 0.5, 1, 3} {
			dists = append(dists, allKinds(v, w)...)
			dists = append(dists, sim.LogNormalMixture(v, w, v/2+1, w+1, math.Min(w, 1)))
		}
	}
	dists = append(dists, sim.Dist{}, sim.LogNormalMixture(0.6, 0, 5, 0, 0.5))
	for _, d := range dists {
		s := d.Sampler()
		require.Equal(t, d, s.Dist())
		for seed := range uint64(20) {
			a, b := rand.New(rand.NewPCG(seed, 7)), rand.New(rand.NewPCG(seed, 7))
			for range 5 {
				want, got := d.Sample(a), s.Sample(b)
				require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%v seed %d: %v against %v", d, seed, got, want)
			}
			require.Equal(t, a.Uint64(), b.Uint64(), "%v seed %d: the generators part", d, seed)
		}
	}
}

// TestSamplerZero: the zero Sampler is the zero Dist, the constant 0.
func TestSamplerZero(t *testing.T) {
	var s sim.Sampler
	require.Zero(t, s.Sample(rand.New(rand.NewPCG(1, 2))))
}

func BenchmarkSampler(b *testing.B) {
	d := sim.LogNormal(0.6, 0.5)
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("Dist", func(b *testing.B) {
		for b.Loop() {
			d.Sample(r)
		}
	})
	s := d.Sampler()
	b.Run("Sampler", func(b *testing.B) {
		for b.Loop() {
			s.Sample(r)
		}
	})
}
