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
