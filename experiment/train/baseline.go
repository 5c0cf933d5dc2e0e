package train

import (
	"context"
	"fmt"
	"reflect"
	"runtime"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// Alike returns the groups of two or more variants (indices into
// variants, in order) that differ only in their policy section: training
// replaces it with the policy it learns (train.policy), so they would
// train identical copies. Jobs trains the first of each group once.
func Alike(variants []scenarios.Variant) [][]int {
	var groups [][]int
	taken := make([]bool, len(variants))
	for i := range variants {
		if taken[i] {
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(variants); j++ {
			a, b := variants[i].Spec, variants[j].Spec
			a.Policy, b.Policy = scenarios.PolicySpec{}, scenarios.PolicySpec{}
			if !taken[j] && reflect.DeepEqual(a, b) {
				taken[j] = true
				group = append(group, j)
			}
		}
		if len(group) > 1 {
			groups = append(groups, group)
		}
	}
	return groups
}

// baselineColumns are the columns of iterations.csv that a baseline has:
// the figures of its rollouts, none of an update.
var baselineColumns = []string{"reward_mean", "success_rate", "latency_mean", "latency_p90", "parallelism_mean",
	"messages_mean", "model_calls_mean", "agent_time_mean", "spawn_finish_rate", "critical_steps_mean"}

// Baselines scores each variant's own policy section (its fixed
// organization, or its policy file) for seeds seeds from seed on the
// episodes that the last tenth of the variant's training scores the
// learned policy on (rlcr.Baseline: the same tasks and streams, common
// random numbers), one job per variant and seed on a pool of workers. A
// variant Jobs does not train (one alike with another) is scored on the
// episodes of the one trained for it, which are its own. The jobs'
// rows are the iterations of that last tenth.
func Baselines(ctx context.Context, sc *scenarios.Scenario, seed uint64, seeds int, opt Options) ([]*Job, error) {
	var jobs []*Job
	for i := range sc.Variants {
		for k := range uint64(seeds) {
			jobs = append(jobs, &Job{Variant: &sc.Variants[i], Seed: seed + k})
		}
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	err := pool.Run(ctx, len(jobs), workers, func(ctx context.Context, _, i int) error {
		j := jobs[i]
		pol, err := j.Variant.Policy()
		if err != nil {
			return err
		}
		prob := j.Variant.Problem()
		prob.MaxEvents = opt.MaxEvents
		cfg := j.Variant.Spec.Train
		from := cfg.Iterations - len(stats.LastTenth(make([]struct{}, cfg.Iterations)))
		err = rlcr.Baseline(ctx, rlcr.Run{Problem: prob, Config: cfg, Seed: j.Seed, Workers: 1, Emit: func(it rlcr.Iteration) error {
			j.Rows = append(j.Rows, it)
			if opt.Iteration != nil {
				opt.Iteration()
			}
			return nil
		}}, pol, from)
		if err != nil {
			return fmt.Errorf("baseline of variant %q (%s), seed %d: %w", j.Variant.Name, PolicyName(j.Variant), j.Seed, err)
		}
		return nil
	})
	return jobs, err
}

// BaselineIterations is how many iterations Baselines runs for seeds
// seeds of sc: the last tenth of each variant's training.
func BaselineIterations(sc *scenarios.Scenario, seeds int) int {
	n := 0
	for i := range sc.Variants {
		n += seeds * len(stats.LastTenth(make([]struct{}, sc.Variants[i].Spec.Train.Iterations)))
	}
	return n
}

// PolicyName names v's own policy section: its organization, or its
// policy file.
func PolicyName(v *scenarios.Variant) string {
	if v.Spec.Policy.File != "" {
		return "policy file " + v.Spec.Policy.File
	}
	return v.Spec.Policy.Organization
}

// baselineValues returns each baseline job's mean over its iterations of
// every baseline column (with the hand-off columns when a variant has a
// handoff section): the values summary.csv aggregates over seeds, as
// results.LastTenths does for the learned policy's; nil for no jobs.
func baselineValues(jobs []*Job) *results.SeedValues {
	if len(jobs) == 0 {
		return nil
	}
	cols := baselineColumns
	specs := make([]*scenarios.Spec, len(jobs))
	for i, j := range jobs {
		specs[i] = &j.Variant.Spec
	}
	if experiment.UsesHandoff(specs...) {
		cols = append(cols[:len(cols):len(cols)], HandoffColumnNames()...)
	}
	sv := &results.SeedValues{Metrics: cols, Seeds: map[string][]uint64{}, Values: map[string]map[string][]float64{}}
	for _, j := range jobs {
		v := j.Variant.Name
		if sv.Values[v] == nil {
			sv.Variants = append(sv.Variants, v)
			sv.Values[v] = map[string][]float64{}
		}
		sv.Seeds[v] = append(sv.Seeds[v], j.Seed)
		for _, c := range cols {
			value, sum := IterationValue(c), 0.0
			for i := range j.Rows {
				sum += value(&j.Rows[i])
			}
			sv.Values[v][c] = append(sv.Values[v][c], sum/float64(len(j.Rows)))
		}
	}
	return sv
}
