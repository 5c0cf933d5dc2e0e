package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata and doc.go")

// testScenario is the scenario the tests run: small, with several variants.
const testScenario = "tiny"

// testEpisodes keeps the test runs short.
const testEpisodes = "6"

// simulate runs the command line in-process and returns its output and
// exit status.
func simulate(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// mustSimulate runs the command line and fails the test unless it succeeds.
func mustSimulate(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := simulate(t, args...)
	require.Equal(t, exitOK, code, "simulate %s\nstderr:\n%s", strings.Join(args, " "), errOut)
	return out
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run 'go test -update' to create it")
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (run 'go test -update' if the change is intended)\n%s", path, firstDiff(want, got))
	}
}

// firstDiff describes the first line where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n want: " + x + "\n  got: " + y
		}
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return recs
}

func readManifest(t *testing.T, dir string) *rundir.Manifest {
	t.Helper()
	m, err := rundir.ReadManifest(dir)
	require.NoError(t, err)
	return m
}

// TestChartFormats checks that every command that draws charts draws
// each in the formats of --format and in no other, with its table, and
// still writes the report. PNG, the default's costliest format, is left
// to the tests of every file a command writes.
func TestChartFormats(t *testing.T) {
	root := t.TempDir()
	run, sweepDir := filepath.Join(root, "run"), filepath.Join(root, "sweep")
	for _, tc := range []struct {
		name    string
		args    []string
		formats []string
	}{
		{"run", []string{"run", testScenario, "--episodes", testEpisodes, "--out", run, "--format", "svg"}, []string{"svg"}},
		{"train", []string{"train", testScenario, "--seeds", "1", "--set", "train.iterations=2", "--set", "train.batch=2", "--set", "train.group=2",
			"--out", filepath.Join(root, "train"), "--format", "pdf,svg"}, []string{"pdf", "svg"}},
		{"sweep", []string{"sweep", sweepScenario, "--out", sweepDir, "--format", "svg"}, []string{"svg"}},
		{"merge", []string{"merge", sweepDir, "--out", filepath.Join(root, "merged"), "--format", "svg,pdf"}, []string{"svg", "pdf"}},
		{"compare", []string{"compare", run, "--variants", "team,split", "--out", filepath.Join(root, "compare"), "--format", "svg"}, []string{"svg"}},
		{"fit", []string{"fit", multiagentTraces, "--out", filepath.Join(root, "fit"), "--format", "svg"}, []string{"svg"}},
		{"replay", []string{"replay", multiagentTraces, "--out", filepath.Join(root, "replay"), "--format", "pdf,svg"}, []string{"pdf", "svg"}},
	} {
		t.Run(tc.name, func(t *testing.T) { // each after the one it reads
			mustSimulate(t, tc.args...)
			out := tc.args[slices.Index(tc.args, "--out")+1]
			m := readManifest(t, out)
			assert.FileExists(t, filepath.Join(out, "report.html"))
			drawn := map[string][]string{} // a chart's extensions, by its name
			for _, f := range m.Files {
				name, ok := strings.CutPrefix(f, experiment.ChartsDir+"/")
				if !ok || name == experiment.ChartIndex {
					continue
				}
				ext := path.Ext(name)
				drawn[strings.TrimSuffix(name, ext)] = append(drawn[strings.TrimSuffix(name, ext)], ext[1:])
			}
			require.NotEmpty(t, drawn, "no chart in the manifest")
			for name, exts := range drawn {
				assert.ElementsMatch(t, append([]string{"csv"}, tc.formats...), exts, "chart %s", name)
			}
			for _, f := range plots.Formats {
				if !slices.Contains(tc.formats, f) {
					found, err := filepath.Glob(filepath.Join(out, experiment.ChartsDir, "*."+f))
					require.NoError(t, err)
					assert.Empty(t, found, "files of a format not chosen")
				}
			}
		})
	}
}

// TestFormatHelpSaysWhatIsRefused: the help of each command's --format
// names what the command requires of the list, and only that: svg where
// it writes report.html, png with --figures where it has that flag. Their
// help said neither, and a newcomer learnt it from the refusal.
func TestFormatHelpSaysWhatIsRefused(t *testing.T) {
	for _, tc := range []struct {
		command      string
		args         []string // up to the refusal of a --format
		svg, figures bool
	}{
		{"run", []string{testScenario}, true, true},
		{"train", []string{testScenario}, true, true},
		{"sweep", []string{sweepScenario}, true, true},
		{"merge", []string{"shards"}, true, false},
		{"compare", []string{"a", "b"}, true, false},
		{"fit", []string{"traces"}, true, false},
		{"replay", []string{"traces"}, true, false},
		{"plot", nil, false, false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			h := mustSimulate(t, "help", tc.command)
			i := strings.Index(h, "\t--format F\n")
			require.GreaterOrEqual(t, i, 0, "%s has --format", tc.command)
			usage, _, _ := strings.Cut(h[i+1:], "\n\t--") // to the next flag
			usage = strings.Join(strings.Fields(usage), " ")
			assert.Equal(t, tc.svg, strings.Contains(usage, "svg is required (report.html shows it)"), usage)
			assert.Equal(t, tc.figures, strings.Contains(usage, "and png with --figures"), usage)
			args := append([]string{tc.command}, tc.args...)
			args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			if tc.svg {
				_, stderr, code := simulate(t, append(args, "--format", "pdf")...)
				assert.Equal(t, exitUsage, code, stderr)
				assert.Contains(t, stderr, "add svg")
			}
			if tc.figures {
				_, stderr, code := simulate(t, append(args, "--format", "svg", "--figures", filepath.Join(t.TempDir(), "figs"))...)
				assert.Equal(t, exitUsage, code, stderr)
				assert.Contains(t, stderr, "add png")
			}
		})
	}
}

func TestRunWritesAllFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	stdout := mustSimulate(t, "run", testScenario, "--episodes", testEpisodes, "--out", out)

	m := readManifest(t, out)
	assert.Equal(t, testScenario, m.Scenario)
	assert.Equal(t, rundir.KindRun, m.Kind)
	assert.NotEmpty(t, m.Hash)
	assert.NotEmpty(t, m.Resolved)
	assert.NotEmpty(t, m.Variants)
	assert.Equal(t, 6, m.Episodes)
	assert.Equal(t, version(), m.SwarmsimVersion)
	assert.Equal(t, []string{"simulate", "run", testScenario, "--episodes", testEpisodes, "--out", out}, m.Command)
	for _, want := range []string{"episodes.csv", "summary.csv",
		"charts/finish_time.png", "charts/finish_time.svg", "charts/finish_time.pdf", "charts/finish_time.csv",
		"charts/success_rate.png", "charts/agent_time.png",
		"charts/timeline_" + experiment.FileName(m.Variants[0]) + ".pdf"} {
		assert.Contains(t, m.Files, want)
	}
	for _, f := range m.Files {
		st, err := os.Stat(filepath.Join(out, filepath.FromSlash(f)))
		if assert.NoError(t, err, "manifest lists %s", f) {
			assert.NotZero(t, st.Size(), f)
		}
	}
	// No temporary file is left behind.
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		assert.False(t, strings.HasSuffix(path, ".tmp"), "left behind: %s", path)
		return nil
	})

	eps := readCSV(t, filepath.Join(out, "episodes.csv"))
	require.Len(t, eps, 1+6*len(m.Variants))
	for _, col := range []string{"variant", "episode", "finish_time", "acceptable", "reward", "model_calls",
		"tokens", "agent_time", "messages", "message_bytes", "parallelism_mean", "parallelism_peak",
		"critical_steps", "critical_path", "speedup", "comm_changed_outcome", "actions_work", "actions_submit"} {
		assert.Contains(t, eps[0], col)
	}
	assert.Equal(t, m.Variants[0], eps[1][0])
	assert.Equal(t, "0", eps[1][1])

	sum := readCSV(t, filepath.Join(out, "summary.csv"))
	require.Len(t, sum, 1+len(m.Variants))
	for _, col := range []string{"variant", "n", "success_rate", "finish_time_mean", "finish_time_lo", "finish_time_hi", "cost_per_acceptable"} {
		assert.Contains(t, sum[0], col)
	}

	// The table names every variant under the expected headings.
	for _, h := range []string{"variant", "success", "finish ok (s)", "calls", "tokens", "parallelism", "messages"} {
		assert.Contains(t, stdout, h)
	}
	for _, v := range m.Variants {
		assert.Contains(t, stdout, v)
	}
}

// TestRunDeterministic runs the same command twice, in two directories
// so that the command lines are identical, and with different worker
// counts: the tables and manifest must be identical to the byte.
func TestRunDeterministic(t *testing.T) {
	files := []string{"episodes.csv", "summary.csv", "manifest.json"}
	runIn := func(dir string, workers string) map[string][]byte {
		t.Chdir(dir)
		args := []string{"run", testScenario, "--seed", "42", "--episodes", testEpisodes, "--out", "res", "--charts=false"}
		if workers != "" {
			args = append(args, "--workers", workers)
		}
		mustSimulate(t, args...)
		got := map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, "res", f))
			require.NoError(t, err)
			got[f] = b
		}
		return got
	}
	a := runIn(t.TempDir(), "")
	b := runIn(t.TempDir(), "")
	for _, f := range files {
		assert.Equal(t, string(a[f]), string(b[f]), f)
	}
	one := runIn(t.TempDir(), "1")
	many := runIn(t.TempDir(), "5")
	for _, f := range files[:2] {
		assert.Equal(t, string(a[f]), string(one[f]), "%s with --workers 1", f)
		assert.Equal(t, string(a[f]), string(many[f]), "%s with --workers 5", f)
	}
}

func TestRunDefaultOut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--seed", "9", "--charts=false")
	assert.FileExists(t, filepath.Join(dir, "out", testScenario+"-seed9", rundir.ManifestName))
}

func TestGoldenEpisodes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--seed", "1", "--episodes", testEpisodes, "--out", out, "--charts=false")
	b, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
	require.NoError(t, err)
	golden(t, testScenario+"_episodes.csv.golden", b)
}

func TestRunRefusesCompleteDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--out", out, "--format", "svg")
	charts := readManifest(t, out).Files
	before, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
	require.NoError(t, err)

	_, stderr, code := simulate(t, "run", testScenario, "--episodes", "3", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "--force")
	after, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
	require.NoError(t, err)
	assert.Equal(t, before, after, "a refused run must not touch the directory")

	mustSimulate(t, "run", testScenario, "--episodes", "3", "--out", out, "--force", "--charts=false")
	m := readManifest(t, out)
	assert.Equal(t, 3, m.Episodes)
	assert.Equal(t, []string{"episodes.csv", "summary.csv"}, m.Files)
	// --force removed the old run's charts with its manifest: nothing is
	// left that the manifest does not list.
	for _, f := range charts {
		if !slices.Contains(m.Files, f) {
			assert.NoFileExists(t, filepath.Join(out, filepath.FromSlash(f)))
		}
	}
}

// TestRunFailureCleansUp makes a run fail after it wrote its tables (the
// charts directory cannot be made): nothing may be left that looks like a
// result.
func TestRunFailureCleansUp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, experiment.ChartsDir), []byte("in the way"), 0o644))

	_, stderr, code := simulate(t, "run", testScenario, "--episodes", "2", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.True(t, strings.HasPrefix(stderr, "simulate run: "), stderr)
	assert.NoFileExists(t, filepath.Join(out, rundir.ManifestName))
	assert.NoFileExists(t, filepath.Join(out, "episodes.csv"))
	assert.NoFileExists(t, filepath.Join(out, "summary.csv"))
	assert.FileExists(t, filepath.Join(out, experiment.ChartsDir), "a file that the run did not write stays")
}

// TestTrainFailureCleansUp: a training that fails before its first
// checkpoint leaves no directory (its train.json would mark as resumable
// a directory with nothing to resume, and run would refuse it), and the
// same directory then takes a run.
func TestTrainFailureCleansUp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train")
	_, stderr, code := simulate(t, "train", testScenario, "--max-events", "50", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "event limit reached")
	assert.NoDirExists(t, out)
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", out)
}

func TestBadInput(t *testing.T) {
	malformed := filepath.Join("testdata", "malformed.yaml")
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"unknown scenario", []string{"run", "no-such-scenario"}, exitFail, []string{"simulate run: ", "no-such-scenario"}},
		{"malformed file", []string{"run", malformed}, exitFail, []string{"simulate run: ", malformed + ":"}},
		{"bad --set", []string{"run", testScenario, "--set", "collective.agents"}, exitUsage, []string{"simulate run: --set collective.agents: want PATH=VALUE", "usage: simulate run"}},
		{"bad --set value", []string{"run", testScenario, "--set", "collective.agents=-3"}, exitFail, []string{"simulate run: ", "collective.agents"}},
		{"unknown flag", []string{"run", testScenario, "--no-such-flag"}, exitUsage, []string{"simulate run: flag provided but not defined: --no-such-flag\n", "usage: simulate run"}},
		{"misspelt flag", []string{"run", testScenario, "--episods", "3"}, exitUsage, []string{"simulate run: flag provided but not defined: --episods; did you mean --episodes?\n", "usage: simulate run"}},
		// Where another command's flag is given otherwise here, the nearest
		// name would mislead: a sweep's --seed is its first seed.
		{"train's --seeds in a sweep", []string{"sweep", sweepScenario, "--seeds", "2"}, exitUsage, []string{"simulate sweep: flag provided but not defined: --seeds: a sweep's number of seeds is the scenario's sweep.seeds (--set sweep.seeds=N); --seed is the first seed\n"}},
		{"train's --seeds in a run", []string{"run", testScenario, "--seeds=2"}, exitUsage, []string{"simulate run: flag provided but not defined: --seeds: run evaluates --episodes episodes from one --seed"}},
		{"run's --episodes in a training", []string{"train", testScenario, "--episodes", "3"}, exitUsage, []string{"simulate train: flag provided but not defined: --episodes: a training plays train.batch × train.group episodes an iteration (--set train.batch=N); --episodes is simulate run's\n"}},
		{"a learner's --iterations in a training", []string{"train", testScenario, "--iterations=3"}, exitUsage, []string{"simulate train: flag provided but not defined: --iterations: a training's number of iterations is the scenario's train.iterations (--set train.iterations=N)\n"}},
		{"bad flag value", []string{"run", testScenario, "--seed", "x"}, exitUsage, []string{"simulate run: ", "-seed", "usage: simulate run"}},
		{"no scenario", []string{"run"}, exitUsage, []string{"simulate run: ", "usage: simulate run"}},
		{"two scenarios", []string{"run", testScenario, testScenario}, exitUsage, []string{"usage: simulate run"}},
		{"a flag without its value", []string{"trace", testScenario, "--seed"}, exitUsage, []string{"simulate trace: flag needs an argument: --seed"}},
		{"a bad boolean", []string{"run", testScenario, "--charts=maybe"}, exitUsage, []string{"simulate run: --charts maybe: want true or false\n"}},
		{"negative episodes", []string{"run", testScenario, "--episodes", "-1"}, exitUsage, []string{`--episodes -1: want a whole number of 1 or more`}},
		{"no episodes", []string{"run", testScenario, "--episodes", "0"}, exitUsage, []string{`simulate run: --episodes 0: want a whole number of 1 or more in decimal (leave the flag out for its default)`}},
		// The bound of a scenario's episodes holds for the flag too.
		{"too many episodes", []string{"run", testScenario, "--episodes", "1000000001"}, exitUsage, []string{"simulate run: --episodes 1000000001 is out of range (1 to 1000000000, as a scenario's episodes)"}},
		{"no workers", []string{"run", testScenario, "--workers", "0"}, exitUsage, []string{`--workers 0: want`}},
		{"no events", []string{"run", testScenario, "--max-events", "0"}, exitUsage, []string{`--max-events 0: want`}},
		{"train without workers", []string{"train", testScenario, "--workers", "0"}, exitUsage, []string{"simulate train: --workers 0: want"}},
		{"sweep without shards", []string{"sweep", "pressure-sweep", "--shards", "0"}, exitUsage, []string{"simulate sweep: --shards 0: want"}},
		{"trace without events", []string{"trace", testScenario, "--max-events", "0"}, exitUsage, []string{"simulate trace: --max-events 0: want"}},
		{"a hand-off setting no fixed organization uses", []string{"run", "exp-parl"}, exitFail, []string{"simulate run: embedded:exp-parl:", "collective.handoff.duplicates: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run)", "--policy FILE"}},
		{"a selection setting the organization never uses", []string{"run", testScenario, "--set", "policy.organization=sequential", "--set", "collective.select.cost=20m"}, exitFail, []string{"simulate run: --set collective.select.cost=20m: collective.select.cost: never acts when a fixed organization is evaluated", `the fixed organization "sequential" never starts independent attempts`, "--policy FILE"}},
		{"an unknown chart format", []string{"run", testScenario, "--format", "svg,gif"}, exitUsage, []string{`simulate run: --format svg,gif: "gif" is not one of png, svg and pdf`, "usage: simulate run"}},
		{"a chart format twice", []string{"train", testScenario, "--format", "svg,pdf,svg"}, exitUsage, []string{"simulate train: --format svg,pdf,svg: svg is listed twice"}},
		{"chart formats without svg", []string{"run", testScenario, "--format", "png,pdf"}, exitUsage, []string{"simulate run: --format png,pdf: report.html shows each chart's SVG: add svg (such as --format svg,png,pdf)"}},
		{"chart formats without charts", []string{"sweep", sweepScenario, "--format", "svg", "--charts=false"}, exitUsage, []string{"simulate sweep: --format svg chooses the charts' formats, and --charts=false draws none: give one of them"}},
		{"figures without png", []string{"train", testScenario, "--format", "svg,pdf", "--figures", "figs"}, exitUsage, []string{"simulate train: --format svg,pdf: --figures figs copies each chart's .svg, .png and .csv: add png, or leave --figures out"}},
		{"a merge's formats without svg", []string{"merge", "shards", "--out", "merged", "--format", "pdf"}, exitUsage, []string{"simulate merge: --format pdf: report.html shows each chart's SVG"}},
		{"a fit's formats without svg", []string{"fit", "traces", "--out", "fitted", "--format", "png"}, exitUsage, []string{"simulate fit: --format png: report.html shows each chart's SVG"}},
		{"a replay's formats without charts", []string{"replay", "traces", "--out", "replayed", "--format", "svg", "--charts=false"}, exitUsage, []string{"simulate replay: --format svg chooses the charts' formats, and --charts=false draws none"}},
		{"a comparison's formats without charts", []string{"compare", "a", "b", "--format", "svg", "--charts=false"}, exitUsage, []string{"simulate compare: --format svg chooses the charts' formats, and --charts=false draws none"}},
		{"unknown command", []string{"frobnicate"}, exitUsage, []string{"simulate frobnicate: unknown command\n"}},
		{"misspelt command", []string{"trian", testScenario}, exitUsage, []string{`simulate trian: unknown command; did you mean "train"?`}},
		{"unknown top-level flag", []string{"--frobnicate"}, exitUsage, []string{"flag provided but not defined"}},
		{"a trace of a hand-off setting no fixed organization uses", []string{"trace", "exp-parl"}, exitFail, []string{"simulate trace: embedded:exp-parl:", "collective.handoff.duplicates: never acts when a fixed organization is evaluated", "--policy FILE"}},
		{"trace unknown variant", []string{"trace", testScenario, "--variant", "no-such-variant"}, exitFail, []string{"simulate trace: ", "no-such-variant", "allowed"}},
		{"trace misspelt variant", []string{"trace", testScenario, "--variant", "tem"}, exitFail, []string{`simulate trace: --variant tem: scenario tiny has no variant "tem" (allowed: split, team); did you mean "team"?`}},
		{"graph missing file", []string{"graph", "no-such-file.json"}, exitFail, []string{"simulate graph: ", "no-such-file.json"}},
		{"graph JSON and DOT on standard output", []string{"graph", testScenario, "--json", "--dot", "-"}, exitUsage, []string{"simulate graph: --json and --dot - both print on standard output"}},
		{"trace with a missing policy", []string{"trace", testScenario, "--policy", "no-such.json"}, exitFail, []string{"simulate trace: open no-such.json: no such file or directory (the policy.file of --policy no-such.json"}},
		{"graph flags on a file", []string{"graph", "x.dot", "--episode", "2"}, exitUsage, []string{"apply to scenarios"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			args := tc.args
			if args[0] == "run" {
				args = append(args, "--out", out)
			}
			stdout, stderr, code := simulate(t, args...)
			assert.Equal(t, tc.code, code, "stderr:\n%s", stderr)
			for _, c := range tc.contains {
				assert.Contains(t, stderr, c)
			}
			assert.Empty(t, stdout)
			assert.NotContains(t, stderr, "goroutine ", "no stack traces")
			assert.NotContains(t, stderr, "panic")
			assert.NoFileExists(t, filepath.Join(out, rundir.ManifestName))
			assert.NoDirExists(t, out, "a failed run leaves no directory it made")
		})
	}
}

// TestSetOfAnUnreadSection: a --set in a section that the command never
// reads would change nothing; it is refused before anything is written.
func TestSetOfAnUnreadSection(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", testScenario, "--set", "train.lr=0.2"}, "simulate run: --set train.lr=0.2: an evaluation never trains, so it never reads the train section"},
		{[]string{"trace", testScenario, "--set", "train={lr: 0.2}"}, "simulate trace: --set train={lr: 0.2}: an evaluation never trains"},
		{[]string{"run", "exp-communication", "--set", "sweep.seeds=2"}, "simulate run: --set sweep.seeds=2: only simulate sweep reads the sweep section; remove it"},
		{[]string{"train", testScenario, "--set", "policy.organization=sequential"}, "simulate train: --set policy.organization=sequential: training never reads the policy section"},
		{[]string{"train", "pressure-sweep", "--set", "sweep.seeds=2"}, "simulate train: --set sweep.seeds=2: only simulate sweep reads the sweep section"},
		// A scenario without a sweep section: the section is unread, not
		// incomplete (not "sweep.command: missing").
		{[]string{"run", testScenario, "--set", "sweep.seeds=2"}, "simulate run: --set sweep.seeds=2: only simulate sweep reads the sweep section; remove it"},
		{[]string{"train", testScenario, "--set", "sweep.seeds=2"}, "simulate train: --set sweep.seeds=2: only simulate sweep reads the sweep section; remove it"},
		{[]string{"trace", testScenario, "--set", "sweep.seeds=2"}, "simulate trace: --set sweep.seeds=2: only simulate sweep reads the sweep section; remove it"},
		{[]string{"sweep", "exp-communication", "--set", "train.lr=0.2"}, "simulate sweep: --set train.lr=0.2: an evaluation never trains"},
		{[]string{"sweep", "pressure-sweep", "--set", "policy.organization=team"}, "simulate sweep: --set policy.organization=team: training never reads the policy section"},
		{[]string{"train", testScenario, "--set", "episodes=50"}, "simulate train: --set episodes=50: training never reads episodes"},
		{[]string{"trace", testScenario, "--set", "episodes=50"}, "simulate trace: --set episodes=50: a trace runs the episode that --episode names"},
		{[]string{"trace", testScenario, "--set", "reward.task=2"}, "simulate trace: --set reward.task=2: a trace records what the agents did, not the reward"},
		{[]string{"trace", testScenario, "--set", "figures=[a]"}, "simulate trace: --set figures=[a]: a trace draws no charts"},
		{[]string{"graph", testScenario, "--set", "collective.agents=3", "--dot"}, "simulate graph: --set collective.agents=3: graph draws only a task instance"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			switch args[0] {
			case "trace":
				args = append(args, "--out", out+".json")
			case "graph":
				args = append(args, out+".json") // --dot FILE
			default:
				args = append(args, "--out", out)
			}
			stdout, stderr, code := simulate(t, args...)
			assert.Equal(t, exitFail, code, "stderr:\n%s", stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out)
			assert.NoFileExists(t, out+".json")
		})
	}
	// What the command reads stays allowed.
	mustSimulate(t, "train", testScenario, "--set", "train.iterations=2", "--seeds", "1", "--charts=false", "--out", filepath.Join(t.TempDir(), "t"))
	mustSimulate(t, "graph", testScenario, "--set", "task.width=3", "--set", "seed=2")
}

// TestFlagReplacesSet: a --set of the value that a flag given stands for
// (--seed, --episodes, --policy) would change nothing, since the flag
// wins; it is refused before anything is written.
func TestFlagReplacesSet(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", testScenario, "--seed", "3", "--set", "seed=4"}, "simulate run: --set seed=4: --seed replaces it"},
		{[]string{"run", testScenario, "--set", "episodes=10", "--episodes", "5"}, "simulate run: --set episodes=10: --episodes replaces it"},
		{[]string{"run", testScenario, "--policy", "p.json", "--set", "policy.file=q.json"}, "simulate run: --set policy.file=q.json: --policy replaces it"},
		{[]string{"train", testScenario, "--seed", "3", "--set", "seed=4"}, "simulate train: --set seed=4: --seed replaces it"},
		{[]string{"sweep", "pressure-sweep", "--seed", "3", "--set", "seed=4"}, "simulate sweep: --set seed=4: --seed replaces it"},
		{[]string{"trace", testScenario, "--seed", "3", "--set", "seed=4"}, "simulate trace: --set seed=4: --seed replaces it"},
		{[]string{"trace", testScenario, "--policy", "p.json", "--set", "policy.file=q.json"}, "simulate trace: --set policy.file=q.json: --policy replaces it"},
		{[]string{"graph", testScenario, "--seed", "3", "--set", "seed=4", "--dot"}, "simulate graph: --set seed=4: --seed replaces it"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(tc.args, "--out", out)
			if tc.args[0] == "graph" {
				args = append(tc.args, out) // --dot FILE
			}
			stdout, stderr, code := simulate(t, args...)
			assert.Equal(t, exitUsage, code, "stderr:\n%s", stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, stdout)
			assert.NoFileExists(t, out)
			assert.NoDirExists(t, out)
		})
	}
	// Without the flag the --set counts.
	mustSimulate(t, "graph", testScenario, "--set", "seed=4")
}

func TestGraphWfCommons(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "wfcommons", "helloworld-forkjoin-10-chameleon.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	var fig map[string]float64
	require.NoError(t, json.Unmarshal([]byte(mustSimulate(t, "graph", path, "--json")), &fig))
	assert.Equal(t, 10.0, fig["tasks"])
	assert.Equal(t, 8.0, fig["width"])
	for _, k := range []string{"edges", "total_work", "critical_path"} {
		assert.Contains(t, fig, k)
	}
	assert.Greater(t, fig["total_work"], fig["critical_path"])

	text := mustSimulate(t, "graph", path)
	assert.Regexp(t, `(?m)^tasks\s+10$`, text)
	assert.Regexp(t, `(?m)^width\s+8$`, text)
}

// TestGraphOverflow: a graph whose total work (and so perhaps its
// critical path) is more than a simulated time holds is an error naming
// the file, not figures of "never".
func TestGraphOverflow(t *testing.T) {
	for _, tc := range []struct {
		name, dot string
		fails     bool
	}{
		{"a chain", "digraph { a [work=5e9]; b [work=5e9]; a -> b; }", true},
		{"side by side", "digraph { a [work=5e9]; b [work=5e9]; }", true},
		{"within bounds", "digraph { a [work=4e9]; b [work=4e9]; a -> b; }", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.dot")
			require.NoError(t, os.WriteFile(path, []byte(tc.dot), 0o644))
			stdout, stderr, code := simulate(t, "graph", path)
			if !tc.fails {
				assert.Equal(t, exitOK, code, stderr)
				assert.NotContains(t, stdout, "never")
				return
			}
			assert.Equal(t, exitFail, code)
			assert.Empty(t, stdout)
			assert.Equal(t, "simulate graph: "+path+": the total work of its 2 tasks is more than a simulated time holds (about 292 years): lower the work of its tasks\n", stderr)
		})
	}
}

// TestGraphWithoutWork: a graph file whose tasks have no work prints
// its figures (0 s) with a note that says why, which for DOT names
// task.work; a graph with some work has no note. It printed "total work
// 0.0 s" and nothing else.
func TestGraphWithoutWork(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		note             string // in stderr; "" for none
	}{
		{"DOT without work", "g.dot", "digraph { a -> b; }", "note: no node of FILE has work (a work attribute above 0), so the total work and the critical path are 0; in a scenario (task.path) each node without a work attribute takes a draw of task.work when run\n"},
		{"DOT of work 0", "g.gv", "digraph { a [work=0]; }", "note: no node of FILE has work"},
		{"DOT with some work", "g.dot", "digraph { a [work=5]; a -> b; }", ""},
		{"WfFormat of runtime 0", "w.json", `{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": [{"name": "a", "id": "a", "parents": [], "children": []}]}, "execution": {"makespanInSeconds": 0, "tasks": [{"id": "a", "runtimeInSeconds": 0}]}}}`,
			"note: no task of FILE has a runtime above 0, so the total work and the critical path are 0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
			for _, args := range [][]string{{"graph", path}, {"graph", path, "--json"}} {
				stdout, stderr, code := simulate(t, args...)
				require.Equal(t, exitOK, code, stderr)
				assert.Contains(t, stdout, "total", "the figures are printed")
				if tc.note == "" {
					assert.Empty(t, stderr)
				} else {
					assert.Contains(t, stderr, strings.ReplaceAll(tc.note, "FILE", path))
				}
			}
		})
	}
}

// TestGraphMissingFile: a scenario's missing graph file is named with the
// field and the line that refer to it, before anything is drawn.
func TestGraphMissingFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(src, []byte("task: {shape: file, path: no-such.dot, work: 5m}\npolicy: {organization: split}\n"), 0o644))
	for _, cmd := range []string{"graph", "trace"} {
		_, stderr, code := simulate(t, cmd, src)
		assert.Equal(t, exitFail, code)
		assert.Equal(t, "simulate "+cmd+": open "+filepath.Join(filepath.Dir(src), "no-such.dot")+": no such file or directory (the task.path of "+src+":1:21)\n", stderr)
	}
}

func TestGraphScenario(t *testing.T) {
	var fig graphFigures
	require.NoError(t, json.Unmarshal([]byte(mustSimulate(t, "graph", testScenario, "--json")), &fig))
	assert.Positive(t, fig.Tasks)
	assert.Positive(t, fig.CriticalPath)
	assert.GreaterOrEqual(t, fig.TotalWork, fig.CriticalPath)

	dot := filepath.Join(t.TempDir(), "g.dot")
	mustSimulate(t, "graph", testScenario, "--episode", "1", "--dot", dot)
	b, err := os.ReadFile(dot)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte("digraph")), "%.40s", b)
	assert.Equal(t, string(b), mustSimulate(t, "graph", testScenario, "--episode", "1", "--dot", "-"))
}

func TestTraceGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.json")
	variant := firstVariant(t)
	mustSimulate(t, "trace", testScenario, "--variant", variant, "--episode", "0", "--seed", "1", "--out", out)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &tr))
	assert.NotEmpty(t, tr.TraceEvents)
	golden(t, testScenario+"_trace.json.golden", b)

	// Without --out the same trace goes to standard output.
	assert.Equal(t, string(b), mustSimulate(t, "trace", testScenario, "--variant", variant, "--seed", "1"))
}

func firstVariant(t *testing.T) string {
	t.Helper()
	sc, err := scenarios.Load(testScenario, nil)
	require.NoError(t, err)
	return sc.Variants[0].Name
}

// TestTraceIsTheRunEpisode checks that the episode trace and the timeline
// charts re-run is the one in episodes.csv: same task draw, same streams,
// and with --policy the same learned policy.
func TestTraceIsTheRunEpisode(t *testing.T) {
	learned := filepath.Join(trainTiny(t, "--charts=false"), "policies", "split-seed7.json")
	for _, tt := range []struct {
		name   string
		policy policyFlag
	}{
		{"organization", policyFlag{}},
		{"learned policy", policyFlag{learned}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			args := []string{"run", testScenario, "--episodes", "3", "--seed", "5", "--out", out, "--charts=false"}
			if tt.policy.file != "" {
				args = append(args, "--policy", tt.policy.file)
			}
			mustSimulate(t, args...)
			eps := readCSV(t, filepath.Join(out, "episodes.csv"))
			header := eps[0]
			for _, row := range eps[1:] {
				var o drawOptions
				o.variant = row[0]
				k, err := strconv.Atoi(row[1])
				require.NoError(t, err)
				o.episode = k
				o.seed = seedFlag{v: 5, set: true}
				ep, err := o.load(&session{stdout: io.Discard, stderr: io.Discard}, testScenario, tt.policy.sets())
				require.NoError(t, err)
				res, err := ep.run(context.Background(), false)
				require.NoError(t, err)
				b, err := experiment.EpisodesCSV([]experiment.Row{{Variant: row[0], Episode: k, Metrics: res.Metrics}}, false)
				require.NoError(t, err)
				again, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
				require.NoError(t, err)
				for j, name := range header {
					if name == "comm_changed_outcome" || name == "reward" {
						continue // from the replay and the reward section, not the episode
					}
					i := slices.Index(again[0], name)
					require.GreaterOrEqual(t, i, 0, name)
					assert.Equal(t, row[j], again[1][i], "%s episode %s: %s", row[0], row[1], name)
				}
			}
		})
	}
}

// TestTracePolicy: trace --policy traces the learned policy's episode,
// not the organization's, and makes a hand-off setting that only a
// learned policy exercises count.
func TestTracePolicy(t *testing.T) {
	learned := filepath.Join(trainTiny(t, "--charts=false"), "policies", "split-seed7.json")
	org := mustSimulate(t, "trace", testScenario, "--seed", "5")
	pol := mustSimulate(t, "trace", testScenario, "--seed", "5", "--policy", learned)
	assert.NotEqual(t, org, pol, "the learned policy decides")
	assert.Contains(t, pol, `"name": "tiny, variant split, episode 0, seed 5"`)

	parl := mustSimulate(t, "trace", "exp-parl", "--policy", learned, "--format", "otlp", "--count", "2")
	assert.Len(t, strings.Split(strings.TrimSpace(parl), "\n"), 2, "one OTLP document per episode")

	_, stderr, code := simulate(t, "trace", testScenario, "--policy", "no-such-policy.json")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "policy.file")
	assert.Contains(t, stderr, "no-such-policy.json")
}

func TestValidate(t *testing.T) {
	malformed := filepath.Join("testdata", "malformed.yaml")
	stdout := mustSimulate(t, "validate", testScenario)
	assert.Contains(t, stdout, "ok")

	stdout, stderr, code := simulate(t, "validate", testScenario, malformed)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "ok\t"+testScenario)
	assert.Regexp(t, `testdata/malformed\.yaml:\d+:\d+: `, stderr)
	assert.Contains(t, stderr, "> 2 | bad: [1, 2\n           ^\n\n", "the problem's lines, with a caret at its place")
	assert.Contains(t, stderr, "simulate validate: 1 of 2 scenarios have problems")

	_, _, code = simulate(t, "validate")
	assert.Equal(t, exitUsage, code)

	// A setting only training exercises is valid, with a note: run and
	// trace refuse it.
	stdout, stderr, code = simulate(t, "validate", "exp-parl", testScenario)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "ok\texp-parl\nok\t"+testScenario+"\n", stdout)
	assert.Contains(t, stderr, "simulate validate: note: embedded:exp-parl:38:35: collective.handoff.duplicates: never acts when a fixed organization is evaluated")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one note, for exp-parl only:\n%s", stderr)

	// Variants alike in every setting are valid, with a note.
	alike := filepath.Join(t.TempDir(), "alike.yaml")
	require.NoError(t, os.WriteFile(alike, []byte("name: alike\ntask: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"+
		"variants:\n  - {name: a}\n  - {name: b, set: {policy.organization: sequential}}\n  - {name: c, set: {policy.organization: team}}\n"), 0o644))
	_, stderr, code = simulate(t, "validate", alike)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "simulate validate: note: "+alike+": variants a and c have the same settings: their episodes are the same\n", stderr)
}

// TestRunShowsTheProblemsLines: a command that fails on a scenario's
// problem shows its lines with a caret, as validate does, after the
// message with the command's name; other failures are the message alone.
func TestRunShowsTheProblemsLines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := simulate(t, "run", filepath.Join("testdata", "malformed.yaml"), "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Regexp(t, `^simulate run: testdata/malformed\.yaml:\d+:\d+: `, stderr)
	assert.Contains(t, stderr, "> 2 | bad: [1, 2\n           ^\n\n")
	assert.NoDirExists(t, out)
	_, stderr, code = simulate(t, "run", testScenario, "--set", "policy.organization=tem", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Equal(t, "simulate run: --set policy.organization=tem: policy.organization: unknown organization \"tem\" (allowed: centralized, decentralized, hybrid, independent, sequential, single, split, team); did you mean \"team\"?\n", stderr,
		"a --set has no lines to show")
}

func TestListSchemaVersion(t *testing.T) {
	list := mustSimulate(t, "list")
	assert.Regexp(t, `(?m)^`+testScenario+`\s+\S`, list)

	var schema map[string]any
	require.NoError(t, json.Unmarshal([]byte(mustSimulate(t, "schema")), &schema))

	assert.Regexp(t, `^simulate version devel(\+[0-9a-f]{12}(\+dirty)?)? go1\.\S+ \S+/\S+\n$`, mustSimulate(t, "version"))
	assert.Equal(t, mustSimulate(t, "version"), mustSimulate(t, "--version"))

	_, _, code := simulate(t, "list", testScenario, "extra")
	assert.Equal(t, exitUsage, code)

	// A scenario's variants, in file order, by name or by path, each
	// with what it sets; one that sets nothing, with the scenario's values
	// of what the others set.
	want := testScenario + "   Five-node fork-join, split against team, for quick checks.\n\n" +
		"variant   sets\nsplit     nothing; the scenario's policy.organization=split\nteam      policy.organization=team\n"
	assert.Equal(t, want, mustSimulate(t, "list", testScenario))
	assert.Contains(t, mustSimulate(t, "list", "rlcr-peer"), "\nw0        nothing; the scenario's reward.latency=0.0, reward.penalty=none\n"+
		"w0.25     reward.latency=0.25, reward.penalty=linear\n")
	// A scenario without variants has the one, default, that sets nothing.
	assert.Contains(t, mustSimulate(t, "list", "exp-scaling"), "\n\nvariant   sets\ndefault   nothing\n\n")
	path := filepath.Join(t.TempDir(), "tiny.yaml")
	data, ok := scenarios.Embedded(testScenario)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	assert.Equal(t, want, mustSimulate(t, "list", path))
	// A sweep: what its trials run, over which values, how many.
	assert.Equal(t, "test-sweep\n\nvariant   sets\ndefault   nothing\n\n"+
		"sweep     train, 12 trials: variants 1 × grid points 6 × samples 1 × seeds 2\n"+
		"grid      reward.latency: 0, 1\ngrid      task.coupling: 0, 0.5, 0.9\n"+
		"random    train.lr: uniform(0.05, 0.2)\n"+
		"metrics   reward_mean, success_rate, latency_mean, parallelism_mean, prob_share\n",
		mustSimulate(t, "list", filepath.Join("testdata", "sweep.yaml")))
	scaling := mustSimulate(t, "list", "exp-scaling")
	assert.Contains(t, scaling, "\nsweep       run, 5600 trials: variants 1 × grid points 560 × seeds 10\n")
	assert.Contains(t, scaling, "\nreference   policy.organization=single\n")
	assert.Contains(t, scaling, "error_amplification, coordination_overhead, efficiency, success_gain\n")
	assert.NotContains(t, mustSimulate(t, "list", testScenario), "sweep")
	_, stderr, code := simulate(t, "list", "tinny")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, `did you mean "tiny"?`)
}

func TestHelp(t *testing.T) {
	top := mustSimulate(t, "help")
	assert.Contains(t, top, "Usage:\n\n\tsimulate <command> [arguments]")
	for _, c := range commands {
		assert.Regexp(t, `(?m)^\t`+c.Name+`\s+`+c.Short+`$`, top)
	}
	assert.Equal(t, top, mustSimulate(t, "--help"))

	for _, c := range commands {
		t.Run(c.Name, func(t *testing.T) {
			h := mustSimulate(t, "help", c.Name)
			assert.True(t, strings.HasPrefix(h, "usage: simulate "+c.Name), h)
			assert.Contains(t, h, "Examples:\n\n\tsimulate ")
			assert.Greater(t, strings.Count(h, "\n"), 8, "a manual, not a line")
			if hasFlags(c) {
				assert.Contains(t, h, "\nFlags:\n\n\t--")
			}
			assert.Equal(t, h, mustSimulate(t, c.Name, "-h"), "-h prints the same manual")
			assert.Equal(t, h, mustSimulate(t, c.Name, "--help"))
		})
	}
	h := mustSimulate(t, "help", "run")
	for _, f := range []string{"--seed S", "--episodes N", "--out DIR", "--set path=value", "--workers W", "--force"} {
		assert.Contains(t, h, "\t"+f+"\n")
	}

	_, stderr, code := simulate(t)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "simulate <command>")
	_, stderr, code = simulate(t, "help", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "unknown help topic\n")
	_, stderr, code = simulate(t, "help", "sweap")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown help topic; did you mean "sweep"?`)
}

// TestDocUpToDate keeps doc.go, the package documentation, equal to the
// help text; 'go test -update' rewrites it.
func TestDocUpToDate(t *testing.T) {
	want := documentation()
	if *update {
		require.NoError(t, os.WriteFile("doc.go", []byte(want), 0o644))
		return
	}
	got, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	if string(got) != want {
		t.Errorf("doc.go is out of date with the help text: run 'go test -run TestDocUpToDate -update'\n%s", firstDiff(got, []byte(want)))
	}
}

func TestParseFlagsInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("n", 0, "")
	b := fs.Bool("b", false, "")
	pos, err := parseFlags(fs, []string{"a", "-n", "3", "b", "--b", "--", "-c", "d"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "-c", "d"}, pos)
	assert.Equal(t, 3, *n)
	assert.True(t, *b)
}

// TestEmptyFlag: a text flag given empty, whose default is empty, is
// refused; taken as not given, it silently meant the default (trace wrote
// to standard output, run evaluated every variant, replay a closed loop).
func TestEmptyFlag(t *testing.T) {
	for _, args := range [][]string{
		{"trace", testScenario, "--out", ""},
		{"trace", testScenario, "--out="},
		{"run", testScenario, "--variant", ""},
		{"run", testScenario, "--figures", ""},
		{"graph", testScenario, "--dot", ""},
		{"replay", multiagentTraces, "--rate", ""},
		{"replay", multiagentTraces, "--scenario", ""},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if args[0] == "run" || args[0] == "replay" {
				args = append(args, "--out", out)
			}
			name := strings.TrimSuffix(args[2], "=")
			stdout, stderr, code := simulate(t, args...)
			assert.Equal(t, exitUsage, code, "stderr:\n%s", stderr)
			assert.Contains(t, stderr, "simulate "+args[0]+": "+name+` "": empty: give a value, or leave the flag out for its default`)
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out)
		})
	}
}

// TestRunSharedColumns: a run whose episodes share a server has the shared
// columns in its tables and a chart of the time per call; a run without
// keeps its tables as they were.
func TestRunSharedColumns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", "contention", "--episodes", "2", "--out", out, "--set", "task.width=8", "--format", "svg")
	m := readManifest(t, out)
	assert.Contains(t, m.Files, "charts/call_latency.svg")
	eps, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
	require.NoError(t, err)
	header, _, _ := strings.Cut(string(eps), "\n")
	for _, name := range []string{"served_calls", "call_latency", "serving_wait", "serving_queue_mean", "server_utilisation", "batch_mean", "output_rate", "tool_calls", "tool_wait"} {
		assert.Contains(t, header, ","+name)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(sum), "call_latency_mean,call_latency_lo,call_latency_hi")

	plain := filepath.Join(t.TempDir(), "plain")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--out", plain, "--charts=false")
	eps, err = os.ReadFile(filepath.Join(plain, "episodes.csv"))
	require.NoError(t, err)
	assert.NotContains(t, string(eps), "call_latency")
}

// TestHandoffColumns: the tables of a scenario with a handoff section
// count hand-off misses and duplicates, read from their own metrics; the
// tables of other scenarios keep their columns.
func TestHandoffColumns(t *testing.T) {
	rows := []experiment.Row{
		{Variant: "a", Metrics: collective.Metrics{HandoffMisses: 2, Duplicates: 5}},
		{Variant: "a", Metrics: collective.Metrics{HandoffMisses: 4, Duplicates: 1}},
	}
	b, err := experiment.EpisodesCSV(rows, true)
	require.NoError(t, err)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	n := len(recs[0])
	assert.Equal(t, []string{"handoff_misses", "duplicates"}, recs[0][n-2:])
	assert.Equal(t, []string{"2", "5"}, recs[1][n-2:])
	assert.Equal(t, []string{"4", "1"}, recs[2][n-2:])
	plain, err := experiment.EpisodesCSV(rows, false)
	require.NoError(t, err)
	plainRecs, err := csv.NewReader(bytes.NewReader(plain)).ReadAll()
	require.NoError(t, err)
	for i := range recs {
		assert.Equal(t, recs[i][:n-2], plainRecs[i], "without a handoff section, the same table less the two columns")
	}

	b, err = experiment.SummaryCSV(rows, experiment.Summarize(rows), true)
	require.NoError(t, err)
	recs, err = csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	for _, want := range []struct {
		col  string
		mean string
	}{{"handoff_misses_mean", "3"}, {"duplicates_mean", "3"}} {
		i := slices.Index(recs[0], want.col)
		require.GreaterOrEqual(t, i, 0, want.col)
		assert.Equal(t, want.mean, recs[1][i], want.col)
	}

	// Training: duplicates off, then on; the uniform initial policy of
	// tiny's split and team fans out, and without shares every hand-off
	// is misunderstood.
	for _, dup := range []bool{false, true} {
		out := trainTiny(t, "--charts=false", "--set", "collective.handoff.miss=1", "--set", "collective.handoff.findings=1",
			"--set", fmt.Sprintf("collective.handoff.duplicates=%t", dup))
		recs := readCSV(t, filepath.Join(out, "iterations.csv"))
		n := len(recs[0])
		require.Equal(t, []string{"handoff_misses_mean", "duplicates_mean"}, recs[0][n-2:])
		var misses, dups float64
		for _, r := range recs[1:] {
			m, err := strconv.ParseFloat(r[n-2], 64)
			require.NoError(t, err)
			d, err := strconv.ParseFloat(r[n-1], 64)
			require.NoError(t, err)
			misses, dups = misses+m, dups+d
		}
		assert.Positive(t, misses)
		assert.Equal(t, dup, dups > 0, "duplicates=%t", dup)
	}
	plainIters, err := os.ReadFile(filepath.Join(trainTiny(t, "--charts=false"), "iterations.csv"))
	require.NoError(t, err)
	assert.NotContains(t, string(plainIters), "handoff_misses")
}

// TestScreenGolden keeps the tables that run and train print: the
// hand-off columns only with a handoff section, the other tables as
// they were.
func TestScreenGolden(t *testing.T) {
	handoff := []string{"--set", "collective.handoff.miss=1", "--set", "collective.handoff.findings=1"}
	// One server with room for one call and one tool: both make calls wait.
	shared := []string{"--set", "collective.serving.replicas=1", "--set", "collective.serving.max_batch=1",
		"--set", "task.tool_calls=poisson(2)", "--set", "task.tool_latency=lognormal(mean=30s, cv=1)", "--set", "collective.tools.pool=1"}
	train := []string{"train", testScenario, "--seeds", "2", "--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3", "--charts=false"}
	tests := []struct {
		golden string
		args   []string
	}{
		{"tiny_run_stdout.golden", []string{"run", testScenario, "--seed", "1", "--episodes", testEpisodes, "--charts=false"}},
		{"tiny_handoff_run_stdout.golden", append([]string{"run", testScenario, "--seed", "1", "--episodes", testEpisodes, "--charts=false"}, handoff...)},
		{"tiny_shared_run_stdout.golden", append([]string{"run", testScenario, "--seed", "1", "--episodes", testEpisodes, "--charts=false"}, shared...)},
		{"tiny_train_stdout.golden", train},
		{"tiny_handoff_train_stdout.golden", append(append(slices.Clone(train), handoff...), "--set", "collective.handoff.duplicates=true")},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out := mustSimulate(t, append(tt.args, "--out", filepath.Join(t.TempDir(), "o"))...)
			table, _, ok := strings.Cut(out, "\nwrote ")
			require.True(t, ok, "the output ends with the directory written:\n%s", out)
			golden(t, tt.golden, []byte(table))
		})
	}
}

// TestHelpNamesEveryColumn: the help of run and train names every column
// their tables can have, so that a reader of a table finds each one.
func TestHelpNamesEveryColumn(t *testing.T) {
	named := func(cmd *command, name string) bool {
		name = regexp.MustCompile(`^(actions|prob)_[a-z]+$`).ReplaceAllString(name, "${1}_<action>")
		return regexp.MustCompile(`(^|[^a-z_<])` + regexp.QuoteMeta(name) + `($|[^a-z_>])`).MatchString(cmd.Long)
	}
	for _, name := range experiment.RunColumnNames() {
		assert.True(t, named(cmdRun, name), "simulate help run does not name %s", name)
	}
	for _, name := range train.ColumnNames() {
		assert.True(t, named(cmdTrain, name), "simulate help train does not name %s", name)
	}
}

// TestExitStatuses checks one case of each class that 'simulate help' lists
// under exit statuses.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"list"}, exitOK},
		{[]string{"run", "no-such-scenario"}, exitFail},
		{[]string{"run", testScenario, "--set", "reward.latencyy=1"}, exitFail},
		{[]string{"plot", filepath.Join(dir, "missing")}, exitFail},
		{[]string{"no-such-command"}, exitUsage},
		{[]string{"run", testScenario, "--no-such-flag"}, exitUsage},
		{[]string{"run", testScenario, "--episodes", "0"}, exitUsage},
		{[]string{"run", testScenario, "--set", "no-equals-sign"}, exitUsage},
		{[]string{"run"}, exitUsage},
		{[]string{"graph", testScenario, "extra"}, exitUsage},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := simulate(t, tc.args...)
			assert.Equal(t, tc.want, code, "stderr:\n%s", stderr)
			if tc.want == exitUsage {
				assert.Regexp(t, `Run 'simulate help( [a-z]+)?'`, stderr)
			}
		})
	}
	assert.Contains(t, documentation(), "exits with status 0")
}

// TestPolicyFlagAsGiven: errors about the file --policy names speak of
// --policy, not of the --set it stands for, and an empty --policy, which
// would leave the organizations deciding without a word, is refused.
func TestPolicyFlagAsGiven(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "tiny", "--out", t.TempDir() + "/r", "--policy", missing}, exitFail, "(the policy.file of --policy " + missing + " (variant \"split\"))"},
		{[]string{"trace", "tiny", "--policy", missing}, exitFail, "(the policy.file of --policy " + missing + " (variant \"split\"))"},
		{[]string{"run", "tiny", "--policy", ""}, exitUsage, `--policy "": empty: give the file of a policy that simulate train wrote`},
	} {
		_, stderr, code := simulate(t, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.NotContains(t, stderr, "--set policy.file", "%v", tc.args)
	}
}
