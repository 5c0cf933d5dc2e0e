package collective_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// BenchmarkEpisode runs one split episode per iteration on a layered DAG and
// reports the cost per engine event: it must grow with the number of
// events, not with agents × subtasks.
func BenchmarkEpisode(b *testing.B) {
	for _, size := range []struct{ agents, width, depth int }{
		{10, 10, 10},
		{1000, 1000, 10},
		{10000, 10000, 10},
	} {
		fam := task.Family{Shape: "layered", Width: size.width, Depth: size.depth, EdgeProb: 3 / float64(size.width),
			Work: sim.Exponential(120), Difficulty: sim.Const(0.1), OutputTokens: sim.Const(200)}
		g, err := fam.Draw(rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		cfg := collective.Defaults()
		cfg.Agents = size.agents
		pol := org(b, "split")
		b.Run(fmt.Sprintf("agents=%d/subtasks=%d", size.agents, g.Len()), func(b *testing.B) {
			var events uint64
			b.ReportAllocs()
			for b.Loop() {
				res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}
