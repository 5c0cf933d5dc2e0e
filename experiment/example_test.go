package experiment_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
)

// Play the episodes of a library scenario with a policy of one's own: the
// variant's task draws and random streams are those simulate run plays,
// so the variant's own organization finishes as episodes.csv says, and a
// policy that delegates whenever it can is compared on the same tasks.
func ExampleDrawEpisode() {
	sc, err := scenarios.Load("tiny", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := &sc.Variants[0] // split
	own, err := policy.Organization(v.Spec.Policy.Organization)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The mask holds the valid actions; a policy must return one of them.
	eager := collective.PolicyFunc(func(obs *collective.Observation, mask collective.Mask, u float64) collective.Action {
		for _, a := range []collective.Action{collective.Delegate, collective.Work, collective.Submit} {
			if mask.Has(a) {
				return a
			}
		}
		return mask.First()
	})
	for k := range 3 {
		streams, g, err := experiment.DrawEpisode(v, sc.Seed, k)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("episode %d:", k)
		for _, pol := range []collective.Policy{own, eager} {
			res, err := collective.Run(g, v.Spec.Collective, pol, streams, collective.Options{})
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("  finish %5.1f min, parallelism %.2f", res.Finish.Minutes(), res.ParallelismMean)
		}
		fmt.Println()
	}
	// Output:
	// episode 0:  finish  33.0 min, parallelism 1.13  finish  21.2 min, parallelism 2.18
	// episode 1:  finish  60.4 min, parallelism 1.29  finish  62.0 min, parallelism 2.25
	// episode 2:  finish   8.1 min, parallelism 1.57  finish   7.0 min, parallelism 2.43
}
