package collective_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// priced is one agent with every call cost set, so that each shows in the
// finish time: a call over w of work takes 1 s + 1000 prompt tokens × 1 ms
// + w/2 (speed 2), and a check 1 s + w·0.5/2.
func priced() collective.Config {
	c := free(1)
	c.Speed = 2
	c.Calls = collective.Calls{Span: 0, Overhead: sim.Second, PromptToken: sim.Millisecond, OutputRate: 10, SystemPrompt: 1000}
	c.Check = collective.Verification{Cost: 0.5, Accuracy: 1, Retries: 2}
	return c
}

func oneNode(t *testing.T, difficulty float64) *task.Graph {
	f := task.Family{Shape: "chain", Length: 1, Work: sim.Const(60), Difficulty: sim.Const(difficulty)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	return g
}

// TestCallAndCheckCosts works the prices of a model call and a check out
// by hand on one subtask of 60 s: the call takes 1 + 1 + 30 = 32 s and
// writes 600 tokens; the check 1 + 15 = 16 s.
func TestCallAndCheckCosts(t *testing.T) {
	res, err := collective.Run(oneNode(t, 0), priced(), org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 48*sim.Second, res.Finish)
	assert.Equal(t, 48*sim.Second, res.AgentTime)
	assert.Equal(t, 2, res.ModelCalls, "the attempt and its check")
	assert.Equal(t, 1, res.Checks)
	assert.Zero(t, res.Retries)
	assert.Equal(t, int64(1000), res.PromptTokens)
	assert.Equal(t, int64(600), res.OutputTokens)
	assert.Equal(t, 30*sim.Second, res.SerialWork, "60 s of work at speed 2")
}

// TestRetriesUntilExhausted: a subtask that (nearly) always fails is caught by a
// perfect check and attempted again twice (retries 2); the third failure
// is held, flagged, and the result is not acceptable.
func TestRetriesUntilExhausted(t *testing.T) {
	res, err := collective.Run(oneNode(t, 0.999999), priced(), org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	assert.False(t, res.Acceptable)
	assert.Equal(t, 2, res.Retries)
	assert.Equal(t, 3, res.Checks)
	assert.Equal(t, 6, res.ModelCalls)
	assert.Equal(t, 3*(32+16)*sim.Second, res.Finish)
}

// TestSubmitAtTheTimeLimit: a result submitted exactly at the time limit
// counts; one a nanosecond later does not.
func TestSubmitAtTheTimeLimit(t *testing.T) {
	workThenSubmit := collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, _ float64) collective.Action {
		if m.Has(collective.Submit) {
			return collective.Submit
		}
		return collective.Work
	})
	for _, tc := range []struct {
		limit      sim.Time
		acceptable bool
	}{{32 * sim.Second, true}, {32*sim.Second - 1, false}} {
		cfg := priced()
		cfg.TimeLimit = tc.limit
		res, err := collective.Run(oneNode(t, 0), cfg, workThenSubmit, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.Equal(t, tc.acceptable, res.Acceptable, "limit %v", tc.limit)
		assert.Equal(t, !tc.acceptable, res.TimedOut, "limit %v", tc.limit)
		assert.Equal(t, min(32*sim.Second, tc.limit), res.Finish, "limit %v", tc.limit)
	}
}

// TestMaxEvents: a small event budget stops an episode with an error; the
// default budget does not.
func TestMaxEvents(t *testing.T) {
	g := draw(t, families[1], 1)
	_, err := collective.Run(g, collective.Defaults(), org(t, "split"), sim.NewStreams(1), collective.Options{MaxEvents: 5})
	require.Error(t, err)
	_, err = collective.Run(g, collective.Defaults(), org(t, "split"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
}

// TestSelection: with independent attempts the verifier examines the
// candidates in order, Select.Cost each, and stops at the first it judges
// acceptable. A perfect verifier stops at the first (every candidate is
// acceptable); one that is always wrong examines them all and falls back
// to the first.
func TestSelection(t *testing.T) {
	run := func(accuracy float64) *collective.Result {
		cfg := free(3)
		cfg.Select = collective.Selection{Cost: 100 * sim.Second, Accuracy: accuracy}
		res, err := collective.Run(oneNode(t, 0), cfg, org(t, "independent"), sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		return res
	}
	right, wrong := run(1), run(0)
	require.Equal(t, 2, right.Attempts)
	assert.True(t, right.Acceptable)
	assert.True(t, wrong.Acceptable)
	candidates := sim.Time(right.Attempts + 1)
	assert.Equal(t, (candidates-1)*100*sim.Second, wrong.Finish-right.Finish)
	assert.Equal(t, right.SubagentTasks, right.SubagentDone)
}

// TestInputMessages prices the inputs a helper receives from parts made
// by others: each is a message of the edge's tokens, delivered after the
// latency plus tokens over bandwidth, and read at Read per token.
func TestInputMessages(t *testing.T) {
	f := task.Family{Shape: "fork-join", Width: 2, Stages: 1, Work: sim.Const(60), OutputTokens: sim.Const(100)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	cfg := free(3)
	cfg.Comm = collective.Comm{Topology: collective.PointToPoint, Latency: sim.Second, Bandwidth: 50, Read: 10 * sim.Millisecond}
	res, err := collective.Run(g, cfg, orchestrator(true), sim.NewStreams(1), collective.Options{Trace: true})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	// Two hand-offs (0 tokens: Comm.MessageTokens is 0), the plan's output
	// to each helper, and one helper's part to the assembling helper.
	// An input is sent when its receiver is handed the subtask and arrives
	// 1 s latency + 100 tokens at 50/s after the receiver starts: the
	// helpers start after the 1 s hand-off.
	kinds := map[string]int{}
	var inputs []sim.Time
	for _, fl := range res.Trace.Flows {
		kinds[fl.Kind]++
		if fl.Kind == "input" {
			inputs = append(inputs, fl.Arrive-fl.Send)
		}
	}
	assert.Equal(t, map[string]int{"handoff": 2, "input": 3}, kinds)
	assert.Equal(t, []sim.Time{4 * sim.Second, 4 * sim.Second, 3 * sim.Second}, inputs)
	assert.Equal(t, 5, res.Messages)
	assert.Equal(t, int64(300), res.MessageTokens)
	// Every model call's prompt holds its inputs (there is no system
	// prompt): two calls each for the two parts and the assembly, each
	// with 100 tokens received.
	assert.Equal(t, int64(6*100), res.PromptTokens)
	// Plan 60 s; the hand-off takes the 1 s latency; the helpers wait 3 s
	// for the plan's output and read it in 1 s; 60 s of work; the
	// assembler waits 3 s and reads 1 s for the other part; 60 s.
	assert.Equal(t, (60+1+3+1+60+3+1+60)*sim.Second, res.Finish)
}

// TestChromeTrace checks the exported trace against the episode's spans:
// one named thread per agent, one slice per span with its duration, and a
// flow (start and finish) per message.
func TestChromeTrace(t *testing.T) {
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	res, err := collective.Run(stageGraph(t), cfg, orchestrator(true), sim.NewStreams(1), collective.Options{Trace: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, res.Trace.WriteChrome(&buf, "stage"))
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  *float64       `json:"dur"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	threads := map[int]string{}
	var slices []float64
	flows := 0
	for _, e := range doc.TraceEvents {
		switch {
		case e.Name == "thread_name":
			threads[e.Tid] = e.Args["name"].(string)
		case e.Ph == "X" && e.Dur != nil && *e.Dur > 0:
			slices = append(slices, *e.Dur)
		case e.Ph == "s":
			flows++
		}
	}
	assert.Equal(t, map[int]string{0: "agent 0 (main)", 1: "agent 1", 2: "agent 2"}, threads)
	var want []float64
	for _, s := range res.Trace.Spans {
		require.Greater(t, s.End, s.Start, "no empty spans are kept")
		want = append(want, float64(s.End-s.Start)/float64(sim.Microsecond))
	}
	assert.Equal(t, want, slices)
	assert.Equal(t, len(res.Trace.Flows), flows)
	assert.Equal(t, 2, flows, "the two hand-offs")
	names := map[string]bool{}
	for _, e := range doc.TraceEvents {
		names[e.Name] = true
	}
	labelled := 0
	for _, sp := range res.Trace.Spans {
		if sp.Label != "" {
			labelled++
			assert.True(t, names[sp.Kind+" "+sp.Label], "a slice is named by its kind and subtask: %s %s", sp.Kind, sp.Label)
		}
	}
	assert.Positive(t, labelled)
	assert.True(t, names["handoff"], "a flow is named by its kind")
}

// TestFlowIDs: each message's two ends share one id, distinct per message
// and never 0 (which the trace format reads as no id).
func TestFlowIDs(t *testing.T) {
	res, err := collective.Run(stageGraph(t), free(3), orchestrator(true), sim.NewStreams(1), collective.Options{Trace: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, res.Trace.WriteChrome(&buf, "ids"))
	var doc struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			ID  int    `json:"id"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	starts, ends := map[int]int{}, map[int]int{}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "s":
			starts[e.ID] = e.Tid
		case "f":
			ends[e.ID] = e.Tid
		}
	}
	require.Len(t, starts, len(res.Trace.Flows))
	for i, f := range res.Trace.Flows {
		require.Contains(t, starts, i+1, "flow %d has a start", i)
		require.Contains(t, ends, i+1, "flow %d has an end", i)
		assert.Equal(t, f.From, starts[i+1], "flow %d starts at its sender", i)
		assert.Equal(t, f.To, ends[i+1], "flow %d ends at its receiver", i)
	}
}

// TestValidateEdges: the edges of each range are allowed or refused as
// documented.
func TestValidateEdges(t *testing.T) {
	for _, tc := range []struct {
		set   func(*collective.Config)
		field string // "" when valid
	}{
		{func(c *collective.Config) { c.Speed = 0 }, "speed"},
		{func(c *collective.Config) { c.Strength = 0 }, "strength"},
		{func(c *collective.Config) { c.Check.Accuracy = 0 }, ""},
		{func(c *collective.Config) { c.Check.Accuracy = 1 }, ""},
		{func(c *collective.Config) { c.Check.Accuracy = 1.01 }, "check.accuracy"},
		{func(c *collective.Config) { c.Reconcile.Rework = 0 }, ""},
		{func(c *collective.Config) { c.Reconcile.Rework = -0.1 }, "reconcile.rework"},
		{func(c *collective.Config) { c.Select.Accuracy = 0 }, ""},
		// Shared inference: the largest allowed values, and one beyond.
		{func(c *collective.Config) { c.Serving = served(collective.MaxReplicas, collective.MaxBatch) }, ""},
		{func(c *collective.Config) { c.Serving = served(collective.MaxReplicas+1, 1) }, "serving.replicas"},
		{func(c *collective.Config) { c.Serving = served(1, collective.MaxBatch+1) }, "serving.max_batch"},
		{func(c *collective.Config) { c.Serving = served(1, 1); c.Serving.StepPerSeq = 0 }, ""},
		{func(c *collective.Config) { c.Serving = served(1, 1); c.Serving.Step = sim.Nanosecond }, ""},
		{func(c *collective.Config) {
			c.API = serving.API{RPM: collective.MaxRate, TPM: collective.MaxRate, OutputRate: 1e9}
		}, ""},
		{func(c *collective.Config) { c.API = serving.API{TPM: collective.MaxRate + 1, OutputRate: 1} }, "api.tpm"},
		{func(c *collective.Config) { c.API = serving.API{RPM: -1, OutputRate: 1} }, "api.rpm"},
		{func(c *collective.Config) { c.API = serving.API{OutputRate: 1.0000001e9} }, "api.output_rate"},
		{func(c *collective.Config) { c.API = serving.API{Concurrency: 0, OutputRate: 1} }, ""},
		{func(c *collective.Config) { c.Tools.Pool = 0 }, ""},
	} {
		c := collective.Defaults()
		tc.set(&c)
		err := c.Validate()
		if tc.field == "" {
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err, tc.field)
		assert.Contains(t, err.Error(), tc.field+":")
	}
}

// TestActionNamesAndErrors: names round-trip, an unknown action prints
// its number, and an invalid choice names what was allowed.
func TestActionNamesAndErrors(t *testing.T) {
	for a := range collective.Action(collective.NumActions) {
		got, err := collective.ParseAction(a.String())
		require.NoError(t, err)
		assert.Equal(t, a, got)
	}
	assert.Equal(t, "submit", collective.Submit.String())
	assert.Equal(t, "Action(7)", collective.Action(collective.NumActions).String())
	share := collective.PolicyFunc(func(*collective.Observation, collective.Mask, float64) collective.Action { return collective.Share })
	_, err := collective.Run(stageGraph(t), free(3), share, sim.NewStreams(1), collective.Options{})
	require.ErrorIs(t, err, collective.ErrInvalidAction)
	assert.Contains(t, err.Error(), "share (allowed work,delegate,attempt) by agent 0 at 0s")
}

// TestDefaultsAsDocumented pins the defaults that Defaults' comment and
// docs/scenarios.md state.
func TestDefaultsAsDocumented(t *testing.T) {
	c := collective.Defaults()
	assert.Equal(t, 4, c.Agents)
	assert.Equal(t, 21*sim.Millisecond, c.Calls.Overhead)
	assert.Equal(t, 17*sim.Microsecond, c.Calls.PromptToken)
	assert.Equal(t, 6*sim.Millisecond, c.Comm.Write)
	assert.Equal(t, 17*sim.Microsecond, c.Comm.Read)
	assert.Equal(t, 50*sim.Millisecond, c.Comm.Latency)
	assert.Equal(t, 2*sim.Second, c.Spawn)
	assert.Equal(t, 30*sim.Second, c.Select.Cost)
	require.NoError(t, c.Validate())
	// The shared server's fitted coefficients (DefaultServing's comment).
	s := serving.DefaultDeployment()
	assert.Equal(t, serving.Deployment{MaxBatch: 256, Step: 5759 * sim.Microsecond, StepPerSeq: 6 * sim.Microsecond, PrefillToken: 17250 * sim.Nanosecond}, s)
}

// served is DefaultServing with the given replicas and batch.
func served(replicas, batch int) serving.Deployment {
	s := serving.DefaultDeployment()
	s.Replicas, s.MaxBatch = replicas, batch
	return s
}

// TestLoopIterations: a loop node repeats its work until an iteration is
// acceptable, at most Loop times. One agent that never checks makes one
// loop part of a minute (two 30 s calls an iteration): an easy part takes
// one iteration, a part that always fails all Loop of them, and a part
// without a loop one attempt however it turns out.
func TestLoopIterations(t *testing.T) {
	const bad = 0.999999 // an iteration succeeds with probability 1e-6
	for _, tc := range []struct {
		difficulty float64
		loop       int
		iterations int
		acceptable bool
	}{
		{0, 3, 1, true},
		{bad, 1, 1, false},
		{bad, 3, 3, false},
		{bad, 0, 1, false},
	} {
		g, err := task.New([]task.Node{{Name: "loop", Work: sim.Minute, Difficulty: tc.difficulty, Loop: tc.loop}}, nil)
		require.NoError(t, err)
		for seed := range uint64(10) {
			res, err := collective.Run(g, free(1), boss, sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.acceptable, res.Acceptable, "%+v seed %d", tc, seed)
			assert.Equal(t, 2*tc.iterations, res.ModelCalls, "%+v seed %d", tc, seed)
			assert.Equal(t, sim.Time(tc.iterations)*sim.Minute, res.Finish, "%+v seed %d", tc, seed)
		}
	}
}

// TestStrengthSetsSuccess: an attempt of difficulty d by agents of
// strength s succeeds with probability (1−d)^(1/s). One unchecked attempt
// at a part of difficulty 0.5 per episode, over 2000 seeds for each
// strength; the acceptable fraction must lie within four standard errors
// of the closed form.
func TestStrengthSetsSuccess(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "part", Work: sim.Minute, Difficulty: 0.5}}, nil)
	require.NoError(t, err)
	const n = 2000
	for _, s := range []float64{0.5, 1, 2} {
		cfg := free(1)
		cfg.Strength = s
		ok := 0
		for seed := range uint64(n) {
			res, err := collective.Run(g, cfg, boss, sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			if res.Acceptable {
				ok++
			}
		}
		p := math.Pow(0.5, 1/s)
		assert.InDelta(t, p, float64(ok)/n, 4*math.Sqrt(p*(1-p)/n), "strength %v", s)
	}
}

// TestToolCallsPerAttempt: every attempt makes the tool calls drawn for
// it, after its model calls, and no more. A chain of three one-minute
// parts (two model calls each) made by one agent, one tool call of 10 s
// per attempt: three tool calls, and the finish is the work plus their
// latency.
func TestToolCallsPerAttempt(t *testing.T) {
	f := task.Family{Shape: "chain", Length: 3, Work: sim.Const(60)}
	for _, calls := range []float64{1, 2, 3} {
		g := draw(t, f, 1).WithTools(task.Tools{Calls: sim.Const(calls), Latency: sim.Const(10)})
		res, err := collective.Run(g, free(1), boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.Equal(t, 3*int(calls), res.ToolCalls, "%v tool calls per attempt", calls)
		assert.Equal(t, 6, res.ModelCalls)
		assert.Equal(t, 3*sim.Minute+sim.Time(3*calls)*10*sim.Second, res.Finish, "%v tool calls per attempt", calls)
	}
}

// TestReworkTime: a conflict at a coupled join in rework mode costs the
// joining agent Rework times the smaller part's work, at its speed. Parts a
// and b of a minute, made by two helpers, join at an assembly of coupling
// 1 (a conflict is certain: nobody shared); at speed s the parts take
// 60/s, the assembly 60/s and the rework 60·Rework/s seconds.
func TestReworkTime(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute}, {Name: "b", Work: sim.Minute}, {Name: "asm", Work: sim.Minute, Coupling: 1},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}})
	require.NoError(t, err)
	for _, tc := range []struct {
		speed, rework float64
		finish        sim.Time
	}{
		{1, 0.5, 150 * sim.Second},
		{2, 0.5, 75 * sim.Second},
		{2, 1, 90 * sim.Second},
	} {
		cfg := free(3)
		cfg.Speed = tc.speed
		cfg.Reconcile = collective.Reconcile{Mode: collective.ConflictRework, Rework: tc.rework}
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.Equal(t, 1, res.Conflicts, "%+v", tc)
		assert.True(t, res.Acceptable, "%+v: rework mends the conflict", tc)
		assert.Equal(t, tc.finish, res.Finish, "%+v", tc)
	}
}

// TestSmallestCallCosts: a call's costs are its own at the smallest sizes
// too. One call of a nanosecond of work takes that nanosecond; one call
// whose prompt is a single token takes that token's prefill.
func TestSmallestCallCosts(t *testing.T) {
	for _, tc := range []struct {
		work   sim.Time
		prompt int
		finish sim.Time
	}{
		{sim.Nanosecond, 0, sim.Nanosecond},
		{2 * sim.Nanosecond, 0, 2 * sim.Nanosecond},
		{sim.Nanosecond, 1, sim.Nanosecond + 17*sim.Microsecond},
		{sim.Nanosecond, 2, sim.Nanosecond + 34*sim.Microsecond},
	} {
		g, err := task.New([]task.Node{{Name: "tiny", Work: tc.work}}, nil)
		require.NoError(t, err)
		cfg := free(1)
		cfg.Calls = collective.Calls{SystemPrompt: tc.prompt, PromptToken: 17 * sim.Microsecond, OutputRate: 100}
		res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.Equal(t, tc.finish, res.Finish, "%+v", tc)
		assert.Equal(t, int64(tc.prompt), res.PromptTokens, "%+v", tc)
	}
}
