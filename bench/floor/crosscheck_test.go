package floor_test

import (
	"math"
	"slices"
	"testing"

	"github.com/swarmsim/swarmsim/bench/floor"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// TestSameModelAsProduct plays the rlcr-peer scenario's episodes in the
// product (collective.Run with the scenario's collective and action
// restriction) and in the floor, on the same task draws, under policies
// that decide deterministically (logits ±25 or more apart, so that no draw
// in [0, 1) changes the action), and finds the same decisions: agent,
// whether the policy was asked, action, time and all 32 features of the
// product's linear policy (the floor's 18, and 0 for the other fourteen), and
// the same finish time and outcome.
func TestSameModelAsProduct(t *testing.T) {
	sc, err := scenarios.Load("rlcr-peer", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := sc.Variants[0].Spec
	actions, err := collective.ParseMask(spec.Train.Actions)
	if err != nil {
		t.Fatal(err)
	}
	names := policy.FeatureNames()
	var at [floor.NF]int // the product's index of each live feature
	for j, n := range floor.Names {
		at[j] = slices.Index(names, n)
		if at[j] < 0 {
			t.Fatalf("feature %q is not the product's", n)
		}
	}
	// Policies as the delegate logit less the work logit, on named
	// features.
	policies := []struct {
		name  string
		delta map[string]float64
	}{
		{"always work", map[string]float64{"bias": -50}},
		{"always delegate", map[string]float64{"bias": 50}},
		{"delegate with more than one ready", map[string]float64{"bias": -50, "ready2_x_helper": 100}},
		{"delegate when holding a part", map[string]float64{"bias": -50, "unchecked": 100}},
		{"helpers delegate", map[string]float64{"bias": 50, "main": -100}},
		{"delegate with someone idle", map[string]float64{"bias": -50, "log_idle": 500}},
		{"delegate with half the parts ready", map[string]float64{"bias": -175, "ready_frac": 400}},
		{"delegate while the join waits", map[string]float64{"bias": -50, "unshared": 100}},
		{"work at the start only", map[string]float64{"bias": 50, "main_x_start": -100}},
	}
	streams := sim.NewStreams(11)
	episodes, decisions := 0, 0
	for k := range 40 {
		g, err := spec.Task.Draw(streams.New("graph", uint64(k)))
		if err != nil {
			t.Fatal(err)
		}
		if g.Len() != floor.Nodes {
			t.Fatalf("the scenario's task has %d subtasks, the floor's %d", g.Len(), floor.Nodes)
		}
		var work [floor.Nodes]float64
		for v := range work {
			work[v] = g.Nodes[v].Work.Seconds()
		}
		for _, p := range policies {
			var delta [floor.NF]float64
			lin := policy.NewLinear()
			row := lin.Params()[int(collective.Delegate)*policy.NumFeatures:]
			for j, n := range floor.Names {
				delta[j] = p.delta[n]
				row[at[j]] = p.delta[n]
			}
			res, err := collective.Run(g, spec.Collective, lin, streams.Derive("episode", uint64(k)), collective.Options{Record: true, Actions: actions})
			if err != nil {
				t.Fatal(err)
			}
			got, finish, ok := floor.TraceEpisode(work, delta, uint64(k))
			episodes++
			decisions += len(got)
			want := res.Decisions
			if len(got) != len(want) {
				t.Fatalf("task %d, %s: %d decisions in the floor, %d in the product", k, p.name, len(got), len(want))
			}
			for i, d := range want {
				var x [policy.NumFeatures]float64
				policy.Features(&d.Obs, &x)
				f := got[i]
				if f.Agent != d.Agent || f.Choice == d.Mask.Single() || f.Work != (d.Action == collective.Work) || math.Abs(f.At-d.Obs.Elapsed) > 1e-6 {
					t.Fatalf("task %d, %s, decision %d: floor agent %d choice %v work %v at %v; product %+v mask %v action %v",
						k, p.name, i, f.Agent, f.Choice, f.Work, f.At, d.Obs, d.Mask, d.Action)
				}
				for c := range x {
					fx := 0.0
					if j := slices.Index(at[:], c); j >= 0 {
						fx = f.X[j]
					}
					if math.Abs(fx-x[c]) > 1e-9 {
						t.Fatalf("task %d, %s, decision %d: feature %s is %v in the floor, %v in the product (%+v)", k, p.name, i, names[c], fx, x[c], d.Obs)
					}
				}
			}
			wantFinish := res.Finish.Seconds()
			if res.TimedOut {
				wantFinish = 12000
			}
			if ok != res.Acceptable || math.Abs(finish-wantFinish) > 1e-6 {
				t.Fatalf("task %d, %s: the floor finishes at %v (acceptable %v), the product at %v (%v)", k, p.name, finish, ok, wantFinish, res.Acceptable)
			}
		}
	}
	t.Logf("%d episodes, %d decisions alike", episodes, decisions)
}
