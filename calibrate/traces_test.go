package calibrate_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/calibrate/otel"
	"github.com/swarmsim/swarmsim/internal/fuzzseed"
	"github.com/swarmsim/swarmsim/internal/shareddata"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// TestMultiAgent reads the multi-agent runs of testdata/multiagent.py in
// both forms: an orchestrator fans out to 2 (then 3) researchers at once,
// then hands over to a writer.
func TestMultiAgent(t *testing.T) {
	for _, file := range []string{"testdata/multiagent.otlp.json", "testdata/multiagent.python.json"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			tr, err := calibrate.Load([]string{file})
			require.NoError(t, err)
			assert.Equal(t, calibrate.Report{Files: 1, Spans: 38, NoEnd: 2, NoAttributes: 2, NoTokens: 2}, tr.Report)
			require.Len(t, tr.Runs, 2)
			for i, want := range []struct {
				calls, tools, agents, parallel, fanout int
				acceptable                             bool
			}{{9, 2, 3, 3, 2, true}, {11, 3, 4, 4, 3, false}} {
				r := tr.Runs[i]
				assert.Equal(t, want.calls, r.Calls, r.ID)
				assert.Equal(t, want.tools, r.Tools, r.ID)
				assert.Equal(t, want.agents, r.Agents, r.ID)
				assert.Equal(t, want.parallel, r.MaxParallel, r.ID)
				assert.Equal(t, want.fanout, r.Fanout, r.ID)
				assert.Equal(t, 2, r.Waves, r.ID)
				assert.True(t, r.HasOutcome)
				assert.Equal(t, want.acceptable, r.Acceptable)
				assert.InDelta(t, 30, r.Duration, 1e-9)
			}
			assert.Equal(t, file+"#1", tr.Runs[0].ID)
			var who []string
			for _, d := range tr.Delegs {
				who = append(who, d.From+">"+d.To+"@"+string(rune('0'+d.Wave)))
				assert.InDelta(t, 0.1, d.Startup, 1e-9)
			}
			assert.Equal(t, []string{
				"orchestrator>researcher@0", "orchestrator>researcher@0", "orchestrator>writer@1",
				"orchestrator>researcher@0", "orchestrator>researcher@0", "orchestrator>researcher@0", "orchestrator>writer@1",
			}, who)
			agents := map[string]int{}
			for _, c := range tr.Calls {
				agents[c.Agent]++
			}
			assert.Equal(t, map[string]int{"orchestrator": 6, "researcher": 10, "writer": 4}, agents)
			f, err := calibrate.FitAll(tr)
			require.NoError(t, err)
			assert.Equal(t, calibrate.Shape{Delegating: 2, Fanout: 3, Waves: 2, Startup: 0.1, MaxParallel: 4}, f.Shape)
			// The scenario's task graph is the delegation: two waves of a
			// fork, three parallel parts and a join, split among up to four
			// agents, one call per subtask (20 calls over 2 runs of 10).
			yaml, err := f.Scenario("multiagent", []string{file})
			require.NoError(t, err)
			sc, err := scenarios.Parse(yaml, "scenario.yaml", nil)
			require.NoError(t, err)
			// The comment counts the subtasks of a run, not its calls (it
			// said "Model calls per subtask (10 per run)").
			assert.Contains(t, string(yaml), "# Model calls per subtask (10 subtasks a run): poisson(mean=1)")
			require.NoError(t, sc.RunInert(), "simulate run takes the scenario: every value acts")
			task, coll := sc.Base.Task, sc.Base.Collective
			assert.Equal(t, "fork-join", task.Shape)
			assert.Equal(t, 3, task.Width)
			assert.Equal(t, 2, task.Stages)
			assert.Equal(t, 4, coll.Agents)
			assert.Equal(t, "split", sc.Base.Policy.Organization)
			assert.Equal(t, 100*sim.Millisecond, coll.Spawn)
			assert.InDelta(t, 1, f.Calls.Best().Mean(), 0)
			assert.InDelta(t, 0.25, f.ToolCalls.Best().Mean(), 0, "5 tool calls over 2 runs of 10 subtasks")
		})
	}
}

// TestAdopted reads a run whose model call's parent was not exported: it
// belongs to the agent whose span contains it.
func TestAdopted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "adk.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"spans": [
	 {"name": "call_llm m", "parent": {"span_id": 99}, "context": {"trace_id": 1, "span_id": 2},
	  "start_time": 1000000000, "end_time": 2000000000,
	  "attributes": {"gen_ai.operation.name": "call_llm", "gen_ai.request.model": "m"}},
	 {"name": "call_llm m", "parent": {"span_id": 98}, "context": {"trace_id": 1, "span_id": 3},
	  "start_time": 5000000000, "end_time": 6000000000,
	  "attributes": {"gen_ai.operation.name": "call_llm", "gen_ai.request.model": "m"}},
	 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
	  "start_time": 0, "end_time": 3000000000, "attributes": {"gen_ai.operation.name": "invoke_agent"}}]}`), 0o644))
	tr, err := calibrate.Load([]string{path})
	require.NoError(t, err)
	require.Len(t, tr.Runs, 1)
	assert.Equal(t, 1, tr.Runs[0].Calls)
	assert.Equal(t, "a", tr.Calls[0].Agent)
	assert.Equal(t, 1, tr.Report.Adopted)
	assert.Equal(t, 1, tr.Report.Outside, "the call outside the agent's time is left out")
	assert.Equal(t, 1, tr.Report.NoTokens)
}

// TestAdoptedByInnermost places a call whose parent is missing under the
// shortest agent that contains it in time, the innermost, not one of the
// agents around that one.
func TestAdoptedByInnermost(t *testing.T) {
	spans, err := otel.Read(strings.NewReader("["+strings.Join([]string{
		pySpan(1, 1, 0, "invoke_agent", "0", "1000"), pySpan(1, 2, 1, "invoke_agent", "10", "500"),
		pySpan(1, 3, 2, "invoke_agent", "20", "100"), pySpan(1, 4, 9, "chat", "30", "40"),
	}, ",")+"]"), "nested.json")
	require.NoError(t, err)
	var tr calibrate.Traces
	tr.Add("nested.json", spans)
	require.Len(t, tr.Calls, 1)
	assert.Equal(t, "3", tr.Calls[0].Agent)
	assert.Equal(t, 1, tr.Report.Adopted)
}

// TestWaves counts a delegation as a new wave only when it starts after
// every earlier one has ended: agents 3 and 4 start while 2 or 3 still
// runs (3 in 2's last nanosecond), agent 5 the nanosecond after the
// others ended.
func TestWaves(t *testing.T) {
	spans, err := otel.Read(strings.NewReader("["+strings.Join([]string{
		pySpan(1, 1, 0, "invoke_agent", "0", "1000"), pySpan(1, 2, 1, "invoke_agent", "10", "100"),
		pySpan(1, 3, 1, "invoke_agent", "99", "200"), pySpan(1, 4, 1, "invoke_agent", "100", "150"),
		pySpan(1, 5, 1, "invoke_agent", "200", "300"),
	}, ",")+"]"), "waves.json")
	require.NoError(t, err)
	var tr calibrate.Traces
	tr.Add("waves.json", spans)
	require.Len(t, tr.Runs, 1)
	assert.Equal(t, 2, tr.Runs[0].Waves, "waves")
	assert.Equal(t, 2, tr.Runs[0].Fanout, "fan-out")
	var waves []int
	for _, d := range tr.Delegs {
		waves = append(waves, d.Wave)
	}
	assert.Equal(t, []int{0, 0, 0, 1}, waves)
}

// graphCalls counts the model and tool calls of a call graph's agent
// and of the agents below it.
func graphCalls(a *replay.Agent) int {
	n := 0
	for _, s := range a.Steps {
		if s.Kind == replay.SubAgent {
			n += graphCalls(s.Agent)
		} else {
			n++
		}
	}
	return n
}

// TestReportCounts: the report's counts agree with their nouns ("read 0
// spans from 1 files" was written before).
func TestReportCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    calibrate.Report
		want string
	}{
		{"no spans from one file", calibrate.Report{Files: 1}, "read 0 spans from 1 file\n"},
		{"one span from two files", calibrate.Report{Spans: 1, Files: 2}, "read 1 span from 2 files\n"},
		{"one span written twice", calibrate.Report{Spans: 3, Files: 1, Repeated: 1}, "read 3 spans from 1 file\n1 span written twice over in its trace (read once: one span, one call)\n"},
		{"one and two left out", calibrate.Report{Spans: 5, Files: 1, NoEnd: 1, EndsEarly: 2, NoRoot: 1, Loops: []string{"f: span \"a\" (ID 1)"}},
			"read 5 spans from 1 file\n1 span without an end time (left out)\n2 spans ending before they start (left out)\n1 trace without an invoke_agent span (left out)\n" +
				"1 loop of parents, spans each other's parent or a span its own (a broken file; cut at its first span, placed under the invoke_agent span containing it in time): f: span \"a\" (ID 1)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.r.String())
		})
	}
}

// TestBrokenTrees gathers runs from traces whose parents are broken or
// whose agents' times say little, on each of which FuzzTracesAdd's
// properties failed before the fix: every call lands in a run or is
// counted as left out, and a run counts its root and every agent it
// delegated to as running.
func TestBrokenTrees(t *testing.T) {
	type shape struct{ Calls, Tools, Agents, MaxParallel, Fanout, Waves int }
	for _, tc := range []struct {
		name                               string
		spans                              []string
		want                               shape
		adopted, outside, noEnd, endsEarly int
		outsideRun                         int
		// loops names the span each loop of parents is cut at.
		loops []string
		// leftOut is set where the run is left out, its root having no
		// (valid) end.
		leftOut bool
	}{
		{
			// Agent 3 and call 4 are each other's parent, and tool 5 its
			// own: each cycle is cut at its first span, which is then
			// placed as one whose parent is missing, and reported as a
			// loop. They were lost, and then counted as spans whose
			// parent is not in the file.
			name: "parents in a cycle",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 1, "chat", "10", "20"),
				pySpan(1, 3, 4, "invoke_agent", "0", "100"), pySpan(1, 4, 3, "chat", "10", "20"), pySpan(1, 5, 5, "execute_tool", "30", "40")},
			want:  shape{Calls: 2, Tools: 1, Agents: 1, MaxParallel: 2, Fanout: 1, Waves: 1},
			loops: []string{`broken.json:1: span "invoke_agent 3" (ID 0000000000000003)`, `broken.json:1: span "execute_tool 5" (ID 0000000000000005)`},
		},
		{
			// The root's parent is its own call 2: the loop is cut at the
			// root, which then has no agent above it and is the run. It
			// was read without a word.
			name:  "a loop through the root",
			spans: []string{pySpan(1, 1, 2, "invoke_agent", "0", "100"), pySpan(1, 2, 1, "chat", "10", "20")},
			want:  shape{Calls: 1, MaxParallel: 1},
			loops: []string{`broken.json:1: span "invoke_agent 1" (ID 0000000000000001)`},
		},
		{
			// Agents 2 and 3, whose parents are missing, run over the same
			// time: 2 goes under 3, and 3, which may no longer go under 2,
			// under the root. Each went under the other, and both were lost.
			name: "agents whose parents are missing, over the same time",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 9, "invoke_agent", "10", "90"),
				pySpan(1, 3, 8, "invoke_agent", "10", "90"), pySpan(1, 4, 2, "chat", "20", "30"), pySpan(1, 5, 3, "execute_tool", "40", "50")},
			want:    shape{Calls: 1, Tools: 1, Agents: 2, MaxParallel: 3, Fanout: 1, Waves: 1},
			adopted: 2,
		},
		{
			// Agent 2's parent is missing, and its sub-agent 3 runs all of
			// its time: 2 goes under the root, not under 3. It went under
			// 3, and both were lost.
			name: "an agent whose parent is missing, over the same time as its sub-agent",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 9, "invoke_agent", "10", "90"),
				pySpan(1, 3, 2, "invoke_agent", "10", "90"), pySpan(1, 4, 3, "chat", "20", "30")},
			want:    shape{Calls: 1, Agents: 2, MaxParallel: 3, Fanout: 1, Waves: 1},
			adopted: 1,
		},
		{
			// Neither the root nor its sub-agent ended: the run has no
			// duration and is left out, its root counted. It was kept,
			// lasting 0 s.
			name: "a root and its sub-agent without an end",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "0", ""), pySpan(1, 2, 1, "invoke_agent", "10", ""),
				pySpan(1, 3, 2, "chat", "20", "30")},
			noEnd:   1,
			leftOut: true,
		},
		{
			// A root that ends before it starts: the run is left out, its
			// root counted as ending early. It was kept, lasting 0 s.
			name: "a root ending before it starts",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "100", "50"),
				pySpan(1, 3, 1, "chat", "60", "70")},
			endsEarly: 1,
			leftOut:   true,
		},
		{
			// A sub-agent that ends before it starts runs to the end of the
			// run, and is counted as ending early.
			name: "a sub-agent ending before it starts",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 1, "invoke_agent", "50", "40"),
				pySpan(1, 3, 2, "chat", "60", "70")},
			want:      shape{Calls: 1, Agents: 1, MaxParallel: 2, Fanout: 1, Waves: 1},
			endsEarly: 1,
		},
		{
			// Agents recorded as ending when they started ran at that
			// instant, all three at once, in one wave. None counted, and
			// the second sub-agent made a second wave.
			name: "agents that ended as they started",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "5", "5"), pySpan(1, 2, 1, "invoke_agent", "5", "5"),
				pySpan(1, 3, 1, "invoke_agent", "5", "5")},
			want: shape{Agents: 2, MaxParallel: 3, Fanout: 2, Waves: 1},
		},
		{
			// Chat 2 starts before the run (its start in local time, hours
			// early), chat 5 ends after it, and tool 6, under chat 2, lies
			// within it: the two calls are left out and counted, the tool
			// kept under the root. Both chats were read, chat 2 lasting 3 s
			// where it took 0.1 s.
			name: "calls starting before their run or ending after it",
			spans: []string{pySpan(1, 1, 0, "invoke_agent", "3000000000", "4000000000"), pySpan(1, 2, 1, "chat", "1", "3100000000"),
				pySpan(1, 3, 1, "chat", "3200000000", "3300000000"), pySpan(1, 4, 1, "execute_tool", "3400000000", "3500000000"),
				pySpan(1, 5, 1, "chat", "3900000000", "4000000001"), pySpan(1, 6, 2, "execute_tool", "3050000000", "3060000000")},
			want:       shape{Calls: 1, Tools: 2, MaxParallel: 1},
			outsideRun: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, err := otel.Read(strings.NewReader("["+strings.Join(tc.spans, ",")+"]"), "broken.json")
			require.NoError(t, err)
			var tr calibrate.Traces
			tr.Add("broken.json", spans)
			assert.Equal(t, tc.adopted, tr.Report.Adopted, "adopted")
			assert.Equal(t, tc.outside, tr.Report.Outside, "outside")
			assert.Equal(t, tc.noEnd, tr.Report.NoEnd, "no end")
			assert.Equal(t, tc.endsEarly, tr.Report.EndsEarly, "ends early")
			assert.Equal(t, tc.outsideRun, tr.Report.OutsideRun, "calls outside their run")
			assert.Equal(t, tc.loops, tr.Report.Loops, "loops")
			if tc.leftOut {
				assert.Empty(t, tr.Runs, "runs")
				assert.Empty(t, tr.Calls, "calls")
				assert.Empty(t, tr.Replay, "replay")
				assert.Equal(t, 1, tr.Report.NoEndRuns, "runs left out")
				return
			}
			require.Len(t, tr.Runs, 1)
			r := tr.Runs[0]
			assert.Equal(t, tc.want, shape{r.Calls, r.Tools, r.Agents, r.MaxParallel, r.Fanout, r.Waves})
			// The replay's call graph holds the calls the fit read.
			require.Len(t, tr.Replay, 1)
			assert.Equal(t, r.Calls+r.Tools, graphCalls(&tr.Replay[0].Root), "calls in the call graph")
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "chrome.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"traceEvents": []}`), 0o644))
	_, err := calibrate.Load([]string{dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+": not OpenTelemetry span JSON")

	none := filepath.Join(t.TempDir(), "none.json")
	require.NoError(t, os.WriteFile(none, []byte(`{"resourceSpans": []}`), 0o644))
	_, err = calibrate.Load([]string{none})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no run found in "+none)

	_, err = calibrate.Load([]string{filepath.Join(dir, "missing.json")})
	assert.ErrorIs(t, err, os.ErrNotExist)

	empty := t.TempDir()
	_, err = calibrate.Load([]string{empty})
	assert.ErrorContains(t, err, empty+": no .json or .jsonl file")
}

// TestLoadRefusesSpans checks that Load refuses a span whose values no
// fit can use, naming the file, the span and the field: among them
// attributes of the wrong type, which were read as missing (a call
// without tokens, a run without an outcome, a span of no operation).
func TestLoadRefusesSpans(t *testing.T) {
	for _, tc := range []struct {
		name, attrs, start, end string
		want                    string // regexp, after the file's path
	}{
		{"output tokens above 2^40", `"gen_ai.usage.output_tokens": 100000000000000000`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.output_tokens: 100000000000000000 is out of range \[0, 1099511627776\]`},
		{"input tokens above 2^40", `"gen_ai.usage.input_tokens": "1099511627777"`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.input_tokens: 1099511627777 is out of range \[0, 1099511627776\]`},
		{"negative output tokens", `"gen_ai.usage.output_tokens": -5`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.output_tokens: -5 is out of range \[0, 1099511627776\]`},
		{"output tokens in words", `"gen_ai.usage.output_tokens": "twenty"`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.output_tokens: "twenty" is not a whole number: want a token count in \[0, 1099511627776\]`},
		{"fractional input tokens", `"gen_ai.usage.input_tokens": 20.5`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.input_tokens: 20\.5 is not a whole number`},
		{"tokens as a boolean", `"gen_ai.usage.input_tokens": true`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.usage\.input_tokens: true is not a whole number`},
		{"tokens as strings of digits and null", `"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": null`, "1000000000", "2000000000", ""},
		{"an outcome in words", `"swarmsim.acceptable": "yes"`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): swarmsim\.acceptable: "yes" is not a boolean: want true or false`},
		{"an outcome as a string", `"swarmsim.acceptable": "false"`, "1000000000", "2000000000", ""},
		{"a tool name as a number", `"gen_ai.tool.name": 7`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.tool\.name: 7 is not a string`},
		{"a model as an array", `"gen_ai.response.model": ["m"]`, "1000000000", "2000000000",
			`:4: span "chat m" \(ID 0000000000000002\): gen_ai\.response\.model: an array is not a string`},
		{"tokens at 2^40", `"gen_ai.usage.input_tokens": 1099511627776, "gen_ai.usage.output_tokens": 1099511627776`, "1000000000", "2000000000", ""},
		{"a call of 1e18 ns", `"gen_ai.usage.output_tokens": 1`, "1000000000", "1000000001000000000",
			`:4: span "chat m" \(ID 0000000000000002\): lasts 1e\+09 s, more than 4\.612e\+08 s \(about 15 years\), the longest a span may last`},
		{"a call of the longest span", `"gen_ai.usage.output_tokens": 1`, "1000000000", fmt.Sprint(1000000000 + calibrate.MaxSpan), ""},
		{"a call ending before it starts", `"gen_ai.usage.output_tokens": 1`, "1000000001000000000", "1000000000", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := `{"spans": [
 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
  "start_time": 0, "end_time": 3000000000, "attributes": {"gen_ai.operation.name": "invoke_agent"}},
 {"name": "chat m", "parent": {"span_id": 1}, "context": {"trace_id": 1, "span_id": 2},
  "start_time": ` + tc.start + `, "end_time": ` + tc.end + `,
  "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", ` + tc.attrs + `}}]}`
			path := filepath.Join(t.TempDir(), "t.json")
			require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
			_, err := calibrate.Load([]string{path})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Regexp(t, "^"+regexp.QuoteMeta(path)+tc.want, err.Error())
		})
	}
}

// TestEndsEarlyNamed checks that the report names each span ending
// before it starts by its file and line, as well as counting it: it was
// only counted, and a file of many spans gave no clue which.
func TestEndsEarlyNamed(t *testing.T) {
	trace := `{"spans": [
 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
  "start_time": 0, "end_time": 3000000000, "attributes": {"gen_ai.operation.name": "invoke_agent"}},
 {"name": "chat m", "parent": {"span_id": 1}, "context": {"trace_id": 1, "span_id": 2},
  "start_time": 2000000000, "end_time": 1000000000,
  "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}},
 {"name": "execute_tool t", "parent": {"span_id": 1}, "context": {"trace_id": 1, "span_id": 3},
  "start_time": 1000000000, "end_time": 1500000000, "attributes": {"gen_ai.operation.name": "execute_tool"}},
 {"name": "invoke_agent [b]", "parent": null, "context": {"trace_id": 2, "span_id": 1},
  "start_time": 5, "end_time": 4, "attributes": {"gen_ai.operation.name": "invoke_agent"}}]}`
	path := filepath.Join(t.TempDir(), "t.json")
	require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
	tr, err := calibrate.Load([]string{path})
	require.NoError(t, err)
	want := []string{path + `:9: span "invoke_agent [b]" (ID 0000000000000001)`, path + `:4: span "chat m" (ID 0000000000000002)`}
	assert.Equal(t, 2, tr.Report.EndsEarly)
	assert.Equal(t, want, tr.Report.EndsEarlySpans)
	assert.Contains(t, tr.Report.String(), "2 spans ending before they start (left out): "+want[0]+"; "+want[1]+"\n")

	// Read as one directory, the runs go by the file's name below it, and
	// the report still names its path.
	dir := filepath.Join(t.TempDir(), "traces")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "t.json"), []byte(trace), 0o644))
	tr, err = calibrate.Load([]string{dir})
	require.NoError(t, err)
	require.NotEmpty(t, tr.Runs)
	assert.Equal(t, "sub/t.json", tr.Runs[0].File)
	assert.Equal(t, filepath.Join(dir, "sub", "t.json")+`:9: span "invoke_agent [b]" (ID 0000000000000001)`, tr.Report.EndsEarlySpans[0])
}

// oneRun is a trace of one agent run with one model call.
const oneRun = `{"spans": [
 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
  "start_time": 0, "end_time": 3000000000, "attributes": {"gen_ai.operation.name": "invoke_agent"}},
 {"name": "chat m", "parent": {"span_id": 1}, "context": {"trace_id": 1, "span_id": 2},
  "start_time": 1000000000, "end_time": 2000000000,
  "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}}]}`

// TestLoadRunIDs: files of one name below two directories are two runs,
// told apart by their paths, while one directory names its runs relative
// to itself.
func TestLoadRunIDs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"agno", "google"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, d, "run.json"), []byte(oneRun), 0o644))
	}
	agno, google := filepath.Join(root, "agno"), filepath.Join(root, "google")
	for _, tc := range []struct {
		paths []string
		want  []string
	}{
		{[]string{agno}, []string{"run.json"}},
		{[]string{agno, google}, []string{filepath.ToSlash(filepath.Join(agno, "run.json")), filepath.ToSlash(filepath.Join(google, "run.json"))}},
	} {
		tr, err := calibrate.Load(tc.paths)
		require.NoError(t, err, tc.paths)
		var runs, calls []string
		for _, r := range tr.Runs {
			runs = append(runs, r.ID)
		}
		for _, c := range tr.Calls {
			calls = append(calls, c.Run)
		}
		assert.Equal(t, tc.want, runs, tc.paths)
		assert.Equal(t, tc.want, calls, tc.paths)
	}
}

// TestLoadFileTwice: a file reached through two arguments is refused,
// naming it and both arguments, since its runs would count twice.
func TestLoadFileTwice(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "openai")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	file := filepath.Join(sub, "run.json")
	require.NoError(t, os.WriteFile(file, []byte(oneRun), 0o644))
	link := filepath.Join(t.TempDir(), "link.json")
	require.NoError(t, os.Symlink(file, link))
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{file, file}, file + " is read twice, from the arguments " + file + " and " + file},
		{[]string{root, sub}, file + " is read twice, from the arguments " + root + " and " + sub},
		{[]string{sub, root}, file + " is read twice, from the arguments " + sub + " and " + root},
		{[]string{file, link}, link + " is read twice, from the arguments " + file + " and " + link},
	} {
		_, err := calibrate.Load(tc.paths)
		assert.ErrorContains(t, err, tc.want, tc.paths)
	}
}

// TestLoadSkipsOutputs: a directory below the traces that simulate wrote
// (a fit's --out beside its traces) is skipped and counted, so that the
// same fit runs again; a manifest that is the argument itself is read.
func TestLoadSkipsOutputs(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "run.json"), []byte(oneRun), 0o644))
	fitted := filepath.Join(root, "fitted")
	require.NoError(t, os.MkdirAll(fitted, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fitted, "manifest.json"), []byte(`{"kind": "fit", "files": []}`), 0o644))
	for _, tc := range []struct {
		paths   []string
		runs    int
		outputs int
		err     string
	}{
		{[]string{root}, 1, 1, ""},
		{[]string{filepath.Join(fitted, "manifest.json")}, 0, 0, "not OpenTelemetry span JSON"},
	} {
		tr, err := calibrate.Load(tc.paths)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.paths)
			continue
		}
		require.NoError(t, err, tc.paths)
		assert.Len(t, tr.Runs, tc.runs)
		assert.Equal(t, tc.outputs, tr.Report.Outputs)
		assert.Contains(t, tr.Report.String(), "\ndirectories that simulate wrote (manifest.json), skipped: 1\n")
	}
}

// TestLoadResultsDirectory: a directory that simulate wrote, named as an
// argument, stands for its spans.jsonl (what 'simulate replay --spans'
// writes), not for its manifest and other JSON files; one without spans
// is refused, saying what it holds.
func TestLoadResultsDirectory(t *testing.T) {
	root := t.TempDir()
	write := func(path, data string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	}
	replayed := filepath.Join(root, "replayed")
	write(filepath.Join(replayed, "manifest.json"), `{"kind": "replay", "files": ["spans.jsonl"]}`)
	write(filepath.Join(replayed, "spans.jsonl"), oneRun)
	write(filepath.Join(replayed, "charts", "charts.json"), `{"charts": []}`)
	fitted := filepath.Join(root, "fitted")
	write(filepath.Join(fitted, "manifest.json"), `{"kind": "fit", "files": ["fit.csv"]}`)
	write(filepath.Join(fitted, "charts", "charts.json"), `{"charts": []}`)
	other := filepath.Join(root, "other.json")
	write(other, oneRun)
	for _, tc := range []struct {
		name  string
		paths []string
		runs  []string
		err   string
	}{
		{"a replay's directory", []string{replayed}, []string{"spans.jsonl"}, ""},
		{"with another file", []string{replayed, other},
			[]string{filepath.ToSlash(filepath.Join(replayed, "spans.jsonl")), filepath.ToSlash(other)}, ""},
		{"spans named twice", []string{replayed, filepath.Join(replayed, "spans.jsonl")}, nil, "spans.jsonl is read twice"},
		{"a fit's directory", []string{fitted}, nil,
			fitted + " holds the results of a fit (its manifest.json says so), with no spans.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := calibrate.Load(tc.paths)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var runs []string
			for _, r := range tr.Runs {
				runs = append(runs, r.ID)
			}
			assert.Equal(t, tc.runs, runs)
			assert.Equal(t, len(tc.paths), tr.Report.Files)
		})
	}
}

// TestLoadByteOrderMark: .json and .jsonl files that start with a UTF-8
// byte-order mark are read.
func TestLoadByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.jsonl"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("\uFEFF"+oneRun), 0o644))
	}
	tr, err := calibrate.Load([]string{dir})
	require.NoError(t, err)
	assert.Len(t, tr.Runs, 2)
}

// TestRepeatedSpanCountsOnce reads a run whose tool span is written twice
// over, identical, as any-agent's OpenAI recorder writes write_file in 7
// of the shared runs: it is one span and one tool call (those runs made
// 2 tool calls, not 3: 148 tool calls were counted in the shared traces,
// where there are 141), counted as repeated in the report; the replay's
// call graph has it once too.
func TestRepeatedSpanCountsOnce(t *testing.T) {
	at := func(ms int64) string { return fmt.Sprint(1_750_000_000_000_000_000 + ms*1_000_000) } // 2025
	tool := pySpan(1, 3, 1, "execute_tool", at(20), at(30))
	doc := "[" + strings.Join([]string{pySpan(1, 1, 0, "invoke_agent", at(0), at(100)), pySpan(1, 2, 1, "chat", at(5), at(15)), tool, tool}, ",\n") + "]"
	spans, err := otel.Read(strings.NewReader(doc), "run.json")
	require.NoError(t, err)
	require.Len(t, spans, 4, "Read keeps a span written twice over")
	var tr calibrate.Traces
	tr.Add("run.json", spans)
	require.Len(t, tr.Runs, 1)
	assert.Equal(t, 1, tr.Runs[0].Tools)
	assert.Len(t, tr.Tools, 1)
	assert.Equal(t, 1, tr.Runs[0].Calls)
	assert.Equal(t, calibrate.Report{Spans: 4, Repeated: 1}, tr.Report)
	require.Len(t, tr.Replay, 1)
	assert.Len(t, tr.Replay[0].Root.Steps, 2, "a model call and a tool call")
}

// pySpan writes a span in the Python SDK's form; parent 0 is none, and
// start or end "" leaves the time out. Times are JSON values: a number of
// Unix nanoseconds or a quoted RFC 3339 time.
func pySpan(trace, id, parent int, op, start, end string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"name": "%s %d", "context": {"trace_id": %d, "span_id": %d}`, op, id, trace, id)
	if parent != 0 {
		fmt.Fprintf(&b, `, "parent_id": %d`, parent)
	}
	if start != "" {
		fmt.Fprintf(&b, `, "start_time": %s`, start)
	}
	if end != "" {
		fmt.Fprintf(&b, `, "end_time": %s`, end)
	}
	fmt.Fprintf(&b, `, "attributes": {"gen_ai.operation.name": %q, "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 4}}`, op)
	return b.String()
}

// addTraceSeeds seeds f with real trace files (the tests' own and, when
// shared/data is there, one recorded run of each framework) and with
// broken ones: parents that form a cycle or are missing, ends before
// starts, duplicate span IDs, times at the ends of the clock.
func addTraceSeeds(f *testing.F) {
	files := []string{"testdata/multiagent.otlp.json", "testdata/multiagent.python.json"}
	if dir, ok := shareddata.Find("agent-traces", "any-agent"); ok {
		for _, fw := range frameworks {
			found, err := filepath.Glob(filepath.Join(dir, fw, "*.json"))
			require.NoError(f, err)
			if len(found) > 0 {
				files = append(files, found[0])
			}
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		// Whole, these files left the fuzzer no time to run inputs.
		data, err = fuzzseed.JSON(data, 3)
		require.NoError(f, err)
		f.Add(data)
	}
	// A call's agent ending before it starts, a call ending after its
	// agent, with a negative token count, and an agent without an end
	// under the call.
	f.Add([]byte(`{"spans": [{"name": "invoke_agent a", "context": {"trace_id": 1, "span_id": 1}, "start_time": 100, "end_time": 50,
		"attributes": {"gen_ai.operation.name": "invoke_agent"}},
		{"name": "chat", "context": {"trace_id": 1, "span_id": 2}, "parent_id": 1, "start_time": 10, "end_time": 200,
		"attributes": {"gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": -3}},
		{"name": "invoke_agent b", "context": {"trace_id": 1, "span_id": 3}, "parent_id": 2, "start_time": 20,
		"attributes": {"gen_ai.operation.name": "invoke_agent"}}]}`))
	doc := func(spans ...string) { f.Add([]byte("[" + strings.Join(spans, ",\n") + "]")) }
	// Parents in a cycle beside a sound run.
	doc(pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 1, "chat", "10", "20"),
		pySpan(1, 3, 4, "invoke_agent", "0", "100"), pySpan(1, 4, 3, "chat", "10", "20"), pySpan(1, 5, 5, "execute_tool", "30", "40"))
	// Two agents whose parents are missing, over the same time: each
	// contains the other.
	doc(pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 2, 9, "invoke_agent", "10", "90"), pySpan(1, 3, 8, "invoke_agent", "10", "90"),
		pySpan(1, 4, 2, "chat", "20", "30"), pySpan(1, 5, 3, "execute_tool", "40", "50"))
	// Duplicate span IDs, in one trace and across two.
	doc(pySpan(1, 1, 0, "invoke_agent", "0", "100"), pySpan(1, 1, 0, "invoke_agent", "5", "50"), pySpan(1, 2, 1, "chat", "10", "20"),
		pySpan(1, 2, 1, "invoke_agent", "10", "20"), pySpan(2, 1, 0, "invoke_agent", "0", "10"), pySpan(2, 2, 1, "chat", "1", "2"))
	// Times at the ends of the clock, and past them (which Read refuses).
	doc(pySpan(1, 1, 0, "invoke_agent", `"1970-01-01T00:00:00Z"`, `"2262-04-11T23:47:16.854775807Z"`),
		pySpan(1, 2, 1, "chat", "0", "9223372036854775807"),
		pySpan(1, 3, 1, "invoke_agent", "9223372036854775807", "9223372036854775807"),
		pySpan(1, 4, 3, "execute_tool", "9223372036854775807", ""))
	doc(pySpan(1, 1, 0, "invoke_agent", `"1677-09-21T00:12:43.145224192Z"`, `"2262-04-11T23:47:16.854775807Z"`),
		pySpan(1, 2, 1, "chat", `"1000-01-01T00:00:00Z"`, `"3000-01-01T00:00:00Z"`))
	// A run whose root has no end, nor has the agent it delegated to;
	// and one whose agents ended as they started.
	doc(pySpan(1, 1, 0, "invoke_agent", "0", ""), pySpan(1, 2, 1, "invoke_agent", "10", ""), pySpan(1, 3, 2, "chat", "20", "30"))
	doc(pySpan(1, 1, 0, "invoke_agent", "5", "5"), pySpan(1, 2, 1, "invoke_agent", "5", "5"), pySpan(1, 3, 1, "invoke_agent", "5", "5"))
}

// FuzzTracesAdd reads arbitrary span JSON and gathers its runs, whatever
// the spans: parents in a cycle or missing, ends before starts, duplicate
// IDs, times at the ends of the clock. Gathering ends, and what it gives
// is what the fit and the tables rely on: durations finite and not
// negative; each row's run among the runs, and each run's counts those of
// its rows; waves, fan-out and agents at once within the agents there
// are; no more runs, agents, calls and tool calls than the spans have;
// and every model and tool call span either a row or counted as left
// out, so that the report's counts account for what the fit did not use.
func FuzzTracesAdd(f *testing.F) {
	addTraceSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if tr, spans, ok := fuzzedTraces(data); ok {
			checkTraces(t, tr, spans)
		}
	})
}

// fuzzedTraces reads data as a trace file and gathers its runs, as Load
// does; ok is false where the file does not read.
func fuzzedTraces(data []byte) (tr *calibrate.Traces, spans []otel.Span, ok bool) {
	spans, err := otel.Read(bytes.NewReader(data), "fuzz")
	if err != nil {
		return nil, nil, false
	}
	tr = new(calibrate.Traces)
	tr.Add("fuzz", spans)
	return tr, spans, true
}

// checkTraces checks the properties FuzzTracesAdd states of tr, which
// Add gathered from spans under the name "fuzz".
func checkTraces(t *testing.T, tr *calibrate.Traces, spans []otel.Span) {
	rep := tr.Report
	require.Equal(t, len(spans), rep.Spans)

	var agentSpans, agentsNoEnd, callSpans, toolSpans, callsWithEnd, toolsWithEnd, noAttrs, notGenAI, repeated int
	traces := map[string]bool{}
	seen := map[[2]string]bool{}
	for i := range spans {
		s := &spans[i]
		traces[s.TraceID] = true
		// A span written twice over is one span.
		key := [2]string{s.TraceID, s.SpanID}
		if seen[key] {
			repeated++
			continue
		}
		seen[key] = true
		_, ended := s.Duration()
		switch op := s.String("gen_ai.operation.name"); {
		case len(s.Attrs) == 0:
			noAttrs++
		case op == "":
			notGenAI++
		case op == "invoke_agent":
			agentSpans++
			if !ended {
				agentsNoEnd++
			}
		case op == "execute_tool":
			toolSpans++
			if ended {
				toolsWithEnd++
			}
		case slices.Contains([]string{"chat", "call_llm", "text_completion", "generate_content"}, op):
			callSpans++
			if ended {
				callsWithEnd++
			}
		}
	}
	assert.Equal(t, noAttrs, rep.NoAttributes)
	assert.Equal(t, notGenAI, rep.NotGenAI)
	assert.Equal(t, repeated, rep.Repeated)

	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	runs := map[string]*calibrate.Run{}
	agents := 0
	for i := range tr.Runs {
		r := &tr.Runs[i]
		want := "fuzz"
		if len(tr.Runs) > 1 {
			want = fmt.Sprintf("fuzz#%d", i+1)
		}
		require.Equal(t, want, r.ID)
		runs[r.ID] = r
		agents += r.Agents
		assert.True(t, finite(r.Duration) && r.Duration >= 0, "%s: duration %v", r.ID, r.Duration)
		assert.True(t, r.MaxParallel >= 1 && r.MaxParallel <= r.Agents+1, "%s: %d at once of %d agents", r.ID, r.MaxParallel, r.Agents+1)
		if r.Agents == 0 {
			assert.Zero(t, r.Fanout+r.Waves, "%s: fan-out and waves without delegation", r.ID)
		} else {
			assert.True(t, r.Fanout >= 1 && r.Fanout <= r.Agents, "%s: fan-out %d of %d agents", r.ID, r.Fanout, r.Agents)
			assert.True(t, r.Waves >= 1 && r.Waves <= r.Agents, "%s: %d waves of %d agents", r.ID, r.Waves, r.Agents)
		}
	}
	assert.LessOrEqual(t, len(tr.Runs)+agents, agentSpans, "runs and their agents are invoke_agent spans")
	assert.LessOrEqual(t, rep.NoRoot, len(traces))
	assert.GreaterOrEqual(t, rep.NoRoot+len(tr.Runs)+rep.NoEndRuns, len(traces), "a trace without a run is counted")

	calls, tools, delegs := map[string]int{}, map[string]int{}, map[string]int{}
	noTokens := 0
	for _, c := range tr.Calls {
		require.Contains(t, runs, c.Run)
		calls[c.Run]++
		assert.True(t, finite(c.Duration) && c.Duration >= 0 && finite(c.Start), "%+v", c)
		if !c.HasTokens {
			noTokens++
		} else {
			assert.True(t, c.InputTokens >= 0 && c.OutputTokens >= 0, "%+v", c)
		}
	}
	for _, c := range tr.Tools {
		require.Contains(t, runs, c.Run)
		tools[c.Run]++
		assert.True(t, finite(c.Duration) && c.Duration >= 0 && finite(c.Start), "%+v", c)
	}
	for _, d := range tr.Delegs {
		require.Contains(t, runs, d.Run)
		delegs[d.Run]++
		assert.True(t, d.Wave >= 0 && d.Wave < runs[d.Run].Waves, "%+v of %d waves", d, runs[d.Run].Waves)
		assert.True(t, finite(d.Start) && finite(d.Startup), "%+v", d)
	}
	for id, r := range runs {
		assert.Equal(t, r.Calls, calls[id], id)
		assert.Equal(t, r.Tools, tools[id], id)
		assert.Equal(t, r.Agents, delegs[id], id)
	}
	assert.Equal(t, noTokens, rep.NoTokens)
	assert.LessOrEqual(t, len(tr.Calls), callsWithEnd)
	assert.LessOrEqual(t, len(tr.Tools), toolsWithEnd)
	// Each model or tool call span is a row, or left out as outside any
	// agent or its run's time, without an end, or in a run left out (whose spans are not
	// counted one by one); NoEnd and EndsEarly count agents as well.
	noEnd := rep.NoEnd + rep.EndsEarly
	leftOut := callSpans + toolSpans - len(tr.Calls) - len(tr.Tools) - rep.Outside - rep.OutsideRun
	if rep.NoEndRuns == 0 {
		assert.LessOrEqual(t, leftOut, noEnd, "call spans neither read nor counted as left out")
	}
	assert.GreaterOrEqual(t, leftOut, noEnd-agentsNoEnd, "call spans counted twice")
	assert.LessOrEqual(t, rep.NoEndRuns, agentsNoEnd, "runs left out whose root has an end")
	// Agent spans in runs that have no end (or end before they start)
	// are counted; only those in no run may go uncounted.
	assert.GreaterOrEqual(t, noEnd, agentsNoEnd-(agentSpans-len(tr.Runs)-agents-rep.NoEndRuns), "agents without an end not counted")

	// Replay is the runs with an end, in order, each as long as its run.
	next := 0
	for _, run := range tr.Replay {
		for next < len(tr.Runs) && tr.Runs[next].ID != run.ID {
			next++
		}
		require.Less(t, next, len(tr.Runs), "%s: not a run, or out of order", run.ID)
		assert.GreaterOrEqual(t, run.Duration, sim.Time(0), run.ID)
		assert.Equal(t, tr.Runs[next].Duration, float64(run.Duration)/1e9, run.ID)
		next++
	}
}

// TestEarlyRunsNoted requires runs whose root starts before 2000 in Unix
// time to be counted and reported: the Python SDK's integer times are
// Unix nanoseconds, and a file written in microseconds or milliseconds
// reads without an error as runs 1,000 or 1,000,000 times too short
// (a recorded 1.7 s run of any-agent, in microseconds, fitted as 1.7 ms).
func TestEarlyRunsNoted(t *testing.T) {
	const start = 1752494931817961000 // 2025-07-14, in nanoseconds
	for _, tc := range []struct {
		name       string
		start, end string
		early      bool
	}{
		{"nanoseconds", fmt.Sprint(start), fmt.Sprint(start + 1_695_525_000), false},
		{"microseconds", fmt.Sprint(start / 1_000), fmt.Sprint((start + 1_695_525_000) / 1_000), true},
		{"milliseconds", fmt.Sprint(start / 1_000_000), fmt.Sprint((start + 1_695_525_000) / 1_000_000), true},
		{"RFC 3339", `"2025-07-14T12:08:51.817961Z"`, `"2025-07-14T12:08:53.513486Z"`, false},
		{"at the epoch", "0", "1695525000", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := `{"spans": [
 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
  "start_time": ` + tc.start + `, "end_time": ` + tc.end + `, "attributes": {"gen_ai.operation.name": "invoke_agent"}}]}`
			path := filepath.Join(t.TempDir(), "t.json")
			require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
			tr, err := calibrate.Load([]string{path})
			require.NoError(t, err)
			require.Len(t, tr.Runs, 1)
			if tc.early {
				assert.Contains(t, tr.Report.String(), "1 run starting before 2000")
				assert.Contains(t, tr.Report.String(), "Unix nanoseconds")
			} else {
				assert.NotContains(t, tr.Report.String(), "before 2000")
			}
		})
	}
	t.Run("recorded runs", func(t *testing.T) {
		tr, err := calibrate.Load([]string{sharedTraces(t)})
		require.NoError(t, err)
		assert.NotContains(t, tr.Report.String(), "before 2000")
	})
}

// TestOpenInferenceNamed requires spans under OpenInference's conventions
// (openinference.span.kind, no gen_ai.operation.name) to be named as such
// in the report: the two oldest recorded runs are such traces, and
// "spans without gen_ai.operation.name" with "no run found" did not say
// why a trace that plainly holds an agent's calls has none.
func TestOpenInferenceNamed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs string
		want  string // in the report; "" for no mention of OpenInference
	}{
		{"OpenInference", `{"openinference.span.kind": "LLM", "llm.system": "openai"}`, "1 of them OpenInference's"},
		{"other instrumentation", `{"http.method": "GET"}`, ""},
		{"GenAI", `{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "openinference.span.kind": "LLM"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := `{"spans": [
 {"name": "invoke_agent [a]", "parent": null, "context": {"trace_id": 1, "span_id": 1},
  "start_time": 1760000000000000000, "end_time": 1760000003000000000, "attributes": {"gen_ai.operation.name": "invoke_agent"}},
 {"name": "call", "parent": {"span_id": 1}, "context": {"trace_id": 1, "span_id": 2},
  "start_time": 1760000001000000000, "end_time": 1760000002000000000, "attributes": ` + tc.attrs + `}]}`
			path := filepath.Join(t.TempDir(), "t.json")
			require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
			tr, err := calibrate.Load([]string{path})
			require.NoError(t, err)
			if tc.want == "" {
				assert.NotContains(t, tr.Report.String(), "OpenInference")
				return
			}
			assert.Contains(t, tr.Report.String(), tc.want)
		})
	}
	t.Run("recorded runs", func(t *testing.T) {
		root := sharedTraces(t)
		_, err := calibrate.Load([]string{
			filepath.Join(root, "langchain", "2025-05-20-fa7a2d64.json"),
			filepath.Join(root, "openai", "2025-05-20-fa7a2d64.json"),
		})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "33 spans without gen_ai.operation.name (left out; 31 of them OpenInference's", "all but the two any-agent root spans")
	})
}
