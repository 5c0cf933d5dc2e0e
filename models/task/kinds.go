package task

import (
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/sim"
)

// Kinds of task: presets of a Family with the structure of the four
// benchmarks of Kim et al., "Towards a Science of Scaling Agent Systems"
// (arXiv 2512.08296).
const (
	// KindDecomposable is Finance-Agent's decomposable analysis:
	// independent sub-analyses (no coupling) merged by one synthesis join.
	KindDecomposable = "decomposable"
	// KindNavigation is BrowseComp-Plus's dynamic web navigation: a search
	// among alternative paths, many of them dead ends that show only after
	// several steps of work; the first path found good settles the search.
	KindNavigation = "navigation"
	// KindSequential is PlanCraft's sequential planning: a chain whose
	// every step needs the state the one before it left, handed over as a
	// large result.
	KindSequential = "sequential"
	// KindToolHeavy is Workbench's tool-heavy workflows: a small workflow
	// DAG whose every attempt makes many tool calls.
	KindToolHeavy = "tool-heavy"
)

// Kinds lists the allowed values of Family.Kind.
var Kinds = []string{KindDecomposable, KindNavigation, KindSequential, KindToolHeavy}

// kindPresets holds each kind's family. Sizes are chosen so that one agent
// of strength 1 finishes well within two hours of virtual time, and so that
// each kind offers at least eight parts (or alternatives, or steps) for a
// team of one to nine agents to divide.
var kindPresets = map[string]Family{
	// Eight sub-analyses between a planning fork and a synthesis join:
	// 10 subtasks, 50 minutes of work for one agent; the parts are
	// independent (coupling 0), and a bad part spoils the synthesis.
	KindDecomposable: {
		Shape: ShapeForkJoin, Width: 8, Stages: 1,
		Work:         sim.LogNormal(300, 0.5),
		Difficulty:   sim.Const(0.05),
		OutputTokens: sim.Const(600),
	},
	// Eight alternative paths, each a ReAct loop of up to four browsing
	// steps that ends at the first acceptable one; a path whose four steps
	// all fail is a dead end, found only after that work. Difficulties
	// spread over uniform(0.4, 0.99), so about a third of the paths are
	// dead ends for an agent of strength 1. The selection node writes the
	// answer from the first path believed good.
	KindNavigation: {
		Shape: ShapeNeedle, Tries: 8,
		Work:         sim.LogNormal(120, 0.5),
		Difficulty:   sim.Uniform(0.4, 0.99),
		OutputTokens: sim.Const(400),
		Loop:         4,
	},
	// Eight steps in a row, each handing a 3,000-token state to the next:
	// an agent that takes over a step reads it all, and no two steps can
	// run at once.
	KindSequential: {
		Shape: ShapeChain, Length: 8,
		Work:         sim.LogNormal(240, 0.5),
		Difficulty:   sim.Const(0.05),
		OutputTokens: sim.Const(3000),
	},
	// A workflow of three layers of four subtasks (random edges between
	// layers, one final node): 13 subtasks, each attempt making about
	// twelve tool calls of five seconds, two thirds of a minute of tool
	// latency on three minutes of work.
	KindToolHeavy: {
		Shape: ShapeLayered, Width: 4, Depth: 3, EdgeProb: 0.5, SingleSink: true,
		Work:         sim.LogNormal(180, 0.5),
		Difficulty:   sim.Const(0.05),
		OutputTokens: sim.Const(800),
		ToolCalls:    sim.Poisson(12),
		ToolLatency:  sim.LogNormal(5, 0.5),
	},
}

// KindPreset returns the family that kind stands for, with Kind set, and
// whether kind is one of Kinds.
func KindPreset(kind string) (Family, bool) {
	p, ok := kindPresets[kind]
	p.Kind = kind
	return p, ok
}

// withKind returns f with its kind's preset filled in where f leaves a
// field unset: explicit fields override the preset. A field set to its
// zero value cannot be told from an unset one, so it keeps the preset's
// value (the scenarios package reports such a field where it is given). A kind sets the
// shape, so f must not; and the structure parameters f sets must be ones
// the preset's shape uses (validate says so, naming the kind). Without a
// kind it returns f.
func (f *Family) withKind() (Family, error) {
	if f.Kind == "" {
		return *f, nil
	}
	p, ok := KindPreset(f.Kind)
	switch {
	case !ok:
		return Family{}, ferr("kind", "unknown %q (allowed: %s)%s", f.Kind, strings.Join(Kinds, ", "), spelling.DidYouMean(f.Kind, Kinds))
	case f.Shape != "":
		return Family{}, ferr("shape", "%q cannot be given with kind %q, which sets shape %q (give kind or shape, not both)", f.Shape, f.Kind, p.Shape)
	}
	r := *f
	r.Shape = p.Shape
	fillInt(&r.Length, p.Length)
	fillInt(&r.Width, p.Width)
	fillInt(&r.Stages, p.Stages)
	fillInt(&r.Branching, p.Branching)
	fillInt(&r.Depth, p.Depth)
	fillInt(&r.Tries, p.Tries)
	fillInt(&r.Loop, p.Loop)
	if r.EdgeProb == 0 {
		r.EdgeProb = p.EdgeProb
	}
	r.SingleSink = r.SingleSink || p.SingleSink
	for _, d := range [...]struct {
		dst *sim.Dist
		src sim.Dist
	}{
		{&r.Work, p.Work}, {&r.Difficulty, p.Difficulty}, {&r.OutputTokens, p.OutputTokens},
		{&r.Coupling, p.Coupling}, {&r.ToolCalls, p.ToolCalls}, {&r.ToolLatency, p.ToolLatency},
	} {
		if d.dst.IsZero() {
			*d.dst = d.src
		}
	}
	return r, nil
}

func fillInt(dst *int, preset int) {
	if *dst == 0 {
		*dst = preset
	}
}
