package results_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/results"
)

// Which way is better decides the probability of improvement.
func ExampleBetter() {
	for _, m := range []string{"reward_mean", "latency_mean", "success_rate", "prob_delegate"} {
		fmt.Println(m, results.Better(m))
	}
	// Output:
	// reward_mean higher
	// latency_mean lower
	// success_rate higher
	// prob_delegate none
}
