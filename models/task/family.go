package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/sim"
)

// Shapes of a Family.
const (
	ShapeChain    = "chain"     // Length nodes in a row
	ShapeForkJoin = "fork-join" // Stages × (fork, Width parallel nodes, join)
	ShapeTree     = "tree"      // split down a Branching-ary tree of Depth, merge back up
	ShapeLayered  = "layered"   // random DAG of Depth layers of Width nodes, EdgeProb
	ShapeNeedle   = "needle"    // Tries alternative attempts, a join=any selection
	ShapeMixture  = "mixture"   // a weighted choice among Components per draw
	ShapeFile     = "file"      // a graph read from Path (DOT or WfFormat JSON)
)

// Shapes lists the allowed values of Family.Shape.
var Shapes = []string{ShapeChain, ShapeForkJoin, ShapeTree, ShapeLayered, ShapeNeedle, ShapeMixture, ShapeFile}

// Size limits of a Family, so that a typo cannot exhaust memory.
const (
	MaxNodes = 10_000_000 // nodes per drawn graph
	MaxEdges = 50_000_000 // expected edges per drawn graph
)

// Family describes how to draw task graphs: a structure (Shape and its
// parameters) and distributions for the node attributes. It is a plain value
// that a YAML or JSON decoder fills (snake_case keys); distributions are
// written as sim.ParseDist reads them ("exp(90s)", "uniform(0.2, 0.6)").
//
// Every shape draws its attributes the same way, node by node in ID order:
// Work from Work (seconds), Difficulty from Difficulty (its support must
// lie in [0, 1]; a draw of exactly 1 becomes the largest float64 below 1),
// OutputTokens from OutputTokens rounded to an integer, Loop = Loop for each
// node with probability LoopProb, and Coupling from Coupling (support in
// [0, 1]) but only at nodes with at least two predecessors and Join =
// JoinAll (elsewhere it is 0). Validate rejects a Difficulty or Coupling
// distribution that can draw outside its range (uniform(0.5, 2), exp(0.3)),
// not only constants. Unset distributions are the constant 0. Draws whose Work exceeds
// the range of sim.Time or whose tokens exceed MaxTokens are errors.
//
// Structures, with n the number of nodes, e the number of edges and W the
// Work of one node when all are equal:
//
//   - chain(length): t0 -> t1 -> ... ; n = length, e = length-1, width 1,
//     critical path length·W.
//   - fork-join(width, stages): each stage is a fork node, width parallel
//     nodes and a join node (which gets the coupling); the join of one stage
//     precedes the fork of the next. n = stages·(width+2),
//     e = stages·2·width + stages-1, width = width, critical path
//     3·stages·W. One source, one sink.
//   - tree(branching, depth): a decomposition tree and its mirror. The root
//     splits into branching children, recursively, down to branching^depth
//     leaves at depth depth, which hold the actual work; each split node has
//     a merge node that joins its children's results (leaves, or their
//     merges), ending in one sink. With I = (branching^depth-1)/(branching-1)
//     split nodes and L = branching^depth leaves: n = 2I+L, e = 2(I+L-1),
//     width L, critical path (2·depth+1)·W; depth is at least 1.
//   - layered(width, depth, edge_prob): depth layers of width nodes; each
//     pair of nodes in consecutive layers is joined with probability
//     edge_prob, and a node of layer ≥ 1 left without a parent gets one
//     uniformly from the layer above. So every node's level (see
//     Graph.Level) is its layer, Width() = width and Depth() = depth. Nodes
//     without children are sinks (there may be several, and not only in the
//     last layer) unless single_sink adds one final node fed by all of them.
//     n = width·depth (+1).
//   - needle(tries): tries independent alternative nodes (draw a high
//     Difficulty) feeding one selection node with Join = JoinAny, which
//     needs only one acceptable input. The selection node draws Work and
//     OutputTokens like any node, but has Difficulty 0 and Loop 0 (the
//     verifier's accuracy belongs to the collective model). n = tries+1,
//     e = tries.
//   - mixture(components): each draw picks one component with probability
//     proportional to its weight and draws from it; components are complete
//     families (nothing is inherited from the mixture, whose distributions
//     and loop settings must be unset).
//   - tool use (any shape): ToolCalls and ToolLatency are not drawn per
//     node but carried by the graph (Graph.Tools), for the collective to
//     draw at every attempt; both or neither must be set.
//   - file(path): the graph in path (see Load), read at every draw; node
//     attributes the file does not give are drawn as above (WfFormat files
//     give work and tokens; DOT files give what their attributes say).
//     Relative paths are relative to the working directory (the scenarios
//     package locates them relative to the scenario file first).
//
// Names are "t<ID>" except for file graphs, which keep their node names.
type Family struct {
	// Kind names a preset (one of Kinds) that sets Shape and gives
	// defaults to every field it uses; explicit fields override them (see
	// KindPreset); a field at its zero value counts as unset. Shape must
	// be empty when Kind is set.
	Kind  string `json:"kind,omitempty" yaml:"kind,omitempty"`
	Shape string `json:"shape,omitempty" yaml:"shape,omitempty"`

	// Structure parameters; each shape uses only its own (see above), and
	// Validate rejects the others.
	Length     int         `json:"length,omitempty" yaml:"length,omitempty"`
	Width      int         `json:"width,omitempty" yaml:"width,omitempty"`
	Stages     int         `json:"stages,omitempty" yaml:"stages,omitempty"`
	Branching  int         `json:"branching,omitempty" yaml:"branching,omitempty"`
	Depth      int         `json:"depth,omitempty" yaml:"depth,omitempty"`
	EdgeProb   float64     `json:"edge_prob,omitempty" yaml:"edge_prob,omitempty"`
	SingleSink bool        `json:"single_sink,omitempty" yaml:"single_sink,omitempty"`
	Tries      int         `json:"tries,omitempty" yaml:"tries,omitempty"`
	Path       string      `json:"path,omitempty" yaml:"path,omitempty"`
	Components []Component `json:"components,omitempty" yaml:"components,omitempty"`

	// Node attributes.
	Work         sim.Dist `json:"work,omitzero" yaml:"work,omitempty"`                   // seconds at unit speed
	Difficulty   sim.Dist `json:"difficulty,omitzero" yaml:"difficulty,omitempty"`       // clamped to [0, 1)
	OutputTokens sim.Dist `json:"output_tokens,omitzero" yaml:"output_tokens,omitempty"` // rounded
	Coupling     sim.Dist `json:"coupling,omitzero" yaml:"coupling,omitempty"`           // joins only; clamped to [0, 1]
	// Loop > 0 makes nodes ReAct-style loops of at most Loop iterations.
	Loop int `json:"loop,omitempty" yaml:"loop,omitempty"`
	// LoopProb is the probability that a node is a loop, in [0, 1]; when
	// Loop > 0, the zero value means every node.
	LoopProb float64 `json:"loop_prob,omitempty" yaml:"loop_prob,omitempty"`

	// Tool use, drawn while the task is worked on (see Tools).
	ToolCalls   sim.Dist `json:"tool_calls,omitzero" yaml:"tool_calls,omitempty"`     // per attempt at a subtask; rounded
	ToolLatency sim.Dist `json:"tool_latency,omitzero" yaml:"tool_latency,omitempty"` // seconds per tool call
}

// Component is one weighted family of a mixture. Its family fields sit
// beside weight in YAML and JSON.
type Component struct {
	Weight float64 `json:"weight" yaml:"weight"` // ≥ 0; relative to the others
	Family `yaml:",inline"`
}

// fieldErr is a Validate error about one field; nested components prefix
// their path to field.
type fieldErr struct {
	field, msg string
}

func (e *fieldErr) Error() string { return e.field + ": " + e.msg }

func ferr(field, format string, args ...any) error {
	return &fieldErr{field, fmt.Sprintf(format, args...)}
}

// shapeParams lists, per shape, the structure parameters it uses.
var shapeParams = map[string][]string{
	ShapeChain:    {"length"},
	ShapeForkJoin: {"width", "stages"},
	ShapeTree:     {"branching", "depth"},
	ShapeLayered:  {"width", "depth", "edge_prob", "single_sink"},
	ShapeNeedle:   {"tries"},
	ShapeMixture:  {"components"},
	ShapeFile:     {"path"},
}

// param is a structure parameter and whether a Family sets it.
type param struct {
	name string
	set  bool
}

// params returns the structure parameters in field order, and whether f
// sets each: an array, so that a draw's validation allocates nothing.
func (f *Family) params() [10]param {
	return [...]param{
		{"length", f.Length != 0},
		{"width", f.Width != 0},
		{"stages", f.Stages != 0},
		{"branching", f.Branching != 0},
		{"depth", f.Depth != 0},
		{"edge_prob", f.EdgeProb != 0},
		{"single_sink", f.SingleSink},
		{"tries", f.Tries != 0},
		{"path", f.Path != ""},
		{"components", f.Components != nil},
	}
}

// Validate checks f without reading any file. Errors name the field (with
// its path inside mixtures, as in "components[1].width") and the allowed
// values or range.
func (f Family) Validate() error {
	_, err := f.validate()
	return err
}

// validate also returns the number of nodes a draw will have (0 for
// mixtures and files, where it varies).
func (f *Family) validate() (int, error) {
	k, err := f.withKind()
	if err != nil {
		return 0, err
	}
	return k.validateResolved()
}

// validateResolved is validate for a family whose kind's preset is
// filled in (see withKind).
func (f *Family) validateResolved() (int, error) {
	used, ok := shapeParams[f.Shape]
	if !ok {
		if f.Shape == "" {
			return 0, ferr("shape", "missing (allowed: %s)", strings.Join(Shapes, ", "))
		}
		return 0, ferr("shape", "unknown %q (allowed: %s)%s", f.Shape, strings.Join(Shapes, ", "), spelling.DidYouMean(f.Shape, Shapes))
	}
	for _, p := range f.params() {
		if p.set && !slices.Contains(used, p.name) {
			if f.Kind != "" {
				return 0, ferr(p.name, "not used by kind %q (its shape %q uses: %s)", f.Kind, f.Shape, strings.Join(used, ", "))
			}
			return 0, ferr(p.name, "not used by shape %q (it uses: %s)", f.Shape, strings.Join(used, ", "))
		}
	}
	if f.Shape == ShapeMixture {
		return 0, f.validateMixture()
	}
	if err := f.validateAttrs(); err != nil {
		return 0, err
	}

	atLeast := func(field string, v, lo int) error {
		if v < lo {
			return ferr(field, "must be at least %d for shape %q, got %d", lo, f.Shape, v)
		}
		return nil
	}
	n := 0
	switch f.Shape {
	case ShapeChain:
		if err := atLeast("length", f.Length, 1); err != nil {
			return 0, err
		}
		n = f.Length
	case ShapeForkJoin:
		if err := firstErr(atLeast("width", f.Width, 1), atLeast("stages", f.Stages, 1)); err != nil {
			return 0, err
		}
		n = mulCap(f.Stages, f.Width+2)
	case ShapeTree:
		if err := atLeast("branching", f.Branching, 1); err != nil {
			return 0, err
		}
		// Depth 0 is the root alone, which branching never splits.
		if f.Depth < 1 {
			return 0, ferr("depth", "must be at least 1 for shape %q, got %d (depth 0 is the root alone, where branching never acts; for one node, give shape chain with length 1)", f.Shape, f.Depth)
		}
		splits, leaves := treeSize(f.Branching, f.Depth)
		n = addCap(mulCap(2, splits), leaves)
	case ShapeLayered:
		if err := firstErr(atLeast("width", f.Width, 1), atLeast("depth", f.Depth, 1)); err != nil {
			return 0, err
		}
		if !(f.EdgeProb >= 0 && f.EdgeProb <= 1) {
			return 0, ferr("edge_prob", "must be in [0, 1], got %v", f.EdgeProb)
		}
		n = mulCap(f.Width, f.Depth)
		if f.SingleSink {
			n = addCap(n, 1)
		}
		if e := float64(f.Width) * float64(f.Width) * float64(f.Depth-1) * f.EdgeProb; e > MaxEdges {
			return 0, ferr("edge_prob", "width²·(depth-1)·edge_prob = %.3g expected edges exceeds the limit %d", e, MaxEdges)
		}
	case ShapeNeedle:
		if err := atLeast("tries", f.Tries, 1); err != nil {
			return 0, err
		}
		n = addCap(f.Tries, 1)
	case ShapeFile:
		if f.Path == "" {
			return 0, ferr("path", "missing (a .dot, .gv or .json file)")
		}
		if _, err := loadReader(f.Path); err != nil {
			return 0, ferr("path", "unknown extension %q (allowed: %s)", filepath.Ext(f.Path), loadExts)
		}
	}
	if n > MaxNodes {
		return 0, ferr(shapeParams[f.Shape][0], "shape %q would have %s nodes, above the limit %d", f.Shape, capStr(n), MaxNodes)
	}
	return n, nil
}

func (f *Family) validateAttrs() error {
	if err := firstErr(inRange("difficulty", f.Difficulty, 1, false), inRange("coupling", f.Coupling, 1, true)); err != nil {
		return err
	}
	switch {
	case !f.ToolLatency.IsZero() && f.ToolCalls.IsZero():
		return ferr("tool_latency", "needs tool_calls (no tool is ever called)")
	case !f.ToolCalls.IsZero() && f.ToolLatency.IsZero():
		return ferr("tool_calls", "needs tool_latency (a tool call that takes no time changes nothing)")
	case f.Loop < 0 || f.Loop > MaxLoop:
		return ferr("loop", "must be in [0, %d], got %d", MaxLoop, f.Loop)
	case !(f.LoopProb >= 0 && f.LoopProb <= 1):
		return ferr("loop_prob", "must be in [0, 1], got %v", f.LoopProb)
	case f.LoopProb != 0 && f.Loop == 0:
		return ferr("loop_prob", "needs loop > 0")
	}
	return nil
}

func (f *Family) validateMixture() error {
	for _, d := range []struct {
		name string
		set  bool
	}{
		{"work", !f.Work.IsZero()}, {"difficulty", !f.Difficulty.IsZero()},
		{"output_tokens", !f.OutputTokens.IsZero()}, {"coupling", !f.Coupling.IsZero()},
		{"loop", f.Loop != 0}, {"loop_prob", f.LoopProb != 0},
		{"tool_calls", !f.ToolCalls.IsZero()}, {"tool_latency", !f.ToolLatency.IsZero()},
	} {
		if d.set {
			return ferr(d.name, "not used by shape %q (set it in each component)", ShapeMixture)
		}
	}
	if len(f.Components) == 0 {
		return ferr("components", "at least one component is needed")
	}
	var total float64
	for i := range f.Components {
		c := &f.Components[i]
		at := "components[" + strconv.Itoa(i) + "]"
		if !(c.Weight >= 0) || math.IsInf(c.Weight, 1) {
			return ferr(at+".weight", "must be finite and ≥ 0, got %v", c.Weight)
		}
		total += c.Weight
		if _, err := c.Family.validate(); err != nil {
			var fe *fieldErr
			if errors.As(err, &fe) {
				return &fieldErr{at + "." + fe.field, fe.msg}
			}
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	if !(total > 0) || math.IsInf(total, 1) {
		return ferr("components", "weights must have a positive, finite sum, got %v", total)
	}
	return nil
}

// inRange checks that every value d can draw lies in [0, hi] (or [0, hi)
// when closed is false, where a constant must stay below hi).
func inRange(field string, d sim.Dist, hi float64, closed bool) error {
	lo, top := d.Support()
	switch {
	case lo == top && (top > hi || !closed && top == hi):
		return ferr(field, "%v is out of range %s", d, interval(hi, closed))
	case top > hi:
		return ferr(field, "%v can draw values up to %v, outside %s (use a distribution whose support lies inside, such as uniform(0.2, 0.8))", d, top, interval(hi, closed))
	}
	return nil
}

// interval writes [0, hi] or [0, hi), for messages: only an error's, as a
// family is validated at every draw.
func interval(hi float64, closed bool) string {
	if closed {
		return fmt.Sprintf("[0, %v]", hi)
	}
	return fmt.Sprintf("[0, %v)", hi)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// mulCap and addCap saturate at MaxNodes+1, so size checks cannot overflow.
func mulCap(a, b int) int {
	if a < 0 || b < 0 {
		return 0
	}
	if a != 0 && b > (MaxNodes+1)/a {
		return MaxNodes + 1
	}
	return min(a*b, MaxNodes+1)
}

func addCap(a, b int) int { return min(a+b, MaxNodes+1) }

func capStr(n int) string {
	if n > MaxNodes {
		return "more than " + strconv.Itoa(MaxNodes)
	}
	return strconv.Itoa(n)
}

// treeSize returns the numbers of split nodes and leaves of a complete
// b-ary tree of depth d, saturating at MaxNodes+1.
func treeSize(b, d int) (splits, leaves int) {
	leaves = 1
	for range d {
		splits = addCap(splits, leaves)
		leaves = mulCap(leaves, b)
		if leaves > MaxNodes {
			return splits, leaves
		}
	}
	return splits, leaves
}

// Nodes returns the most nodes a graph drawn from f can have: exact for
// the generated shapes, the largest component's for a mixture, and 0 for a
// file, whose size is known only once it is read. It is what a caller
// needs to estimate an episode's memory before running it; an invalid f
// has 0.
func (f Family) Nodes() int {
	if f.Shape == ShapeMixture {
		most := 0
		for i := range f.Components {
			most = max(most, f.Components[i].Family.Nodes())
		}
		return most
	}
	n, err := f.validate()
	if err != nil {
		return 0
	}
	return n
}

// Draw draws one graph from f using r (and nothing else: the same state of r
// gives the same graph). It validates f first; the errors of the "file"
// shape are those of Load.
func (f Family) Draw(r *rand.Rand) (*Graph, error) {
	g := &Graph{}
	var b builder
	if err := f.draw(r, &b, g); err != nil {
		return nil, err
	}
	return g, nil
}

// A Drawer draws graphs into memory it keeps from one draw to the next,
// so that drawing a graph no larger than an earlier one allocates little
// (the nodes' names). The graph a Draw
// returns is valid until the Drawer's next Draw. The zero Drawer is ready;
// a Drawer must be used from one goroutine.
type Drawer struct {
	g Graph
	b builder
}

// Draw is f.Draw(r) into d's memory: the same graph, valid until d's next
// Draw.
func (d *Drawer) Draw(f *Family, r *rand.Rand) (*Graph, error) {
	d.g.reuse()
	if err := f.draw(r, &d.b, &d.g); err != nil {
		return nil, err
	}
	return &d.g, nil
}

// draw validates f and draws a graph into g (zero, or emptied by reuse),
// with b's memory.
func (f *Family) draw(r *rand.Rand, b *builder, g *Graph) error {
	k, err := f.withKind()
	if err != nil {
		return err
	}
	return k.drawResolved(r, b, g)
}

// drawResolved is draw for a family whose kind's preset is filled in.
func (f *Family) drawResolved(r *rand.Rand, b *builder, g *Graph) error {
	n, err := f.validateResolved()
	if err != nil {
		return err
	}
	switch f.Shape {
	case ShapeMixture:
		return f.pick(r).draw(r, b, g)
	case ShapeFile:
		if err := drawnFiles.load(f.Path, &b.rawGraph); err != nil {
			return err
		}
	default:
		b.nodes, b.set, b.edgeAt, b.findEdge = resize(b.nodes, n), resize(b.set, n), nil, nil
		f.structure(r, b)
	}
	if err := f.fill(r, b); err != nil {
		if f.Shape == ShapeFile {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		return err
	}
	name := f.Shape
	if f.Shape == ShapeFile {
		name = f.Path
	}
	if err := b.buildInto(g, name, &b.s); err != nil {
		return err
	}
	g.tools = Tools{Calls: f.ToolCalls, Latency: f.ToolLatency}
	g.kind = f.Kind
	return nil
}

// UsesTools reports whether graphs drawn from f (from any component of a
// mixture) make tool calls, its kind's preset included.
func (f *Family) UsesTools() bool {
	k, err := f.withKind()
	if err != nil {
		return false // Validate says why
	}
	if !k.ToolCalls.IsZero() {
		return true
	}
	for i := range k.Components {
		if k.Components[i].UsesTools() {
			return true
		}
	}
	return false
}

// pick chooses a mixture component with probability proportional to weight.
func (f *Family) pick(r *rand.Rand) *Family {
	var total float64
	for i := range f.Components {
		total += f.Components[i].Weight
	}
	x := r.Float64() * total
	last := 0
	for i := range f.Components {
		w := f.Components[i].Weight
		if w <= 0 {
			continue
		}
		last = i
		if x < w {
			return &f.Components[i].Family
		}
		x -= w
	}
	return &f.Components[last].Family // rounding at the top end
}

// builder is the memory of a draw: the raw graph, the nodes' in-degrees
// and the graph's construction's working memory.
type builder struct {
	rawGraph
	indeg []int32
	s     scratch
}

func (b *builder) edge(from, to int) {
	b.edges = append(b.edges, Edge{From: ID(from), To: ID(to)})
}

// structure lays out the nodes and edges of a generated shape.
func (f *Family) structure(r *rand.Rand, b *builder) {
	switch f.Shape {
	case ShapeChain:
		b.edges = slices.Grow(b.edges[:0], f.Length-1)
		for v := 1; v < f.Length; v++ {
			b.edge(v-1, v)
		}
	case ShapeForkJoin:
		w := f.Width
		b.edges = slices.Grow(b.edges[:0], f.Stages*(2*w+1))
		for s := range f.Stages {
			fork := s * (w + 2)
			join := fork + w + 1
			if s > 0 {
				b.edge(fork-1, fork)
			}
			for k := 1; k <= w; k++ {
				b.edge(fork, fork+k)
				b.edge(fork+k, join)
			}
		}
	case ShapeTree:
		// Split nodes and leaves are numbered breadth-first, so the children
		// of split node k are bf·k+1 … bf·k+bf. The merge node of split k is
		// numbered so that deeper merges come first and the root's merge is
		// last.
		bf := f.Branching
		splits, leaves := treeSize(bf, f.Depth)
		merge := func(k int) int { return splits + leaves + (splits - 1 - k) }
		b.edges = slices.Grow(b.edges[:0], 2*(splits+leaves-1))
		for k := range splits {
			for c := bf*k + 1; c <= bf*k+bf; c++ {
				b.edge(k, c)
				if c < splits {
					b.edge(merge(c), merge(k))
				} else {
					b.edge(c, merge(k))
				}
			}
		}
	case ShapeLayered:
		f.layered(r, b)
	case ShapeNeedle:
		b.edges = b.edges[:0]
		sel := f.Tries
		for k := range f.Tries {
			b.edge(k, sel)
		}
		b.nodes[sel].Join = JoinAny
		b.set[sel] = hasDifficulty | hasLoop | hasJoin | hasCoupling
	}
}

func (f *Family) layered(r *rand.Rand, b *builder) {
	w, d, p := f.Width, f.Depth, f.EdgeProb
	b.edges = slices.Grow(b.edges[:0], int(float64(w)*float64(w)*float64(d-1)*p)+w*d)
	hasParent := make([]bool, w)
	var hasChild []bool
	if f.SingleSink {
		hasChild = make([]bool, w*d)
	}
	lq := math.Log1p(-p)
	pairs := w * w
	for l := 1; l < d; l++ {
		above, here := (l-1)*w, l*w
		clear(hasParent)
		add := func(u, v int) {
			b.edge(above+u, here+v)
			hasParent[v] = true
			if hasChild != nil {
				hasChild[above+u] = true
			}
		}
		switch {
		case p >= 1:
			for k := range pairs {
				add(k/w, k%w)
			}
		case p > 0:
			// Geometric skips: the gap to the next edge among the pairs is
			// the number of failures before a success.
			for k := -1; ; {
				skip := math.Floor(math.Log1p(-r.Float64()) / lq)
				if skip >= float64(pairs-1-k) {
					break
				}
				k += 1 + int(skip)
				add(k/w, k%w)
			}
		}
		for v := range w {
			if !hasParent[v] {
				add(r.IntN(w), v)
			}
		}
	}
	if f.SingleSink {
		sink := w * d
		for v := range w * d {
			if !hasChild[v] {
				b.edge(v, sink)
			}
		}
	}
}

// fill draws the attributes that rg's nodes do not have yet.
func (f *Family) fill(r *rand.Rand, b *builder) error {
	rg := &b.rawGraph
	b.indeg = resize(b.indeg, len(rg.nodes))
	indeg := b.indeg
	for _, e := range rg.edges {
		if e.To >= 0 && int(e.To) < len(indeg) {
			indeg[e.To]++
		}
	}
	loopProb := f.LoopProb
	if loopProb == 0 {
		loopProb = 1
	}
	for v := range rg.nodes {
		nd, set := &rg.nodes[v], rg.set[v]
		if set&hasWork == 0 {
			s := f.Work.Sample(r)
			w, err := sim.FromSeconds(s)
			if err != nil {
				return fmt.Errorf("work: drew %v s, beyond the range of virtual time", s)
			}
			nd.Work = w
		}
		if set&hasDifficulty == 0 {
			nd.Difficulty = min(f.Difficulty.Sample(r), maxDifficulty)
		}
		if set&hasTokens == 0 {
			s := math.Round(f.OutputTokens.Sample(r))
			if s > MaxTokens {
				return fmt.Errorf("output_tokens: drew %v, above the limit %d", s, MaxTokens)
			}
			nd.OutputTokens = int(s)
		}
		if set&hasLoop == 0 && f.Loop > 0 && (loopProb >= 1 || r.Float64() < loopProb) {
			nd.Loop = f.Loop
		}
		if set&hasCoupling == 0 && indeg[v] >= 2 && nd.Join == JoinAll {
			nd.Coupling = min(f.Coupling.Sample(r), 1)
		}
	}
	return nil
}
