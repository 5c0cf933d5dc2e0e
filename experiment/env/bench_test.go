package env_test

import (
	"testing"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
)

// BenchmarkStep steps 256 rows of latency-pressure (variant high) with a
// linear policy's choices and reports the cost per decision, beside the
// same policy deciding in process on a Runner over the same episodes
// (ns/decision of each, counting the decisions with a choice): the environment's overhead is the difference.
// The figures are for the coordinator to measure on a quiet machine.
func BenchmarkStep(b *testing.B) {
	const rows = 256
	pol := policy.NewLinear()
	b.Run("env", func(b *testing.B) {
		e, err := env.New(env.Config{Scenario: "latency-pressure", Variant: "high", NumEnvs: rows, Group: 8})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Reset(nil); err != nil {
			b.Fatal(err)
		}
		actions := make([]int32, rows)
		decisions := 0
		b.ReportAllocs()
		for b.Loop() {
			active := 0
			for i := range actions {
				if p, ok := e.Pending(i); ok {
					actions[i] = int32(pol.Decide(p.Obs, p.Mask, p.U))
					active++
				}
			}
			if active == 0 {
				if _, err := e.Reset(nil); err != nil {
					b.Fatal(err)
				}
				continue
			}
			if _, err := e.Step(actions); err != nil {
				b.Fatal(err)
			}
			decisions += active
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
	})
	b.Run("in-process", func(b *testing.B) {
		sc, err := scenarios.Load("latency-pressure", nil)
		if err != nil {
			b.Fatal(err)
		}
		var v *scenarios.Variant
		for i := range sc.Variants {
			if sc.Variants[i].Name == "high" {
				v = &sc.Variants[i]
			}
		}
		var r collective.Runner
		decisions, k := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			streams, g, err := experiment.DrawEpisode(v, sc.Seed, k%rows)
			if err != nil {
				b.Fatal(err)
			}
			res, err := r.Run(g, v.Spec.Collective, pol, streams, collective.Options{Record: true})
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range res.Decisions {
				if !d.Mask.Single() { // the decisions the environment puts to its caller
					decisions++
				}
			}
			k++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
	})
}
