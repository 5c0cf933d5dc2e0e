package task

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// named returns nodes with the given names and Work of 1s each.
func named(names ...string) []Node {
	nodes := make([]Node, len(names))
	for i, n := range names {
		nodes[i] = Node{Name: n, Work: sim.Second}
	}
	return nodes
}

func TestNewRejects(t *testing.T) {
	abc := named("a", "b", "c")
	with := func(i int, mod func(*Node)) []Node {
		nodes := append([]Node(nil), abc...)
		mod(&nodes[i])
		return nodes
	}
	tests := []struct {
		name  string
		nodes []Node
		edges []Edge
		want  string
	}{
		{"duplicate name", named("a", "b", "a"), nil, `nodes 0 and 2 have the same name "a"`},
		{"generated name clash", []Node{{}, {Name: "t0"}}, nil, `same name "t0"`},
		{"negative work", with(1, func(n *Node) { n.Work = -1 }), nil, `node "b": work -1ns is negative`},
		{"difficulty 1", with(0, func(n *Node) { n.Difficulty = 1 }), nil, `node "a": difficulty 1 not in [0, 1)`},
		{"difficulty negative", with(0, func(n *Node) { n.Difficulty = -0.1 }), nil, `node "a": difficulty -0.1`},
		{"coupling", with(2, func(n *Node) { n.Coupling = 1.5 }), nil, `node "c": coupling 1.5 not in [0, 1]`},
		{"tokens", with(2, func(n *Node) { n.OutputTokens = -3 }), nil, `node "c": tokens -3`},
		{"loop", with(2, func(n *Node) { n.Loop = -1 }), nil, `node "c": loop -1`},
		{"join", with(2, func(n *Node) { n.Join = 7 }), nil, `node "c": join 7 unknown`},
		{"edge out of range", abc, []Edge{{From: 0, To: 3}}, `edge 0: 0 -> 3: node id out of range [0, 3)`},
		{"negative id", abc, []Edge{{From: -1, To: 1}}, `out of range`},
		// One past the last node, at either end of the edge.
		{"edge from out of range", abc, []Edge{{From: 3, To: 0}}, `edge 0: 3 -> 0: node id out of range [0, 3)`},
		{"self loop", abc, []Edge{{From: 1, To: 1}}, `edge "b" -> "b": self loop`},
		{"duplicate edge", abc, []Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 0, To: 1, Tokens: 4}}, `duplicate edge "a" -> "b"`},
		{"edge tokens", abc, []Edge{{From: 0, To: 1, Tokens: -2}}, `edge "a" -> "b": tokens -2 out of range`},
		{"two-cycle", abc, []Edge{{From: 0, To: 1}, {From: 1, To: 0}}, `cycle: "a" -> "b" -> "a"`},
		{"three-cycle", named("x", "a", "b", "c", "y"),
			[]Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 3}, {From: 3, To: 1}, {From: 3, To: 4}},
			`cycle: "a" -> "b" -> "c" -> "a"`},
		{"cycle reached late", named("s", "c", "b", "a"),
			[]Edge{{From: 0, To: 3}, {From: 3, To: 2}, {From: 2, To: 1}, {From: 1, To: 3}},
			`cycle: "c" -> "a" -> "b" -> "c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.nodes, tt.edges)
			require.Error(t, err)
			assert.Nil(t, g)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestLongCycleIsAbbreviated(t *testing.T) {
	const n = 50
	nodes := make([]Node, n)
	edges := make([]Edge, n)
	for i := range n {
		edges[i] = Edge{From: ID(i), To: ID((i + 1) % n)}
	}
	_, err := New(nodes, edges)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cycle: "t0" -> "t1" -> `)
	assert.Contains(t, err.Error(), "(50 nodes in all)")
}

// TestCycleAtShownLimitIsWhole checks that a cycle of 20 nodes, the most
// the message shows, is listed whole and closed back to its first node.
func TestCycleAtShownLimitIsWhole(t *testing.T) {
	const n = 20
	nodes := make([]Node, n)
	edges := make([]Edge, n)
	var want strings.Builder
	want.WriteString("task: cycle: ")
	for i := range n {
		edges[i] = Edge{From: ID(i), To: ID((i + 1) % n)}
		fmt.Fprintf(&want, "%q -> ", fmt.Sprintf("t%d", i))
	}
	want.WriteString(`"t0"`)
	_, err := New(nodes, edges)
	require.Error(t, err)
	assert.Equal(t, want.String(), err.Error())
}

func TestGraphBasics(t *testing.T) {
	// a -> c, b -> c, c -> d, a -> d; e alone.
	nodes := named("a", "b", "c", "d", "e")
	nodes[0].OutputTokens = 10
	nodes[2].Work = 5 * sim.Second
	edges := []Edge{{From: 2, To: 3, Tokens: NoTokens}, {From: 1, To: 2, Tokens: 7}, {From: 0, To: 3}, {From: 0, To: 2}}
	g, err := New(nodes, edges)
	require.NoError(t, err)

	assert.Equal(t, 5, g.Len())
	assert.Equal(t, 4, g.Edges())
	assert.Equal(t, []ID{2, 3}, g.Succ(0))
	assert.Equal(t, []int{10, 10}, g.SuccTokens(0))
	assert.Equal(t, []ID{0, 1}, g.Pred(2))
	assert.Equal(t, []int{10, 7}, g.PredTokens(2))
	assert.Equal(t, []ID{0, 2}, g.Pred(3))
	assert.Equal(t, []int{10, 0}, g.PredTokens(3))
	assert.Empty(t, g.Succ(4))

	tok, ok := g.EdgeTokens(1, 2)
	assert.True(t, ok)
	assert.Equal(t, 7, tok)
	tok, ok = g.EdgeTokens(2, 3)
	assert.True(t, ok)
	assert.Equal(t, 0, tok)
	_, ok = g.EdgeTokens(3, 2)
	assert.False(t, ok)

	assert.Equal(t, []ID{0, 1, 2, 3, 4}, g.Topo())
	assert.Equal(t, []ID{0, 1, 4}, g.Sources())
	assert.Equal(t, []ID{3, 4}, g.Sinks())
	assert.Equal(t, 9*sim.Second, g.TotalWork())
	length, path := g.CriticalPath()
	assert.Equal(t, 7*sim.Second, length)
	assert.Equal(t, []ID{0, 2, 3}, path, "ties go to the smallest ID")
	assert.Equal(t, 3, g.Depth())
	assert.Equal(t, 3, g.Width()) // a, b, e on level 0
	assert.Equal(t, 2, g.Level(3))

	id, ok := g.Lookup("d")
	assert.True(t, ok)
	assert.Equal(t, ID(3), id)
	id, ok = g.Lookup("zz")
	assert.False(t, ok)
	assert.Equal(t, ID(-1), id, "a missing name gives no valid ID")

	// Returned slices cannot grow into the graph's storage.
	s := g.Succ(0)
	_ = append(s, 99)
	assert.Equal(t, []ID{0, 2}, g.Pred(3))

	// New copies its input.
	nodes[0].Name = "changed"
	assert.Equal(t, "a", g.Nodes[0].Name)
}

func TestTopoSmallestFirst(t *testing.T) {
	// 3 -> 0, 2 -> 1: Kahn with smallest ID first gives 2, 1, 3, 0.
	g, err := New(make([]Node, 4), []Edge{{From: 3, To: 0}, {From: 2, To: 1}})
	require.NoError(t, err)
	assert.Equal(t, []ID{2, 1, 3, 0}, g.Topo())
	assert.Equal(t, "t3", g.Nodes[3].Name)
}

func TestZeroAndEmptyGraph(t *testing.T) {
	var zero Graph
	empty, err := New(nil, nil)
	require.NoError(t, err)
	for _, g := range []*Graph{&zero, empty} {
		assert.Equal(t, 0, g.Len())
		assert.Equal(t, 0, g.Edges())
		assert.Empty(t, g.Topo())
		assert.Empty(t, g.Sources())
		assert.Empty(t, g.Sinks())
		assert.Equal(t, sim.Time(0), g.TotalWork())
		length, path := g.CriticalPath()
		assert.Equal(t, sim.Time(0), length)
		assert.Nil(t, path)
		assert.Equal(t, 0, g.Width())
		assert.Equal(t, 0, g.Depth())
	}
	assert.True(t, zero.Equal(empty))
	assert.True(t, empty.Equal(&zero))
}

func TestSaturation(t *testing.T) {
	nodes := []Node{{Work: sim.MaxTime}, {Work: sim.MaxTime}}
	g, err := New(nodes, []Edge{{From: 0, To: 1}})
	require.NoError(t, err)
	assert.Equal(t, sim.MaxTime, g.TotalWork())
	length, _ := g.CriticalPath()
	assert.Equal(t, sim.MaxTime, length)
}

// randomDAG returns a DAG on n nodes with edges i -> j (i < j) drawn with
// probability p, with node IDs shuffled so that ID order is not topological.
func randomDAG(r *rand.Rand, n int, p float64) ([]Node, []Edge) {
	perm := r.Perm(n)
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i].Work = sim.Time(r.IntN(10)) * sim.Second
	}
	var edges []Edge
	for i := range n {
		for j := i + 1; j < n; j++ {
			if r.Float64() < p {
				edges = append(edges, Edge{From: ID(perm[i]), To: ID(perm[j])})
			}
		}
	}
	return nodes, edges
}

// bruteLongest enumerates every path from every node.
func bruteLongest(g *Graph) sim.Time {
	var best sim.Time
	var walk func(v ID, acc sim.Time)
	walk = func(v ID, acc sim.Time) {
		acc += g.Nodes[v].Work
		best = max(best, acc)
		for _, w := range g.Succ(v) {
			walk(w, acc)
		}
	}
	for v := range g.Len() {
		walk(ID(v), 0)
	}
	return best
}

func TestCriticalPathMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + r.IntN(10)
		nodes, edges := randomDAG(r, n, r.Float64())
		g, err := New(nodes, edges)
		require.NoError(t, err)
		length, path := g.CriticalPath()
		require.Equal(t, bruteLongest(g), length, "trial %d", trial)

		// The path is a path, and its work is the length.
		var sum sim.Time
		for i, v := range path {
			sum += g.Nodes[v].Work
			if i > 0 {
				_, ok := g.EdgeTokens(path[i-1], v)
				require.True(t, ok, "trial %d: %v is not a path", trial, path)
			}
		}
		require.Equal(t, length, sum)
		require.LessOrEqual(t, length, g.TotalWork())

		// Topo is a topological order; levels are longest hop counts.
		at := make([]int, n)
		for i, v := range g.Topo() {
			at[v] = i
		}
		for v := range n {
			for _, w := range g.Succ(ID(v)) {
				require.Less(t, at[v], at[w])
				require.Less(t, g.Level(ID(v)), g.Level(w))
			}
			if len(g.Pred(ID(v))) > 0 {
				lv := 0
				for _, p := range g.Pred(ID(v)) {
					lv = max(lv, g.Level(p)+1)
				}
				require.Equal(t, lv, g.Level(ID(v)))
			}
		}
	}
}

func TestCycleDetectionRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := 2 + r.IntN(8)
		nodes, edges := randomDAG(r, n, 0.5)
		if len(edges) == 0 {
			continue
		}
		// Reverse the end of a path of length ≥ 1 to close a cycle.
		g, err := New(nodes, edges)
		require.NoError(t, err)
		_, path := g.CriticalPath()
		if len(path) < 2 {
			e := edges[0]
			path = []ID{e.From, e.To}
		}
		back := Edge{From: path[len(path)-1], To: path[0]}
		if _, dup := g.EdgeTokens(back.From, back.To); dup {
			continue
		}
		_, err = New(nodes, append(edges, back))
		require.Error(t, err)
		require.Contains(t, err.Error(), "cycle: ")
	}
}

func TestJoinKindText(t *testing.T) {
	for _, k := range []JoinKind{JoinAll, JoinAny} {
		b, err := k.MarshalText()
		require.NoError(t, err)
		var back JoinKind
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, k, back)
	}
	var k JoinKind
	err := k.UnmarshalText([]byte("some"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown join "some" (allowed: all, any)`)
	_, err = JoinKind(9).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "JoinKind(9)", JoinKind(9).String())
}

// FuzzJoinKindText reads any text as a join. Every join MarshalText names
// reads back as itself, and those names are all UnmarshalText accepts,
// byte for byte. Anything else is rejected with the value left as it was
// and an error that quotes the text and lists every name, so that a graph
// file's author sees what to write instead, even once a join is added.
func FuzzJoinKindText(f *testing.F) {
	var names []string
	for n := range math.MaxUint8 + 1 {
		k := JoinKind(n)
		text, err := k.MarshalText()
		if err != nil {
			continue
		}
		var back JoinKind
		require.NoError(f, back.UnmarshalText(text), "%d", n)
		require.Equal(f, k, back, "%q", text)
		require.Equal(f, string(text), k.String())
		names = append(names, string(text))
	}
	require.Equal(f, []string{"all", "any"}, names)
	for _, s := range []string{"all", "any", "ALL", "any ", "some", "", "JoinKind(2)", "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const sentinel = JoinKind(math.MaxUint8)
		k := sentinel
		err := k.UnmarshalText(b)
		if err != nil {
			require.NotContains(t, names, string(b), "a join's own name is rejected")
			require.Equal(t, sentinel, k, "%q: a failed UnmarshalText changed the value", b)
			require.ErrorContains(t, err, strconv.Quote(string(b)))
			require.ErrorContains(t, err, "allowed: "+strings.Join(names, ", "))
			return
		}
		text, err := k.MarshalText()
		require.NoError(t, err, "%q read as %v", b, k)
		require.Equal(t, string(b), string(text))
	})
}

func TestJoinCoupling(t *testing.T) {
	// a feeds the coupled join j (0.3) and the join k (0.6, JoinAny: not
	// counted); b feeds j and the coupled join m (0.8) with c; d feeds the
	// single-parent node s, whose coupling does not count either.
	nodes := named("a", "b", "c", "d", "j", "k", "m", "s")
	nodes[4].Coupling = 0.3
	nodes[5].Coupling, nodes[5].Join = 0.6, JoinAny
	nodes[6].Coupling = 0.8
	nodes[7].Coupling = 0.9
	g, err := New(nodes, []Edge{{From: 0, To: 4}, {From: 1, To: 4}, {From: 0, To: 5}, {From: 2, To: 5},
		{From: 1, To: 6}, {From: 2, To: 6}, {From: 3, To: 7}})
	require.NoError(t, err)
	want := []float64{0.3, 0.8, 0.8, 0, 0, 0, 0, 0}
	for v, k := range want {
		assert.Equal(t, k, g.JoinCoupling(ID(v)), "node %s", g.Nodes[v].Name)
	}

	// Random graphs, coupled or not, against the definition.
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + r.IntN(10)
		nodes, edges := randomDAG(r, n, r.Float64())
		for i := range nodes {
			if r.IntN(2) == 0 {
				nodes[i].Coupling = float64(r.IntN(3)) / 2
			}
			nodes[i].Join = JoinKind(r.IntN(2))
		}
		g, err := New(nodes, edges)
		require.NoError(t, err)
		for v := range ID(n) {
			k := 0.0
			for _, w := range g.Succ(v) {
				if nd := &g.Nodes[w]; nd.Join == JoinAll && len(g.Pred(w)) > 1 {
					k = max(k, nd.Coupling)
				}
			}
			require.Equal(t, k, g.JoinCoupling(v), "trial %d node %d", trial, v)
		}
	}
}

func TestGeneratedNames(t *testing.T) {
	// Enough nodes to pass the names' first buffer, some named.
	nodes := make([]Node, 1200)
	nodes[7].Name, nodes[1100].Name = "seven", "x"
	g, err := New(nodes, nil)
	require.NoError(t, err)
	for i, nd := range g.Nodes {
		want := fmt.Sprintf("t%d", i)
		switch i {
		case 7:
			want = "seven"
		case 1100:
			want = "x"
		}
		require.Equal(t, want, nd.Name)
	}
}
