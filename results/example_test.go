package results_test

import (
	"fmt"
	"os"
	"path/filepath"

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

// Two variants of one run are paired episode by episode: episode k of
// each worked on the same task draw. B (team) finished sooner in every
// episode, by 40 s on average.
func ExampleCompareVariants() {
	dir, err := os.MkdirTemp("", "run")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	d, err := rundir.Create(filepath.Join(dir, "run"), false)
	if err != nil {
		panic(err)
	}
	header := []string{"variant", "episode", "finish_time", "acceptable", "reward", "model_calls", "tokens", "agent_time", "messages", "parallelism_mean", "critical_steps", "speedup"}
	var rows [][]string
	for _, v := range []struct {
		name   string
		finish []float64
	}{{"solo", []float64{100, 150, 120}}, {"team", []float64{70, 100, 80}}} {
		for k, f := range v.finish {
			rows = append(rows, []string{v.name, fmt.Sprint(k), fmt.Sprint(f), "true", "1", "5", "900", fmt.Sprint(f), "0", "1", "3", "1"})
		}
	}
	if err := d.Write("episodes.csv", rundir.CSV(header, rows)); err != nil {
		panic(err)
	}
	if err := d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "s", Seed: 1, Episodes: 3}); err != nil {
		panic(err)
	}
	r, err := rundir.Open(d.Path())
	if err != nil {
		panic(err)
	}
	cmp, err := results.CompareVariants(r, "solo", "team")
	if err != nil {
		panic(err)
	}
	for _, c := range cmp {
		if c.Metric == "finish_time" {
			fmt.Printf("%s: %s %v -> %v, diff %v, better %s, P(B better) %v, paired %t\n", c.Variant, c.Metric, c.A, c.B, c.Diff.Value, c.Better, c.Prob, c.Paired)
		}
	}
	// Output: solo vs team: finish_time 123.33333333333333 -> 83.33333333333333, diff -40, better lower, P(B better) 1, paired true
}
