package task

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// kindDraws is how many graphs each kind's tests draw.
const kindDraws = 50

// joins returns the nodes of g with at least two predecessors.
func joins(g *Graph) []ID {
	var out []ID
	for v := range g.Len() {
		if len(g.Pred(ID(v))) >= 2 {
			out = append(out, ID(v))
		}
	}
	return out
}

// TestKindStructure: every kind draws the structure it promises, on every
// draw, and says which kind it is.
func TestKindStructure(t *testing.T) {
	tests := []struct {
		kind  string
		check func(t *testing.T, g *Graph)
	}{
		{KindDecomposable, func(t *testing.T, g *Graph) {
			// One planning source, independent parts, one synthesis join
			// that needs every part and reconciles nothing.
			require.Len(t, g.Sources(), 1)
			require.Len(t, g.Sinks(), 1)
			js := joins(g)
			require.Len(t, js, 1, "one synthesis join")
			j := js[0]
			assert.Equal(t, g.Sinks()[0], j)
			assert.Equal(t, JoinAll, g.Nodes[j].Join, "the synthesis needs every part")
			assert.Zero(t, g.Nodes[j].Coupling, "the parts are independent")
			assert.GreaterOrEqual(t, len(g.Pred(j)), 8)
			for _, u := range g.Pred(j) {
				assert.Equal(t, g.Sources(), g.Pred(u), "each part needs only the plan")
			}
			assert.True(t, g.Tools().Calls.IsZero())
		}},
		{KindNavigation, func(t *testing.T, g *Graph) {
			// Alternative paths, each a loop of several steps, feeding a
			// selection that takes the first one found good.
			require.Len(t, g.Sinks(), 1)
			sel := g.Sinks()[0]
			assert.Equal(t, JoinAny, g.Nodes[sel].Join)
			assert.GreaterOrEqual(t, len(g.Pred(sel)), 8)
			assert.Equal(t, g.Pred(sel), g.Sources(), "every path starts afresh")
			for _, u := range g.Pred(sel) {
				assert.GreaterOrEqual(t, g.Nodes[u].Loop, 2, "a dead end shows only after several steps")
				assert.Greater(t, g.Nodes[u].Difficulty, 0.0)
			}
		}},
		{KindSequential, func(t *testing.T, g *Graph) {
			// A chain: every step needs the one before, handed over whole.
			assert.Equal(t, 1, g.Width())
			assert.GreaterOrEqual(t, g.Len(), 8)
			require.Len(t, g.Sources(), 1)
			for _, v := range g.Topo()[1:] {
				require.Len(t, g.Pred(v), 1)
				u := g.Pred(v)[0]
				assert.Equal(t, v-1, u)
				tok, _ := g.EdgeTokens(u, v)
				assert.GreaterOrEqual(t, tok, 1000, "the state handed on is large enough that reading it costs")
			}
			assert.True(t, g.Tools().Calls.IsZero())
		}},
		{KindToolHeavy, func(t *testing.T, g *Graph) {
			// A workflow with some parallelism whose every attempt calls
			// many tools.
			tools := g.Tools()
			assert.GreaterOrEqual(t, tools.Calls.Mean(), 10.0, "many tool calls per attempt")
			assert.Greater(t, tools.Latency.Mean(), 0.0)
			assert.Len(t, g.Sinks(), 1)
			assert.GreaterOrEqual(t, g.Width(), 4)
			assert.GreaterOrEqual(t, g.Depth(), 3)
		}},
	}
	require.Len(t, tests, len(Kinds), "a test per kind")
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			f := Family{Kind: tt.kind}
			require.NoError(t, f.Validate())
			r := newRand(1)
			var work sim.Time
			for range kindDraws {
				g, err := f.Draw(r)
				require.NoError(t, err)
				assert.Equal(t, tt.kind, g.Kind())
				assert.LessOrEqual(t, g.Len(), f.Nodes())
				tt.check(t, g)
				work += g.TotalWork()
			}
			// One agent can finish in reasonable virtual time.
			assert.Less(t, work/kindDraws, 2*sim.Hour, "mean work for one agent")
			assert.Greater(t, work/kindDraws, 10*sim.Minute, "mean work for one agent")
		})
	}
}

// TestKindNavigationDeadEnds: the alternatives of a navigation task
// include both dead ends (nearly hopeless) and feasible paths.
func TestKindNavigationDeadEnds(t *testing.T) {
	f := Family{Kind: KindNavigation}
	r := newRand(2)
	hopeless, feasible := 0, 0
	for range kindDraws {
		g, err := f.Draw(r)
		require.NoError(t, err)
		for _, u := range g.Sources() {
			// An agent of strength 1 fails all Loop steps with
			// probability d^Loop.
			d := g.Nodes[u].Difficulty
			fail := 1.0
			for range g.Nodes[u].Loop {
				fail *= d
			}
			switch {
			case fail > 0.5:
				hopeless++
			case fail < 0.1:
				feasible++
			}
		}
	}
	assert.Greater(t, hopeless, kindDraws, "at least one dead end a task on average")
	assert.Greater(t, feasible, kindDraws, "at least one feasible path a task on average")
}

// TestKindOverrides: explicit fields override a kind's defaults and keep
// its shape; the rest of the preset stays.
func TestKindOverrides(t *testing.T) {
	r := newRand(3)
	g, err := Family{Kind: KindDecomposable, Width: 3, Coupling: sim.Const(0.4)}.Draw(r)
	require.NoError(t, err)
	js := joins(g)
	require.Len(t, js, 1)
	assert.Len(t, g.Pred(js[0]), 3, "width overrides the preset's")
	assert.Equal(t, 0.4, g.Nodes[js[0]].Coupling, "coupling overrides the preset's")
	preset, _ := KindPreset(KindDecomposable)
	assert.Equal(t, preset.Difficulty.Mean(), g.Nodes[0].Difficulty, "difficulty stays the preset's")

	g, err = Family{Kind: KindSequential, Length: 3, Work: sim.Const(60)}.Draw(r)
	require.NoError(t, err)
	assert.Equal(t, 3, g.Len())
	assert.Equal(t, 3*sim.Minute, g.TotalWork())

	assert.True(t, (&Family{Kind: KindToolHeavy}).UsesTools())
	assert.False(t, (&Family{Kind: KindSequential}).UsesTools())
	assert.True(t, (&Family{Shape: ShapeMixture, Components: []Component{{Weight: 1, Family: Family{Kind: KindToolHeavy}}}}).UsesTools())
}

// TestKindMixture: a mixture of kinds draws each kind with its weight,
// and the drawn graph says which one it is.
func TestKindMixture(t *testing.T) {
	var comps []Component
	for _, k := range Kinds {
		comps = append(comps, Component{Weight: 1, Family: Family{Kind: k}})
	}
	f := Family{Shape: ShapeMixture, Components: comps}
	require.NoError(t, f.Validate())
	r := newRand(4)
	seen := map[string]int{}
	var d Drawer
	for range 400 {
		g, err := d.Draw(&f, r)
		require.NoError(t, err)
		seen[g.Kind()]++
	}
	for _, k := range Kinds {
		// Binomial(400, 1/4): mean 100, sd 8.7; 60 is 4.6 sd below.
		assert.Greater(t, seen[k], 60, "kind %s", k)
	}
	assert.Len(t, seen, len(Kinds), "only the kinds, never \"\"")
}

// TestKindErrors: a kind that is unknown, or combined with a field it
// cannot use, is an error naming the fields.
func TestKindErrors(t *testing.T) {
	tests := []struct {
		f    Family
		want string
	}{
		{Family{Kind: "search"}, `kind: unknown "search" (allowed: decomposable, navigation, sequential, tool-heavy)`},
		{Family{Kind: KindSequential, Shape: ShapeChain}, `shape: "chain" cannot be given with kind "sequential", which sets shape "chain"`},
		{Family{Kind: KindDecomposable, Shape: ShapeMixture}, `shape: "mixture" cannot be given with kind "decomposable"`},
		{Family{Kind: KindDecomposable, Tries: 3}, `tries: not used by kind "decomposable" (its shape "fork-join" uses: width, stages)`},
		{Family{Kind: KindNavigation, Path: "g.dot"}, `path: not used by kind "navigation" (its shape "needle" uses: tries)`},
		{Family{Kind: KindToolHeavy, Width: -1}, `width: must be at least 1 for shape "layered", got -1`},
		{Family{Kind: KindDecomposable, ToolCalls: sim.Poisson(3)}, "tool_calls: needs tool_latency"},
		{Family{Shape: ShapeMixture, Components: []Component{{Weight: 1, Family: Family{Kind: "nav"}}}}, `components[0].kind: unknown "nav"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := tt.f.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, err = tt.f.Draw(newRand(1))
			assert.Error(t, err, "a draw validates too")
			assert.Zero(t, tt.f.Nodes())
		})
	}
}

// TestKindPresetsValid: every kind's preset is a valid family of its own.
func TestKindPresetsValid(t *testing.T) {
	for _, k := range Kinds {
		p, ok := KindPreset(k)
		require.True(t, ok, k)
		assert.Equal(t, k, p.Kind)
		p.Kind = ""
		assert.NoError(t, p.Validate(), fmt.Sprintf("%s's preset without its kind", k))
	}
	_, ok := KindPreset("chain")
	assert.False(t, ok)
}

// TestWithKind: a kind alone resolves to its preset; a field given
// explicitly is kept, the preset's fills only the fields left unset.
func TestWithKind(t *testing.T) {
	tool, _ := KindPreset(KindToolHeavy)
	sparse := tool
	sparse.EdgeProb = 0.2
	nav, _ := KindPreset(KindNavigation)
	fewer := nav
	fewer.Tries, fewer.Loop = 3, 2
	tests := []struct {
		name string
		f    Family
		want Family
	}{
		{"tool-heavy alone", Family{Kind: KindToolHeavy}, tool},
		{"tool-heavy with its edge probability", Family{Kind: KindToolHeavy, EdgeProb: 0.2}, sparse},
		{"navigation alone", Family{Kind: KindNavigation}, nav},
		{"navigation with fewer tries and steps", Family{Kind: KindNavigation, Tries: 3, Loop: 2}, fewer},
		{"no kind", Family{Shape: ShapeChain, Length: 2}, Family{Shape: ShapeChain, Length: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f.withKind()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
