package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/rundir"
)

// TestFitWritesAllFiles fits the multi-agent traces of
// calibrate/testdata and checks the directory: every table with one row
// per call, tool call, run and delegation, the charts, and a scenario that
// 'simulate run' runs.
func TestFitWritesAllFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fit")
	stdout := mustSimulate(t, "fit", "../../calibrate/testdata/multiagent.otlp.json", "--out", out)
	assert.Contains(t, stdout, "2 runs, 20 model calls, 5 tool calls")
	m := readManifest(t, out)
	assert.Equal(t, rundir.KindFit, m.Kind)
	for _, f := range []string{"calls.csv", "tools.csv", "runs.csv", "delegations.csv", "fit.csv", "scenario.yaml",
		"charts/cdf_model_gpt-4.1-mini.svg", "charts/cdf_model_gpt-4.1-mini.pdf", "charts/cdf_tool_web_search.png", "charts/cdf_tool_web_search.csv"} {
		assert.FileExists(t, filepath.Join(out, f))
		assert.True(t, slices.Contains(m.Files, f), f)
	}
	assert.Len(t, readCSV(t, filepath.Join(out, "calls.csv")), 1+20)
	assert.Len(t, readCSV(t, filepath.Join(out, "tools.csv")), 1+5)
	assert.Len(t, readCSV(t, filepath.Join(out, "runs.csv")), 1+2)
	assert.Len(t, readCSV(t, filepath.Join(out, "delegations.csv")), 1+7)
	mustSimulate(t, "run", filepath.Join(out, "scenario.yaml"), "--episodes", "5", "--out", filepath.Join(t.TempDir(), "run"))
}

// TestFitBadInput: a file in neither form is named, nothing is written,
// and so is an unreadable path or no --out.
func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "chrome.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"traceEvents": []}`), 0o644))
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", bad, "--out", out}, bad + ": not OpenTelemetry span JSON"},
		{[]string{"fit", filepath.Join(dir, "missing.json"), "--out", out}, "missing.json: no such file"},
		{[]string{"fit", bad}, "--out DIR is required"},
		{[]string{"fit", "--out", out}, "want at least one trace file or directory"},
	} {
		stdout, stderr, code := simulate(t, tc.args...)
		assert.NotZero(t, code, tc.args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want)
		assert.NotContains(t, stderr, "panic")
		assert.NoDirExists(t, out)
	}
}
