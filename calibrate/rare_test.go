package calibrate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/scenarios"
)

// writeRuns writes runs in the Python SDK's form to a file in a new
// directory and returns its path. Each run is one agent that makes its
// steps one after another: "model:NAME" is a model call with token
// counts, "tool:NAME" a tool call. Durations differ from step to step
// and from run to run, so that fits have a spread to fit.
func writeRuns(t *testing.T, runs ...[]string) string {
	t.Helper()
	var spans []map[string]any
	for i, steps := range runs {
		trace := i + 1
		at := int64(0)
		for k, step := range steps {
			kind, name, _ := strings.Cut(step, ":")
			d := int64(500+97*k+131*i) * 1_000_000
			attrs := map[string]any{}
			switch kind {
			case "model":
				attrs = map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": name,
					"gen_ai.usage.input_tokens": 100 + k, "gen_ai.usage.output_tokens": 20 + 3*k + i}
			case "tool":
				attrs = map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
			default:
				t.Fatalf("step %q: want model:NAME or tool:NAME", step)
			}
			spans = append(spans, map[string]any{"name": kind + " " + name, "parent_id": 1,
				"context":    map[string]any{"trace_id": trace, "span_id": k + 2},
				"start_time": at, "end_time": at + d, "attributes": attrs})
			at += d + 10_000_000
		}
		spans = append(spans, map[string]any{"name": "invoke_agent [a]",
			"context":    map[string]any{"trace_id": trace, "span_id": 1},
			"start_time": 0, "end_time": at + 20_000_000,
			"attributes": map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}})
	}
	b, err := json.Marshal(map[string]any{"spans": spans})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "runs.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// repeat returns n copies of step.
func repeat(step string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = step
	}
	return out
}

// TestFitRareModelsAndTools: a tool or a model called once in all the
// traces gets no fit of its own, and the fit goes on. A rare tool's call
// counts in the latency of all tools together and in the totals; a rare
// model has no variant, so that the first variant serves its calls, in
// the fitted scenario and in a replay of it, while a scenario may still
// name a variant after it. fit.csv, the scenario's comments and Notes say
// which were too rare to fit alone.
func TestFitRareModelsAndTools(t *testing.T) {
	main := repeat("model:main", 6)
	path := writeRuns(t,
		append(slices.Clone(main), "tool:search", "tool:search", "model:router", "tool:calc"),
		append(slices.Clone(main), "tool:search", "tool:search"),
		append(slices.Clone(main), "tool:search"))
	// cmd/simulate's tests of fit and replay read these runs.
	sameFixture(t, path, "rare.python.json")
	tr, err := calibrate.Load([]string{path})
	require.NoError(t, err)
	f, err := calibrate.FitAll(tr)
	require.NoError(t, err)

	require.Len(t, f.Models, 1)
	assert.Equal(t, "main", f.Models[0].Model)
	require.Len(t, f.RareModels, 1)
	assert.Equal(t, "router", f.RareModels[0].Name)
	assert.Equal(t, 1, f.RareModels[0].N)
	require.Len(t, f.Tools, 1)
	assert.Equal(t, "search", f.Tools[0].Tool)
	require.Len(t, f.RareTools, 1)
	calc := slices.IndexFunc(tr.Tools, func(c calibrate.ToolCall) bool { return c.Tool == "calc" })
	assert.Equal(t, calibrate.Rare{Name: "calc", N: 1, Mean: tr.Tools[calc].Duration}, f.RareTools[0])
	assert.Len(t, f.Curves(tr), 2, "a chart for main and one for search")

	_, rows := f.Rows()
	byWhat := map[string][]string{}
	for _, r := range rows {
		byWhat[r[0]] = r
	}
	for what, want := range map[string]string{
		"model/router/latency_s": "1 call, too few to fit alone (at least 2): the first variant's API, fitted to main, serves its calls",
		"tool/calc/latency_s":    "1 call, too few to fit alone (at least 2): its calls count in tools/latency_s",
	} {
		require.Contains(t, byWhat, what)
		assert.Equal(t, "1", byWhat[what][4], what+": n")
		assert.Equal(t, "false", byWhat[what][7], what+": chosen")
		assert.Equal(t, want, byWhat[what][8], what)
	}
	assert.Equal(t, "6", byWhat["tools/latency_s"][4], "every tool call, calc's too")

	b, err := f.Scenario("rare", []string{path})
	require.NoError(t, err)
	yaml := string(b)
	for _, want := range []string{
		"# Latency of all 6 tool calls together (search, calc),",
		"#   calc: 1 call, mean ",
		"# It serves the calls of router (1 call) too: too few to fit an API of their own.",
		"# 2): router (1 call). The first variant serves their calls.",
		// work uniform(5.333, 6.333): a mean 5.833 s of work in a mean
		// 6.333 calls (6 calls for work up to 6 s, 7 above).
		"over the mean work of a call (0.921 s:",
	} {
		assert.Contains(t, yaml, want)
	}
	sc, err := scenarios.Parse([]byte(yaml), "scenario.yaml", nil)
	require.NoError(t, err, yaml)
	require.Len(t, sc.Variants, 1)
	assert.Equal(t, "main", sc.Variants[0].Name)
	assert.Equal(t, "model router: 1 call, too few to fit an API of its own (at least 2): the first variant's, fitted to main, serves its calls\n"+
		"tool calc: 1 call, too few to fit its latency alone (at least 2): its calls count in the latency of all tools together\n", f.Notes())

	// The replay of the fitted scenario sends router's calls to the first
	// variant's API; a scenario with a variant named after router gives
	// them an API of their own.
	assert.Equal(t, map[string]string{"main": "main", "router": "router"}, f.Variants())
	server := func(name string) replay.Server {
		return replay.Server{Name: name, API: sc.Variants[0].Spec.Collective.API}
	}
	dep, err := replay.Deploy([]replay.Server{server("main")}, f.Variants())
	require.NoError(t, err)
	assert.Len(t, dep.APIs, 1)
	assert.Equal(t, map[string]int{"main": 0}, dep.Route, "router is not routed: the first API serves it")
	res, err := replay.Replay(tr.Replay, replay.Config{Deployment: dep, Load: replay.Load{Sessions: 1}, Seed: 1})
	require.NoError(t, err)
	assert.Len(t, res, 3)
	dep, err = replay.Deploy([]replay.Server{server("main"), server("router")}, f.Variants())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"main": 0, "router": 1}, dep.Route)
}

// TestFitNoModelToFit: traces where no model has enough calls to fit, or
// no model call at all, are refused with an error that says so, naming
// the models and their calls.
func TestFitNoModelToFit(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs [][]string
		want string
	}{
		{"each model once", [][]string{{"model:a", "tool:t", "tool:t"}, {"model:b", "tool:t"}},
			"no model has enough calls to fit its latency to (at least 2): a: 1 call, b: 1 call"},
		{"no model call", [][]string{{"tool:t", "tool:t"}, {"tool:t"}},
			"no model call (a span with gen_ai.operation.name chat, call_llm, text_completion, generate_content) in the runs: nothing to fit a model's latency to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := calibrate.Load([]string{writeRuns(t, tc.runs...)})
			require.NoError(t, err)
			_, err = calibrate.FitAll(tr)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// TestFitTwoCallsEach: a model and a tool of MinCalls calls each are
// fitted alone, and the scenario validates.
func TestFitTwoCallsEach(t *testing.T) {
	path := writeRuns(t, []string{"model:a", "tool:t"}, []string{"model:a", "tool:t"})
	tr, err := calibrate.Load([]string{path})
	require.NoError(t, err)
	f, err := calibrate.FitAll(tr)
	require.NoError(t, err)
	assert.Len(t, f.Models, 1)
	assert.Len(t, f.Tools, 1)
	assert.Empty(t, f.RareModels)
	assert.Empty(t, f.RareTools)
	assert.Empty(t, f.Notes())
	yaml, err := f.Scenario("two", []string{path})
	require.NoError(t, err)
	_, err = scenarios.Parse(yaml, "scenario.yaml", nil)
	require.NoError(t, err, string(yaml))
}

// TestFitOneRun: fewer than MinRuns runs are too few to fit a scenario
// to, and CheckRuns says so in a user's terms: how many runs, in which
// files (relative to a directory named), how many a fit needs and what
// else to do. FitAll still fits the calls, for a replay of the run,
// without a run duration to fit; its scenario validates.
func TestFitOneRun(t *testing.T) {
	run := []string{"model:a", "model:a", "tool:t", "tool:t"}
	const needs = ": a fit needs at least 2 runs, as a scenario's calls per subtask and run duration are distributions over runs; add the traces of more runs, or replay these with 'simulate replay', which replays even one"
	for _, tc := range []struct {
		name string
		runs [][]string
		dir  bool   // name the file's directory, not the file
		want string // the error of CheckRuns, with %s for the path named
	}{
		{"one run, its file named", [][]string{run}, false, "1 run in %s" + needs},
		{"one run, its directory named", [][]string{run}, true, "1 run in %s (runs.json)" + needs},
		{"two runs", [][]string{run, run}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeRuns(t, tc.runs...)
			if tc.dir {
				path = filepath.Dir(path)
			}
			tr, err := calibrate.Load([]string{path})
			require.NoError(t, err)
			if tc.want == "" {
				assert.NoError(t, tr.CheckRuns([]string{path}))
			} else {
				assert.EqualError(t, tr.CheckRuns([]string{path}), fmt.Sprintf(tc.want, path))
			}
			f, err := calibrate.FitAll(tr)
			require.NoError(t, err)
			_, rows := f.Rows()
			fitted := slices.ContainsFunc(rows, func(r []string) bool { return r[0] == "run/duration_s" })
			assert.Equal(t, len(tc.runs) >= calibrate.MinRuns, fitted, "a run duration fitted")
			yaml, err := f.Scenario("one", []string{path})
			require.NoError(t, err)
			_, err = scenarios.Parse(yaml, "scenario.yaml", nil)
			require.NoError(t, err)
		})
	}
}

// TestFitUnderHalfACall: runs whose subtasks make half a model call or
// fewer on average (runs of tool calls only, where Poisson fits the
// counts best) are refused by Scenario, naming the traces and the calls
// per subtask: the collective model makes at least one call per subtask,
// and the scenario's work was uniform(0, 0), which the loader refuses.
// Just over half a call the scenario still validates.
func TestFitUnderHalfACall(t *testing.T) {
	tools := []string{"tool:t"}
	for _, tc := range []struct {
		name    string
		fixture bool // the runs of testdata/toolcalls.python.json
		runs    [][]string
		want    string // the error, with %s for the path; empty for none
	}{
		{"0.4 calls", true, [][]string{{"model:a", "model:a", "tool:t"}, tools, tools, tools, tools},
			"the runs in %s make 0.4 model calls per subtask on average (poisson(mean=0.4), 1 subtask a run), but a fitted scenario needs more than half a call: the collective model makes at least one model call per attempt at a subtask, and its task.work (calls - 1/2 seconds at a call span of 1 s) would be always 0"},
		{"0.5 calls", false, [][]string{{"model:a", "model:a", "tool:t"}, tools, tools, tools, {"model:a", "tool:t"}, tools},
			"the runs in %s make 0.5 model calls per subtask on average (poisson(mean=0.5), 1 subtask a run)"},
		{"0.6 calls", false, [][]string{{"model:a", "model:a", "tool:t"}, tools, {"model:a", "tool:t"}, tools, tools}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeRuns(t, tc.runs...)
			if tc.fixture {
				// cmd/simulate's tests of fit read these runs.
				sameFixture(t, path, "toolcalls.python.json")
			}
			tr, err := calibrate.Load([]string{path})
			require.NoError(t, err)
			f, err := calibrate.FitAll(tr)
			require.NoError(t, err)
			require.Equal(t, calibrate.Poisson, f.Calls.Best().Family, f.Calls.Why)
			for _, write := range []func(string, []string) ([]byte, error){f.Scenario, f.SelfHostedScenario} {
				yaml, err := write("calls", []string{path})
				if tc.want != "" {
					assert.ErrorContains(t, err, fmt.Sprintf(tc.want, path))
					continue
				}
				require.NoError(t, err)
				_, err = scenarios.Parse(yaml, "scenario.yaml", nil)
				assert.NoError(t, err, string(yaml))
			}
		})
	}
}

// sameFixture checks that testdata/name holds the runs written at path,
// or rewrites it there with -update.
func sameFixture(t *testing.T, path, name string) {
	t.Helper()
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	fixture := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(fixture, want, 0o644))
	}
	got, err := os.ReadFile(fixture)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "%s: rewrite it with go test -run %s -args -update", fixture, t.Name())
}
