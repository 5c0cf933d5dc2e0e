package experiments

import (
	"testing"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

// TestPenalties checks two findings of exp-penalties, with every penalty
// charging the same at the 90-minute reference: the group-relative
// penalty (Kimi k1.5) ends training with shorter finish times than the
// linear one, and the deadline step with longer ones (below its deadline
// a step gives no gradient towards speed). Variants share their task
// draws, so the differences are paired by seed: Wilcoxon signed-rank,
// one-sided, α = 0.01, 20 seeds. With 10 the deadline's claim failed on
// one fresh set of four (9001–9010: 7 of 10, p = 0.014).
func TestPenalties(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-penalties")
	latency := func(r *rlcr.Iteration) float64 { return r.LatencyMean }
	var relative, deadline []float64
	for k := range uint64(seeds(20)) {
		lin := lastTenth(t, sc, "linear", testSeed+k, latency)
		relative = append(relative, lin-lastTenth(t, sc, "group-relative", testSeed+k, latency))
		deadline = append(deadline, lastTenth(t, sc, "deadline", testSeed+k, latency)-lin)
	}
	t.Logf("finish time, linear − group-relative: %.0f s; deadline − linear: %.0f s", relative, deadline)
	claim(t, "group-relative finishes sooner than linear", signedRankP(relative))
	claim(t, "deadline finishes later than linear", signedRankP(deadline))
}
