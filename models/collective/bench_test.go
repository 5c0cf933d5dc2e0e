package collective_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/serving"
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

// BenchmarkShared runs the same split episode (a layered DAG of 100
// subtasks, 10 agents) with every agent on its own server, on one shared
// replica, on a hosted API and with a tool pool, on a Runner so that
// episodes reuse their memory. A shared server has one event per call, its
// timer firing at the call's end as an agent's own server's event does,
// never one per token: the target is at most 2× the episode without it,
// and no allocation per event.
func BenchmarkShared(b *testing.B) {
	pol := org(b, "split")
	for _, c := range sharedEpisodes(b) {
		b.Run(c.name, func(b *testing.B) {
			var r collective.Runner
			var events uint64
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				res, err := r.Run(c.g, c.cfg, pol, sim.NewStreams(1), collective.Options{})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
			}
			cpu = cpuTime(b) - cpu
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			// On a shared machine the wall clock counts the time spent
			// waiting for a core; the process's CPU time does not.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSharedRatio runs BenchmarkShared's own-servers, replica and API
// episodes in turn, ten of each per iteration, each ten timed in the
// thread's CPU time, and reports the replica's and the API's as multiples
// of the own-servers episode's over the same iterations (serving/own,
// api/own) besides each one's CPU time per episode. On a shared machine the
// other jobs come and go within a second, so sub-benchmarks run one after
// the other see different loads and a ratio of their medians moves with
// them; a ratio over interleaved episodes does not.
func BenchmarkSharedRatio(b *testing.B) {
	const each = 10
	pol := org(b, "split")
	eps := sharedEpisodes(b)[:3]
	runners := make([]collective.Runner, len(eps))
	cpu := make([]time.Duration, len(eps))
	runtime.LockOSThread() // the thread's clock is this goroutine's
	defer runtime.UnlockOSThread()
	for b.Loop() {
		for i, c := range eps {
			t0 := threadCPU(b)
			for range each {
				if _, err := runners[i].Run(c.g, c.cfg, pol, sim.NewStreams(1), collective.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			cpu[i] += threadCPU(b) - t0
		}
	}
	for i, c := range eps {
		b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(each*b.N), c.name+"-cpu-ns/episode")
		if i > 0 {
			b.ReportMetric(float64(cpu[i])/float64(cpu[0]), c.name+"/own")
		}
	}
}

// sharedEpisode is one of BenchmarkShared's episodes.
type sharedEpisode struct {
	name string
	g    *task.Graph
	cfg  collective.Config
}

// sharedEpisodes returns BenchmarkShared's episodes: own servers, one
// shared replica, a hosted API and a tool pool, in that order.
func sharedEpisodes(b testing.TB) []sharedEpisode {
	fam := task.Family{Shape: "layered", Width: 10, Depth: 10, EdgeProb: 0.3,
		Work: sim.Exponential(120), Difficulty: sim.Const(0.1), OutputTokens: sim.Const(200)}
	g, err := fam.Draw(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	tools := g.WithTools(task.Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)})
	own := collective.Defaults()
	own.Agents = 10
	replicas := own
	replicas.Serving = serving.DefaultDeployment()
	replicas.Serving.Replicas, replicas.Serving.MaxBatch = 1, 4
	api := own
	api.API = serving.API{RPM: 100, TPM: 200000, Concurrency: 4, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	pool := own
	pool.Tools.Pool = 2
	return []sharedEpisode{{"own", g, own}, {"serving", g, replicas}, {"api", g, api}, {"tools", tools, pool}}
}

// BenchmarkStepper runs the same sampling policy's episode (a layered DAG
// of 100 subtasks, 10 agents) on a Runner, deciding in process, and on a
// Stepper, decided from outside, and reports the cost per action taken:
// stepping must stay near the in-process cost, with no allocation per
// decision.
func BenchmarkStepper(b *testing.B) {
	g := sharedEpisodes(b)[0].g
	cfg := collective.Defaults()
	cfg.Agents = 10
	pol := policy.NewLinear()
	var r collective.Runner
	var s collective.Stepper
	for _, way := range []struct {
		name string
		run  func() *collective.Result
	}{
		{"run", func() *collective.Result {
			res, err := r.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}},
		{"stepped", func() *collective.Result {
			res, _ := stepWith(b, &s, g, cfg, pol, 1, collective.Options{})
			return res
		}},
	} {
		b.Run(way.name, func(b *testing.B) {
			actions := 0
			b.ReportAllocs()
			for b.Loop() {
				for _, n := range way.run().Actions {
					actions += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(actions), "ns/action")
		})
	}
}
