package experiments

import (
	"fmt"
	"testing"

	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/stats"
)

// creditSizes and creditEstimators name exp-credit's variants
// (ESTIMATOR-SIZE).
var (
	creditSizes      = []int{2, 4, 8, 16, 32}
	creditEstimators = []string{"flat", "credit", "grpo"}
)

// creditSeed is the first seed of TestCredit: exp-credit was designed on
// seeds 1–10, and 1001 and up were not kept apart for it.
const creditSeed = 7001

// TestCredit checks exp-credit's findings on seeds it was not designed
// on: at team sizes 8, 16 and 32, GRPO's division by the group's std
// reaches the target reward in fewer iterations than the flat collective
// advantage, and at 32 it ends with a higher reward. The target of a seed and team
// size is rlcr.TargetFraction of the way from the uniform policy's reward
// (iteration 0, the same for every estimator) to the best last-tenth
// reward of the three estimators; a run that never reaches it counts as
// the iteration after its last. Wilcoxon signed-rank over seeds (the
// estimators of a seed share its task draws), one-sided, α = 0.01, 10
// seeds, four claims. A higher final reward at 16 agents held on 9 of the
// 10 design seeds and failed here (7001–7010: 8 of 10, p = 0.053), and at
// 8 agents it held here but failed on two of three fresh sets (9001–9010:
// p = 0.31, 9501–9510: p = 0.042), where ÷std collapsed late in a seed or
// two; both are reported as not shown (docs/experiments.md). Per-agent
// credit is trained too, because its final reward enters the target, but
// nothing is claimed about it: on the design seeds it was no faster than
// the flat advantage at any size.
func TestCredit(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-credit")
	faster := map[int][]float64{} // flat minus grpo, iterations to the target
	better := map[int][]float64{} // grpo minus flat, final reward
	for k := range uint64(seeds(10)) {
		for _, n := range creditSizes {
			rewards := map[string][]float64{}
			final := map[string]float64{}
			for _, e := range creditEstimators {
				rows := trainRows(t, sc, fmt.Sprintf("%s-%d", e, n), creditSeed+k)
				for i := range rows {
					rewards[e] = append(rewards[e], rows[i].RewardMean)
				}
				final[e] = mean(stats.LastTenth(rows), func(r *rlcr.Iteration) float64 { return r.RewardMean })
			}
			best := max(final["flat"], final["credit"], final["grpo"])
			target := rlcr.Target(rewards["flat"][0], best, rlcr.TargetFraction)
			iters := map[string]int{}
			for _, e := range creditEstimators {
				iters[e], _ = rlcr.IterationsToTarget(rewards[e], target)
			}
			t.Logf("seed %d, %2d agents: iterations to %.3f: %v; final reward: flat %.3f, credit %.3f, grpo %.3f", creditSeed+k, n, target, iters, final["flat"], final["credit"], final["grpo"])
			faster[n] = append(faster[n], float64(iters["flat"]-iters["grpo"]))
			better[n] = append(better[n], final["grpo"]-final["flat"])
		}
	}
	for _, n := range []int{8, 16, 32} {
		claim(t, fmt.Sprintf("%d agents: ÷std reaches the target sooner than the flat advantage", n), signedRankP(faster[n]))
	}
	t.Logf("final reward, ÷std minus flat, 8 agents (not claimed): %.3f", better[8])
	claim(t, "32 agents: ÷std ends with a higher reward than the flat advantage", signedRankP(better[32]))
}
