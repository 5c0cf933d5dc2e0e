package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/shareddata"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

const multiagentTraces = "../../calibrate/testdata/multiagent.otlp.json"

// TestReplayWritesAllFiles replays the multi-agent traces of
// calibrate/testdata as one and as two sessions and checks the
// directory: a row per replayed run and load, a summary per load, the
// charts, and spans.jsonl, which 'simulate fit' reads back as the runs
// replayed with the calls they made.
func TestReplayWritesAllFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replay")
	stdout := mustSimulate(t, "replay", multiagentTraces, "--sessions", "2,1", "--spans", "--out", out)
	assert.Contains(t, stdout, "sessions=1     duration_ratio")
	assert.Regexp(t, `sessions=1 +within_25pct .* \(2 runs\)\n`, stdout)
	assert.Regexp(t, `sessions=2 +within_25pct .* \(4 replays of 2 runs\)\n`, stdout)
	m := readManifest(t, out)
	assert.Equal(t, rundir.KindReplay, m.Kind)
	for _, f := range []string{"replay.csv", "summary.csv", "spans.jsonl", "charts/replayed_vs_recorded.svg",
		"charts/replayed_vs_recorded.csv", "charts/latency_vs_load.png", "charts/latency_vs_load.pdf"} {
		assert.FileExists(t, filepath.Join(out, f))
		assert.True(t, slices.Contains(m.Files, f), f)
	}
	// The report page shows the summary and both charts inline.
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "duration_ratio")
	assert.Equal(t, 2, strings.Count(string(page), "<svg"), "both charts inline")
	rows := readCSV(t, filepath.Join(out, "replay.csv"))
	require.Len(t, rows, 1+2+4, "two runs for one session, four for two")
	assert.Equal(t, "sessions=1", rows[1][0], "the lighter load first")
	assert.Len(t, readCSV(t, filepath.Join(out, "summary.csv")), 1+2*6)

	// The directory stands for its spans.jsonl, not its manifest.json.
	fitted := filepath.Join(t.TempDir(), "fit")
	stdout = mustSimulate(t, "fit", out, "--out", fitted)
	// The two recorded runs have 20 model calls and 5 tool calls that
	// ended: the six replayed runs have three times as many.
	assert.Contains(t, stdout, "6 runs, 60 model calls, 15 tool calls")
	again := filepath.Join(t.TempDir(), "again")
	mustSimulate(t, "replay", out, "--charts=false", "--out", again)
	assert.Len(t, readCSV(t, filepath.Join(again, "replay.csv")), 1+6)
}

// TestReplayGolden keeps replay.csv and summary.csv of the multi-agent
// traces as one and two sessions at an API of two places, with
// independent draws (go test -run TestReplayGolden -args -update rewrites
// them): a change to the replay's results shows here.
func TestReplayGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replay")
	mustSimulate(t, "replay", multiagentTraces, "--sessions", "1,2", "--set", "collective.api.concurrency=2", "--pairing", "independent",
		"--seed", "5", "--charts=false", "--out", out)
	for _, f := range []string{"replay.csv", "summary.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		golden(t, "multiagent_"+f+".golden", b)
	}
}

// TestReplaySameSeedSameBytes replays twice with one seed at a Poisson
// rate with independent draws: the tables are byte-identical.
func TestReplaySameSeedSameBytes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		mustSimulate(t, "replay", multiagentTraces, "--rate", "0.1", "--runs", "10", "--pairing", "independent", "--seed", "3", "--charts=false", "--out", filepath.Join(dir, name))
	}
	for _, f := range []string{"replay.csv", "summary.csv"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "b", f))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), f)
	}
}

func TestReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	notSpans := filepath.Join(dir, "notes.json")
	require.NoError(t, os.WriteFile(notSpans, []byte(`{"title": "not spans"}`), 0o644))
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"not spans", []string{notSpans}, notSpans + ": not OpenTelemetry span JSON"},
		{"unread set", []string{multiagentTraces, "--set", "task.work=1"}, "reads nothing else of the spec (not task.work)"},
		{"two loads", []string{multiagentTraces, "--sessions", "2", "--rate", "1"}, "give one of --sessions, --rate and --speedup"},
		{"no sessions", []string{multiagentTraces, "--sessions", "0"}, `"0" is not a whole number of sessions`},
		{"sessions beyond memory", []string{multiagentTraces, "--sessions", "100000000"}, `--sessions 100000000: "100000000" is not a whole number of sessions from 1 to 65536`},
		{"twice", []string{multiagentTraces, "--sessions", "2,2"}, "load sessions=2 is given twice"},
		{"bad rate", []string{multiagentTraces, "--rate", "-1"}, `"-1" is not a positive number`},
		// 200,000 runs took 1.3 GB before a replay wrote anything.
		{"runs beyond memory", []string{multiagentTraces, "--rate", "1", "--runs", "200000"}, "--runs 200000: want 1 to 65536 (or 0 for each run once)"},
		{"runs set beyond memory", []string{multiagentTraces, "--rate", "1", "--set", "replay.runs=200000"}, "replay.runs: 200000 is out of range (1 to 65536, or 0 for each run once)"},
		// Without --runs each session replays every recorded run: the
		// two runs at 65,536 sessions were 131,072, beyond --runs' bound.
		{"sessions' runs beyond memory", []string{multiagentTraces, "--sessions", "1,65536"}, "--sessions 1,65536: sessions=65536: 65536 sessions replaying each of the 2 recorded runs once per session make 131072 runs, more than 65536 (each keeps its result); give --runs N (1 to 65536), the runs of each load"},
		{"sessions' runs set beyond memory", []string{multiagentTraces, "--set", "replay.sessions=65536"}, "replay.sessions of the fitted scenario: 65536 sessions replaying each of the 2 recorded runs once per session make 131072 runs, more than 65536 (each keeps its result); set replay.runs, or give --runs N (1 to 65536)"},
		{"runs at recorded times", []string{multiagentTraces, "--speedup", "2", "--runs", "3"}, "each recorded run starts once"},
		{"pairing", []string{multiagentTraces, "--pairing", "best"}, "--pairing best: want rank or independent"},
		{"unused variants", []string{multiagentTraces, "--scenario", testScenario}, "is named after no model of the traces"},
		{"no server", []string{multiagentTraces, "--set", "collective.serving.replicas=0"}, "neither collective.serving.replicas nor collective.api"},
		{"batch without replicas", []string{multiagentTraces, "--set", "collective.serving.max_batch=4"}, "serving.replicas is 0"},
		// Traces of under half a model call a subtask fit no scenario to
		// replay against, with the fitted APIs or at replicas.
		{"half a call a subtask", []string{toolCallTraces}, "make 0.4 model calls per subtask on average (poisson(mean=0.4), 1 subtask a run), but a fitted scenario needs more than half a call"},
		{"half a call a subtask at replicas", []string{toolCallTraces, "--set", "collective.serving.replicas=1"}, "make 0.4 model calls per subtask on average"},
		{"idle sessions", []string{multiagentTraces, "--sessions", "1,4", "--runs", "2"}, "sessions=4: replay: 4 sessions for 2 runs: 2 would never start a run"},
		// At replicas nothing is drawn but a Poisson load's arrivals.
		{"pairing at replicas", []string{multiagentTraces, "--set", "collective.serving.replicas=1", "--pairing", "rank"}, "--pairing rank: a replay at replicas (collective.serving)"},
		{"pairing of the scenario at replicas", []string{"--scenario", replayScenario(t, "  pairing: independent\n")}, "replay.yaml:9:3: replay.pairing: every variant replays at replicas (collective.serving)"},
		// The flags are shorthands for the settings: --set replay.pairing
		// and --set seed are refused as --pairing and --seed are.
		{"pairing set at replicas", []string{multiagentTraces, "--set", "collective.serving.replicas=1", "--set", "replay.pairing=rank"}, "--set replay.pairing=rank: a replay at replicas (collective.serving)"},
		{"other pairing set at replicas", []string{multiagentTraces, "--set", "collective.serving.replicas=1", "--set", "replay.pairing=independent"}, "--set replay.pairing=independent: replay.pairing: every variant replays at replicas (collective.serving)"},
		{"seed at replicas", []string{multiagentTraces, "--set", "collective.serving.replicas=1", "--sessions", "1,2", "--seed", "4"}, "--seed 4: a replay at replicas (collective.serving) gives each call the time its tokens and batch take, and a closed loop or recorded start times draw no arrivals, so the seed changes nothing"},
		{"seed set at replicas", []string{multiagentTraces, "--set", "collective.serving.replicas=1", "--sessions", "1,2", "--set", "seed=5"}, "--set seed=5: a replay at replicas (collective.serving) gives each call the time its tokens and batch take, and a closed loop or recorded start times draw no arrivals, so the seed changes nothing"},
		{"seed set for a scenario at replicas", []string{"--scenario", replayScenario(t, ""), "--set", "seed=5"}, "--set seed=5: a replay at replicas (collective.serving)"},
		// A --set of what a flag given stands for changed nothing, the
		// flag's value winning, and was not said to.
		{"seed set and given", []string{multiagentTraces, "--rate", "1", "--seed", "3", "--set", "seed=4"}, "--set seed=4: --seed replaces it; give one of them"},
		{"pairing set and given", []string{multiagentTraces, "--pairing", "rank", "--set", "replay.pairing=independent"}, "--set replay.pairing=independent: --pairing replaces it"},
		{"runs set and given", []string{multiagentTraces, "--rate", "1", "--runs", "3", "--set", "replay.runs=5"}, "--set replay.runs=5: --runs replaces it"},
		{"sessions set and given", []string{multiagentTraces, "--sessions", "2", "--set", "replay.sessions=3"}, "--set replay.sessions=3: --sessions replaces it"},
		{"rate set, sessions given", []string{multiagentTraces, "--sessions", "2", "--set", "replay.rate=1"}, "--set replay.rate=1: --sessions replaces it"},
		{"sessions set, speed-up given", []string{multiagentTraces, "--speedup", "2", "--set", "replay.sessions=3"}, "--set replay.sessions=3: --speedup replaces it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := simulate(t, append([]string{"replay", "--out", out}, c.args...)...)
			assert.NotEqual(t, 0, code)
			assert.Contains(t, stderr, c.want)
			assert.NoDirExists(t, out, "nothing is written")
		})
	}
}

// TestReplaySeedSetWithArrivals: at replicas a Poisson load draws its
// arrivals, so --set seed acts there as --seed does, and a scenario's own
// seed is no mistake.
func TestReplaySeedSetWithArrivals(t *testing.T) {
	dir := t.TempDir()
	mustSimulate(t, "replay", multiagentTraces, "--set", "collective.serving.replicas=1", "--rate", "0.1", "--runs", "2",
		"--set", "seed=5", "--charts=false", "--out", filepath.Join(dir, "set"))
	mustSimulate(t, "replay", "--scenario", replayScenario(t, ""), "--charts=false", "--out", filepath.Join(dir, "scenario"))
}

// TestReplayOnReplicas replays the traces as 1 and 8 sessions on one
// replica that batches one call at a time: one session's researchers,
// which run at once, delay each other's calls, and eight sessions delay
// them more.
func TestReplayOnReplicas(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replay")
	mustSimulate(t, "replay", multiagentTraces, "--set", "collective.serving.replicas=1", "--set", "collective.serving.max_batch=1",
		"--sessions", "1,8", "--charts=false", "--out", out)
	rows := readCSV(t, filepath.Join(out, "summary.csv"))
	delay := map[string]float64{}
	for _, r := range rows[1:] {
		if r[1] == "serving_delay" {
			v, err := strconv.ParseFloat(r[3], 64)
			require.NoError(t, err)
			delay[r[0]] = v
		}
	}
	require.Len(t, delay, 2)
	assert.Greater(t, delay["sessions=1"], 0.0)
	assert.Greater(t, delay["sessions=8"], delay["sessions=1"])
}

// TestReplayReportsUnplaced replays the multi-agent traces, which hold
// spans without an end and without attributes: they are counted on
// stderr as fit counts them, and the runs are replayed without them.
func TestReplayReportsUnplaced(t *testing.T) {
	_, stderr, code := simulate(t, "replay", multiagentTraces, "--charts=false", "--out", filepath.Join(t.TempDir(), "r"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "2 spans without an end time (left out)")
	assert.Contains(t, stderr, "2 spans without attributes (left out)")
	assert.Contains(t, stderr, "2 model calls without token counts")
}

// replayScenario writes a scenario whose replay section replays the
// multi-agent traces, with the given sections after it, and returns its
// path.
func replayScenario(t *testing.T, rest string) string {
	t.Helper()
	traces, err := filepath.Abs(multiagentTraces)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "replay.yaml")
	text := `name: replay-test
seed: 5
task: {shape: chain, length: 1, work: 1m}
policy: {organization: independent}
collective:
  serving: {replicas: 1, max_batch: 1}
replay:
  traces: [` + traces + `]
` + rest
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestReplayLoadSettings: the load flags are shorthands of the replay
// section, so --sessions 2, --set replay.sessions=2 and a scenario's
// replay.sessions replay the same runs in the same times.
func TestReplayLoadSettings(t *testing.T) {
	dir := t.TempDir()
	sc := replayScenario(t, "")
	runs := map[string][]string{
		"flag":     {"--scenario", sc, "--sessions", "2"},
		"set":      {"--scenario", sc, "--set", "replay.sessions=2"},
		"scenario": {"--scenario", replayScenario(t, "  sessions: 2\n")},
	}
	var first []byte
	for _, name := range []string{"flag", "set", "scenario"} {
		out := filepath.Join(dir, name)
		mustSimulate(t, append([]string{"replay", "--charts=false", "--out", out}, runs[name]...)...)
		b, err := os.ReadFile(filepath.Join(out, "replay.csv"))
		require.NoError(t, err)
		if first == nil {
			first = b
			rows := readCSV(t, filepath.Join(out, "replay.csv"))
			require.Len(t, rows, 1+4, "two sessions replay each of the two runs")
			assert.Equal(t, "sessions=2", rows[1][0])
			continue
		}
		assert.Equal(t, string(first), string(b), name)
	}
}

func TestReplayScenarioRefuses(t *testing.T) {
	sc := replayScenario(t, "")
	out := filepath.Join(t.TempDir(), "out")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"traces twice", []string{multiagentTraces, "--scenario", sc}, "traces given twice"},
		{"traces set with arguments", []string{multiagentTraces, "--set", "replay.traces=[x]"}, "--set replay.traces with traces as arguments"},
		{"no traces", nil, "want at least one trace file or directory"},
		{"two kinds of load", []string{"--scenario", sc, "--set", "replay.sessions=2", "--set", "replay.rate=1"}, "replay.rate: given with sessions"},
		{"runs at recorded times", []string{"--scenario", sc, "--set", "replay.speedup=2", "--runs", "3"}, "--runs with replay.speedup"},
		{"unread", []string{"--scenario", sc, "--set", "train.lr=0.1"}, "reads nothing else of the spec (not train.lr)"},
		{"sessions' runs beyond memory", []string{"--scenario", replayScenario(t, "  sessions: 65536\n")}, "replay.yaml: 65536 sessions replaying each of the 2 recorded runs once per session make 131072 runs, more than 65536 (each keeps its result); set replay.runs, or give --runs N (1 to 65536)"},
		{"figures", []string{"--scenario", sc, "--set", "figures=[latency_vs_load]"}, "simulate replay has no --figures"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := simulate(t, append([]string{"replay", "--out", out}, c.args...)...)
			assert.NotEqual(t, 0, code)
			assert.Contains(t, stderr, c.want)
			assert.NoDirExists(t, out, "nothing is written")
		})
	}
}

// TestReplaySweep sweeps replay.sessions on one replica that serves one
// call at a time: trials.csv has the replay's metrics, each trial's the
// same as simulate replay's summary for its load, and the serving delay
// TestMissingScenarioTraces: a path of a scenario's replay.traces that
// names nothing is refused before any work, with where it was written.
// The error named neither the field nor the scenario, and a sweep left a
// directory with no trial done.
func TestMissingScenarioTraces(t *testing.T) {
	traces, err := filepath.Abs(multiagentTraces)
	require.NoError(t, err)
	sc := filepath.Join(t.TempDir(), "replay.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(`name: replay-test
task: {shape: chain, length: 1, work: 1m}
policy: {organization: independent}
collective:
  serving: {replicas: 1, max_batch: 1}
replay:
  traces: [`+traces+`, no-such-traces]
sweep:
  command: replay
  grid:
    replay.sessions: [1, 8]
`), 0o644))
	missing := filepath.Join(filepath.Dir(sc), "no-such-traces")
	for _, cmd := range []string{"replay", "sweep", "validate"} {
		t.Run(cmd, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{cmd, sc, "--out", out}
			switch cmd {
			case "replay":
				args = []string{cmd, "--scenario", sc, "--out", out}
			case "validate":
				args = []string{cmd, sc}
			}
			_, stderr, code := simulate(t, args...)
			assert.Equal(t, exitFail, code)
			assert.Contains(t, stderr, "stat "+missing+": no such file or directory (replay.traces[1] of "+sc+":7:")
			assert.NoDirExists(t, out, "nothing is written")
		})
	}
}

// grows with the sessions.
func TestReplaySweep(t *testing.T) {
	sc := replayScenario(t, `sweep:
  command: replay
  grid:
    replay.sessions: [1, 8]
  metrics: [serving_delay, duration_ratio]
`)
	out := filepath.Join(t.TempDir(), "sweep")
	mustSimulate(t, "sweep", sc, "--trial-dirs", "--charts=false", "--out", out)
	assert.FileExists(t, filepath.Join(out, "report.html"))
	rows := readCSV(t, filepath.Join(out, "trials.csv"))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"trial", "variant", "seed", "replay.sessions", "serving_delay", "duration_ratio"}, rows[0])
	delay := map[string]string{}
	for _, r := range rows[1:] {
		delay[r[3]] = r[4]
		assert.FileExists(t, filepath.Join(out, "trials", r[0], "replay.csv"))
	}
	one, err := strconv.ParseFloat(delay["1"], 64)
	require.NoError(t, err)
	eight, err := strconv.ParseFloat(delay["8"], 64)
	require.NoError(t, err)
	assert.Greater(t, eight, one)

	// simulate replay of the same scenario at 8 sessions agrees.
	single := filepath.Join(t.TempDir(), "replay")
	mustSimulate(t, "replay", "--scenario", sc, "--sessions", "8", "--charts=false", "--out", single)
	for _, r := range readCSV(t, filepath.Join(single, "summary.csv"))[1:] {
		if r[1] == "serving_delay" {
			v, err := strconv.ParseFloat(r[3], 64)
			require.NoError(t, err)
			assert.InDelta(t, eight, v, 1e-9*eight)
		}
	}
}

// TestReplayLoadExample sweeps docs/examples/replay-load.yaml over the
// shared traces, as docs/calibration.md does: the serving delay is 0 for
// one session (the runs make one call at a time) and grows at each step
// of 1, 4, 16 and 64 sessions on one replica.
func TestReplayLoadExample(t *testing.T) {
	traces, ok := shareddata.Find("agent-traces", "any-agent")
	if !ok {
		t.Skip("no shared traces (shared/data/agent-traces/any-agent)")
	}
	out := filepath.Join(t.TempDir(), "sweep")
	mustSimulate(t, "sweep", "../../docs/examples/replay-load.yaml", "--set", "replay.traces=["+traces+"]", "--charts=false", "--out", out)
	rows := readCSV(t, filepath.Join(out, "trials.csv"))
	require.Len(t, rows, 1+4)
	col := slices.Index(rows[0], "serving_delay")
	require.GreaterOrEqual(t, col, 0)
	last := -1.0
	for i, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		require.NoError(t, err)
		if i == 0 {
			assert.Zero(t, v, "one session waits for nothing")
		}
		assert.Greater(t, v, last, "sessions %s", r[3])
		last = v
	}
}

// TestReplayHelpNamesWhatSetReads: the help of replay's --set names each
// section whose --set replay accepts, and no other: it named
// collective.serving, collective.api and replay, but replay also reads
// (and accepts) seed.
func TestReplayHelpNamesWhatSetReads(t *testing.T) {
	h := mustSimulate(t, "help", "replay")
	i := strings.Index(h, "\t--set PATH=VALUE\n")
	require.GreaterOrEqual(t, i, 0, "replay has --set")
	usage, _, _ := strings.Cut(h[i:], "\n\t--s") // to the next flag
	usage = strings.Join(strings.Fields(usage), " ")
	for _, tc := range []struct {
		set, section string
		read         bool
	}{
		{"collective.serving.replicas=1", "collective.serving", true},
		{"collective.api.rpm=30", "collective.api", true},
		{"replay.sessions=2", "replay", true},
		{"seed=5", "seed", true},
		{"task.work=1", "task", false},
		{"policy.organization=split", "policy", false},
	} {
		t.Run(tc.set, func(t *testing.T) {
			err := refuseUnread([]string{tc.set}, scenarios.SweepReplay, false)
			assert.Equal(t, tc.read, err == nil, "%v", err)
			named := regexp.MustCompile(`[ ,]` + regexp.QuoteMeta(tc.section) + `[ ,]`).MatchString(usage)
			assert.Equal(t, tc.read, named, "--set usage: %q", usage)
		})
	}
}
