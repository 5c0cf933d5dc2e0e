package experiments

import (
	"testing"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

// TestGAE checks exp-gae's finding on episode length: PPO with GAE
// λ = 0.8 ends training with shorter episodes (fewer decisions per
// episode, last tenth) than λ = 1. Mann–Whitney (Jonckheere–Terpstra with
// two groups), one-sided, by 20,000 permutations, α = 0.01, 10 seeds
// each, trained for the scenario's 150 iterations: after half of them the
// gap failed the test on fresh seeds (9501–9510: p = 0.031). Unpaired and
// rank-based, so that a run that diverges (as λ = 0.8 sometimes does)
// counts as one rank, not as its size.
func TestGAE(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-gae")
	perEpisode := func(r *rlcr.Iteration) float64 { return float64(r.Decisions) / float64(r.Episodes) }
	var long, short []float64
	for k := range uint64(seeds(10)) {
		long = append(long, lastTenth(t, sc, "lambda-1", testSeed+k, perEpisode))
		short = append(short, lastTenth(t, sc, "lambda-0.8", testSeed+k, perEpisode))
	}
	t.Logf("decisions per episode: λ = 1 %.1f, λ = 0.8 %.1f", long, short)
	claim(t, "λ = 0.8 ends with shorter episodes than λ = 1", trendP([][]float64{negate(long), negate(short)}, 20000))
}
