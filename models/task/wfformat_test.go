package task

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// wfDir returns the shared folder of real WfCommons instances, or skips.
func wfDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", "wfcommons")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real WfCommons instances not found at %s: %v", dir, err)
	}
	return dir
}

func TestRealWfCommons(t *testing.T) {
	dir := wfDir(t)
	// The figures are an independent parse's, with Python's json module:
	// the union of parents and children lists, the sum of
	// runtimeInSeconds, the longest path by runtime, and the levels by
	// longest path from a source (depth, and width the most tasks on one).
	tests := []struct {
		file           string
		tasks, edges   int
		work, critical float64 // seconds
		width, depth   int
	}{
		{"helloworld-chain-5-chameleon.json", 5, 4, 501.24, 501.24, 1, 5},
		{"helloworld-forkjoin-10-chameleon.json", 10, 16, 1028.704, 307.36, 8, 3},
		{"epigenomics-chameleon-hep-1seq-100k-001.json", 41, 48, 539.307, 104.822, 9, 9},
		{"1000genome-chameleon-2ch-100k-001.json", 52, 76, 2771.295, 204.686, 28, 3},
		{"montage-chameleon-2mass-005d-001.json", 58, 114, 221.726, 21.385, 18, 8},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g, err := Load(filepath.Join(dir, tt.file))
			require.NoError(t, err)
			assert.Equal(t, tt.tasks, g.Len())
			checkValid(t, g)
			for _, nd := range g.Nodes {
				assert.Positive(t, nd.Work, nd.Name)
			}
			length, path := g.CriticalPath()
			assert.Positive(t, length)
			assert.LessOrEqual(t, length, g.TotalWork())
			assert.NotEmpty(t, path)
			assert.Equal(t, tt.edges, g.Edges())
			assert.InDelta(t, tt.work, g.TotalWork().Seconds(), 1e-9)
			assert.InDelta(t, tt.critical, length.Seconds(), 1e-9)
			assert.Equal(t, tt.width, g.Width())
			assert.Equal(t, tt.depth, g.Depth())
			// Every edge of these files passes at least one file along.
			for v := range g.Len() {
				for _, k := range g.SuccTokens(ID(v)) {
					assert.Positive(t, k)
				}
			}
			// DOT export keeps everything.
			var buf bytes.Buffer
			require.NoError(t, WriteDOT(&buf, g))
			back, err := ReadDOT(&buf, "export.dot")
			require.NoError(t, err)
			assert.True(t, g.Equal(back))
		})
	}
}

func TestRealChainDetails(t *testing.T) {
	g, err := Load(filepath.Join(wfDir(t), "helloworld-chain-5-chameleon.json"))
	require.NoError(t, err)
	assert.Equal(t, "cpuhog_chain_00000001", g.Nodes[0].Name)
	assert.Equal(t, 100376*sim.Millisecond, g.Nodes[0].Work)
	assert.Equal(t, 4, g.Edges())
	assert.Equal(t, 5, g.Depth())
	// chain_00000001_output.txt has 16666667 bytes: ⌈16666667/4⌉ tokens.
	k, ok := g.EdgeTokens(0, 1)
	require.True(t, ok)
	assert.Equal(t, 4166667, k)
	assert.Equal(t, g.TotalWork(), func() sim.Time { l, _ := g.CriticalPath(); return l }())
}

func TestReadWfFormatFixtures(t *testing.T) {
	g, err := Load(filepath.Join("testdata", "wf15.json"))
	require.NoError(t, err)
	assert.Equal(t, []Node{
		{Name: "p", Work: 1500 * sim.Millisecond, OutputTokens: 5},
		{Name: "c1", Work: 0},
		{Name: "c2", Work: 250 * sim.Millisecond},
	}, g.Nodes)
	assert.Equal(t, []ID{1, 2}, g.Succ(0))
	assert.Equal(t, []int{5, 0}, g.SuccTokens(0), "shared files x, y (17 bytes); none with c2")

	g, err = Load(filepath.Join("testdata", "wf14.json"))
	require.NoError(t, err)
	var names []string
	for _, nd := range g.Nodes {
		names = append(names, nd.Name)
	}
	assert.Equal(t, []string{"ID01", "ID02", "ID03", "ID04"}, names)
	assert.Equal(t, 111, g.Nodes[0].OutputTokens)
	assert.Equal(t, 2500*sim.Millisecond, g.Nodes[0].Work)
	assert.Equal(t, 4, g.Edges(), "parents and children by id or name, deduplicated")
	assert.Equal(t, []int{100, 11}, g.SuccTokens(0))
	assert.Equal(t, []int{2, 0}, g.PredTokens(3))
}

// TestReadWfFormatRangeEnds reads sizes at the top of their documented
// ranges, all of which must be accepted: a file of exactly 1e18 bytes, and
// a task whose output file of 4·2⁴⁰ bytes makes exactly MaxTokens tokens,
// both as the task's OutputTokens and along the edge to the task that
// reads it. The 1e18-byte file is read by the child but made by no task, so
// it adds to neither.
func TestReadWfFormatRangeEnds(t *testing.T) {
	src := `{"schemaVersion": "1.5", "workflow": {
  "specification": {
    "tasks": [
      {"id": "p", "children": ["c"], "outputFiles": ["big"]},
      {"id": "c", "parents": ["p"], "inputFiles": ["big", "huge"]}
    ],
    "files": [{"id": "big", "sizeInBytes": 4398046511104}, {"id": "huge", "sizeInBytes": 1e18}]
  },
  "execution": {"tasks": [{"id": "p", "runtimeInSeconds": 1}, {"id": "c", "runtimeInSeconds": 2}]}
}}`
	g, err := ReadWfFormat(strings.NewReader(src), "ends.json")
	require.NoError(t, err)
	assert.Equal(t, []Node{
		{Name: "p", Work: sim.Second, OutputTokens: MaxTokens},
		{Name: "c", Work: 2 * sim.Second},
	}, g.Nodes)
	k, ok := g.EdgeTokens(0, 1)
	require.True(t, ok)
	assert.Equal(t, MaxTokens, k)
}

func TestReadWfFormatErrors(t *testing.T) {
	spec := func(tasks, files, exec string) string {
		return `{"schemaVersion": "1.5", "workflow": {"specification": {"tasks": [` + tasks + `], "files": [` + files +
			`]}, "execution": {"tasks": [` + exec + `]}}}`
	}
	task := func(id, parents, children, in, out string) string {
		return `{"id": "` + id + `", "parents": [` + parents + `], "children": [` + children + `], "inputFiles": [` + in + `], "outputFiles": [` + out + `]}`
	}
	run := func(id string, rt string) string { return `{"id": "` + id + `", "runtimeInSeconds": ` + rt + `}` }
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "{\n  \"workflow\": {\n    \"tasks\": [,]\n  }\n}", "w.json:3:15: invalid JSON"},
		{"truncated", `{"workflow": {`, "w.json:1:15: invalid JSON: unexpected end of JSON input"},
		{"wrong type", "{\"workflow\": {\"specification\": {\"tasks\": [{\"id\": 5}]}}}", `w.json:1:50: workflow.specification.tasks.id: want a string, found number`},
		{"wrong runtime type", spec(task("a", "", "", "", ""), "", `{"id": "a", "runtimeInSeconds": "1"}`), `workflow.execution.tasks.runtimeInSeconds: want a number, found string`},
		{"top level", `[1, 2]`, "w.json:1:1: top level: want an object, found array"},
		{"no workflow", `{"name": "x"}`, "w.json: workflow: missing"},
		{"no tasks", `{"workflow": {"makespanInSeconds": 3}}`, "w.json: workflow: neither specification.tasks (schema 1.5) nor tasks (schema 1.4)"},
		{"missing runtime", spec(task("a", "", "", "", ""), "", ""), `w.json:1:68: task "a": runtimeInSeconds: no entry in workflow.execution.tasks`},
		{"null runtime", spec(task("a", "", "", "", ""), "", `{"id": "a"}`), `w.json:1:68: task "a": workflow.execution.tasks[0].runtimeInSeconds: missing`},
		{"negative runtime", spec(task("a", "", "", "", ""), "", run("a", "-1")), `w.json:1:68: task "a": runtimeInSeconds: -1 is negative`},
		{"huge runtime", spec(task("a", "", "", "", ""), "", run("a", "1e300")), `w.json:1:68: task "a": runtimeInSeconds: 1e+300 is out of range [0, 9.223e+09] seconds (about 292 years, the longest a simulated time holds)`},
		{"extra execution task", spec(task("a", "", "", "", ""), "", run("a", "1")+","+run("b", "1")), `w.json: workflow.execution.tasks[1]: task "b" is not in workflow.specification.tasks`},
		{"duplicate execution task", spec(task("a", "", "", "", ""), "", run("a", "1")+","+run("a", "1")), `workflow.execution.tasks[1]: duplicate task id "a"`},
		{"missing id", spec(task("", "", "", "", ""), "", ""), `w.json: workflow.specification.tasks[0]: id: missing`},
		{"duplicate task", spec(task("a", "", "", "", "")+","+task("a", "", "", "", ""), "", run("a", "1")), `w.json:1:68: task "a": id: duplicate task id`},
		// A task's problems are placed at its id (here 1:68), so that a
		// missing dependency in a large file can be found.
		{"unknown parent", spec(task("a", `"zz"`, "", "", ""), "", run("a", "1")), `w.json:1:68: task "a": parents: unknown task "zz"`},
		{"unknown child", spec(task("a", "", `"zz"`, "", ""), "", run("a", "1")), `w.json:1:68: task "a": children: unknown task "zz"`},
		{"unknown parent on a later line", "{\"workflow\": {\"tasks\": [\n  {\"name\": \"a\", \"runtimeInSeconds\": 1},\n  {\"name\": \"b\", \"runtimeInSeconds\": 1, \"parents\": [\"zz\"]}\n]}}",
			`w.json:3:4: task "b": parents: unknown task "zz"`},
		{"self parent", spec(task("a", `"a"`, "", "", ""), "", run("a", "1")), `w.json:1:68: task "a": parents: task lists itself`},
		{"unknown file", spec(task("a", "", "", `"f"`, ""), "", run("a", "1")), `w.json:1:68: task "a": inputFiles: file "f" is not in workflow.specification.files`},
		{"unknown output file", spec(task("a", "", "", "", `"f"`), "", run("a", "1")), `w.json:1:68: task "a": outputFiles: file "f"`},
		{"file size missing", spec(task("a", "", "", "", ""), `{"id": "f"}`, run("a", "1")), `w.json: workflow.specification.files[0]: file "f": sizeInBytes: missing`},
		{"file size negative", spec(task("a", "", "", "", ""), `{"id": "f", "sizeInBytes": -4}`, run("a", "1")), `file "f": sizeInBytes: -4 not in [0, 1e18]`},
		{"duplicate file", spec(task("a", "", "", "", ""), `{"id": "f", "sizeInBytes": 4}, {"id": "f", "sizeInBytes": 4}`, run("a", "1")), `workflow.specification.files[1]: duplicate file id "f"`},
		{"too many tokens", spec(task("a", "", "", "", `"f", "g"`), `{"id": "f", "sizeInBytes": 9e17}, {"id": "g", "sizeInBytes": 9e17}`, run("a", "1")), `w.json:1:68: task "a": outputFiles: `},
		// A cycle is placed at the task whose parents or children close
		// it: here b's children, b's id at 1:151.
		{"cycle", spec(task("a", "", `"b"`, "", "")+","+task("b", "", `"a"`, "", ""), "", run("a", "1")+","+run("b", "2")), `w.json:1:151: task: cycle: "a" -> "b" -> "a"`},
		{"cycle on a later line", "{\"workflow\": {\"tasks\": [\n  {\"name\": \"a\", \"runtimeInSeconds\": 1, \"parents\": [\"c\"]},\n  {\"name\": \"b\", \"runtimeInSeconds\": 1, \"parents\": [\"a\"]},\n  {\"name\": \"c\", \"runtimeInSeconds\": 1, \"parents\": [\"b\"]}\n]}}",
			`w.json:2:4: task: cycle: "a" -> "b" -> "c" -> "a"`},
		{"1.4 missing runtime", `{"workflow": {"tasks": [{"name": "a"}]}}`, `w.json:1:26: task "a": runtimeInSeconds: missing`},
		{"1.4 no name", `{"workflow": {"tasks": [{"runtimeInSeconds": 1}]}}`, `w.json: workflow.tasks[0]: id and name: missing`},
		{"1.4 bad link", `{"workflow": {"tasks": [{"name": "a", "runtimeInSeconds": 1, "files": [{"link": "both", "name": "f", "sizeInBytes": 1}]}]}}`, `w.json:1:26: task "a": workflow.tasks[0].files[0].link: "both" is neither input nor output`},
		{"1.4 file size", `{"workflow": {"tasks": [{"name": "a", "runtimeInSeconds": 1, "files": [{"link": "input", "name": "f"}]}]}}`, `w.json: workflow.tasks[0].files[0]: file "f": sizeInBytes: missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadWfFormat(strings.NewReader(tt.src), "w.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func FuzzReadWfFormat(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "wf14.json"), filepath.Join("testdata", "wf15.json")} {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	if dir := filepath.Join("..", "..", "..", "shared", "data", "wfcommons"); dirExists(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "helloworld-forkjoin-10-chameleon.json"))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"workflow": {"tasks": [{"name": "a", "runtimeInSeconds": 1, "children": ["b"]}, {"name": "b", "runtimeInSeconds": 2}]}}`))
	f.Add([]byte(`{"workflow": {"specification": {"tasks": [{"id": "a", "children": ["a"]}]}}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := ReadWfFormat(bytes.NewReader(src), "fuzz.json")
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.json:"), "the error names the file: %v", err)
			return
		}
		checkValid(t, g)
		var buf bytes.Buffer
		require.NoError(t, WriteDOT(&buf, g))
		back, err := ReadDOT(&buf, "rewritten.dot")
		require.NoError(t, err, "%s", buf.String())
		require.True(t, g.Equal(back))
	})
}

func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
