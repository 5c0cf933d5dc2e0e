package sweep

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/results"
)

// References returns, for each trial of plan (by index), the index of its
// reference trial: the trial of the same variant, seed and sample whose
// parameters are the trial's with the plan's Reference values in place
// of their axes' (a reference trial is its own). It is an error when a
// trial has no reference in the plan, or more than one; nil without a
// Reference.
func References(plan *results.Plan) ([]int, error) {
	if len(plan.Reference) == 0 {
		return nil, nil
	}
	ref := make(map[string]string, len(plan.Reference))
	for _, q := range plan.Reference {
		ref[q.Path] = q.Value
	}
	key := func(t *results.TrialInfo, asReference bool) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\x00%d\x00%d", t.Variant, t.Seed, t.Sample)
		for _, p := range t.Params {
			v := p.Value
			if r, ok := ref[p.Path]; ok && asReference {
				v = r
			}
			b.WriteString("\x00" + v)
		}
		return b.String()
	}
	// The candidates: trials that have the reference values.
	at := map[string]int{}
	for i := range plan.Trials {
		t := &plan.Trials[i]
		if !hasReference(t, ref) {
			continue
		}
		k := key(t, false)
		if j, dup := at[k]; dup {
			return nil, fmt.Errorf("sweep reference %s is ambiguous: trials %s (%s) and %s (%s) are both the reference of the same trials",
				referenceText(plan), plan.Trials[j].ID, plan.Describe(j), t.ID, plan.Describe(i))
		}
		at[k] = i
	}
	out := make([]int, len(plan.Trials))
	for i := range plan.Trials {
		j, ok := at[key(&plan.Trials[i], true)]
		if !ok {
			return nil, fmt.Errorf("trial %s (%s) has no reference trial: the sweep has no trial with %s and its other values, variant, seed and sample",
				plan.Trials[i].ID, plan.Describe(i), referenceText(plan))
		}
		out[i] = j
	}
	return out, nil
}

// hasReference reports whether trial t has every value of ref on its
// axes; a reference path that is none of t's axes matches no trial.
func hasReference(t *results.TrialInfo, ref map[string]string) bool {
	n := 0
	for _, p := range t.Params {
		if v, ok := ref[p.Path]; ok {
			if v != p.Value {
				return false
			}
			n++
		}
	}
	return n == len(ref)
}

// referenceText writes the plan's reference as path=value pairs.
func referenceText(plan *results.Plan) string {
	parts := make([]string, len(plan.Reference))
	for i, q := range plan.Reference {
		parts[i] = q.Path + "=" + q.Value
	}
	return strings.Join(parts, ", ")
}

// relativeValue computes each relative metric of a trial's record r from
// its reference trial's record ref.
var relativeValue = map[string]func(r, ref map[string]Value) float64{
	"error_amplification": func(r, ref map[string]Value) float64 {
		return metric.ErrorAmplification(float64(r["success_rate"]), float64(ref["success_rate"]))
	},
	"coordination_overhead": func(r, ref map[string]Value) float64 {
		return metric.CoordinationOverhead(float64(r["turns_mean"]), float64(ref["turns_mean"]))
	},
	"efficiency": func(r, ref map[string]Value) float64 {
		return metric.Efficiency(float64(r["success_rate"]), float64(r["turns_mean"]), float64(ref["turns_mean"]))
	},
	"success_gain": func(r, ref map[string]Value) float64 {
		return metric.SuccessGain(float64(r["success_rate"]), float64(ref["success_rate"]))
	},
}

// WithRelative returns the plan and records that the tables and charts
// are written from: for a plan with relative metrics, a copy whose
// Metrics end with them and copies of the records that hold their values
// beside the recorded ones; otherwise plan and recs themselves. A trial
// whose reference trial has no record among recs (a shard's table, a
// partial merge) has NaN relative metrics; the merge of every shard
// fills them. The plan returned is for writing tables only: its Hash is
// the sweep's, not its own.
func WithRelative(plan *results.Plan, recs map[string]*Record) (*results.Plan, map[string]*Record, error) {
	if len(plan.Relative) == 0 {
		return plan, recs, nil
	}
	refs, err := References(plan)
	if err != nil {
		return nil, nil, err
	}
	if refs == nil {
		return nil, nil, fmt.Errorf("sweep of %s: the relative metrics %s need a reference, and the plan names none", plan.Scenario, strings.Join(plan.Relative, ", "))
	}
	out := *plan
	out.Metrics = slices.Concat(plan.Metrics, plan.Relative)
	out.Relative = nil
	derived := make(map[string]*Record, len(recs))
	for i, t := range plan.Trials {
		r, ok := recs[t.ID]
		if !ok {
			continue
		}
		c := *r
		c.Metrics = maps.Clone(r.Metrics)
		ref, found := recs[plan.Trials[refs[i]].ID]
		for _, name := range plan.Relative {
			value, known := relativeValue[name]
			if !known {
				return nil, nil, fmt.Errorf("sweep of %s: %q is not a relative metric (%s)", plan.Scenario, name, strings.Join(slices.Sorted(maps.Keys(relativeValue)), ", "))
			}
			v := math.NaN()
			if found {
				v = value(r.Metrics, ref.Metrics)
			}
			c.Metrics[name] = Value(v)
		}
		derived[t.ID] = &c
	}
	return &out, derived, nil
}
