package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/internal/filetree"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/rundir"
)

// TestValidateResolvesGraphFiles validates a scenario in another folder:
// its graph file is found beside it, and a broken graph is reported at
// its own position.
func TestValidateResolvesGraphFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "study")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	write("g.dot", "digraph { a -> b; a -> c; b -> d; c -> d }")
	write("cycle.dot", "digraph {\n  a -> b\n  b -> c\n  c -> a\n}\n")
	good := write("good.yaml", "task: {shape: file, path: g.dot, work: 1m}\npolicy: {organization: split}\n")
	bad := write("bad.yaml", "task: {shape: file, path: cycle.dot, work: 1m}\npolicy: {organization: split}\n")
	missing := write("missing.yaml", "task: {shape: file, path: nowhere.dot, work: 1m}\npolicy: {organization: split}\n")

	stdout := mustSimulate(t, "validate", good)
	assert.Equal(t, "ok\t"+good+"\n", stdout)

	stdout, stderr, code := simulate(t, "validate", bad, missing)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, filepath.Join(dir, "cycle.dot")+`:4:3: task: cycle: "a" -> "b" -> "c" -> "a"`)
	assert.Contains(t, stderr, filepath.Join(dir, "nowhere.dot"))
	assert.Contains(t, stderr, "2 of 2 scenarios have problems")
}

// TestVersionIsStampedAtBuild: the version comes only from what the build
// stamped, never from the state of a tree at run time, so a binary built
// clean records no "dirty" however its checkout changes later.
func TestVersionIsStampedAtBuild(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified},
		}}
	}
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"go build", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204071918-0123456789ab"}}, true, "v0.0.0-20261204071918-0123456789ab"},
		{"go build, dirty tree", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204071918-0123456789ab+dirty"}}, true, "v0.0.0-20261204071918-0123456789ab+dirty"},
		{"commit but no derived version", vcs("false"), true, "devel+0123456789ab"},
		{"commit but no derived version, dirty", vcs("true"), true, "devel+0123456789ab+dirty"},
		{"go run: no VCS stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"no build information", nil, false, "devel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, versionFrom(c.bi, c.ok))
		})
	}
	// 'go test' stamps no VCS settings, so the test binary's version must
	// be plain "devel" whatever state this checkout is in.
	assert.Equal(t, "devel", version())
}

// TestOutCases gives every command that writes the same bad --out values
// and expects one clear sentence each, the same for all.
func TestOutCases(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "existing.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	commands := map[string][]string{
		"run":   {"run", "tiny", "--episodes", "2", "--charts=false"},
		"train": {"train", "tiny", "--set", "train.iterations=2", "--seeds", "1", "--charts=false"},
		"sweep": {"sweep", sweepScenario, "--charts=false"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := simulate(t, append(args, "--out", file)...)
			assert.Equal(t, exitFail, code)
			assert.Equal(t, "simulate "+name+": "+file+" is a file, not a directory: the results are a directory of files; choose another --out\n", stderr)

			below := filepath.Join(file, "sub")
			_, stderr, code = simulate(t, append(args, "--out", below)...)
			assert.Equal(t, exitFail, code)
			assert.Equal(t, "simulate "+name+": "+below+" cannot be made: "+file+" is a file, not a directory; choose another --out\n", stderr)

			nested := filepath.Join(root, name, "a", "b")
			mustSimulate(t, append(args, "--out", nested)...)
			assert.FileExists(t, filepath.Join(nested, "manifest.json"), "parents are made")
		})
	}
	t.Run("trace", func(t *testing.T) {
		_, stderr, code := simulate(t, "trace", "tiny", "--out", root)
		assert.Equal(t, exitFail, code)
		assert.Equal(t, "simulate trace: "+root+" is a directory: this command writes one file; give a file name, such as "+filepath.Join(root, "trace.json")+"\n", stderr)

		below := filepath.Join(file, "t.json")
		_, stderr, code = simulate(t, "trace", "tiny", "--out", below)
		assert.Equal(t, exitFail, code)
		assert.Equal(t, "simulate trace: "+file+" is a file, not a directory: the results are a directory of files; choose another --out\n", stderr)

		nested := filepath.Join(root, "traces", "a", "b", "t.json")
		assert.Equal(t, "wrote "+nested+"\n", mustSimulate(t, "trace", "tiny", "--out", nested))
		assert.FileExists(t, nested, "parents are made")

		// A file that exists is replaced only with --force, and refused
		// before any work.
		_, stderr, code = simulate(t, "trace", "tiny", "--out", file)
		assert.Equal(t, exitFail, code)
		assert.Equal(t, "simulate trace: "+file+" exists; use --force to overwrite it, or --out to choose another file\n", stderr)
		assert.Equal(t, "x", string(readFile(t, file)), "left as it was")
		assert.Equal(t, "wrote "+file+"\n", mustSimulate(t, "trace", "tiny", "--out", file, "--force"))
		assert.Equal(t, readFile(t, nested), readFile(t, file))
		_, stderr, code = simulate(t, "trace", "tiny", "--force")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "--force without --out FILE")
	})
	t.Run("graph --dot", func(t *testing.T) {
		// graph --dot writes one file as trace --out does. It replaced a
		// file that exists without --force, and into a missing folder
		// failed naming its hidden temporary file.
		nested := filepath.Join(root, "dots", "a", "g.dot")
		for _, tc := range []struct {
			name string
			args []string
			code int
			want string // stderr, which says what a success wrote
		}{
			{"a directory", []string{"--dot", root}, exitFail, root + " is a directory: this command writes one file; give a file name, such as " + filepath.Join(root, "graph.dot")},
			{"a file that exists", []string{"--dot", file}, exitFail, file + " exists; use --force to overwrite it, or --dot to choose another file"},
			{"a missing folder", []string{"--dot", nested}, exitOK, "wrote " + nested},
			{"a file that exists, with --force", []string{"--dot", file, "--force"}, exitOK, "wrote " + file},
			{"--force without a file", []string{"--dot", "-", "--force"}, exitUsage, "--force without --dot FILE"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, stderr, code := simulate(t, append([]string{"graph", "tiny"}, tc.args...)...)
				assert.Equal(t, tc.code, code)
				assert.Contains(t, stderr, "simulate graph: "+tc.want)
			})
		}
		assert.Equal(t, readFile(t, nested), readFile(t, file), "replaced with --force, made with its folders")
	})
}

// TestOutHoldsResumableWork: run, compare and fit refuse a directory
// that holds a training or a sweep, even with --force, which would remove
// its tables but leave its identity file and parts, mixing two kinds of
// work; the directory is left as it was.
func TestOutHoldsResumableWork(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	mustSimulate(t, "run", "tiny", "--episodes", "2", "--charts=false", "--out", a)
	dirs := map[string]string{
		"training": filepath.Join(root, "train"),
		"sweep":    filepath.Join(root, "sweep"),
	}
	mustSimulate(t, "train", "tiny", "--set", "train.iterations=2", "--seeds", "1", "--charts=false", "--out", dirs["training"])
	mustSimulate(t, "sweep", sweepScenario, "--charts=false", "--out", dirs["sweep"])
	for what, dir := range dirs {
		before, err := rundir.List(dir)
		require.NoError(t, err)
		for _, args := range [][]string{
			{"run", "tiny", "--episodes", "2", "--charts=false", "--force", "--out", dir},
			{"compare", a, a, "--charts=false", "--force", "--out", dir},
			{"fit", "../../calibrate/testdata/multiagent.otlp.json", "--force", "--out", dir},
		} {
			_, stderr, code := simulate(t, args...)
			assert.Equal(t, exitFail, code, "%v", args)
			assert.Contains(t, stderr, "simulate "+args[0]+": "+dir+" holds a "+what+" (", "%v", args)
			after, err := rundir.List(dir)
			require.NoError(t, err)
			assert.Equal(t, before, after, "%v leaves the directory as it was", args)
		}
	}
}

// TestTrainingAndSweepKeepApart: a training refuses a sweep's directory
// and a sweep (or a merge) a training's, finished or not, --force and
// --fresh or not: resumed there, each would write its tables over the
// other's. The directory is left as it was.
func TestTrainingAndSweepKeepApart(t *testing.T) {
	root := t.TempDir()
	training, sw := filepath.Join(root, "train"), filepath.Join(root, "sweep")
	mustSimulate(t, "train", "tiny", "--set", "train.iterations=2", "--seeds", "1", "--charts=false", "--out", training)
	mustSimulate(t, "sweep", sweepScenario, "--charts=false", "--out", sw)
	for _, finished := range []bool{true, false} {
		if !finished {
			// What an interrupted run leaves: the identity file and
			// parts, no manifest.
			for _, dir := range []string{training, sw} {
				require.NoError(t, os.Remove(filepath.Join(dir, rundir.ManifestName)))
			}
		}
		for _, tc := range []struct {
			dir, what string
			args      []string
		}{
			{sw, "sweep", []string{"train", "tiny", "--set", "train.iterations=2", "--charts=false", "--out", sw}},
			{sw, "sweep", []string{"train", "tiny", "--set", "train.iterations=2", "--charts=false", "--force", "--out", sw}},
			{training, "training", []string{"sweep", sweepScenario, "--charts=false", "--out", training}},
			{training, "training", []string{"sweep", sweepScenario, "--charts=false", "--fresh", "--out", training}},
			{training, "training", []string{"merge", sw, "--partial", "--out", training}},
		} {
			before := filetree.Snapshot(t, tc.dir)
			_, stderr, code := simulate(t, tc.args...)
			assert.Equal(t, exitFail, code, "finished %v: %v", finished, tc.args)
			assert.Contains(t, stderr, "simulate "+tc.args[0]+": "+tc.dir+" holds a "+tc.what+" (", "finished %v: %v", finished, tc.args)
			assert.Equal(t, before, filetree.Snapshot(t, tc.dir), "finished %v: %v leaves the directory as it was", finished, tc.args)
		}
	}
}

// TestOutHoldsStrangers: run, compare, fit and replay refuse, without
// --force, a directory that holds files but no complete run (a folder of
// the user's, or what a killed run left), leaving it as it was; with
// --force they write into it. Hidden files and empty folders do not
// count, and a forced rerun that fails keeps the run it would have
// replaced (see TestForcedRerunThatFailsKeepsTheOldResult).
func TestOutHoldsStrangers(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	mustSimulate(t, "run", "tiny", "--episodes", "2", "--charts=false", "--out", a)
	dir := filepath.Join(root, "mine")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "charts"), 0o755))
	for _, name := range []string{"summary.csv", "notes.txt", "b", "c", "charts/mine.png"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("mine\n"), 0o644))
	}
	before, err := rundir.List(dir)
	require.NoError(t, err)
	for _, args := range [][]string{
		{"run", "tiny", "--episodes", "2", "--charts=false", "--out", dir},
		{"compare", a, a, "--charts=false", "--out", dir},
		{"fit", "../../calibrate/testdata/multiagent.otlp.json", "--out", dir},
		{"replay", multiagentTraces, "--sessions", "1", "--charts=false", "--out", dir},
	} {
		_, stderr, code := simulate(t, args...)
		assert.Equal(t, exitFail, code, "%v", args)
		assert.Contains(t, stderr, "simulate "+args[0]+": "+dir+" holds files but no complete run (no manifest.json): b, c, charts and 2 more; use --force to write into it anyway", "%v", args)
		after, err := rundir.List(dir)
		require.NoError(t, err)
		assert.Equal(t, before, after, "%v leaves the directory as it was", args)
	}
	// Work that resumes in its directory (a training, a sweep, a merge)
	// refuses it too, unless what is there bears the names it writes.
	sw := filepath.Join(root, "sweep")
	mustSimulate(t, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", sw)
	for _, tc := range []struct {
		args           []string
		identity, flag string
	}{
		{[]string{"train", "tiny", "--set", "train.iterations=2", "--seeds", "1", "--charts=false", "--out", dir}, "train.json", "--force"},
		{[]string{"sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", dir}, "sweep.json", "--fresh"},
		{[]string{"merge", sw, "--charts=false", "--out", dir}, "sweep.json", "--fresh"},
	} {
		_, stderr, code := simulate(t, tc.args...)
		assert.Equal(t, exitFail, code, "%v", tc.args)
		// summary.csv is a file of a name the work writes: its own; the
		// folder charts/, with the user's chart in it, is not.
		assert.Contains(t, stderr, "simulate "+tc.args[0]+": "+dir+" holds files but no "+tc.identity+": b, c, charts and 1 more; use "+tc.flag+" to write into it anyway", "%v", tc.args)
		after, err := rundir.List(dir)
		require.NoError(t, err)
		assert.Equal(t, before, after, "%v leaves the directory as it was", tc.args)
	}
	mustSimulate(t, "run", "tiny", "--episodes", "2", "--charts=false", "--force", "--out", dir)
	assert.FileExists(t, filepath.Join(dir, "manifest.json"))
	notes, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(notes), "a file the run does not write stays")

	hidden := filepath.Join(root, "hidden")
	require.NoError(t, os.MkdirAll(filepath.Join(hidden, "empty"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hidden, ".DS_Store"), nil, 0o644))
	mustSimulate(t, "run", "tiny", "--episodes", "2", "--charts=false", "--out", hidden)
	for _, args := range [][]string{
		{"sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false"},
		{"train", "tiny", "--set", "train.iterations=2", "--seeds", "1", "--charts=false"},
	} {
		hidden := filepath.Join(root, "hidden-"+args[0])
		require.NoError(t, os.MkdirAll(filepath.Join(hidden, "empty"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(hidden, ".DS_Store"), nil, 0o644))
		mustSimulate(t, append(args, "--out", hidden)...)
	}

}

// TestForcedRerunThatFailsKeepsTheOldResult: a forced rerun over a
// complete result that fails after it began writing (an event limit, a
// file in the way of its charts) leaves the old result as it was, byte
// for byte, its page included, and nothing set aside; a forced rerun
// that succeeds then leaves only its own.
func TestForcedRerunThatFailsKeepsTheOldResult(t *testing.T) {
	training := []string{"train", "tiny", "--set", "train.iterations=3", "--seeds", "1", "--charts=false"}
	for _, tc := range []struct {
		name   string
		first  []string         // writes the old result
		rerun  []string         // with --force, succeeds
		fail   []string         // added to rerun, makes it fail
		before func(dir string) // makes rerun fail
		want   string           // in the rerun's error
	}{
		{"run, an event limit", []string{"run", "tiny", "--episodes", "2", "--format", "svg"}, []string{"run", "tiny", "--episodes", "3", "--format", "svg"}, []string{"--max-events", "1"}, nil, "event limit"},
		{"run, its charts folder a file", []string{"run", "tiny", "--episodes", "2", "--charts=false"}, []string{"run", "tiny", "--episodes", "3", "--format", "svg"}, nil, func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "charts"), []byte("in the way\n"), 0o644))
		}, "charts"},
		{"train, an event limit", training, training, []string{"--max-events", "50"}, nil, "event limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			mustSimulate(t, append(tc.first, "--out", dir)...)
			if tc.before != nil {
				tc.before(dir)
			}
			before := filetree.Snapshot(t, dir)
			require.Contains(t, before, htmlreport.Name)
			_, stderr, code := simulate(t, slices.Concat(tc.rerun, tc.fail, []string{"--force", "--out", dir})...)
			require.Equal(t, exitFail, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, before, filetree.Snapshot(t, dir), "the old result, byte for byte")
			_, err := rundir.Open(dir)
			require.NoError(t, err)

			if tc.before != nil {
				require.NoError(t, os.Remove(filepath.Join(dir, "charts")))
			}
			mustSimulate(t, slices.Concat(tc.rerun, []string{"--force", "--out", dir})...)
			m, err := rundir.ReadManifest(dir)
			require.NoError(t, err)
			for f := range filetree.Snapshot(t, dir) {
				assert.True(t, slices.Contains(m.Files, f) || f == rundir.ManifestName || f == htmlreport.Name || f == train.IdentityFile, "%s: a file the new result does not list", f)
			}
		})
	}
}

// TestArgumentCounts: a wrong number of arguments is counted in words
// that agree with it.
func TestArgumentCounts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a"}, "simulate compare: want two directories, got 1 argument\n"},
		{[]string{"compare"}, "simulate compare: want two directories, got 0 arguments\n"},
		{[]string{"plot", "a", "b"}, "simulate plot: want one directory, got 2 arguments\n"},
		{[]string{"run"}, "simulate run: want one scenario, got 0 arguments\n"},
	} {
		_, stderr, code := simulate(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.True(t, strings.HasPrefix(stderr, tc.want), "%v: %q", tc.args, stderr)
	}
}

func TestFlagMessages(t *testing.T) {
	_, stderr, code := simulate(t, "run", "tiny", "--seed", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "simulate run: --seed -1: want a whole number from 0 to 18446744073709551615 in decimal\n", "the value is named once")

	help := mustSimulate(t, "help", "train")
	assert.Contains(t, help, "train each variant for K seeds (default 3)")
	assert.Contains(t, help, "(default 8GiB)")
	assert.NotContains(t, help, "(default false)")

	assert.Equal(t, "1 directory", count(1, "directory", "directories"))
	assert.Equal(t, "0 directories", count(0, "directory", "directories"))
}

// TestHelpExamplesWork runs the validate example of the help text.
func TestHelpExamplesWork(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "library", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	require.Contains(t, cmdValidate.Examples, "simulate validate scenarios/library/*.yaml")
	out := mustSimulate(t, append([]string{"validate"}, files...)...)
	assert.Equal(t, len(files), strings.Count(out, "ok\t"))
}

// TestForceReplacesItsOwnKind: --force reruns a command into its own
// results, but does not replace another command's: a run over a
// comparison, or a comparison over a run.
func TestForceReplacesItsOwnKind(t *testing.T) {
	run, other := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "other")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", run)
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", other)
	cmp := filepath.Join(t.TempDir(), "cmp")
	mustSimulate(t, "compare", run, run, "--charts=false", "--out", cmp)

	for _, tc := range []struct {
		args []string
		dir  string
		kind rundir.Kind
	}{
		{[]string{"run", testScenario, "--episodes", "2"}, cmp, rundir.KindCompare},
		{[]string{"compare", run, run}, other, rundir.KindRun},
	} {
		_, stderr, code := simulate(t, append(tc.args, "--charts=false", "--force", "--out", tc.dir)...)
		assert.Equal(t, exitFail, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.dir+" holds the results of a "+string(tc.kind)+" (its manifest.json says so), which this command does not replace")
		assert.Equal(t, tc.kind, readManifest(t, tc.dir).Kind, "%s is left as it was", tc.dir)
	}
	mustSimulate(t, "compare", run, run, "--charts=false", "--force", "--out", cmp)
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--force", "--out", other)
}

// TestWrotePathQuoted: the path a command says it wrote is quoted where
// it holds a space, as a shell needs it typed; "wrote /tmp/out dir/x"
// read as two words.
func TestWrotePathQuoted(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out dir")
	for _, tc := range []struct {
		name, wrote string // wrote: the file named, below the --out of args
		args        []string
		report      bool
	}{
		{"run", "", []string{"run", "tiny", "--episodes", "2", "--charts=false"}, true},
		{"trace", "", []string{"trace", "tiny"}, false},
		{"fit", "scenario.yaml", []string{"fit", multiagentTraces}, true},
		{"replay", "replay.csv", []string{"replay", multiagentTraces, "--charts=false"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(root, tc.name)
			stdout := mustSimulate(t, append(tc.args, "--out", out)...)
			assert.Contains(t, stdout, "wrote '"+filepath.Join(out, tc.wrote)+"'\n")
			if tc.report {
				assert.Contains(t, stdout, "report: '"+filepath.Join(out, "report.html")+"' (open it in a browser)\n")
			}
		})
	}
}
