package task

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

var tenSeconds = sim.Const(10)

func TestFamilyShapes(t *testing.T) {
	const W = 10 * sim.Second
	tests := []struct {
		name                string
		f                   Family
		nodes, edges, width int
		crit                sim.Time
		sources, sinks      int
	}{
		{"chain 1", Family{Shape: "chain", Length: 1}, 1, 0, 1, W, 1, 1},
		{"chain 7", Family{Shape: "chain", Length: 7}, 7, 6, 1, 7 * W, 1, 1},
		{"fork-join 1x1", Family{Shape: "fork-join", Width: 1, Stages: 1}, 3, 2, 1, 3 * W, 1, 1},
		{"fork-join 8x1", Family{Shape: "fork-join", Width: 8, Stages: 1}, 10, 16, 8, 3 * W, 1, 1},
		{"fork-join 4x3", Family{Shape: "fork-join", Width: 4, Stages: 3}, 18, 3*8 + 2, 4, 9 * W, 1, 1},
		{"tree 1x3 is a chain", Family{Shape: "tree", Branching: 1, Depth: 3}, 7, 6, 1, 7 * W, 1, 1},
		{"tree 2x1", Family{Shape: "tree", Branching: 2, Depth: 1}, 4, 4, 2, 3 * W, 1, 1},
		// I = 1+3+9 = 13 splits, L = 27 leaves.
		{"tree 3x3", Family{Shape: "tree", Branching: 3, Depth: 3}, 2*13 + 27, 2 * (13 + 27 - 1), 27, 7 * W, 1, 1},
		{"needle", Family{Shape: "needle", Tries: 6}, 7, 6, 6, 2 * W, 6, 1},
		{"layered p=1", Family{Shape: "layered", Width: 3, Depth: 4, EdgeProb: 1}, 12, 27, 3, 4 * W, 3, 3},
		{"layered p=1 single sink", Family{Shape: "layered", Width: 3, Depth: 4, EdgeProb: 1, SingleSink: true}, 13, 30, 3, 5 * W, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.Work = tenSeconds
			g, err := f.Draw(newRand(1))
			require.NoError(t, err)
			assert.Equal(t, tt.nodes, g.Len(), "nodes")
			assert.Equal(t, tt.edges, g.Edges(), "edges")
			assert.Equal(t, tt.width, g.Width(), "width")
			length, path := g.CriticalPath()
			assert.Equal(t, tt.crit, length, "critical path")
			assert.Len(t, path, int(tt.crit/W))
			assert.Len(t, g.Sources(), tt.sources, "sources")
			assert.Len(t, g.Sinks(), tt.sinks, "sinks")
			assert.Equal(t, sim.Time(tt.nodes)*W, g.TotalWork())
		})
	}
}

func TestForkJoinCoupling(t *testing.T) {
	f := Family{Shape: "fork-join", Width: 3, Stages: 2, Work: tenSeconds, Coupling: sim.Const(0.7), Difficulty: sim.Const(0.2)}
	g, err := f.Draw(newRand(1))
	require.NoError(t, err)
	for v, nd := range g.Nodes {
		isJoin := v == 4 || v == 9
		if isJoin {
			assert.Equal(t, 0.7, nd.Coupling, "join %d", v)
			assert.Len(t, g.Pred(ID(v)), 3)
		} else {
			assert.Zero(t, nd.Coupling, "node %d", v)
		}
		assert.Equal(t, 0.2, nd.Difficulty)
		assert.Equal(t, JoinAll, nd.Join)
	}
	assert.Equal(t, []ID{5}, g.Succ(4), "stage join precedes next fork")
}

func TestNeedle(t *testing.T) {
	f := Family{Shape: "needle", Tries: 4, Work: tenSeconds, Difficulty: sim.Const(0.95), Coupling: sim.Const(0.5), Loop: 3}
	g, err := f.Draw(newRand(1))
	require.NoError(t, err)
	sel := g.Nodes[4]
	assert.Equal(t, JoinAny, sel.Join)
	assert.Zero(t, sel.Difficulty)
	assert.Zero(t, sel.Coupling)
	assert.Zero(t, sel.Loop)
	for v := range 4 {
		assert.Equal(t, 0.95, g.Nodes[v].Difficulty)
		assert.Equal(t, 3, g.Nodes[v].Loop)
		assert.Equal(t, []ID{4}, g.Succ(ID(v)))
	}
}

func TestTreeStructure(t *testing.T) {
	g, err := Family{Shape: "tree", Branching: 2, Depth: 2, Work: tenSeconds}.Draw(newRand(1))
	require.NoError(t, err)
	// Splits 0,1,2; leaves 3..6; merges 7 (of split 2), 8 (of 1), 9 (root).
	assert.Equal(t, []ID{1, 2}, g.Succ(0))
	assert.Equal(t, []ID{3, 4}, g.Succ(1))
	assert.Equal(t, []ID{8}, g.Succ(3))
	assert.Equal(t, []ID{7}, g.Succ(6))
	assert.Equal(t, []ID{7, 8}, g.Pred(9))
	assert.Equal(t, []ID{0}, g.Sources())
	assert.Equal(t, []ID{9}, g.Sinks())
	assert.Equal(t, 5, g.Depth())
}

func TestLayeredProperties(t *testing.T) {
	for seed := range uint64(200) {
		r := newRand(seed)
		f := Family{
			Shape: "layered", Width: 1 + r.IntN(8), Depth: 1 + r.IntN(8),
			EdgeProb: []float64{0, 0.1, 0.5, 0.9, 1}[r.IntN(5)], SingleSink: r.IntN(2) == 0,
			Work: sim.Exponential(30),
		}
		g, err := f.Draw(r)
		require.NoError(t, err, "seed %d", seed)
		n := f.Width * f.Depth
		wantN := n
		if f.SingleSink {
			wantN++
		}
		require.Equal(t, wantN, g.Len())
		for v := range n {
			layer := v / f.Width
			require.Equal(t, layer, g.Level(ID(v)), "seed %d node %d", seed, v)
			if layer > 0 {
				require.NotEmpty(t, g.Pred(ID(v)))
			}
			for _, p := range g.Pred(ID(v)) {
				require.Equal(t, layer-1, int(p)/f.Width, "edges join consecutive layers")
			}
		}
		require.Equal(t, f.Width, g.Width())
		if f.SingleSink {
			require.Equal(t, []ID{ID(n)}, g.Sinks())
			require.Equal(t, f.Depth+1, g.Depth())
		} else {
			require.Equal(t, f.Depth, g.Depth())
		}
		length, _ := g.CriticalPath()
		require.LessOrEqual(t, length, g.TotalWork())
	}
}

func TestLayeredEdgeDensity(t *testing.T) {
	// With p = 0.3 and no forced parents worth counting, the edge count is
	// close to p·width²·(depth-1).
	f := Family{Shape: "layered", Width: 50, Depth: 41, EdgeProb: 0.3}
	g, err := f.Draw(newRand(7))
	require.NoError(t, err)
	want := 0.3 * 50 * 50 * 40
	assert.InEpsilon(t, want, float64(g.Edges()), 0.03)
}

func TestDrawDeterministic(t *testing.T) {
	fams := []Family{
		{Shape: "layered", Width: 20, Depth: 10, EdgeProb: 0.2, Work: sim.Exponential(60), Difficulty: sim.Uniform(0, 1),
			OutputTokens: sim.Gamma(500, 0.5), Coupling: sim.Uniform(0, 1), Loop: 4, LoopProb: 0.3},
		{Shape: "mixture", Components: []Component{
			{Weight: 1, Family: Family{Shape: "chain", Length: 3}},
			{Weight: 2, Family: Family{Shape: "tree", Branching: 2, Depth: 3, Work: sim.Exponential(5)}},
		}},
	}
	for _, f := range fams {
		a, err := f.Draw(newRand(42))
		require.NoError(t, err)
		b, err := f.Draw(newRand(42))
		require.NoError(t, err)
		assert.True(t, a.Equal(b))
	}
}

func TestDrawAttributes(t *testing.T) {
	f := Family{Shape: "layered", Width: 30, Depth: 30, EdgeProb: 0.1,
		Work: sim.Exponential(60), Difficulty: sim.Uniform(0.5, 1), OutputTokens: sim.Uniform(10, 20),
		Coupling: sim.Uniform(0.5, 1), Loop: 5, LoopProb: 0.25}
	g, err := f.Draw(newRand(3))
	require.NoError(t, err)
	loops, joins := 0, 0
	for v, nd := range g.Nodes {
		assert.GreaterOrEqual(t, nd.Work, sim.Time(0))
		assert.True(t, nd.Difficulty >= 0.5 && nd.Difficulty < 1)
		assert.True(t, nd.OutputTokens >= 10 && nd.OutputTokens <= 20)
		if nd.Loop > 0 {
			assert.Equal(t, 5, nd.Loop)
			loops++
		}
		if len(g.Pred(ID(v))) >= 2 {
			joins++
			assert.True(t, nd.Coupling >= 0.5 && nd.Coupling <= 1)
		} else {
			assert.Zero(t, nd.Coupling)
		}
	}
	assert.InDelta(t, 0.25*900, loops, 40)
	assert.Positive(t, joins)

	// A distribution that can draw outside the allowed range is an error,
	// as the same value written as a constant would be.
	for _, tt := range []struct {
		f    Family
		want string
	}{
		{Family{Shape: "chain", Length: 2, Coupling: sim.Uniform(0.5, 2)}, "coupling: uniform(0.5, 2) can draw values up to 2, outside [0, 1]"},
		{Family{Shape: "chain", Length: 2, Coupling: sim.Const(1.5)}, "coupling: 1.5 is out of range [0, 1]"},
		{Family{Shape: "chain", Length: 2, Coupling: sim.Exponential(0.3)}, "coupling: exp(0.3) can draw values up to +Inf"},
		{Family{Shape: "chain", Length: 2, Difficulty: sim.Const(1)}, "difficulty: 1 is out of range [0, 1)"},
		{Family{Shape: "chain", Length: 2, Difficulty: sim.MustParseDist("lognormal(mean=0.3, cv=0.5)")}, "difficulty: lognormal(mean=0.3, cv=0.5) can draw values up to +Inf, outside [0, 1)"},
	} {
		assert.ErrorContains(t, tt.f.Validate(), tt.want)
	}

	// loop without loop_prob: every node loops.
	g, err = Family{Shape: "chain", Length: 5, Loop: 2}.Draw(newRand(1))
	require.NoError(t, err)
	for _, nd := range g.Nodes {
		assert.Equal(t, 2, nd.Loop)
	}
}

func TestMixtureWeights(t *testing.T) {
	f := Family{Shape: "mixture", Components: []Component{
		{Weight: 1, Family: Family{Shape: "chain", Length: 1}},
		{Weight: 0, Family: Family{Shape: "chain", Length: 2}},
		{Weight: 3, Family: Family{Shape: "chain", Length: 3}},
	}}
	r := newRand(9)
	counts := map[int]int{}
	for range 4000 {
		g, err := f.Draw(r)
		require.NoError(t, err)
		counts[g.Len()]++
	}
	assert.Zero(t, counts[2])
	assert.InDelta(t, 1000, counts[1], 100)
	assert.InDelta(t, 3000, counts[3], 100)
}

func TestFamilyValidate(t *testing.T) {
	tests := []struct {
		name string
		f    Family
		want string
	}{
		{"missing shape", Family{}, "shape: missing (allowed: chain, fork-join, tree, layered, needle, mixture, file)"},
		{"unknown shape", Family{Shape: "forkjoin"}, `shape: unknown "forkjoin" (allowed: chain, fork-join, tree, layered, needle, mixture, file)`},
		{"chain length", Family{Shape: "chain"}, `length: must be at least 1 for shape "chain", got 0`},
		{"unused param", Family{Shape: "chain", Length: 3, Width: 2}, `width: not used by shape "chain" (it uses: length)`},
		{"fork-join width", Family{Shape: "fork-join", Stages: 2, Width: -1}, `width: must be at least 1`},
		{"fork-join stages", Family{Shape: "fork-join", Width: 2}, `stages: must be at least 1`},
		{"tree branching", Family{Shape: "tree", Depth: 2}, `branching: must be at least 1`},
		{"tree depth", Family{Shape: "tree", Branching: 2, Depth: -1}, `depth: must be at least 1`},
		{"chain too long", Family{Shape: "chain", Length: MaxNodes + 1}, `length: shape "chain" would have more than 10000000 nodes, above the limit 10000000`},
		{"tree too big", Family{Shape: "tree", Branching: 10, Depth: 30}, `above the limit 10000000`},
		{"layered prob", Family{Shape: "layered", Width: 2, Depth: 2, EdgeProb: 1.5}, `edge_prob: must be in [0, 1], got 1.5`},
		{"layered too many edges", Family{Shape: "layered", Width: 10000, Depth: 1000, EdgeProb: 1}, `edge_prob: width²·(depth-1)·edge_prob`},
		{"layered single sink on chain", Family{Shape: "chain", Length: 2, SingleSink: true}, `single_sink: not used by shape "chain"`},
		{"needle", Family{Shape: "needle"}, `tries: must be at least 1`},
		{"file path", Family{Shape: "file"}, `path: missing`},
		{"file ext", Family{Shape: "file", Path: "x.yaml"}, `path: unknown extension ".yaml" (allowed: .dot, .gv, .json)`},
		{"loop", Family{Shape: "chain", Length: 1, Loop: -2}, `loop: must be in [0, 1048576], got -2`},
		{"loop prob", Family{Shape: "chain", Length: 1, Loop: 2, LoopProb: 2}, `loop_prob: must be in [0, 1], got 2`},
		// Depth 0 is the root alone, which no branching splits.
		{"tree of its root alone", Family{Shape: "tree", Branching: 4}, `depth: must be at least 1 for shape "tree", got 0 (depth 0 is the root alone, where branching never acts`},
		{"loop prob alone", Family{Shape: "chain", Length: 1, LoopProb: 0.5}, `loop_prob: needs loop > 0`},
		{"mixture empty", Family{Shape: "mixture"}, `components: at least one component is needed`},
		{"mixture work", Family{Shape: "mixture", Work: tenSeconds, Components: []Component{{Weight: 1, Family: Family{Shape: "chain", Length: 1}}}}, `work: not used by shape "mixture"`},
		{"mixture weight", Family{Shape: "mixture", Components: []Component{{Weight: -1, Family: Family{Shape: "chain", Length: 1}}}}, `components[0].weight: must be finite and ≥ 0, got -1`},
		{"mixture zero sum", Family{Shape: "mixture", Components: []Component{{Family: Family{Shape: "chain", Length: 1}}}}, `components: weights must have a positive, finite sum`},
		{"mixture nested", Family{Shape: "mixture", Components: []Component{
			{Weight: 1, Family: Family{Shape: "chain", Length: 1}},
			{Weight: 1, Family: Family{Shape: "mixture", Components: []Component{{Weight: 1, Family: Family{Shape: "tree", Branching: 0}}}}},
		}}, `components[1].components[0].branching: must be at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, err = tt.f.Draw(newRand(1))
			require.Error(t, err, "Draw validates too")
		})
	}
}

func TestFamilyDecode(t *testing.T) {
	const doc = `
shape: mixture
components:
  - weight: 2
    shape: fork-join
    width: 4
    stages: 2
    work: exp(90s)
    difficulty: uniform(0.1, 0.4)
    output_tokens: lognormal(mean=400, cv=0.5)
    coupling: 0.6
  - weight: 1
    shape: layered
    width: 5
    depth: 3
    edge_prob: 0.3
    single_sink: true
    work: 30s
    loop: 4
    loop_prob: 0.5
`
	var fy Family
	require.NoError(t, yaml.Unmarshal([]byte(doc), &fy))
	require.NoError(t, fy.Validate())
	want := Family{Shape: "mixture", Components: []Component{
		{Weight: 2, Family: Family{Shape: "fork-join", Width: 4, Stages: 2, Work: sim.Exponential(90),
			Difficulty: sim.Uniform(0.1, 0.4), OutputTokens: sim.LogNormal(400, 0.5), Coupling: sim.Const(0.6)}},
		{Weight: 1, Family: Family{Shape: "layered", Width: 5, Depth: 3, EdgeProb: 0.3, SingleSink: true,
			Work: sim.Const(30), Loop: 4, LoopProb: 0.5}},
	}}
	assert.Equal(t, want, fy)

	// JSON: round trip through the json tags.
	b, err := json.Marshal(fy)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"output_tokens":"lognormal(mean=400, cv=0.5)"`)
	assert.Contains(t, string(b), `"edge_prob":0.3`)
	var fj Family
	require.NoError(t, json.Unmarshal(b, &fj))
	assert.Equal(t, fy, fj)
}

func TestFamilyFile(t *testing.T) {
	f := Family{Shape: "file", Path: filepath.Join("testdata", "pipeline.dot"),
		Work: sim.Const(7), Difficulty: sim.Const(0.3), OutputTokens: sim.Const(11), Coupling: sim.Const(0.4)}
	g, err := f.Draw(newRand(1))
	require.NoError(t, err)
	id := func(name string) ID {
		v, ok := g.Lookup(name)
		require.True(t, ok, name)
		return v
	}
	plan := g.Nodes[id("plan")]
	assert.Equal(t, 2*sim.Minute, plan.Work, "work from the file")
	assert.Equal(t, 0.1, plan.Difficulty, "difficulty from the file")
	assert.Equal(t, 0.3, g.Nodes[id("search A")].Difficulty, "difficulty from the family")
	assert.Equal(t, 300, plan.OutputTokens, "tokens from the file's node defaults")
	merge := g.Nodes[id("merge")]
	assert.Equal(t, 0.9, merge.Coupling, "coupling from the file")
	check := g.Nodes[id("check")]
	assert.Equal(t, 7*sim.Second, check.Work, "work from the family where the file has none")

	_, err = Family{Shape: "file", Path: filepath.Join("testdata", "missing.dot")}.Draw(newRand(1))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestFamilyFileWfFormat(t *testing.T) {
	dir := wfDir(t)
	f := Family{Shape: "file", Path: filepath.Join(dir, "helloworld-forkjoin-10-chameleon.json"), Coupling: sim.Const(0.5), Difficulty: sim.Const(0.1)}
	g, err := f.Draw(newRand(1))
	require.NoError(t, err)
	assert.Equal(t, 10, g.Len())
	joins := 0
	for v, nd := range g.Nodes {
		assert.Equal(t, 0.1, nd.Difficulty)
		if len(g.Pred(ID(v))) >= 2 {
			joins++
			assert.Equal(t, 0.5, nd.Coupling)
		}
	}
	assert.Equal(t, 1, joins)
}

func TestDrawOutOfRangeSamples(t *testing.T) {
	_, err := Family{Shape: "chain", Length: 1, Work: sim.Const(1e15)}.Draw(newRand(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "work: drew 1e+15 s")
	_, err = Family{Shape: "chain", Length: 1, OutputTokens: sim.Const(1e15)}.Draw(newRand(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "output_tokens: drew 1e+15, above the limit")
	// Only a file's errors name the file: a generated shape has no path.
	assert.Equal(t, "output_tokens: drew 1e+15, above the limit 1099511627776", err.Error())
	path := filepath.Join("testdata", "pipeline.dot") // "check" gives no work
	_, err = Family{Shape: "file", Path: path, Work: sim.Const(1e15)}.Draw(newRand(1))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), path+": work: drew 1e+15 s"), err.Error())

	// A cycle shows only when the file's graph is built; its position is
	// given in the file.
	cyclic := filepath.Join(t.TempDir(), "cyclic.dot")
	require.NoError(t, os.WriteFile(cyclic, []byte("digraph { a -> b -> a }"), 0o600))
	_, err = Family{Shape: "file", Path: cyclic}.Draw(newRand(1))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), cyclic+":1:"), err.Error())
}

func TestFamilyTools(t *testing.T) {
	f := Family{Shape: ShapeChain, Length: 3, Work: sim.Const(60), ToolCalls: sim.Poisson(2), ToolLatency: sim.LogNormal(3, 1)}
	g, err := f.Draw(rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	assert.Equal(t, Tools{Calls: sim.Poisson(2), Latency: sim.LogNormal(3, 1)}, g.Tools(), "a drawn graph carries the tool use")
	assert.True(t, f.UsesTools())
	plain := f
	plain.ToolCalls, plain.ToolLatency = sim.Dist{}, sim.Dist{}
	h, err := plain.Draw(rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	assert.Equal(t, Tools{}, h.Tools())
	assert.False(t, g.Equal(h), "tool use is part of the graph")
	assert.True(t, g.Equal(h.WithTools(g.Tools())), "and the rest is shared")
	mix := Family{Shape: ShapeMixture, Components: []Component{{Weight: 1, Family: plain}, {Weight: 1, Family: f}}}
	assert.True(t, mix.UsesTools())

	for _, tt := range []struct {
		f    Family
		want string
	}{
		{Family{Shape: ShapeChain, Length: 1, ToolCalls: sim.Poisson(2)}, "tool_calls: needs tool_latency"},
		{Family{Shape: ShapeChain, Length: 1, ToolLatency: sim.Const(3)}, "tool_latency: needs tool_calls"},
		{Family{Shape: ShapeMixture, ToolCalls: sim.Poisson(1), Components: []Component{{Weight: 1, Family: plain}}}, `tool_calls: not used by shape "mixture"`},
	} {
		assert.ErrorContains(t, tt.f.Validate(), tt.want)
	}
}

// sameGraph fails unless got is want in every respect a caller can see.
func sameGraph(t *testing.T, want, got *Graph, msg string) {
	t.Helper()
	require.True(t, want.Equal(got), msg)
	require.Equal(t, want.Topo(), got.Topo(), msg)
	require.Equal(t, want.Sources(), got.Sources(), msg)
	require.Equal(t, want.Sinks(), got.Sinks(), msg)
	require.Equal(t, want.TotalWork(), got.TotalWork(), msg)
	require.Equal(t, want.CriticalLength(), got.CriticalLength(), msg)
	require.Equal(t, []int{want.Width(), want.Depth()}, []int{got.Width(), got.Depth()}, msg)
	for v := range ID(want.Len()) {
		require.Equal(t, want.Pred(v), got.Pred(v), msg)
		require.Equal(t, want.PredTokens(v), got.PredTokens(v), msg)
		require.Equal(t, want.Level(v), got.Level(v), msg)
		require.Equal(t, want.JoinCoupling(v), got.JoinCoupling(v), msg)
	}
}

func TestDrawerDrawsWhatDrawDraws(t *testing.T) {
	coupled := sim.Uniform(0, 1)
	fams := []Family{
		{Shape: "fork-join", Width: 8, Stages: 1, Coupling: coupled},
		{Shape: "chain", Length: 3},
		{Shape: "layered", Width: 4, Depth: 4, EdgeProb: 0.5, SingleSink: true, Coupling: coupled},
		{Shape: "tree", Branching: 3, Depth: 3, Loop: 2, LoopProb: 0.5},
		{Shape: "needle", Tries: 4},
		{Shape: "mixture", Components: []Component{
			{Weight: 1, Family: Family{Shape: "fork-join", Width: 2, Stages: 2, Work: sim.Exponential(5)}},
			{Weight: 1, Family: Family{Shape: "file", Path: filepath.Join("testdata", "pipeline.dot"), Work: sim.Exponential(5)}},
		}},
		{Shape: "file", Path: filepath.Join("testdata", "pipeline.dot"), Coupling: coupled},
		{Shape: "fork-join", Width: 8, Stages: 1, ToolCalls: sim.Const(2), ToolLatency: sim.Const(1)},
	}
	var d Drawer
	// Each family after every other: graphs grow, shrink and change shape
	// in the Drawer's memory.
	for round := range 3 {
		for i := range fams {
			f := fams[i]
			if f.Shape != "mixture" {
				f.Work = sim.Exponential(10)
			}
			seed := uint64(10*round + i)
			want, err := f.Draw(newRand(seed))
			require.NoError(t, err)
			got, err := d.Draw(&f, newRand(seed))
			require.NoError(t, err)
			sameGraph(t, want, got, fmt.Sprintf("round %d, family %d", round, i))
		}
	}
	_, err := d.Draw(&Family{Shape: "chain"}, newRand(1))
	require.ErrorContains(t, err, "length")
}

func TestDrawerAllocatesLittle(t *testing.T) {
	f := Family{Shape: "fork-join", Width: 8, Stages: 1, Work: sim.Exponential(600)}
	var d Drawer
	r := newRand(1)
	_, err := d.Draw(&f, r)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := d.Draw(&f, r); err != nil {
			t.Fatal(err)
		}
	})
	// The nodes' names, in one string; Family.Draw makes about 20.
	require.LessOrEqual(t, allocs, 1.0)
}

// TestFamilyAtLimits checks that families exactly at the size limits are
// valid ("above the limit" and "exceeds" are strict) and one step beyond
// is not. Sizes follow the formulas in Family's documentation.
func TestFamilyAtLimits(t *testing.T) {
	tests := []struct {
		name  string
		f     Family
		nodes int // 0: invalid
	}{
		{"chain of MaxNodes", Family{Shape: "chain", Length: MaxNodes}, MaxNodes},
		{"chain beyond", Family{Shape: "chain", Length: MaxNodes + 1}, 0},
		// stages·(width+2) = 3·3,333,333 = 9,999,999: the product is just
		// below the limit although width+2 = ⌊(MaxNodes+1)/stages⌋.
		{"fork-join just below", Family{Shape: "fork-join", Stages: 3, Width: 3_333_331}, 9_999_999},
		{"fork-join beyond", Family{Shape: "fork-join", Stages: 3, Width: 3_333_333}, 0},
		// width²·(depth-1)·edge_prob = 5000²·2·1 = 5·10⁷ = MaxEdges.
		{"layered at MaxEdges", Family{Shape: "layered", Width: 5000, Depth: 3, EdgeProb: 1}, 15000},
		// loop in [0, MaxLoop] and loop_prob in [0, 1] are closed ranges.
		{"loop at MaxLoop, loop_prob 1", Family{Shape: "chain", Length: 1, Loop: MaxLoop, LoopProb: 1}, 1},
		{"loop beyond MaxLoop", Family{Shape: "chain", Length: 1, Loop: MaxLoop + 1}, 0},
		// coupling's range [0, 1] is closed: the constant 1 is allowed.
		{"coupling constant 1", Family{Shape: "chain", Length: 1, Coupling: sim.Const(1)}, 1},
		// 1·(MaxNodes-2+2) = MaxNodes exactly.
		{"fork-join of MaxNodes", Family{Shape: "fork-join", Stages: 1, Width: MaxNodes - 2}, MaxNodes},
		// 4·(MaxInt/2+2) overflows int; it must count as too big, not wrap.
		{"fork-join overflowing int", Family{Shape: "fork-join", Stages: 4, Width: math.MaxInt / 2}, 0},
		// 2³²·2³² wraps to 0 in 64 bits: it must count as too big.
		{"fork-join wrapping to 0", Family{Shape: "fork-join", Stages: 1 << 32, Width: 1<<32 - 2}, 0},
		{"layered beyond MaxEdges", Family{Shape: "layered", Width: 5001, Depth: 3, EdgeProb: 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Validate()
			if tt.nodes == 0 {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.nodes, tt.f.Nodes())
		})
	}
}

// topSource makes rand.Float64 return its largest value, 1-2⁻⁵³.
type topSource struct{}

func (topSource) Uint64() uint64 { return math.MaxUint64 }

// TestMixtureTopEndSkipsZeroWeight draws a mixture at the very top of
// [0, 1): with weights 0.1, 0.2, 0.3, u·total rounds so that it is not
// below the running remainder of the last positive weight (checked with
// Python floats), so the pick falls through to its rounding fallback. A
// component of weight 0 must still never be drawn.
func TestMixtureTopEndSkipsZeroWeight(t *testing.T) {
	f := Family{Shape: "mixture", Components: []Component{
		{Weight: 0.1, Family: Family{Shape: "chain", Length: 1}},
		{Weight: 0.2, Family: Family{Shape: "chain", Length: 2}},
		{Weight: 0.3, Family: Family{Shape: "chain", Length: 3}},
		{Weight: 0, Family: Family{Shape: "chain", Length: 4}},
	}}
	g, err := f.Draw(rand.New(topSource{}))
	require.NoError(t, err)
	assert.Equal(t, 3, g.Len())
}

// halfSource makes rand.Float64 return exactly 0.5 (2⁵²/2⁵³).
type halfSource struct{}

func (halfSource) Uint64() uint64 { return 1 << 52 }

// TestMixtureBoundaryGoesUp checks exact proportionality on Float64's
// grid: of its 2⁵³ equally likely values k/2⁵³, the first of two equal
// weights must get exactly the 2⁵² below one half, so 0.5 itself
// belongs to the second.
func TestMixtureBoundaryGoesUp(t *testing.T) {
	f := Family{Shape: "mixture", Components: []Component{
		{Weight: 1, Family: Family{Shape: "chain", Length: 1}},
		{Weight: 1, Family: Family{Shape: "chain", Length: 2}},
	}}
	g, err := f.Draw(rand.New(halfSource{}))
	require.NoError(t, err)
	assert.Equal(t, 2, g.Len())
}
