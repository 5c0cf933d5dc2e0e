package collective_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// quantize returns g with every node's work rounded down to a multiple of
// q (at least q): with q the calls' span, every call covers exactly q of
// work.
func quantize(t testing.TB, g *task.Graph, q sim.Time) *task.Graph {
	nodes := make([]task.Node, g.Len())
	copy(nodes, g.Nodes)
	var edges []task.Edge
	for v := range nodes {
		nodes[v].Work = max(q, nodes[v].Work/q*q)
		for i, w := range g.Succ(task.ID(v)) {
			edges = append(edges, task.Edge{From: task.ID(v), To: w, Tokens: g.SuccTokens(task.ID(v))[i]})
		}
	}
	h, err := task.New(nodes, edges)
	require.NoError(t, err)
	return h.WithTools(g.Tools())
}

// sharedOnly clears the metrics that only a shared server reports, and the
// event count, which differs by the server's own events.
func sharedOnly(m collective.Metrics) collective.Metrics {
	m.ServerUtilisation, m.BatchMean, m.ServingQueueMean, m.Events = 0, 0, 0, 0
	m.ServedCalls, m.ServingTime = 0, 0
	return m
}

// perAgentEquivalent returns a per-agent configuration and a shared one
// that must give the same results: one model call per attempt, work in
// multiples of 5 ms, one output token per millisecond of work and a 1 ms
// decode step, so that a call, and a check of a fifth of the work, decode
// in exactly the time the per-agent model gives them.
func perAgentEquivalent(t testing.TB, g *task.Graph) (*task.Graph, collective.Config, collective.Config) {
	const step = sim.Millisecond
	own := collective.Defaults()
	own.Agents = 8
	own.Calls.Span = 0
	own.Calls.OutputRate = 1000
	shared := own
	shared.Serving = collective.Serving{Replicas: 1, MaxBatch: 8, Step: step}
	return quantize(t, g, 5*step), own, shared
}

// TestServingEqualsPerAgentServers: with step_per_seq 0 and a batch with
// room for everyone, a shared server is every agent's own server, on 4
// task shapes × 4 organizations × 10 seeds. Prefill is 0 on both sides
// (calls.prompt_token is not used with a shared server): on a shared server
// one call's prefill delays everyone's step, which no per-agent server
// does; TestServingPrefillAlone checks prefill without that interference.
func TestServingEqualsPerAgentServers(t *testing.T) {
	for _, f := range families {
		for _, name := range []string{"sequential", "independent", "split", "team"} {
			for seed := range uint64(10) {
				g, own, shared := perAgentEquivalent(t, draw(t, f, seed))
				own.Calls.PromptToken = 0
				a, err := collective.Run(g, own, org(t, name), sim.NewStreams(seed), collective.Options{})
				require.NoError(t, err)
				b, err := collective.Run(g, shared, org(t, name), sim.NewStreams(seed), collective.Options{})
				require.NoError(t, err)
				require.Zero(t, b.ServingWait)
				require.Positive(t, b.ServerUtilisation)
				require.Equal(t, sharedOnly(a.Metrics), sharedOnly(b.Metrics), "%s %s seed %d", f.Shape, name, seed)
				// A call's arrival costs no event, its end at most one (calls
				// that end together share one).
				require.LessOrEqual(t, b.Events, a.Events, "%s %s seed %d", f.Shape, name, seed)
			}
		}
	}
}

// TestServingPrefillAlone: a single agent never shares the server, so
// prefill at the per-agent prompt price gives the per-agent results too,
// even with a batch of one and a step that grows with the batch. The agent
// does not check its parts: a check on the shared server reads the part
// (prefill), which a per-agent check is not charged for.
func TestServingPrefillAlone(t *testing.T) {
	for _, f := range families {
		for seed := range uint64(10) {
			g, own, shared := perAgentEquivalent(t, draw(t, f, seed))
			shared.Serving.MaxBatch, shared.Serving.StepPerSeq = 1, sim.Millisecond
			shared.Serving.PrefillToken = own.Calls.PromptToken
			solo := policy.Fixed{Name: "sequential"}
			a, err := collective.Run(g, own, solo, sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			b, err := collective.Run(g, shared, solo, sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.Equal(t, sharedOnly(a.Metrics), sharedOnly(b.Metrics), "%s seed %d", f.Shape, seed)
		}
	}
}

// forkJoin is one stage of width identical parts of the given work, with
// no message, spawn, check or overhead costs and no output tokens sent, so
// that every part's call has the same prompt and starts at the same time.
func forkJoin(t testing.TB, width int, work sim.Time) (*task.Graph, collective.Config) {
	f := task.Family{Shape: "fork-join", Width: width, Stages: 1, Work: sim.Const(work.Seconds())}
	g := draw(t, f, 1)
	cfg := free(width)
	cfg.Calls = collective.Calls{OutputRate: 100, SystemPrompt: 800, PromptToken: collective.Defaults().Calls.PromptToken}
	return g, cfg
}

// TestServingSimultaneousCalls: W identical calls started together take
// exactly O·(step + step_per_seq·(W−1)) plus the prefill of their W
// prompts, which the admitting step carries. The fork and the join run
// alone before and after.
func TestServingSimultaneousCalls(t *testing.T) {
	const (
		step, perSeq, prefill = 5800 * sim.Microsecond, 200 * sim.Microsecond, 17 * sim.Microsecond
		work                  = 3 * sim.Second // O = 300 output tokens per call
	)
	for _, w := range []int{1, 2, 3, 4, 8, 16, 32} {
		g, cfg := forkJoin(t, w, work)
		cfg.Serving = collective.Serving{Replicas: 1, MaxBatch: 32, Step: step, StepPerSeq: perSeq, PrefillToken: prefill}
		res, err := collective.Run(g, cfg, org(t, "split"), sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		require.True(t, res.Acceptable)
		// Every part is checked, by a call of the same prompt and no output
		// (check.cost is 0): the W checks of the stage are admitted together too.
		const o, p = 300, 800
		alone := p*prefill + o*step + p*prefill
		stage := sim.Time(w)*p*prefill + o*(step+perSeq*sim.Time(w-1)) + sim.Time(w)*p*prefill
		assert.Equal(t, alone+stage+alone, res.Finish, "W = %d", w)
		assert.Equal(t, 2*(w+2), res.ModelCalls, "a call and a check per part")
		assert.Equal(t, float64(1), res.ServerUtilisation, "never idle")
	}
}

// TestServingQueueLittle checks Little's law on the serving queue over
// whole episodes that start and end empty: the time-average queue length
// equals the arrival rate times the mean wait, L = λW, i.e. ∫Q dt equals
// the sum of the waits. A full batch (max_batch 2) makes calls queue.
func TestServingQueueLittle(t *testing.T) {
	for _, f := range families {
		for seed := range uint64(10) {
			g := draw(t, f, seed)
			cfg := collective.Defaults()
			cfg.Agents = 6
			cfg.Serving = collective.DefaultServing()
			cfg.Serving.Replicas, cfg.Serving.MaxBatch = 2, 2
			res, err := collective.Run(g, cfg, org(t, "split"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.False(t, res.TimedOut)
			area := res.ServingQueueMean * float64(res.Finish)
			assert.InDelta(t, float64(res.ServingWait), area, 1e-9*area+1, "%s seed %d", f.Shape, seed)
			// And on the whole server: the mean number of calls there is
			// the call rate times the mean time a call spends there.
			require.Equal(t, res.ModelCalls, res.ServedCalls, "every call and check goes to the server")
			inSystem := res.ServingQueueMean + res.ServerUtilisation*2*res.BatchMean // 2 replicas
			assert.InDelta(t, inSystem, float64(res.ServedCalls)/res.Finish.Seconds()*res.CallLatency(), 1e-6*inSystem, "%s seed %d", f.Shape, seed)
		}
	}
	// Enough queueing to make the check mean something.
	g := draw(t, families[1], 0)
	cfg := collective.Defaults()
	cfg.Agents = 8
	cfg.Serving = collective.Serving{Replicas: 1, MaxBatch: 1, Step: 5 * sim.Millisecond}
	res, err := collective.Run(g, cfg, org(t, "split"), sim.NewStreams(0), collective.Options{})
	require.NoError(t, err)
	assert.Greater(t, res.ServingQueueMean, 1.0)
}

// TestSlowerNotDifferent: rate limits, a concurrency cap, a full batch and a
// small tool pool slow the same work down: the same model calls and tool
// calls, a later finish, and the waits reported.
func TestSlowerNotDifferent(t *testing.T) {
	tools := task.Tools{Calls: sim.Poisson(20), Latency: sim.LogNormal(3, 1)}
	base := collective.Defaults()
	base.Agents = 8
	base.Check.Cost = 0.02 // a check's output fits a minute of the tpm bucket
	api := collective.API{TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	tests := []struct {
		name        string
		fast, slow  func(*collective.Config)
		serve, tool bool
	}{
		{"rpm", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.RPM = 4 }, true, false},
		{"tpm", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.TPM = 20000 }, true, false},
		{"concurrency", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.Concurrency = 2 }, true, false},
		{"max_batch", func(c *collective.Config) { c.Serving = collective.DefaultServing(); c.Serving.Replicas = 1 },
			func(c *collective.Config) {
				c.Serving = collective.DefaultServing()
				c.Serving.Replicas = 1
				c.Serving.MaxBatch = 2
			}, true, false},
		{"tools.pool", func(c *collective.Config) {}, func(c *collective.Config) { c.Tools.Pool = 1 }, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slower := 0
			for seed := range uint64(10) {
				g := draw(t, families[1], seed).WithTools(tools)
				fast, slow := base, base
				tt.fast(&fast)
				tt.slow(&slow)
				a, err := collective.Run(g, fast, org(t, "split"), sim.NewStreams(seed), collective.Options{})
				require.NoError(t, err)
				b, err := collective.Run(g, slow, org(t, "split"), sim.NewStreams(seed), collective.Options{})
				require.NoError(t, err)
				assert.Equal(t, a.ModelCalls, b.ModelCalls, "seed %d", seed)
				assert.Equal(t, a.OutputTokens, b.OutputTokens, "seed %d", seed)
				assert.Equal(t, a.ToolCalls, b.ToolCalls, "seed %d", seed)
				assert.Equal(t, a.Acceptable, b.Acceptable, "seed %d", seed)
				assert.GreaterOrEqual(t, b.Finish, a.Finish, "seed %d", seed)
				if b.Finish > a.Finish {
					slower++
				}
				if tt.serve {
					assert.Greater(t, b.ServingWait, a.ServingWait, "seed %d", seed)
				}
				if tt.tool {
					assert.Zero(t, a.ToolWait)
					assert.Positive(t, b.ToolWait, "seed %d", seed)
				}
			}
			assert.Equal(t, 10, slower, "every seed finishes later")
		})
	}
}

// TestSharedTraceAccounts: with shared inference and tools, agent time is
// still the sum of the traced activities, waiting included as its own
// slices, and every model call has one work slice.
func TestSharedTraceAccounts(t *testing.T) {
	tools := task.Tools{Calls: sim.Poisson(10), Latency: sim.Exponential(20)}
	for _, shared := range []func(*collective.Config){
		func(c *collective.Config) {
			c.Serving = collective.DefaultServing()
			c.Serving.Replicas, c.Serving.MaxBatch = 1, 2
		},
		func(c *collective.Config) {
			c.API = collective.API{RPM: 30, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
		},
	} {
		for seed := range uint64(5) {
			g := draw(t, families[1], seed).WithTools(tools)
			cfg := collective.Defaults()
			cfg.Agents = 8
			cfg.Tools.Pool = 1
			shared(&cfg)
			res, err := collective.Run(g, cfg, org(t, "team"), sim.NewStreams(seed), collective.Options{Trace: true})
			require.NoError(t, err)
			var busy, queued, toolWait sim.Time
			calls, toolCalls := 0, 0
			for _, s := range res.Trace.Spans {
				busy += s.End - s.Start
				switch s.Kind {
				case "work", "check":
					calls++
				case "queue":
					queued += s.End - s.Start
				case "tool":
					toolCalls++
				case "tool-wait":
					toolWait += s.End - s.Start
				}
			}
			assert.Equal(t, res.AgentTime, busy, "seed %d", seed)
			assert.Equal(t, res.ModelCalls, calls, "seed %d", seed)
			assert.Equal(t, res.ServingWait, queued, "seed %d", seed)
			assert.Equal(t, res.ToolWait, toolWait, "seed %d", seed)
			assert.Equal(t, res.ToolCalls, toolCalls, "seed %d", seed)
			assert.Positive(t, res.ServingWait, "seed %d: %+v", seed, res.Metrics)
			assert.Positive(t, res.ToolWait, "seed %d: %d tool calls", seed, res.ToolCalls)
		}
	}
}

func TestSharedDeterministic(t *testing.T) {
	g := draw(t, families[1], 5).WithTools(task.Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)})
	cfg := collective.Defaults()
	cfg.Agents = 8
	cfg.Tools.Pool = 2
	cfg.API = collective.API{RPM: 60, TPM: 100000, Concurrency: 4, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	a, err := collective.Run(g, cfg, org(t, "team"), sim.NewStreams(9), collective.Options{Trace: true})
	require.NoError(t, err)
	b, err := collective.Run(g, cfg, org(t, "team"), sim.NewStreams(9), collective.Options{Trace: true})
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestInferenceConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*collective.Config)
		want []string
	}{
		{"serving without replicas", func(c *collective.Config) { c.Serving.MaxBatch = 8 }, []string{"serving.max_batch", "replicas is 0"}},
		{"step 0", func(c *collective.Config) { c.Serving.Replicas = 1; c.Serving.Step = 0 }, []string{"serving.step", "greater than 0"}},
		{"negative step_per_seq", func(c *collective.Config) { c.Serving.Replicas = 1; c.Serving.StepPerSeq = -1 }, []string{"serving.step_per_seq", "negative"}},
		{"max_batch 0", func(c *collective.Config) { c.Serving.Replicas = 1; c.Serving.MaxBatch = 0 }, []string{"serving.max_batch", "1 to"}},
		{"both", func(c *collective.Config) { c.Serving.Replicas = 1; c.API.OutputRate = 80 }, []string{"api", "not both"}},
		{"api without output_rate", func(c *collective.Config) { c.API.RPM = 10 }, []string{"api.output_rate", "greater than 0"}},
		{"rpm too large", func(c *collective.Config) { c.API = collective.API{RPM: 1e12, OutputRate: 1} }, []string{"api.rpm", "out of range"}},
		{"negative concurrency", func(c *collective.Config) { c.API = collective.API{Concurrency: -1, OutputRate: 1} }, []string{"api.concurrency"}},
		{"prompt_token unused", func(c *collective.Config) { c.API = collective.API{OutputRate: 1}; c.Calls.PromptToken = 1 }, []string{"calls.prompt_token", "not used"}},
		{"negative pool", func(c *collective.Config) { c.Tools.Pool = -1 }, []string{"tools.pool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := collective.Defaults()
			tt.edit(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// A tool pool on a task without tools would do nothing.
	cfg := collective.Defaults()
	cfg.Tools.Pool = 2
	_, err := collective.Run(draw(t, families[0], 1), cfg, org(t, "split"), sim.NewStreams(1), collective.Options{})
	require.ErrorContains(t, err, "tools.pool")
	// A call larger than the token bucket can ever hold.
	cfg = collective.Defaults()
	cfg.API = collective.API{TPM: 100, OutputRate: 80}
	_, err = collective.Run(draw(t, families[0], 1), cfg, org(t, "split"), sim.NewStreams(1), collective.Options{})
	require.ErrorContains(t, err, "api.tpm")
}

func ExampleServing() {
	// Eight agents split a wide task on one shared replica: each call's
	// decode slows with the batch, and a batch of at most four makes the
	// others queue.
	g, _ := task.Family{Shape: "fork-join", Width: 8, Stages: 1, Work: sim.Const(60)}.Draw(rand.New(rand.NewPCG(1, 1)))
	cfg := collective.Defaults()
	cfg.Agents = 8
	cfg.Serving = collective.DefaultServing()
	cfg.Serving.Replicas, cfg.Serving.MaxBatch = 1, 4
	split, _ := policy.Organization("split")
	res, _ := collective.Run(g, cfg, split, sim.NewStreams(1), collective.Options{})
	fmt.Printf("finish %.1f s, %d calls, waited %.1f s in all, server busy %.0f%%\n",
		res.Finish.Seconds(), res.ModelCalls, res.ServingWait.Seconds(), 100*res.ServerUtilisation)
	// Output: finish 359.1 s, 33 calls, waited 492.5 s in all, server busy 99%
}

// TestSharedRunnerAllocatesNothing: with a shared server, an API or a tool
// pool, a Runner in steady state still runs an episode without allocating:
// nothing is allocated per call or per event.
func TestSharedRunnerAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	g := draw(t, families[1], 1).WithTools(task.Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)})
	for name, edit := range map[string]func(*collective.Config){
		"serving": func(c *collective.Config) {
			c.Serving = collective.DefaultServing()
			c.Serving.Replicas, c.Serving.MaxBatch = 2, 2
		},
		"api": func(c *collective.Config) {
			c.API = collective.API{RPM: 30, TPM: 100000, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
		},
	} {
		cfg := collective.Defaults()
		cfg.Agents = 6
		cfg.Tools.Pool = 2
		edit(&cfg)
		var r collective.Runner
		seed := uint64(0)
		team := org(t, "team")
		run := func() {
			seed++
			if _, err := r.Run(g, cfg, team, sim.NewStreams(seed%8), collective.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		for range 16 {
			run()
		}
		assert.Zero(t, testing.AllocsPerRun(20, run), name)
	}
}

// TestSharedRunnerMatchesRun: a Runner that alternates between a shared
// server, an API, tools and none gives every episode the result a fresh
// Run gives it: nothing of a server's state leaks into the next episode.
func TestSharedRunnerMatchesRun(t *testing.T) {
	g := draw(t, families[1], 2)
	tools := g.WithTools(task.Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)})
	serving := collective.Defaults()
	serving.Agents = 6
	serving.Serving = collective.DefaultServing()
	serving.Serving.Replicas, serving.Serving.MaxBatch = 2, 2
	api := collective.Defaults()
	api.Agents = 6
	api.API = collective.API{RPM: 30, TPM: 100000, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	pooled := api
	pooled.Tools.Pool = 1
	var r collective.Runner
	for i := range 12 {
		cfg, h := []collective.Config{serving, api, pooled, collective.Defaults()}[i%4], g
		if i%4 == 2 {
			h = tools
		}
		want, err := collective.Run(h, cfg, org(t, "team"), sim.NewStreams(uint64(i)), collective.Options{})
		require.NoError(t, err)
		got, err := r.Run(h, cfg, org(t, "team"), sim.NewStreams(uint64(i)), collective.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Metrics, got.Metrics, "episode %d", i)
	}
}

// TestServingCheckReadsThePart: a check on the shared server reads the
// part it checks, so its prefill covers the system prompt and the part's
// output tokens. One agent makes one part of 3 s (300 output tokens)
// whose result is 500 tokens, then checks it (no output): the call's
// prefill and decode, then the check's prefill.
func TestServingCheckReadsThePart(t *testing.T) {
	const step, prefill = 5800 * sim.Microsecond, 17 * sim.Microsecond
	g, err := task.New([]task.Node{{Name: "part", Work: 3 * sim.Second, OutputTokens: 500}}, nil)
	require.NoError(t, err)
	cfg := free(1)
	cfg.Calls = collective.Calls{OutputRate: 100, SystemPrompt: 800, PromptToken: collective.Defaults().Calls.PromptToken}
	cfg.Serving = collective.Serving{Replicas: 1, MaxBatch: 1, Step: step, PrefillToken: prefill}
	res, err := collective.Run(g, cfg, org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 1, res.Checks)
	assert.Equal(t, 800*prefill+300*step+(800+500)*prefill, res.Finish)
}
