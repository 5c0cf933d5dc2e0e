package sweep

import (
	"fmt"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/scenarios"
)

// NewPlan enumerates the trials of sc's sweep from seed, for every variant
// or only the one named only (when not ""), and returns the plan with the
// trials.
func NewPlan(sc *scenarios.Scenario, seed uint64, only string) (*results.Plan, []scenarios.Trial, error) {
	if sc.Sweep == nil {
		return nil, nil, fmt.Errorf("scenario %s has no sweep section (add one: see 'simulate help sweep')", sc.Name)
	}
	trials, err := sc.Trials(seed, only)
	if err != nil {
		return nil, nil, err
	}
	specs := make([]*scenarios.Spec, len(trials))
	for i := range trials {
		specs[i] = &trials[i].Variant.Spec
	}
	inputs, err := sc.InputDigest(specs...)
	if err != nil {
		return nil, nil, err
	}
	sw := sc.Sweep
	p := &results.Plan{
		Format:       results.PlanFormat,
		Scenario:     sc.Name,
		Description:  sc.Description,
		ScenarioHash: sc.Hash,
		Inputs:       inputs,
		Command:      sw.Command,
		Seed:         seed,
		Seeds:        sw.Seeds,
		Samples:      sw.Samples,
		Only:         only,
		Metrics:      sw.Metrics,
		Relative:     sw.Relative,
		Reference:    sw.Reference,
		Resolved:     string(sc.Resolved),
	}
	if sw.Command == scenarios.SweepRun {
		p.Episodes = sc.Episodes
	}
	for _, v := range sc.Variants {
		if only == "" || v.Name == only {
			p.Variants = append(p.Variants, v.Name)
		}
	}
	for _, ax := range sw.Grid {
		p.Grid = append(p.Grid, results.Axis{Path: ax.Path, Values: ax.Values, Numbers: ax.Numbers, Unit: ax.Unit})
	}
	for _, ax := range sw.Random {
		p.Random = append(p.Random, results.RandomAxis{Path: ax.Path, Dist: ax.Dist.String()})
	}
	p.Trials = make([]results.TrialInfo, len(trials))
	for i, t := range trials {
		p.Trials[i] = results.TrialInfo{ID: t.ID, Variant: t.Variant.Name, Seed: t.Seed, Sample: t.Sample, Point: t.Point, Params: t.Params}
	}
	seen := make(map[string]int, len(trials))
	for i, t := range p.Trials {
		if j, dup := seen[t.ID]; dup {
			return nil, nil, fmt.Errorf("trials %d and %d have the same ID %s (%s): their parameters, variant and seed are the same", j, i, t.ID, p.Describe(i))
		}
		seen[t.ID] = i
	}
	p.Hash = p.ContentHash()
	return p, trials, nil
}
