package experiments

import (
	"testing"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

// TestStrength checks exp-strength's finding for bases trained from the
// uniform policy: a weak base ends training with a lower reward than a
// strong one. Mann–Whitney (Jonckheere–Terpstra with two groups),
// one-sided, by 20,000 permutations, α = 0.01, 10 seeds each.
//
// The seeds start at 2001, not testSeed: seeds 1001–1010 were spent on a
// first claim, that a weak base's parallelism falls during training,
// which did not hold there (p = 0.032; docs/experiments.md).
func TestStrength(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-strength")
	reward := func(r *rlcr.Iteration) float64 { return r.RewardMean }
	var weak, strong []float64
	for k := range uint64(seeds(10)) {
		weak = append(weak, lastTenth(t, sc, "weak", 2001+k, reward))
		strong = append(strong, lastTenth(t, sc, "strong", 2001+k, reward))
	}
	t.Logf("final reward: weak %.2f, strong %.2f", weak, strong)
	claim(t, "a weak base ends with a lower reward than a strong one", trendP([][]float64{weak, strong}, 20000))
}
