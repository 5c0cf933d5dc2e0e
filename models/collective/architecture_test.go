package collective_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// TestMergeTime checks the merge of three independent attempts, each of
// one minute and all acceptable, by hand: a verifier (always right) takes
// the first candidate after reading one, 10 s; a synthesis reads all
// three, 30 s, and both count a model call per candidate.
func TestMergeTime(t *testing.T) {
	for _, tt := range []struct {
		merge  collective.Merge
		finish sim.Time
	}{
		{collective.MergeVerify, 70 * sim.Second},
		{collective.MergeSynthesis, 90 * sim.Second},
	} {
		t.Run(string(tt.merge), func(t *testing.T) {
			cfg := free(3)
			cfg.Select = collective.Selection{Cost: 10 * sim.Second, Accuracy: 1, Merge: tt.merge}
			res, err := collective.Run(oneNode(t, 0), cfg, org(t, "independent"), sim.NewStreams(1), collective.Options{})
			require.NoError(t, err)
			assert.True(t, res.Acceptable)
			assert.Equal(t, 2, res.Attempts)
			assert.Equal(t, tt.finish, res.Finish)
			assert.Equal(t, 3*2+3, res.ModelCalls, "two calls per attempt, one per candidate merged")
		})
	}
}

// TestSynthesisSpoils compares, seed by seed on a one-subtask task that
// an attempt gets right half the time, the main agent's own attempt alone
// (one agent: no attempts can start), three attempts merged by a
// synthesis, and three selected by a verifier that is always right. The
// outcome of an attempt is the same draw in all three, so a synthesis is
// acceptable only where every attempt is, the main one included, and the
// verifier wherever any is: a wrong attempt merged spoils the synthesis,
// and the verifier rescues a wrong main attempt.
func TestSynthesisSpoils(t *testing.T) {
	g := oneNode(t, 0.5)
	run := func(agents int, merge collective.Merge, seed uint64) bool {
		cfg := free(agents)
		cfg.Select = collective.Selection{Cost: sim.Second, Accuracy: 1, Merge: merge}
		res, err := collective.Run(g, cfg, org(t, "independent"), sim.NewStreams(seed), collective.Options{})
		require.NoError(t, err)
		return res.Acceptable
	}
	var alone, synth, verify, spoiled, rescued int
	for seed := range uint64(200) {
		own := run(1, collective.MergeVerify, seed)
		s := run(3, collective.MergeSynthesis, seed)
		v := run(3, collective.MergeVerify, seed)
		if s {
			require.True(t, own && v, "seed %d: an acceptable synthesis needs every attempt acceptable", seed)
		}
		if own {
			require.True(t, v, "seed %d: the verifier finds the main attempt acceptable", seed)
		}
		alone, synth, verify = alone+b2i(own), synth+b2i(s), verify+b2i(v)
		spoiled += b2i(own && !s)
		rescued += b2i(!own && v)
	}
	assert.Positive(t, spoiled, "an acceptable main attempt spoiled by a wrong one merged")
	assert.Positive(t, rescued, "a wrong main attempt replaced by the verifier's choice")
	// With p = 1/2 per attempt: p³ = 1/8, p = 1/2, 1 − (1 − p)³ = 7/8.
	assert.Less(t, synth, alone)
	assert.Less(t, alone, verify)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCheckBy follows a plan and two parts of a minute each, then a join,
// all acceptable, under split (every part checked, the main agent
// delegating when two parts are ready), checks costing half a
// part's work (30 s). The main agent works and checks the plan (0–90 s),
// delegates the first part and works the second (90–150 s). With its
// maker checking, the helper checks the first part while the main agent
// checks the second (150–180 s); with the orchestrator checking, the
// helper hands its part back and the main agent checks both in turn
// (150–210 s). The join and its check follow: 270 s against 300 s, the
// orchestrator's check on the critical path.
func TestCheckBy(t *testing.T) {
	for _, tt := range []struct {
		by             collective.Checker
		finish         sim.Time
		mainChecks     int
		helperChecking bool
	}{
		{collective.ByMaker, 270 * sim.Second, 3, true},
		{collective.ByOrchestrator, 300 * sim.Second, 4, false},
	} {
		t.Run(string(tt.by), func(t *testing.T) {
			cfg := free(2)
			cfg.Check = collective.Verification{Cost: 0.5, Accuracy: 1, Retries: 1, By: tt.by}
			res, err := collective.Run(fanOut(t, 2), cfg, org(t, "split"), sim.NewStreams(1), collective.Options{Trace: true})
			require.NoError(t, err)
			assert.True(t, res.Acceptable)
			assert.Equal(t, tt.finish, res.Finish)
			assert.Equal(t, 4, res.Checks, "every part is checked once")
			checks := map[int]int{}
			for _, s := range res.Trace.Spans {
				if s.Kind == "check" {
					checks[s.Agent]++
				}
			}
			assert.Equal(t, tt.mainChecks, checks[0], "checks by the main agent")
			assert.Equal(t, 4-tt.mainChecks, checks[1], "checks by the helper")
		})
	}
}

// TestOrchestratorRedoes: with checks always right and parts of
// difficulty 0.5, a part the orchestrator flags goes back to the ready
// subtasks and is redone; the outcomes and verdicts are the same draws
// as under its maker's checks, so the results agree episode by episode,
// and only who spends the time differs.
func TestOrchestratorRedoes(t *testing.T) {
	f := task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.Const(60), Difficulty: sim.Const(0.5)}
	for seed := range uint64(30) {
		g := draw(t, f, seed)
		var got [2]*collective.Metrics
		for i, by := range []collective.Checker{collective.ByMaker, collective.ByOrchestrator} {
			cfg := free(3)
			cfg.Check = collective.Verification{Cost: 0.2, Accuracy: 1, Retries: 2, By: by}
			res, err := collective.Run(g, cfg, org(t, "centralized"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			got[i] = &res.Metrics
		}
		assert.Equal(t, got[0].Acceptable, got[1].Acceptable, "seed %d", seed)
		assert.Equal(t, got[0].Checks, got[1].Checks, "seed %d", seed)
		assert.Equal(t, got[0].Retries, got[1].Retries, "seed %d", seed)
	}
}

// chain3 is three subtasks of a minute, one after another, at difficulty
// 0, with every model call priced in tokens only: 100 prompt tokens and
// 300 output tokens (10 per second of work) per call of 30 s, so that the
// task takes 6 calls and 2400 tokens.
func chain3(t *testing.T) (*task.Graph, collective.Config) {
	f := task.Family{Shape: "chain", Length: 3, Work: sim.Const(60)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	cfg := free(1)
	cfg.Calls.SystemPrompt = 100
	cfg.Calls.OutputRate = 10
	return g, cfg
}

// TestTokenBudget runs the three-subtask chain under budgets around its
// 2400 tokens. Checks draw tokens too: 100 prompt tokens and, at cost
// 0.5, 300 output tokens each, but they add nothing to the episode's
// token counts.
func TestTokenBudget(t *testing.T) {
	for _, tt := range []struct {
		name       string
		org        string
		budget     int64
		acceptable bool
		exhausted  bool
		used       int64
		calls      int // work calls and checks
		finish     sim.Time
	}{
		{"none", "decentralized", 0, true, false, 0, 6, 180 * sim.Second},
		{"ample", "decentralized", 1_000_000, true, false, 2400, 6, 180 * sim.Second},
		{"exact", "decentralized", 2400, true, false, 2400, 6, 180 * sim.Second},
		// The last call is not made: the last subtask is unfinished.
		{"one short", "decentralized", 2399, false, true, 2000, 5, 150 * sim.Second},
		{"checks draw", "single", 3600, true, false, 3600, 9, 270 * sim.Second},
		// The last check is not made; the last subtask is never handed on.
		{"check refused", "single", 3599, false, true, 3200, 8, 240 * sim.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, cfg := chain3(t)
			cfg.Check = collective.Verification{Cost: 0.5, Accuracy: 1, Retries: 1}
			cfg.TokenBudget = tt.budget
			res, err := collective.Run(g, cfg, org(t, tt.org), sim.NewStreams(1), collective.Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.acceptable, res.Acceptable)
			assert.Equal(t, tt.exhausted, res.BudgetExhausted)
			assert.False(t, res.Stalled, "an exhausted budget explains the end")
			assert.Equal(t, tt.used, res.BudgetUsed)
			assert.Equal(t, tt.calls, res.ModelCalls)
			assert.Equal(t, tt.finish, res.Finish)
			assert.Equal(t, int64(100+300)*int64(tt.calls-res.Checks), res.Tokens(), "checks add no tokens")
		})
	}
}

// TestBudgetKeepsFinishedAttempt: under independent with two agents, the
// main agent starts an attempt and then works the task itself; both need
// two calls of 400 tokens, and the attempt's agent, started first, calls
// first each time. A budget of 1200 refuses the main agent's second call,
// which stops it; the attempt finishes and submits, nothing is left to
// happen, and the finished attempt is the result. At 1199 the attempt's
// second call is refused too, and no result exists.
func TestBudgetKeepsFinishedAttempt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		budget     int64
		acceptable bool
		exhausted  bool
		used       int64
	}{
		{"ample", 1600, true, false, 1600},
		{"main refused", 1200, true, true, 1200},
		{"attempt refused", 1199, false, true, 800},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, cfg := chain3(t)
			cfg.Agents = 2
			cfg.TokenBudget = tt.budget
			res, err := collective.Run(oneNode(t, 0), cfg, org(t, "independent"), sim.NewStreams(1), collective.Options{})
			require.NoError(t, err)
			assert.Equal(t, 1, res.Attempts)
			assert.Equal(t, tt.acceptable, res.Acceptable)
			assert.Equal(t, tt.exhausted, res.BudgetExhausted)
			assert.Equal(t, tt.used, res.BudgetUsed)
			assert.False(t, res.Stalled)
		})
	}
}

// TestConfigRejectsArchitectureSettings: each bad value is named with
// its field and what is allowed.
func TestConfigRejectsArchitectureSettings(t *testing.T) {
	for _, tt := range []struct {
		set  func(c *collective.Config)
		want string
	}{
		{func(c *collective.Config) { c.TokenBudget = -1 }, "token_budget: -1 is negative (0 for no budget, or more tokens)"},
		{func(c *collective.Config) { c.Check.By = "boss" }, `check.by: "boss" is not allowed (allowed: maker, orchestrator)`},
		{func(c *collective.Config) { c.Select.Merge = "vote" }, `select.merge: "vote" is not allowed (allowed: verify, synthesis)`},
	} {
		cfg := collective.Defaults()
		tt.set(&cfg)
		err := cfg.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// The five architectures on one decomposable task under one token budget,
// with the paper's rules: the orchestrator checks what it delegated, and
// independent attempts are merged by a synthesis. Four attempts at the
// whole task need four times the single agent's tokens: the budget runs
// out before any finishes.
func ExampleConfig_tokenBudget() {
	fam := task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.Const(600), Difficulty: sim.Const(0.1), OutputTokens: sim.Const(500)}
	g, _ := fam.Draw(nil)
	cfg := collective.Defaults()
	cfg.TokenBudget = 1_000_000
	cfg.Check.By = collective.ByOrchestrator
	cfg.Select.Merge = collective.MergeSynthesis
	for _, name := range []string{"single", "independent", "centralized", "decentralized", "hybrid"} {
		pol, _ := policy.Organization(name)
		res, _ := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{})
		fmt.Printf("%-13s acceptable %-5v finish %5.1f min, budget used %7d, exhausted %v\n",
			name, res.Acceptable, res.Finish.Minutes(), res.BudgetUsed, res.BudgetExhausted)
	}
	// Output:
	// single        acceptable true  finish  72.1 min, budget used  800400, exhausted false
	// independent   acceptable false finish  22.6 min, budget used  996800, exhausted true
	// centralized   acceptable true  finish  42.2 min, budget used  908400, exhausted false
	// decentralized acceptable true  finish  30.2 min, budget used  756000, exhausted false
	// hybrid        acceptable true  finish  42.2 min, budget used  908400, exhausted false
}
