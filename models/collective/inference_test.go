package collective_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/serving"
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
	shared.Serving = serving.Deployment{Replicas: 1, MaxBatch: 8, Step: step}
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
		cfg.Serving = serving.Deployment{Replicas: 1, MaxBatch: 32, Step: step, StepPerSeq: perSeq, PrefillToken: prefill}
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
			cfg.Serving = serving.DefaultDeployment()
			cfg.Serving.Replicas, cfg.Serving.MaxBatch = 2, 2
			res, err := collective.Run(g, cfg, org(t, "split"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.False(t, res.TimedOut)
			// Tolerances are taken from the expected side: one taken from
			// the value under test passes it when that is infinite.
			area, waits := res.ServingQueueMean*float64(res.Finish), float64(res.ServingWait)
			assert.InDelta(t, waits, area, 1e-9*waits+1, "%s seed %d", f.Shape, seed)
			// And on the whole server: the mean number of calls there is
			// the call rate times the mean time a call spends there.
			require.Equal(t, res.ModelCalls, res.ServedCalls, "every call and check goes to the server")
			inSystem := res.ServingQueueMean + res.ServerUtilisation*2*res.BatchMean // 2 replicas
			want := float64(res.ServedCalls) / res.Finish.Seconds() * res.CallLatency()
			assert.InDelta(t, want, inSystem, 1e-6*want, "%s seed %d", f.Shape, seed)
		}
	}
	// Enough queueing to make the check mean something.
	g := draw(t, families[1], 0)
	cfg := collective.Defaults()
	cfg.Agents = 8
	cfg.Serving = serving.Deployment{Replicas: 1, MaxBatch: 1, Step: 5 * sim.Millisecond}
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
	api := serving.API{TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	tests := []struct {
		name        string
		fast, slow  func(*collective.Config)
		serve, tool bool
	}{
		{"rpm", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.RPM = 4 }, true, false},
		{"tpm", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.TPM = 20000 }, true, false},
		{"concurrency", func(c *collective.Config) { c.API = api }, func(c *collective.Config) { c.API = api; c.API.Concurrency = 2 }, true, false},
		{"max_batch", func(c *collective.Config) { c.Serving = serving.DefaultDeployment(); c.Serving.Replicas = 1 },
			func(c *collective.Config) {
				c.Serving = serving.DefaultDeployment()
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
			c.Serving = serving.DefaultDeployment()
			c.Serving.Replicas, c.Serving.MaxBatch = 1, 2
		},
		func(c *collective.Config) {
			c.API = serving.API{RPM: 30, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
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
	cfg.API = serving.API{RPM: 60, TPM: 100000, Concurrency: 4, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
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
		{"rpm too large", func(c *collective.Config) { c.API = serving.API{RPM: 1e12, OutputRate: 1} }, []string{"api.rpm", "out of range"}},
		{"negative concurrency", func(c *collective.Config) { c.API = serving.API{Concurrency: -1, OutputRate: 1} }, []string{"api.concurrency"}},
		{"prompt_token unused", func(c *collective.Config) { c.API = serving.API{OutputRate: 1}; c.Calls.PromptToken = 1 }, []string{"calls.prompt_token", "not used"}},
		{"negative pool", func(c *collective.Config) { c.Tools.Pool = -1 }, []string{"tools.pool"}},
		// Every call's prompt starts with the system prompt, so a smaller
		// bucket could admit none: every episode would end in an error.
		{"tpm below the system prompt", func(c *collective.Config) { c.API = serving.API{TPM: 100, OutputRate: 80} },
			[]string{"api.tpm: 100 is below the 500 tokens of calls.system_prompt"}},
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
	// A call larger than the token bucket can ever hold: the system
	// prompt fits, but not with a call's output.
	cfg = collective.Defaults()
	cfg.API = serving.API{TPM: 1000, OutputRate: 80}
	_, err = collective.Run(draw(t, families[0], 1), cfg, org(t, "split"), sim.NewStreams(1), collective.Options{})
	require.ErrorContains(t, err, "api.tpm")
}

func ExampleRun_serving() {
	// Eight agents split a wide task on one shared replica: each call's
	// decode slows with the batch, and a batch of at most four makes the
	// others queue.
	g, err := task.Family{Shape: "fork-join", Width: 8, Stages: 1, Work: sim.Const(60)}.Draw(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := collective.Defaults()
	cfg.Agents = 8
	cfg.Serving = serving.DefaultDeployment()
	cfg.Serving.Replicas, cfg.Serving.MaxBatch = 1, 4
	split, err := policy.Organization("split")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := collective.Run(g, cfg, split, sim.NewStreams(1), collective.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("finish %.1f s, %d calls, waited %.1f s in all, server busy %.0f%%\n",
		res.Finish.Seconds(), res.ModelCalls, res.ServingWait.Seconds(), 100*res.ServerUtilisation)
	// Output: finish 359.1 s, 33 calls, waited 492.5 s in all, server busy 99%
}

// TestSharedRunnerAllocatesNothing: with a shared server, an API or a tool
// pool, a Runner in steady state still runs an episode without allocating:
// nothing is allocated per call or per event.
func TestSharedRunnerAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	g := draw(t, families[1], 1).WithTools(task.Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)})
	for name, edit := range map[string]func(*collective.Config){
		"serving": func(c *collective.Config) {
			c.Serving = serving.DefaultDeployment()
			c.Serving.Replicas, c.Serving.MaxBatch = 2, 2
		},
		"api": func(c *collective.Config) {
			c.API = serving.API{RPM: 30, TPM: 100000, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
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
	replicas := collective.Defaults()
	replicas.Agents = 6
	replicas.Serving = serving.DefaultDeployment()
	replicas.Serving.Replicas, replicas.Serving.MaxBatch = 2, 2
	api := collective.Defaults()
	api.Agents = 6
	api.API = serving.API{RPM: 30, TPM: 100000, Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	pooled := api
	pooled.Tools.Pool = 1
	var r collective.Runner
	for i := range 12 {
		cfg, h := []collective.Config{replicas, api, pooled, collective.Defaults()}[i%4], g
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
	cfg.Serving = serving.Deployment{Replicas: 1, MaxBatch: 1, Step: step, PrefillToken: prefill}
	res, err := collective.Run(g, cfg, org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 1, res.Checks)
	assert.Equal(t, 800*prefill+300*step+(800+500)*prefill, res.Finish)
}

// TestServingBalancesReplicas: a call goes to the replica with the fewest
// sequences, batched or queued. W independent parts, handed at once to W
// helpers that never check, make W simultaneous calls of the same prompt
// and output on two replicas that batch one sequence each: each replica
// serves ⌈W/2⌉ of them one after the other.
func TestServingBalancesReplicas(t *testing.T) {
	const step, prefill = 5800 * sim.Microsecond, 17 * sim.Microsecond
	const o, p = 300, 800
	call := p*prefill + o*step
	for _, w := range []int{1, 2, 3, 4, 6} {
		nodes := make([]task.Node, w)
		for i := range nodes {
			nodes[i] = task.Node{Name: fmt.Sprint("part", i), Work: 3 * sim.Second}
		}
		g, err := task.New(nodes, nil)
		require.NoError(t, err)
		cfg := free(w + 1)
		cfg.Calls = collective.Calls{OutputRate: 100, SystemPrompt: p, PromptToken: collective.Defaults().Calls.PromptToken}
		cfg.Serving = serving.Deployment{Replicas: 2, MaxBatch: 1, Step: step, PrefillToken: prefill}
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		require.Equal(t, w, res.ModelCalls)
		assert.Equal(t, sim.Time((w+1)/2)*call, res.Finish, "W = %d", w)
	}
}

// TestServingCallsWithoutTokens: calls with no prompt and no output (a
// millisecond of work at 100 tokens a second rounds to none) cost a shared
// server, or an API without a time to first token, nothing; the episode
// ends at 0 and its serving metrics are 0, not the NaN of 0/0.
func TestServingCallsWithoutTokens(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "tiny", Work: sim.Millisecond}}, nil)
	require.NoError(t, err)
	for name, edit := range map[string]func(*collective.Config){
		"serving": func(c *collective.Config) {
			c.Serving = serving.Deployment{Replicas: 1, MaxBatch: 1, Step: sim.Millisecond}
		},
		"api": func(c *collective.Config) {
			c.API = serving.API{Concurrency: 1, TTFT: sim.Const(0), OutputRate: 100}
		},
	} {
		cfg := free(1)
		cfg.Calls = collective.Calls{OutputRate: 100, PromptToken: collective.Defaults().Calls.PromptToken}
		edit(&cfg)
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err, name)
		require.Equal(t, 1, res.ModelCalls, name)
		assert.Zero(t, res.Finish, name)
		assert.Zero(t, res.ServerUtilisation, name)
		assert.Zero(t, res.BatchMean, name)
		assert.Zero(t, res.ServingQueueMean, name)
	}
}

// parallelParts is W independent parts of 3 s (300 output tokens at 100 a
// second) handed at once to W helpers that never check: W simultaneous
// calls of an 800-token prompt.
func parallelParts(t *testing.T, w int) (*task.Graph, collective.Config) {
	nodes := make([]task.Node, w)
	for i := range nodes {
		nodes[i] = task.Node{Name: fmt.Sprint("part", i), Work: 3 * sim.Second}
	}
	g, err := task.New(nodes, nil)
	require.NoError(t, err)
	cfg := free(w + 1)
	cfg.Calls = collective.Calls{OutputRate: 100, SystemPrompt: 800, PromptToken: collective.Defaults().Calls.PromptToken}
	return g, cfg
}

// TestAPIByHand: calls at a hosted API take the time to first token (2 s)
// plus their output at the API's rate (300 tokens at 100 a second): 5 s.
// A concurrency cap, a request limit or a token limit makes the second of
// two simultaneous calls wait: for the first to end (5 s); for the request
// bucket to refill (one request a minute: 60 s); or for the token bucket
// to hold the call's 1100 tokens again (1500 a minute hold 400 after the
// first call and refill at 25 a second: 28 s). With a cap of one and two
// requests a minute, the second of three waits for the first to end (5 s)
// and the third for the second to end and then for the request bucket (a
// third of a request left at 10 s, refilling at one per 30 s: 20 s more,
// 30 s in all).
// Utilisation is the mean number of calls in flight over the cap, and the
// batch mean that number.
func TestAPIByHand(t *testing.T) {
	api := serving.API{TTFT: sim.Const(2), OutputRate: 100}
	s := sim.Second
	for _, tc := range []struct {
		name         string
		w            int
		edit         func(*serving.API)
		finish, wait sim.Time
		utilisation  float64
	}{
		{"alone", 1, func(a *serving.API) { a.Concurrency = 2 }, 5 * s, 0, 0.5},
		{"no limit", 2, func(a *serving.API) {}, 5 * s, 0, 0},
		{"concurrency", 2, func(a *serving.API) { a.Concurrency = 1 }, 10 * s, 5 * s, 1},
		{"rpm", 2, func(a *serving.API) { a.RPM = 1 }, 65 * s, 60 * s, 0},
		{"tpm", 2, func(a *serving.API) { a.TPM = 1500 }, 33 * s, 28 * s, 0},
		{"concurrency then rpm", 3, func(a *serving.API) { a.Concurrency, a.RPM = 1, 2 }, 35 * s, 35 * s, 15.0 / 35},
	} {
		g, cfg := parallelParts(t, tc.w)
		cfg.API = api
		tc.edit(&cfg.API)
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.finish, res.Finish, tc.name)
		assert.Equal(t, tc.wait, res.ServingWait, tc.name)
		inFlight := float64(sim.Time(tc.w)*5*s) / float64(tc.finish)
		assert.InDelta(t, inFlight, res.BatchMean, 1e-12, tc.name)
		assert.InDelta(t, tc.utilisation, res.ServerUtilisation, 1e-12, tc.name)
		assert.InDelta(t, float64(tc.wait)/float64(tc.finish), res.ServingQueueMean, 1e-12, tc.name)
		assert.Equal(t, tc.w, res.ServedCalls, tc.name)
		assert.Equal(t, sim.Time(tc.w)*5*s+tc.wait, res.ServingTime, tc.name)
	}
}

// TestToolPoolByHand: after its model call each part makes one tool call
// of 10 s; a pool of one sandbox makes the second of two simultaneous tool
// calls wait for the first. Without a shared server a 3 s part's call
// takes 3 s.
func TestToolPoolByHand(t *testing.T) {
	s := sim.Second
	for _, tc := range []struct {
		pool, w      int
		finish, wait sim.Time
	}{
		{0, 2, 13 * s, 0},
		{1, 1, 13 * s, 0},
		{1, 2, 23 * s, 10 * s},
		{1, 3, 33 * s, 30 * s},
		{2, 3, 23 * s, 10 * s},
	} {
		g, cfg := parallelParts(t, tc.w)
		g = g.WithTools(task.Tools{Calls: sim.Const(1), Latency: sim.Const(10)})
		cfg.Calls.PromptToken = 0
		cfg.Tools.Pool = tc.pool
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{Trace: true})
		require.NoError(t, err)
		assert.Equal(t, tc.finish, res.Finish, "%+v", tc)
		assert.Equal(t, tc.wait, res.ToolWait, "%+v", tc)
		assert.Equal(t, tc.w, res.ToolCalls, "%+v", tc)
	}
}

// TestCostBeyondTheClock: a cost so large that a duration leaves the
// virtual clock's range (about 292 years) ends the episode with an error
// that says so and names what to lower, not with the engine's bare
// "negative delay" of the wrapped duration.
func TestCostBeyondTheClock(t *testing.T) {
	tests := []struct {
		name string
		edit func(*collective.Config)
	}{
		{"a huge system prompt", func(c *collective.Config) { c.Calls.SystemPrompt = 1e18 }},
		{"a huge check", func(c *collective.Config) { c.Check.Cost = 1e300 }},
		{"a tiny speed", func(c *collective.Config) { c.Speed = 1e-300 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := collective.Defaults()
			tt.edit(&cfg)
			_, err := collective.Run(draw(t, families[0], 1), cfg, org(t, "team"), sim.NewStreams(1), collective.Options{})
			require.Error(t, err)
			assert.ErrorIs(t, err, sim.ErrNegativeDelay)
			assert.ErrorContains(t, err, "beyond the virtual clock's range")
		})
	}
}

// TestPrefillBeyondTheClock: on a shared server, a prompt whose prefill
// leaves the virtual clock's range (serving.prefill_token of a million
// hours, 3.6e18 ns, times the 500 tokens of the system prompt) ends the
// episode with an error naming prefill_token, where the product converted
// to a negative prefill and the episode ran on, finishing sooner than at
// the default prefill_token.
func TestPrefillBeyondTheClock(t *testing.T) {
	cfg := collective.Defaults()
	cfg.Serving = serving.DefaultDeployment()
	cfg.Serving.Replicas = 1
	cfg.Serving.PrefillToken = 1_000_000 * sim.Hour
	_, err := collective.Run(draw(t, families[0], 1), cfg, org(t, "team"), sim.NewStreams(1), collective.Options{})
	require.Error(t, err)
	assert.ErrorContains(t, err, "serving.prefill_token")
	assert.ErrorContains(t, err, "beyond the virtual clock's range")
}
