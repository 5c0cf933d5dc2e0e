package floor_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/bench/floor"
)

// Train the rlcr-peer model at the latency weight 0.5, as one variant of
// `simulate train rlcr-peer` does, and read what the last tenth of the
// training did.
func ExampleTrainer_Train() {
	r := floor.NewTrainer(1).Train(0.5, floor.Iterations)
	fmt.Printf("%d episodes, %.1f decisions an episode\n", r.Episodes, float64(r.Decisions)/float64(r.Episodes))
	fmt.Printf("success %.2f, finished within the hour: %v\n", r.Success, r.Finish < 60)
	// Output:
	// 4800 episodes, 10.0 decisions an episode
	// success 1.00, finished within the hour: true
}
