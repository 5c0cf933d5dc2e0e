package scenarios_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// writeFiles writes name -> content under dir, making folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

const graphScenario = `
task: {shape: file, path: %s, work: 1m}
policy: {organization: split}
variants:
  - name: a
  - name: b
    set: {task.path: %s}
`

func TestPathsRelativeToTheScenario(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"exp/s.yaml":         sprintf(graphScenario, "g.dot", "graphs/h.dot"),
		"exp/g.dot":          "digraph { a -> b }",
		"exp/graphs/h.dot":   "digraph { a -> b -> c }",
		"elsewhere/cli.dot":  "digraph { x -> y }",
		"exp/graphs/bad.dot": "digraph {\n  a -> b\n  b -> a\n}\n",
	})
	source := filepath.Join(dir, "exp", "s.yaml")
	sc, err := scenarios.Load(source, nil)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "exp", "g.dot"), sc.Variants[0].Spec.Task.Path, "the file's path is relative to its folder")
	assert.Equal(t, filepath.Join(dir, "exp", "graphs", "h.dot"), sc.Variants[1].Spec.Task.Path, "so is a variant's set:")
	assert.Contains(t, string(sc.Resolved), "path: g.dot", "the resolved scenario keeps the path as written")
	require.NoError(t, sc.CheckFiles())

	// A --set path is typed at a shell: relative to the working directory.
	t.Chdir(filepath.Join(dir, "elsewhere"))
	sc, err = scenarios.Load(source, []string{"task.path=cli.dot"})
	require.NoError(t, err)
	got, err := filepath.EvalSymlinks(sc.Variants[0].Spec.Task.Path)
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(filepath.Join(dir, "elsewhere", "cli.dot"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Contains(t, string(sc.Resolved), "path: ../elsewhere/cli.dot", "and recorded relative to the scenario's folder")
	require.NoError(t, sc.CheckFiles())

	// The resolved scenario, saved beside the original, loads equal.
	again, err := scenarios.Parse(sc.Resolved, source, nil)
	require.NoError(t, err)
	assert.Equal(t, sc.Variants, again.Variants)
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":         sprintf(graphScenario, "bad.dot", "missing.dot"),
		"bad.dot":        "digraph {\n  a -> b\n  b -> c\n  c -> a\n}\n",
		"policy.yaml":    "task: {shape: chain, length: 2, work: 1m}\npolicy: {file: p.json}\n",
		"p.json":         `{"format": "nonsense"}`,
		"graph-ok.yaml":  sprintf(graphScenario, "ok.dot", "ok.dot"),
		"ok.dot":         "digraph { a -> b }",
		"not-read.yaml":  sprintf(graphScenario, "absent.dot", "absent.dot"),
		"unrelated.yaml": "task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n",
	})
	sc, err := scenarios.Load(filepath.Join(dir, "s.yaml"), nil)
	require.NoError(t, err, "Load does not read the graph")
	err = sc.CheckFiles()
	require.Error(t, err)
	// Each names the field that refers to the file, where it is written:
	// the base's line, or the variant's set:.
	assert.Contains(t, err.Error(), filepath.Join(dir, "bad.dot")+`:4:3: task: cycle: "a" -> "b" -> "c" -> "a" (the task.path of `+filepath.Join(dir, "s.yaml")+`:2:21 (variant "a"))`)
	assert.Contains(t, err.Error(), filepath.Join(dir, "missing.dot")+": no such file or directory (the task.path of "+filepath.Join(dir, "s.yaml")+`:7:11 (variant "b"))`)
	assert.Equal(t, err.Error(), sc.CheckTaskFiles().Error(), "and the graphs alike")

	sc, err = scenarios.Load(filepath.Join(dir, "policy.yaml"), nil)
	require.NoError(t, err)
	err = sc.CheckFiles()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "policy "+filepath.Join(dir, "p.json"))
	assert.Contains(t, err.Error(), "(the policy.file of "+filepath.Join(dir, "policy.yaml")+":2:10)")
	assert.NoError(t, sc.CheckTaskFiles(), "CheckTaskFiles reads the graphs only")

	// A file given with --set is placed at the flag.
	sc, err = scenarios.Load(filepath.Join(dir, "unrelated.yaml"), []string{"policy.file=" + filepath.Join(dir, "none.json")})
	require.NoError(t, err)
	assert.ErrorContains(t, sc.CheckFiles(), "(the policy.file of --set policy.file="+filepath.Join(dir, "none.json")+")")

	// A scenario built by hand, not loaded, has no places: its source.
	byHand := scenarios.Scenario{Source: "by-hand", Variants: sc.Variants}
	assert.ErrorContains(t, byHand.CheckFiles(), "(the policy.file of by-hand)")

	for _, name := range []string{"graph-ok.yaml", "unrelated.yaml"} {
		sc, err = scenarios.Load(filepath.Join(dir, name), nil)
		require.NoError(t, err)
		assert.NoError(t, sc.CheckFiles(), name)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// TestSetRebasesOnlyFilePaths: a --set value is rewritten relative to the
// scenario's folder only where the field names a file (task.path,
// policy.file), so that the spec opens it from the working directory as
// typed; other strings are stored as typed.
func TestSetRebasesOnlyFilePaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"exp/s.yaml": sprintf(graphScenario, "g.dot", "g.dot")})
	t.Chdir(dir)
	for _, tc := range []struct {
		set string
		got func(s *scenarios.Spec) string
	}{
		{"task.path=h.dot", func(s *scenarios.Spec) string { return s.Task.Path }},
		{"policy.file=p.json", func(s *scenarios.Spec) string { return s.Policy.File }},
		{"task.shape=file", func(s *scenarios.Spec) string { return s.Task.Shape }},
		{"policy.organization=team", func(s *scenarios.Spec) string { return s.Policy.Organization }},
	} {
		t.Run(tc.set, func(t *testing.T) {
			sc, err := scenarios.Load(filepath.Join("exp", "s.yaml"), []string{tc.set})
			require.NoError(t, err)
			_, typed, _ := strings.Cut(tc.set, "=")
			assert.Equal(t, typed, tc.got(&sc.Variants[0].Spec))
		})
	}
}

// TestFigureAt: each name of figures is placed where it was written, in
// the file or by the --set that gave the list; past the list, the source.
func TestFigureAt(t *testing.T) {
	const src = "task: {shape: chain, length: 2, work: 5m}\npolicy: {organization: split}\nfigures:\n  - finish_time\n  - success_rate\n"
	sc, err := scenarios.Parse([]byte(src), "f.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"f.yaml:4:5", "f.yaml:5:5", "f.yaml"}, []string{sc.FigureAt(0), sc.FigureAt(1), sc.FigureAt(2)})

	set := "figures=[agent_time, finish_time]"
	sc, err = scenarios.Parse([]byte(src), "f.yaml", []string{set})
	require.NoError(t, err)
	assert.Equal(t, "--set "+set, sc.FigureAt(1))
}

// TestMissingFileNamedAsEmbedded: a scenario file that does not exist but
// is named as an embedded scenario says how to name that one; another
// missing file gets the system's error alone.
func TestMissingFileNamedAsEmbedded(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "tiny.yaml")
	_, err := scenarios.Load(missing, nil)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, "open "+missing+`: no such file or directory; the embedded scenario tiny is named without a path or extension: "tiny"`, err.Error())

	other := filepath.Join(t.TempDir(), "mine.yml")
	_, err = scenarios.Load(other, nil)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, "open "+other+": no such file or directory", err.Error())
}

// TestUnknownScenarioSuggests: a mistyped embedded name gets the nearest
// embedded name, and a name near none gets no guess.
func TestUnknownScenarioSuggests(t *testing.T) {
	cases := []struct {
		name, want string
	}{
		{"orgnizations", `; did you mean "organizations"?`},
		{"tinny", `; did you mean "tiny"?`},
		{"no-such", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenarios.Load(c.name, nil)
			require.Error(t, err)
			assert.Equal(t, fmt.Sprintf("no scenario %q: not an embedded scenario (embedded: %s) and no such file", c.name, strings.Join(scenarios.Names(), ", "))+c.want, err.Error())
		})
	}
}

// TestInputDigest: the digest changes with the content of any file the
// specs read (graphs, policies, traces), and with nothing else: not with the
// working directory, not with a file beside the traces that replay does not
// read, not with a file that no spec names.
func TestInputDigest(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"exp/s.yaml":          sprintf(graphScenario, "g.dot", "graphs/h.dot"),
		"exp/g.dot":           "digraph { a -> b }",
		"exp/graphs/h.dot":    "digraph { a -> b -> c }",
		"exp/traces/a.json":   "{}",
		"exp/traces/b.jsonl":  "{}\n",
		"exp/traces/notes.md": "not read",
		"exp/unused.dot":      "digraph { x -> y }",
		"policy.yaml":         "task: {shape: chain, length: 2, work: 1m}\npolicy: {file: p.json}\n",
		"p.json":              "{}",
	})
	source := filepath.Join(dir, "exp", "s.yaml")
	digest := func(sets ...string) string {
		t.Helper()
		sc, err := scenarios.Load(source, sets)
		require.NoError(t, err)
		specs := []*scenarios.Spec{&sc.Variants[0].Spec, &sc.Variants[1].Spec}
		d, err := sc.InputDigest(specs...)
		require.NoError(t, err)
		return d
	}
	withTraces := "replay.traces=[" + filepath.Join(dir, "exp", "traces") + "]"
	graphs, traces := digest(), digest(withTraces)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, graphs)
	assert.NotEqual(t, graphs, traces, "the traces count")
	for _, wd := range []string{dir, filepath.Join(dir, "exp"), filepath.Join(dir, "exp", "graphs")} {
		t.Chdir(wd)
		rel, err := filepath.Rel(wd, source)
		require.NoError(t, err)
		sc, err := scenarios.Load(rel, nil)
		require.NoError(t, err)
		d, err := sc.InputDigest(&sc.Variants[0].Spec, &sc.Variants[1].Spec)
		require.NoError(t, err)
		assert.Equal(t, graphs, d, "the scenario loaded as %s from %s", rel, wd)
	}

	for _, tc := range []struct {
		file, content string
		sets          []string
		changes       bool
	}{
		{"exp/g.dot", "digraph { a -> c }", nil, true},
		{"exp/graphs/h.dot", "digraph { c -> b -> a }", nil, true},
		{"exp/unused.dot", "digraph { y -> x }", nil, false},
		{"exp/traces/b.jsonl", "{}\n{}\n", []string{withTraces}, true},
		{"exp/traces/notes.md", "still not read", []string{withTraces}, false},
	} {
		before := digest(tc.sets...)
		path := filepath.Join(dir, filepath.FromSlash(tc.file))
		old, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
		if tc.changes {
			assert.NotEqual(t, before, digest(tc.sets...), "%s changed", tc.file)
		} else {
			assert.Equal(t, before, digest(tc.sets...), "%s is not read", tc.file)
		}
		require.NoError(t, os.WriteFile(path, old, 0o644))
	}

	// Two graphs that trade contents are not the same inputs.
	writeFiles(t, dir, map[string]string{"exp/g.dot": "digraph { a -> b -> c }", "exp/graphs/h.dot": "digraph { a -> b }"})
	assert.NotEqual(t, graphs, digest())

	// A policy file counts; a spec that reads no file has none.
	sc, err := scenarios.Load(filepath.Join(dir, "policy.yaml"), nil)
	require.NoError(t, err)
	d, err := sc.InputDigest(&sc.Variants[0].Spec)
	require.NoError(t, err)
	assert.NotEmpty(t, d)
	sc, err = scenarios.Load("tiny", nil)
	require.NoError(t, err)
	d, err = sc.InputDigest(&sc.Variants[0].Spec)
	require.NoError(t, err)
	assert.Empty(t, d, "a library scenario reads no file")

	// A file that cannot be read is named with its field.
	require.NoError(t, os.Remove(filepath.Join(dir, "exp", "g.dot")))
	sc, err = scenarios.Load(source, nil)
	require.NoError(t, err)
	_, err = sc.InputDigest(&sc.Variants[0].Spec)
	assert.ErrorContains(t, err, "the task.path: open "+filepath.Join(dir, "exp", "g.dot"))
}

// TestCheckTraces: a path of replay.traces that names nothing is refused
// with its index and where it was written (FILE:LINE:COL, or the --set
// that wrote it); paths that all name something pass.
func TestCheckTraces(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "traces"), 0o755))
	source := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(source, []byte(`task: {shape: chain, length: 1, work: 1m}
policy: {organization: independent}
replay:
  traces: [traces, no-such-traces]
`), 0o644))
	// A --set's paths are the command line's: relative to the working
	// directory.
	traces := filepath.Join(dir, "traces")
	set := "replay.traces=[" + traces + ", " + filepath.Join(dir, "gone") + "]"
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" for none
	}{
		{"in the file", nil, "replay.traces[1] of " + source + ":4:20)"}, // the second path
		{"set", []string{set}, "replay.traces[1] of --set " + set + ")"},
		{"all there", []string{"replay.traces=[" + traces + "]"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.Load(source, tc.sets)
			require.NoError(t, err)
			err = sc.CheckTraces()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, fs.ErrNotExist)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
