package results_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
)

// Each seed's final value is its mean over the last tenth of its
// iterations: here the last two of twenty.
func ExampleLastTenths() {
	var rows [][]string
	for seed := 1; seed <= 2; seed++ {
		for i := range 20 {
			rows = append(rows, []string{"team", fmt.Sprint(seed), fmt.Sprint(i), fmt.Sprint(seed * i)})
		}
	}
	t, err := rundir.ParseTable("iterations.csv", rundir.CSV([]string{"variant", "seed", "iteration", "reward_mean"}, rows))
	if err != nil {
		panic(err)
	}
	sv, err := results.LastTenths(t)
	if err != nil {
		panic(err)
	}
	fmt.Println(sv.Seeds["team"], sv.Values["team"]["reward_mean"])
	// Output: [1 2] [18.5 37]
}
