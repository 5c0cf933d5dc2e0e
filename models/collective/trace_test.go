package collective_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// chromeEvents writes tr in the Chrome format and reads back its events.
func chromeEvents(t *testing.T, tr *collective.Trace) []map[string]any {
	var buf bytes.Buffer
	require.NoError(t, tr.WriteChrome(&buf, "hand-made"))
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	return doc.TraceEvents
}

// TestChromeTimesRoundToMicroseconds: a trace's times are rounded to the
// nearest microsecond, half a microsecond up, and a slice's duration is
// the difference of its rounded ends.
func TestChromeTimesRoundToMicroseconds(t *testing.T) {
	ns := sim.Nanosecond
	for _, tc := range []struct {
		start, end sim.Time
		ts, dur    float64
	}{
		{1499 * ns, 1500 * ns, 1, 1},
		{1500 * ns, 2499 * ns, 2, 0},
		{0, 999 * ns, 0, 1},
		{2000 * ns, 3501 * ns, 2, 2},
	} {
		events := chromeEvents(t, &collective.Trace{Spans: []collective.Span{{Start: tc.start, End: tc.end, Kind: "work"}}})
		var found bool
		for _, e := range events {
			if e["ph"] == "X" {
				found = true
				assert.Equal(t, tc.ts, e["ts"], "%+v", tc)
				assert.Equal(t, tc.dur, e["dur"], "%+v", tc)
			}
		}
		assert.True(t, found)
	}
}

// TestChromeThreadsCoverEveryAgent: every agent that has a slice, sends or
// receives a message gets a named thread, the lower-numbered ones too.
func TestChromeThreadsCoverEveryAgent(t *testing.T) {
	for _, tc := range []struct {
		tr      collective.Trace
		threads int
	}{
		{collective.Trace{Spans: []collective.Span{{Agent: 3, End: sim.Second, Kind: "work"}}}, 4},
		{collective.Trace{Flows: []collective.Flow{{From: 0, To: 2, Kind: "finding"}}}, 3},
		{collective.Trace{Flows: []collective.Flow{{From: 4, To: 1, Kind: "finding"}}}, 5},
	} {
		threads := 0
		for _, e := range chromeEvents(t, &tc.tr) {
			if e["name"] == "thread_name" {
				threads++
			}
		}
		assert.Equal(t, tc.threads, threads, "%+v", tc.tr)
	}
}

// TestDerivedMetrics works the ratios of Metrics out by hand.
func TestDerivedMetrics(t *testing.T) {
	m := collective.Metrics{
		Finish: 20 * sim.Second, CriticalPath: 10 * sim.Second, SerialWork: 60 * sim.Second,
		AgentTime: 40 * sim.Second, OutputTokens: 2000, PromptTokens: 500, MessageTokens: 10,
	}
	assert.Equal(t, 3.0, m.Speedup())
	assert.Equal(t, 2.0, m.Stretch())
	assert.Equal(t, 50.0, m.OutputRate())
	assert.Equal(t, int64(2500), m.Tokens())
	assert.Equal(t, int64(10*collective.BytesPerToken), m.MessageBytes())
	var zero collective.Metrics
	assert.Zero(t, zero.Speedup())
	assert.Zero(t, zero.Stretch())
	assert.Zero(t, zero.OutputRate())
}

// TestTraceEndsAtTheFinish: an activity that the time limit cuts short
// (checks, spawns and tool calls are traced when they start) ends in the
// trace at the finish, not at the end it was due to have, and a model call
// in flight (traced when it ends) is traced up to the finish, so that the
// spans hold every call episodes.csv counts.
func TestTraceEndsAtTheFinish(t *testing.T) {
	tools := families[0]
	tools.ToolCalls, tools.ToolLatency = sim.Const(3), sim.Exponential(120)
	shared := func(c *collective.Config) {
		c.Serving = serving.DefaultDeployment()
		c.Serving.Replicas, c.Serving.MaxBatch = 1, 2
	}
	for _, tc := range []struct {
		name   string
		family task.Family
		org    string
		edit   func(*collective.Config)
	}{
		{"checks of one agent", families[0], "sequential", nil},
		{"spawns and checks", families[1], "split", nil},
		{"shares", families[3], "team", nil},
		{"tool calls", tools, "sequential", nil},
		{"calls and checks at a shared server", families[1], "split", shared},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := 0
			for limit := 10 * sim.Second; limit < 40*sim.Minute; limit += 17 * sim.Second {
				cfg := collective.Defaults()
				if tc.edit != nil {
					tc.edit(&cfg)
				}
				cfg.TimeLimit = limit
				res, err := collective.Run(draw(t, tc.family, 1), cfg, org(t, tc.org), sim.NewStreams(1), collective.Options{Trace: true})
				require.NoError(t, err)
				if !res.TimedOut {
					continue
				}
				cut++
				for _, s := range res.Trace.Spans {
					require.LessOrEqual(t, s.End, res.Finish, "limit %v: %+v", limit, s)
					require.Less(t, s.Start, s.End, "limit %v: %+v", limit, s)
				}
				calls, prompt := tracedCalls(res.Trace)
				// A call in flight at the limit is counted when it starts,
				// and traced up to the finish.
				require.Equal(t, res.ModelCalls, calls, "limit %v: model calls and their spans", limit)
				require.Equal(t, res.PromptTokens, prompt, "limit %v: prompt tokens and the spans'", limit)
			}
			require.Positive(t, cut, "no episode reached the time limit")
		})
	}
}

// TestTraceHoldsEveryCallUnderABudget: when a token budget refuses a model
// call, the call before it (traced when the next one starts) is still in
// the trace, so that the spans hold every call episodes.csv counts and
// their prompt tokens.
func TestTraceHoldsEveryCallUnderABudget(t *testing.T) {
	tools := families[0]
	tools.ToolCalls, tools.ToolLatency = sim.Const(3), sim.Exponential(120)
	for _, tc := range []struct {
		name   string
		family task.Family
		org    string
	}{
		{"one agent", families[0], "sequential"},
		{"spawns and checks", families[1], "split"},
		{"shares", families[3], "team"},
		{"tool calls", tools, "sequential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exhausted := 0
			for budget := int64(3000); budget < 200_000; budget += 7919 {
				cfg := collective.Defaults()
				cfg.TokenBudget = budget
				res, err := collective.Run(draw(t, tc.family, 1), cfg, org(t, tc.org), sim.NewStreams(1), collective.Options{Trace: true})
				require.NoError(t, err)
				if !res.BudgetExhausted {
					continue
				}
				exhausted++
				calls, prompt := tracedCalls(res.Trace)
				require.Equal(t, res.ModelCalls, calls, "budget %d: model calls and their spans", budget)
				require.Equal(t, res.PromptTokens, prompt, "budget %d: prompt tokens and the spans'", budget)
			}
			require.Positive(t, exhausted, "no episode ran out of its budget")
		})
	}
}

// tracedCalls counts the model calls a trace's spans show (work and check
// spans) and the prompt tokens of its work spans.
func tracedCalls(tr *collective.Trace) (calls int, prompt int64) {
	for _, s := range tr.Spans {
		switch s.Kind {
		case "work":
			calls++
			prompt += s.Prompt
		case "check":
			calls++
		}
	}
	return calls, prompt
}
