package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/results"
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
	mustSimulate(t, "run", filepath.Join(out, "scenario.yaml"), "--episodes", "5", "--charts=false", "--out", filepath.Join(t.TempDir(), "run"))
}

// rareTraces are three runs of one agent whose tools include one called
// once (calc), and whose models one called once (router); see
// calibrate's TestFitRareModelsAndTools.
const rareTraces = "../../calibrate/testdata/rare.python.json"

// toolCallTraces are five runs of one agent, four of them with a tool
// call only: 0.4 model calls a run; see calibrate's TestFitUnderHalfACall.
const toolCallTraces = "../../calibrate/testdata/toolcalls.python.json"

// TestFitRareModelsAndTools: fit and replay go on when a tool or a model
// is called once in all the traces, and say on stderr what stands in for
// its own fit; the totals count its calls, and the fitted scenario runs.
func TestFitRareModelsAndTools(t *testing.T) {
	routerNote := "model router: 1 call, too few to fit an API of its own (at least 2): the first variant's, fitted to main, serves its calls\n"
	calcNote := "tool calc: 1 call, too few to fit its latency alone (at least 2): its calls count in the latency of all tools together\n"
	out := filepath.Join(t.TempDir(), "fit")
	stdout, stderr, code := simulate(t, "fit", rareTraces, "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, routerNote+calcNote)
	assert.Contains(t, stdout, "3 runs, 19 model calls, 6 tool calls")
	assert.NoFileExists(t, filepath.Join(out, "charts", "cdf_tool_calc.csv"), "no chart of a fit not made")
	rows := readCSV(t, filepath.Join(out, "fit.csv"))
	whats := make([]string, len(rows))
	for i, r := range rows {
		whats[i] = r[0]
	}
	assert.Contains(t, whats, "model/router/latency_s")
	assert.Contains(t, whats, "tool/calc/latency_s")
	mustSimulate(t, "run", filepath.Join(out, "scenario.yaml"), "--episodes", "3", "--charts=false", "--out", filepath.Join(t.TempDir(), "run"))

	_, stderr, code = simulate(t, "replay", rareTraces, "--charts=false", "--out", filepath.Join(t.TempDir(), "replay"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, routerNote)
	assert.NotContains(t, stderr, calcNote, "a replay keeps the tools' recorded durations")
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
		// A file below a directory named as well would count twice.
		{[]string{"fit", "../../calibrate/testdata", "../../calibrate/testdata/multiagent.otlp.json", "--out", out},
			"../../calibrate/testdata/multiagent.otlp.json is read twice, from the arguments ../../calibrate/testdata and ../../calibrate/testdata/multiagent.otlp.json"},
		// A bad name is the user's, said before any trace is read.
		{[]string{"fit", "../../calibrate/testdata/multiagent.otlp.json", "--name", "my workflow", "--out", out},
			`simulate fit: --name: "my workflow" is not a valid name (1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit)`},
		// Runs of tool calls mostly, under half a model call a subtask,
		// were fitted a scenario without work and reported as a bug.
		{[]string{"fit", toolCallTraces, "--out", out},
			"simulate fit: the runs in " + toolCallTraces + " make 0.4 model calls per subtask on average (poisson(mean=0.4), 1 subtask a run), but a fitted scenario needs more than half a call"},
	} {
		stdout, stderr, code := simulate(t, tc.args...)
		assert.NotZero(t, code, tc.args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want)
		assert.NotContains(t, stderr, "panic")
		assert.NotContains(t, stderr, "a bug")
		assert.NoDirExists(t, out)
	}
}

// TestTraceOTLPFit exports simulated episodes as OTLP GenAI spans and fits
// them: every model and tool call of the episodes comes back.
func TestTraceOTLPFit(t *testing.T) {
	dir := t.TempDir()
	spans := filepath.Join(dir, "spans.jsonl")
	mustSimulate(t, "trace", "../../calibrate/testdata/roundtrip.yaml", "--format", "otlp", "--count", "20", "--out", spans)
	runDir := filepath.Join(dir, "run")
	mustSimulate(t, "run", "../../calibrate/testdata/roundtrip.yaml", "--episodes", "20", "--charts=false", "--out", runDir)
	rows := readCSV(t, filepath.Join(runDir, "episodes.csv"))
	col := slices.Index(rows[0], "model_calls")
	calls := 0
	for _, r := range rows[1:] {
		calls += atoiT(t, r[col])
	}
	stdout := mustSimulate(t, "fit", spans, "--out", filepath.Join(dir, "fit"))
	assert.Contains(t, stdout, "20 runs, "+itoa(calls)+" model calls")

	_, stderr, code := simulate(t, "trace", "tiny", "--count", "2")
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "a Chrome trace holds one episode")
	_, stderr, code = simulate(t, "trace", "tiny", "--format", "perfetto")
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "--format perfetto: want chrome or otlp")

	// The last episode there is: traced (its number once wrapped around
	// in the loop, and the trace was empty); one past it is refused.
	last := strconv.Itoa(math.MaxInt)
	otlp := mustSimulate(t, "trace", "tiny", "--format", "otlp", "--episode", last)
	assert.Len(t, strings.Split(strings.TrimSpace(otlp), "\n"), 1, "one OTLP document")
	assert.Contains(t, otlp, "resourceSpans")
	_, stderr, code = simulate(t, "trace", "tiny", "--format", "otlp", "--episode", last, "--count", "2")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--episode "+last+" with --count 2: the last episode is past "+last)
}

func atoiT(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// TestWriteCDFSpansTheSample: a fitted curve is drawn at 60 points from
// the smallest observation to the largest (to twice it when every
// observation is the same, so that the log axis has a range).
func TestWriteCDFSpansTheSample(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sample []float64
		lo, hi float64
	}{
		{"spread", []float64{2, 1, 8, 4}, 1, 8},
		{"all equal", []float64{3, 3, 3}, 3, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := rundir.Create(filepath.Join(t.TempDir(), "fit"), false)
			require.NoError(t, err)
			require.NoError(t, dir.Mkdir("charts"))
			fit := calibrate.Dist{Family: calibrate.LogNormal, Mu: 1, Sigma: 0.5}
			require.NoError(t, writeCDF(dir, calibrate.Curve{Name: "cdf_x", XLabel: "latency (s)", Sample: tc.sample, Fits: []calibrate.Dist{fit}}, []string{"svg"})) // the subject is the CSV
			var xs []float64
			for _, r := range readCSV(t, dir.Join("charts/cdf_x.csv"))[1:] {
				if r[0] == string(calibrate.LogNormal) {
					x, err := strconv.ParseFloat(r[1], 64)
					require.NoError(t, err)
					xs = append(xs, x)
				}
			}
			require.Len(t, xs, 60)
			assert.InDelta(t, tc.lo, xs[0], 1e-12)
			assert.InDelta(t, tc.hi, xs[59], 1e-12)
			assert.True(t, slices.IsSorted(xs), "x increases: %v", xs)
		})
	}
}

// TestFitReplayCheckOutFirst: fit and replay refuse an --out they could
// not write before they read a trace. The trace is not spans, so that a
// command that read it first would fail on it instead.
func TestFitReplayCheckOutFirst(t *testing.T) {
	dir := t.TempDir()
	notSpans := filepath.Join(dir, "notes.json")
	require.NoError(t, os.WriteFile(notSpans, []byte(`{"title": "not spans"}`), 0o644))
	result := func(name string, files map[string]string) string {
		d := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		for f, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(d, f), []byte(data), 0o644))
		}
		return d
	}
	fit := result("fit", map[string]string{rundir.ManifestName: `{"kind": "fit"}`})
	replayed := result("replayed", map[string]string{rundir.ManifestName: `{"kind": "replay"}`})
	sweep := result("sweep", map[string]string{results.PlanFile: `{}`})
	mine := result("mine", map[string]string{"notes.txt": "mine"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"fit into a file", []string{"fit", notSpans, "--out", notSpans}, notSpans + " is a file"},
		{"fit into a replay", []string{"fit", notSpans, "--out", replayed, "--force"}, replayed + " holds the results of a replay"},
		{"fit into a complete fit", []string{"fit", notSpans, "--out", fit}, fit + " holds a complete run (manifest.json); use --force"},
		{"fit into a sweep", []string{"fit", notSpans, "--out", sweep, "--force"}, sweep + " holds a sweep"},
		{"fit into other files", []string{"fit", notSpans, "--out", mine}, mine + " holds files but no complete run"},
		{"replay into a file", []string{"replay", notSpans, "--out", notSpans}, notSpans + " is a file"},
		{"replay into a fit", []string{"replay", notSpans, "--out", fit, "--force"}, fit + " holds the results of a fit"},
		{"replay into a complete replay", []string{"replay", notSpans, "--out", replayed}, replayed + " holds a complete run (manifest.json); use --force"},
		{"replay into a sweep", []string{"replay", notSpans, "--out", sweep, "--force"}, sweep + " holds a sweep"},
		{"replay into other files", []string{"replay", notSpans, "--out", mine}, mine + " holds files but no complete run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := simulate(t, tc.args...)
			assert.NotZero(t, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "not OpenTelemetry span JSON", "--out is checked before the traces are read")
		})
	}
}

// oneRun writes the second of the two runs of the multi-agent fixture
// (Python SDK spans), alone, into a new directory, and returns its path.
func oneRun(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../calibrate/testdata/multiagent.python.json")
	require.NoError(t, err)
	var spans []map[string]any
	require.NoError(t, json.Unmarshal(b, &spans))
	spans = slices.DeleteFunc(spans, func(s map[string]any) bool {
		return s["context"].(map[string]any)["trace_id"] != "0x00000000000000000000000000000002"
	})
	require.NotEmpty(t, spans)
	b, err = json.Marshal(spans)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "one.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// TestFitReplayOneRun: one recorded run is too few to fit a scenario to,
// and fit says so in the user's terms (how many runs, in which file, how
// many it needs, what else to do) and writes nothing; a replay of it
// works, its summary without intervals over one run.
func TestFitReplayOneRun(t *testing.T) {
	run := oneRun(t)
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := simulate(t, "fit", run, "--out", out)
	assert.Equal(t, exitFail, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "simulate fit: 1 run in "+run+": a fit needs at least 2 runs")
	assert.Contains(t, stderr, "replay these with 'simulate replay'")
	assert.NoDirExists(t, out)

	stdout = mustSimulate(t, "replay", run, "--out", out)
	assert.Contains(t, stdout, "duration_ratio")
	assert.Contains(t, stdout, "(1 run)")
	assert.NotContains(t, stdout, "NaN")
	rows := readCSV(t, filepath.Join(out, "replay.csv"))
	assert.Len(t, rows, 2, "a header and the run")
}
