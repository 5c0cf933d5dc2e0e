package task_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// A fork-join family: two stages, each a fork, four parallel subtasks and a
// join. With one minute per node, one agent needs 12 minutes, while four
// agents could finish in 6 (the critical path: three nodes per stage).
func ExampleFamily_Draw() {
	f := task.Family{
		Shape:    task.ShapeForkJoin,
		Width:    4,
		Stages:   2,
		Work:     sim.Const(60), // seconds
		Coupling: sim.Uniform(0.2, 0.8),
	}
	g, err := f.Draw(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	length, path := g.CriticalPath()
	fmt.Println("nodes:", g.Len(), "edges:", g.Edges())
	fmt.Println("total work:", g.TotalWork())
	fmt.Println("critical path:", length, path)
	fmt.Println("width:", g.Width(), "depth:", g.Depth())
	fmt.Printf("first join: %s with %d parts, coupling %.2f\n", g.Nodes[5].Name, len(g.Pred(5)), g.Nodes[5].Coupling)
	// Output:
	// nodes: 12 edges: 17
	// total work: 12m0s
	// critical path: 6m0s [0 1 5 6 7 11]
	// width: 4 depth: 6
	// first join: t5 with 4 parts, coupling 0.61
}

// A needle search: three alternative attempts and a selection that needs
// only one acceptable result.
func ExampleNew() {
	nodes := []task.Node{
		{Name: "try1", Work: 5 * sim.Minute, Difficulty: 0.9},
		{Name: "try2", Work: 7 * sim.Minute, Difficulty: 0.9},
		{Name: "try3", Work: 6 * sim.Minute, Difficulty: 0.9},
		{Name: "select", Work: 30 * sim.Second, Join: task.JoinAny},
	}
	edges := []task.Edge{{From: 0, To: 3}, {From: 1, To: 3}, {From: 2, To: 3}}
	g, err := task.New(nodes, edges)
	if err != nil {
		fmt.Println(err)
		return
	}
	length, _ := g.CriticalPath()
	fmt.Println("sources:", g.Sources(), "sinks:", g.Sinks())
	fmt.Println("critical path (every try counted):", length)

	// A cycle is reported with the nodes on it.
	_, err = task.New(nodes, append(edges, task.Edge{From: 3, To: 1}))
	fmt.Println(err)
	// Output:
	// sources: [0 1 2] sinks: [3]
	// critical path (every try counted): 7m30s
	// task: cycle: "try2" -> "select" -> "try2"
}

func ExampleReadDOT() {
	src := `digraph review {
		draft [work="10m", tokens=800]
		draft -> review1 -> merge
		draft -> review2 -> merge
		review1 [work="4m"] review2 [work="6m"]
		merge [work="2m", coupling=0.7]
	}`
	g, err := task.ReadDOT(strings.NewReader(src), "review.dot")
	if err != nil {
		fmt.Println(err)
		return
	}
	length, path := g.CriticalPath()
	for _, v := range path {
		fmt.Print(g.Nodes[v].Name, " ")
	}
	fmt.Println(length)
	tokens, _ := g.EdgeTokens(0, 1)
	fmt.Println("draft -> review1 carries", tokens, "tokens")
	// Output:
	// draft review2 merge 18m0s
	// draft -> review1 carries 800 tokens
}

func ExampleWriteDOT() {
	g, err := task.Family{Shape: task.ShapeTree, Branching: 2, Depth: 1, Work: sim.Const(30)}.Draw(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := task.WriteDOT(os.Stdout, g); err != nil {
		fmt.Println(err)
	}
	// Output:
	// digraph {
	// 	"t0" [work="30s"];
	// 	"t1" [work="30s"];
	// 	"t2" [work="30s"];
	// 	"t3" [work="30s"];
	// 	"t0" -> "t1";
	// 	"t0" -> "t2";
	// 	"t1" -> "t3";
	// 	"t2" -> "t3";
	// }
}

// The four task kinds, each drawn once: a kind is a preset family, and
// the drawn graph says which kind it is. An explicit field overrides the
// preset (here, four parts instead of eight for the decomposable kind).
func ExampleKindPreset() {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range task.Kinds {
		f := task.Family{Kind: k}
		if k == task.KindDecomposable {
			f.Width = 4
		}
		g, err := f.Draw(r)
		if err != nil {
			fmt.Println(err)
			return
		}
		p, _ := task.KindPreset(k)
		fmt.Printf("%-12s shape %-9s nodes %2d width %d depth %2d tool calls/attempt %g\n",
			g.Kind(), p.Shape, g.Len(), g.Width(), g.Depth(), g.Tools().Calls.Mean())
	}
	// Output:
	// decomposable shape fork-join nodes  6 width 4 depth  3 tool calls/attempt 0
	// navigation   shape needle    nodes  9 width 8 depth  2 tool calls/attempt 0
	// sequential   shape chain     nodes  8 width 1 depth  8 tool calls/attempt 0
	// tool-heavy   shape layered   nodes 13 width 4 depth  4 tool calls/attempt 12
}
