package calibrate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate"
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
			sc, err := scenarios.Parse(f.Scenario("multiagent", []string{file}), "scenario.yaml", nil)
			require.NoError(t, err)
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
