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

func TestReadDOTPipeline(t *testing.T) {
	g, err := Load(filepath.Join("testdata", "pipeline.dot"))
	require.NoError(t, err)
	names := make([]string, g.Len())
	for i, nd := range g.Nodes {
		names[i] = nd.Name
	}
	assert.Equal(t, []string{"plan", "search A", "merge", "search B", "search C", "check"}, names, "order of first mention")

	want := []Node{
		{Name: "plan", Work: 2 * sim.Minute, Difficulty: 0.1, OutputTokens: 300},
		{Name: "search A", Work: 90 * sim.Second, OutputTokens: 300},
		{Name: "merge", Work: 30 * sim.Second, OutputTokens: 300, Coupling: 0.9},
		{Name: "search B", Work: 90 * sim.Second, OutputTokens: 300},
		{Name: "search C", Work: 45500 * sim.Millisecond, OutputTokens: 300, Loop: 3},
		{Name: "check", OutputTokens: 300},
	}
	assert.Equal(t, want, g.Nodes)
	assert.Equal(t, 7, g.Edges())
	tok := func(a, b string) int {
		u, _ := g.Lookup(a)
		v, _ := g.Lookup(b)
		k, ok := g.EdgeTokens(u, v)
		require.True(t, ok, "%s -> %s", a, b)
		return k
	}
	assert.Equal(t, 50, tok("plan", "search A"))
	assert.Equal(t, 0, tok("search B", "merge"), "tokens=0 carries nothing")
	assert.Equal(t, 0, tok("plan", "search B"))
	assert.Equal(t, 50, tok("plan", "search C"))
	assert.Equal(t, 50, tok("merge", "check"), "edge defaults apply to all later edges")
	length, path := g.CriticalPath()
	assert.Equal(t, (120+90+30)*sim.Second, length)
	assert.Equal(t, []ID{0, 1, 2}, path, "ties (check has no work) go to the smallest ID")
	assert.Equal(t, 3, g.Width())
}

func TestReadDOTForms(t *testing.T) {
	tests := []struct {
		name, src string
		nodes     []string
		edges     int
	}{
		{"empty", `digraph {}`, nil, 0},
		{"named, semicolons", `digraph G { a; b; a -> b; }`, []string{"a", "b"}, 1},
		{"keywords any case", `DiGraph { Node [work=1] a -> b }`, []string{"a", "b"}, 1},
		{"numerals", `digraph { 1 -> 2 -> -3.5 }`, []string{"1", "2", "-3.5"}, 2},
		// DOT numerals are [-]?(.[0-9]+ | [0-9]+(.[0-9]*)?): a minus may
		// precede any digit, 0 and 9 included, or a point.
		{"negative numerals", `digraph { -0 -> -9 -> -.5 }`, []string{"-0", "-9", "-.5"}, 2},
		{"escapes", `digraph { "say \"hi\"" -> "back\\slash" -> "a\
b" }`, []string{`say "hi"`, `back\slash`, "ab"}, 2},
		// Graphviz joins a quoted string across a backslash-newline, and a
		// file written on Windows ends that line with CR LF.
		{"concatenation of three", `digraph { "a" + "b" + "c" }`, []string{"abc"}, 0},
		{"crlf continuation", "digraph { \"a\\\r\nb\" }", []string{"ab"}, 0},
		{"concatenation", `digraph { "ab" + "cd" -> x }`, []string{"abcd", "x"}, 1},
		{"html", `digraph { <b<i>x</i>> -> y }`, []string{"b<i>x</i>", "y"}, 1},
		{"utf-8", `digraph { größe -> 大 }`, []string{"größe", "大"}, 1},
		// The ends of each identifier byte range: z, A, Z, and the
		// continuation byte 0x80 of À (C3 80); any byte ≥ 0x80 belongs to an ID.
		{"id byte range ends", `digraph { z -> A -> Z -> À }`, []string{"z", "A", "Z", "À"}, 3},
		{"strict merges", `strict digraph { a -> b [tokens=3]; a -> b [tokens=5] }`, []string{"a", "b"}, 1},
		{"comments", "digraph { // c\n a /* b -> c */ -> d\n# x -> y\n }", []string{"a", "d"}, 1},
		// A comment may end the file without a final newline.
		{"# comment at end", "digraph { a }\n# end", []string{"a"}, 0},
		{"// comment at end", "digraph { a } // end", []string{"a"}, 0},
		{"attr separators", `digraph { a [work=1; difficulty=0.5, loop=2] [join=any] }`, []string{"a"}, 0},
		{"graph attributes", `digraph { rankdir=LR; graph [label="x"] a }`, []string{"a"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ReadDOT(strings.NewReader(tt.src), "test.dot")
			require.NoError(t, err)
			var names []string
			for _, nd := range g.Nodes {
				names = append(names, nd.Name)
			}
			assert.Equal(t, tt.nodes, names)
			assert.Equal(t, tt.edges, g.Edges())
		})
	}

	g, err := ReadDOT(strings.NewReader(`strict digraph { a -> b [tokens=3]; a -> b [tokens=5] }`), "s.dot")
	require.NoError(t, err)
	k, _ := g.EdgeTokens(0, 1)
	assert.Equal(t, 5, k, "later attributes override")

	g, err = ReadDOT(strings.NewReader(`digraph { a [work=1; difficulty=0.5, loop=2] [join=any] }`), "a.dot")
	require.NoError(t, err)
	assert.Equal(t, Node{Name: "a", Work: sim.Second, Difficulty: 0.5, Loop: 2, Join: JoinAny}, g.Nodes[0])
}

func TestReadDOTErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"undirected", "graph { a -- b }", "g.dot:1:1: undirected graphs are not supported (use digraph)"},
		{"strict undirected", "strict graph { }", "g.dot:1:8: undirected"},
		{"not a graph", "hello", "g.dot:1:1: expected digraph, found 'hello'"},
		{"undirected edge", "digraph {\n  a -- b\n}", "g.dot:2:5: undirected edge '--' in a digraph"},
		{"undirected edge in chain", "digraph { a -> b -- c }", "g.dot:1:18: undirected edge"},
		{"subgraph", "digraph {\n subgraph cluster0 { a } }", "g.dot:2:2: subgraphs are not supported"},
		{"anonymous subgraph", "digraph { a -> { b c } }", "g.dot:1:16: subgraphs are not supported"},
		{"group", "digraph { { a b } -> c }", "g.dot:1:11: subgraphs are not supported"},
		{"port", "digraph { a:n -> b }", "g.dot:1:12: ports (node:port) are not supported"},
		{"missing brace", "digraph { a -> b", "g.dot:1:17: unexpected end of input: missing '}'"},
		{"missing open", "digraph a b", "g.dot:1:11: expected '{', found 'b'"},
		{"trailing", "digraph {} digraph {}", "g.dot:1:12: unexpected 'digraph' after the end of the graph"},
		{"unterminated string", "digraph {\n \"abc }", "g.dot:2:2: unterminated quoted string"},
		{"unterminated comment", "digraph { /* a", "g.dot:1:11: unterminated /* comment"},
		// A '*' or '/' as the last byte makes the lexer look one byte past
		// the end, which must read as "nothing", not panic.
		{"unterminated comment ending in star", "digraph { /* a *", "g.dot:1:11: unterminated /* comment"},
		{"slash at end", "digraph { a /", "g.dot:1:13: unexpected character '/'"},
		{"unterminated html", "digraph { <a ", "g.dot:1:11: unterminated <HTML> string"},
		{"bad char", "digraph { a -> b; @ }", "g.dot:1:19: unexpected character '@'"},
		{"hash mid-line", "digraph { a # b\n }", "g.dot:1:13: unexpected character '#'"},
		{"missing edge target", "digraph { a -> ; }", "g.dot:1:16: expected a node after '->', found ';'"},
		{"keyword as node", "digraph { a -> node }", "g.dot:1:16: expected a node after '->', found 'node'"},
		{"attr without value", "digraph { a [work] }", "g.dot:1:18: expected '=' after attribute \"work\", found ']'"},
		{"attr missing value", "digraph { a [work=] }", "g.dot:1:19: expected a value for attribute \"work\""},
		{"node defaults no list", "digraph { node a }", "g.dot:1:16: expected '[' after node"},
		{"bad work", "digraph {\n a [work=soon] }", `g.dot:2:10: node "a": work: "soon" is not a duration`},
		{"negative work", "digraph { a [work=-5] }", `g.dot:1:19: node "a": work: "-5" is negative`},
		{"work beyond a simulated time", "digraph { node [work=1e30]; a }", `g.dot:1:22: node defaults: work: "1e30" is out of range [0, 9.223e+09] seconds (about 292 years, the longest a simulated time holds)`},
		{"negative duration", `digraph { a [work="-5s"] }`, `node "a": work: "-5s" is negative`},
		{"bad difficulty", "digraph { a [difficulty=1] }", `g.dot:1:25: node "a": difficulty: "1" is not a number in [0, 1)`},
		{"bad coupling", "digraph { a [coupling=x] }", `node "a": coupling: "x" is not a number in [0, 1]`},
		{"bad tokens", "digraph { a [tokens=1.5] }", `node "a": tokens: "1.5" is not an integer`},
		{"bad loop", "digraph { a [loop=-1] }", `node "a": loop: "-1" is not an integer`},
		{"bad join", "digraph { a [join=some] }", `node "a": join: unknown join "some" (allowed: all, any)`},
		{"bad default", "digraph { node [difficulty=2] }", `g.dot:1:28: node defaults: difficulty`},
		{"bad edge tokens", "digraph { a -> b [tokens=-1] }", `g.dot:1:26: edge: tokens: "-1" is not an integer`},
		{"bad edge default", "digraph { edge [tokens=x] }", `edge defaults: tokens`},
		{"self loop", "digraph { a -> b -> b }", `g.dot:1:21: self loop on "b"`},
		{"duplicate edge", "digraph { a -> b\n a -> b }", `g.dot:2:7: duplicate edge "a" -> "b" (a strict digraph merges duplicates)`},
		{"cycle", "digraph { a -> b -> c -> a }", `g.dot:1:21: task: cycle: "a" -> "b" -> "c" -> "a"`},
		{"cycle on a later line", "digraph {\n  a -> b\n  b -> c\n  c -> a\n}", `g.dot:4:3: task: cycle: "a" -> "b" -> "c" -> "a"`},
		{"plus without string", `digraph { "a" + b }`, `g.dot:1:17: expected a quoted string after '+'`},
		{"plus without string in graph attribute", `digraph { label = "a" + b }`, `g.dot:1:25: expected a quoted string after '+'`},
		{"empty input", "", "g.dot:1:1: expected digraph, found end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDOT(strings.NewReader(tt.src), "g.dot")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDOTRoundTrip(t *testing.T) {
	nodes := []Node{
		{Name: "plain"},
		{Name: `odd "name" \ with
newline`, Work: 1500 * sim.Millisecond, Difficulty: 1e-5, OutputTokens: 12, Coupling: 1, Loop: 3},
		{Name: "any", Work: sim.MaxTime, Difficulty: maxDifficulty, Join: JoinAny},
		{Name: "", Work: 1},
	}
	edges := []Edge{{From: 0, To: 2, Tokens: 5}, {From: 1, To: 2}, {From: 1, To: 3, Tokens: NoTokens}, {From: 0, To: 3}}
	g, err := New(nodes, edges)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteDOT(&buf, g))
	back, err := ReadDOT(&buf, "round.dot")
	require.NoError(t, err, buf.String())
	assert.True(t, g.Equal(back), "%s", buf.String())

	for _, fam := range []Family{
		{Shape: "layered", Width: 6, Depth: 5, EdgeProb: 0.4, Work: sim.Exponential(30), Difficulty: sim.Uniform(0, 1),
			OutputTokens: sim.Exponential(100), Coupling: sim.Uniform(0, 1), Loop: 2, LoopProb: 0.5},
		{Shape: "needle", Tries: 3, Work: sim.Exponential(30)},
	} {
		g, err := fam.Draw(newRand(5))
		require.NoError(t, err)
		buf.Reset()
		require.NoError(t, WriteDOT(&buf, g))
		back, err := ReadDOT(&buf, "round.dot")
		require.NoError(t, err)
		assert.True(t, g.Equal(back))
	}
}

func TestWriteDOTGolden(t *testing.T) {
	g, err := ReadDOT(strings.NewReader(`digraph { a [work=90, tokens=10] a -> b; a -> c [tokens=0]; b -> c [tokens=4] c [join=any] }`), "x.dot")
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteDOT(&buf, g))
	want := `digraph {
	"a" [work="1m30s", tokens="10"];
	"b";
	"c" [join="any"];
	"a" -> "b";
	"a" -> "c" [tokens="0"];
	"b" -> "c" [tokens="4"];
}
`
	assert.Equal(t, want, buf.String())
}

func TestLoadUnknownExtension(t *testing.T) {
	_, err := Load("graph.txt")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `graph.txt: unknown graph file extension ".txt" (allowed: .dot, .gv, .json)`)
}

// TestLoadNoTasks: a graph file without a task is refused where it is
// read, naming the file, in either format.
func TestLoadNoTasks(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"empty.dot":  "digraph G {\n}\n",
		"empty.json": `{"name": "w", "workflow": {"specification": {"tasks": [], "files": []}, "execution": {"makespanInSeconds": 0, "tasks": []}}}`,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		_, err := Load(path)
		assert.EqualError(t, err, path+": no tasks: a task graph needs at least one (a DOT node, or a WfFormat task)")
	}
}

// TestLoadFor checks that LoadFor refuses a file with a node that gives
// no work where the family draws none, naming the file, the node and the
// family's field, and a field of the family that every node gives itself,
// given but never used (task.work and task.output_tokens beside a WfFormat
// file, which gives every task's runtime and output files, were silently
// ignored); otherwise it reads the same graph as Load: a DOT node gives
// work by its own attribute or by a node default before its first
// mention, and every WfFormat task gives its runtime, even one of 0 s.
func TestLoadFor(t *testing.T) {
	dir := t.TempDir()
	given := filepath.Join(dir, "given.dot")
	require.NoError(t, os.WriteFile(given, []byte("digraph { a [work=0]; node [work=5]; a -> b }\n"), 0o600))
	loops := filepath.Join(dir, "loops.dot")
	require.NoError(t, os.WriteFile(loops, []byte("digraph { node [work=5, loop=2]; a -> b }\n"), 0o600))
	pipeline := filepath.Join("testdata", "pipeline.dot")
	wf := filepath.Join("testdata", "wf15.json")
	missing := filepath.Join(dir, "missing.dot")
	work := Family{Work: sim.MustParseDist("5m")}
	for _, tt := range []struct {
		name, path string
		f          Family
		want       string // "": reads as Load does
	}{
		{"DOT, every node gives work", given, Family{}, ""},
		{"WfFormat, every task gives work", wf, Family{}, ""},
		{"work drawn where a node gives none", pipeline, work, ""},
		{"a difficulty the nodes leave to it", wf, Family{Difficulty: sim.MustParseDist("0.2")}, ""},
		{"a node without work", pipeline, Family{}, pipeline + `: node "check" gives no work, and task.work is not given, so its subtask would take no time (give the node a work attribute, or task.work)`},
		{"work beside WfFormat", wf, work, wf + ": task.work: given but never used: every node of the file gives its work (a WfFormat task its runtimeInSeconds, a DOT node its work attribute)"},
		{"output tokens beside WfFormat", wf, Family{OutputTokens: sim.MustParseDist("300")}, wf + ": task.output_tokens: given but never used: every node of the file gives its output tokens"},
		{"work beside DOT that gives all", given, work, given + ": task.work: given but never used"},
		{"no loop beside DOT that gives every loop", loops, Family{}, ""},
		{"loop beside DOT that gives every loop", loops, Family{Loop: 3}, loops + ": task.loop: given but never used: every node of the file gives its loop attribute"},
		{"no file", missing, Family{}, missing},
		{"unknown extension", "graph.txt", Family{}, `graph.txt: unknown graph file extension ".txt"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadFor(tt.path, "task", &tt.f)
			if tt.want != "" {
				require.Error(t, err)
				assert.Nil(t, got)
				assert.Contains(t, err.Error(), tt.want)
				return
			}
			require.NoError(t, err)
			want, err := Load(tt.path)
			require.NoError(t, err)
			assert.True(t, want.Equal(got))
		})
	}
}

// TestLoadByteOrderMark: a graph file an editor began with a byte-order
// mark reads as without it, in either format.
func TestLoadByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"g.dot":  "digraph G {\n  a [work=\"1m\"];\n  b [work=\"2m\"];\n  a -> b;\n}\n",
		"g.json": `{"name": "w", "workflow": {"specification": {"tasks": [{"name": "a", "id": "a", "parents": [], "children": []}], "files": []}, "execution": {"makespanInSeconds": 1, "tasks": [{"id": "a", "runtimeInSeconds": 60}]}}}`,
	} {
		plain, marked := filepath.Join(dir, "plain-"+name), filepath.Join(dir, "marked-"+name)
		require.NoError(t, os.WriteFile(plain, []byte(text), 0o600))
		require.NoError(t, os.WriteFile(marked, []byte("\uFEFF"+text), 0o600))
		want, err := Load(plain)
		require.NoError(t, err, name)
		got, err := Load(marked)
		require.NoError(t, err, name)
		assert.Equal(t, want.Len(), got.Len(), name)
		assert.Equal(t, want.TotalWork(), got.TotalWork(), name)
	}
}

// checkValid asserts the invariants every successfully read graph has.
func checkValid(t *testing.T, g *Graph) {
	t.Helper()
	require.Len(t, g.Topo(), g.Len())
	at := make([]int, g.Len())
	for i, v := range g.Topo() {
		at[v] = i
	}
	for v := range g.Len() {
		nd := g.Nodes[v]
		require.NoError(t, checkNode(&nd))
		require.NotEmpty(t, nd.Name)
		for _, w := range g.Succ(ID(v)) {
			require.Less(t, at[v], at[w])
		}
	}
	length, _ := g.CriticalPath()
	require.LessOrEqual(t, length, g.TotalWork())
}

func FuzzReadDOT(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.dot"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(b))
	}
	for _, s := range []string{
		`digraph { a -> b -> c }`,
		`strict digraph G { node [work=1] "x" -> y [tokens=3]; y -> z; x -> z [tokens=0] }`,
		`digraph { a [join=any, coupling=0.5, loop=3, difficulty=0.99] b -> a; c -> a }`,
		"digraph { \"a\\\nb\" + \"c\" -> <x<y>> }",
		`digraph { a -> b; b -> a }`,
		"graph { a -- b }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ReadDOT(strings.NewReader(src), "fuzz.dot")
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.dot:"), "the error names the file: %v", err)
			return
		}
		checkValid(t, g)
		var buf bytes.Buffer
		require.NoError(t, WriteDOT(&buf, g))
		back, err := ReadDOT(&buf, "rewritten.dot")
		require.NoError(t, err, "%s", buf.String())
		require.True(t, g.Equal(back), "%s", buf.String())
	})
}

// TestReadDOTRangeEnds reads attributes at both ends of their documented
// ranges (difficulty [0, 1), coupling [0, 1], tokens [0, MaxTokens], loop
// [0, MaxLoop], work ≥ 0 as seconds or a duration), all of which must be accepted as written.
func TestReadDOTRangeEnds(t *testing.T) {
	src := `digraph {
  a [difficulty=0, coupling=0, tokens=0, loop=0]
  b [coupling=1, tokens=1099511627776, loop=1048576]
  a -> b [tokens=1099511627776]
  c [work=0]; d [work="0s"]
}`
	g, err := ReadDOT(strings.NewReader(src), "r.dot")
	require.NoError(t, err)
	assert.Equal(t, []Node{
		{Name: "a"},
		{Name: "b", Coupling: 1, OutputTokens: 1 << 40, Loop: 1 << 20},
		{Name: "c"}, {Name: "d"},
	}, g.Nodes)
	k, ok := g.EdgeTokens(0, 1)
	require.True(t, ok)
	assert.Equal(t, 1<<40, k)
}
