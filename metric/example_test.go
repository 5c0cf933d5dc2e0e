package metric_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/metric"
)

// A column's entry gives its unit, its label and which way is better;
// a family's member has its own name in them.
func ExampleLookup() {
	for _, name := range []string{"latency_mean", "success_rate", "prob_share", "lr"} {
		m, _ := metric.Lookup(name)
		fmt.Printf("%s: %q, unit %s, better %s\n", m.Name, m.Label, m.Unit, m.Better)
	}
	_, ok := metric.Lookup("latency")
	fmt.Println("latency:", ok)
	// Output:
	// latency_mean: "mean finish time (s)", unit s, better lower
	// success_rate: "success rate (fraction)", unit fraction, better higher
	// prob_share: "probability of share (fraction)", unit fraction, better none
	// lr: "learning rate", unit 1, better none
	// latency: false
}

// The main metrics are what a reader judges a variant by: compare shows
// them first, in this order, and the others only with --all.
func ExampleMain() {
	for _, name := range []string{"reward_mean", "success_rate", "latency_mean", "critical_steps_mean", "lr", "prob_share"} {
		place, ok := metric.Main(name)
		fmt.Println(name, place, ok)
	}
	// Output:
	// reward_mean 1 true
	// success_rate 3 true
	// latency_mean 6 true
	// critical_steps_mean 16 true
	// lr -1 false
	// prob_share -1 false
}
