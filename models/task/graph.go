package task

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/swarmsim/swarmsim/sim"
)

// ID is the dense index of a node in Graph.Nodes: 0 ≤ ID < Graph.Len().
type ID int32

// JoinKind says what a node with several predecessors waits for.
type JoinKind uint8

const (
	// JoinAll (the zero value) waits for an acceptable result from every
	// predecessor: the parts are reconciled, with the node's Coupling.
	JoinAll JoinKind = iota
	// JoinAny waits for the first acceptable result from any predecessor:
	// the predecessors are alternative attempts at the same thing (a needle
	// search, best-of-N), and the others may be abandoned. Coupling is
	// ignored at a JoinAny node.
	JoinAny
)

// String returns "all" or "any".
func (k JoinKind) String() string {
	switch k {
	case JoinAll:
		return "all"
	case JoinAny:
		return "any"
	}
	return "JoinKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText returns the String form of k.
func (k JoinKind) MarshalText() ([]byte, error) {
	if k > JoinAny {
		return nil, fmt.Errorf("join: invalid kind %d", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText parses "all" or "any".
func (k *JoinKind) UnmarshalText(b []byte) error {
	v, err := parseJoin(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

func parseJoin(s string) (JoinKind, error) {
	switch s {
	case "all":
		return JoinAll, nil
	case "any":
		return JoinAny, nil
	}
	return 0, fmt.Errorf("unknown join %q (allowed: all, any)", s)
}

// Limits on node values, so that sums of them cannot overflow.
const (
	// MaxTokens bounds OutputTokens and per-edge tokens (about 10¹²).
	MaxTokens = 1 << 40
	// MaxLoop bounds Node.Loop.
	MaxLoop = 1 << 20
)

// maxDifficulty is the largest float64 below 1: Difficulty lies in [0, 1).
var maxDifficulty = math.Nextafter(1, 0)

// Node is one subtask of a task-decomposition graph.
type Node struct {
	// Name is unique within the graph: a file's node id, or "t<ID>" where
	// New is given an empty name.
	Name string
	// Work is the time one agent of speed 1 takes for one attempt (or one
	// iteration of a loop), excluding model-call and communication
	// overheads.
	Work sim.Time
	// Difficulty in [0, 1): 0 means any attempt is acceptable. The
	// collective turns it into a success probability per attempt given an
	// agent's strength.
	Difficulty float64
	// OutputTokens is the size of the node's result, sent along each
	// out-edge whose Tokens are not given explicitly, when producer and
	// consumer are different agents. 0 ≤ OutputTokens ≤ MaxTokens.
	OutputTokens int
	// Coupling κ in [0, 1] is meaningful only at a JoinAll node with at
	// least two predecessors, and ignored elsewhere: how much the parts must
	// be reconciled (0: cleanly divisible; near 1: parts conflict unless
	// their makers shared intermediate findings).
	Coupling float64
	// Loop is 0 for a single attempt. Loop = n > 0 makes the node a
	// ReAct-style loop: iterations of Work are repeated until one is
	// acceptable, at most n of them. 0 ≤ Loop ≤ MaxLoop.
	Loop int
	// Join says whether the node needs all predecessors (JoinAll, the zero
	// value) or the first acceptable one (JoinAny).
	Join JoinKind
}

// NoTokens in Edge.Tokens marks an edge that carries no data (a pure ordering
// constraint), whatever its producer's OutputTokens.
const NoTokens = -1

// Edge is a dependency From → To given to New: To needs From's result.
//
// Tokens is the size of the data sent along the edge: 0 (the zero value)
// means the producer's OutputTokens, a positive value overrides it for this
// edge (WfFormat files give per-edge sizes), and NoTokens (-1) means none at
// all. Other negative values are errors.
type Edge struct {
	From, To ID
	Tokens   int
}

// Graph is an immutable directed acyclic graph of subtasks, stored in
// compressed sparse row form: adjacency is a few flat slices, whatever the
// number of nodes. Build one with New, a reader (ReadDOT, ReadWfFormat,
// Load) or Family.Draw; the zero Graph is the empty graph.
//
// Nodes and every slice a method returns belong to the graph and must not be
// modified. Methods are safe for concurrent use.
type Graph struct {
	// Nodes holds the subtasks, indexed by ID. Read-only.
	Nodes []Node

	succOff []int32 // len n+1; successors of v are succ[succOff[v]:succOff[v+1]]
	succ    []ID    // sorted by ID within each node
	succTok []int   // resolved tokens, parallel to succ
	predOff []int32
	pred    []ID // sorted by ID within each node
	predTok []int

	topo      []ID
	sources   []ID
	sinks     []ID
	level     []int32
	totalWork sim.Time // computed once by New: consumers ask for it per decision
	critical  sim.Time // computed once by New: consumers ask for it per episode
	// joinCoupling[v] is JoinCoupling(v), computed once by New because
	// the collective asks for it at every decision; empty when no join is
	// coupled, as in most graphs.
	joinCoupling []float64
	width        int
	depth        int
	tools        Tools
	kind         string
}

// Tools describes the tool use of a task: how many tool calls (sandboxes,
// searches, browsers) an attempt at one of its subtasks makes, and how long
// each takes. They are drawn anew at every attempt, not once per node, so
// that a retry is not a replay. The zero Tools means no tool use.
type Tools struct {
	// Calls is the number of tool calls per attempt (rounded to a whole
	// number), such as sim.Poisson(2).
	Calls sim.Dist
	// Latency is the duration of one tool call, in seconds.
	Latency sim.Dist
}

// Tools returns the task's tool use; graphs read from files or built with
// New have none unless WithTools gives it.
func (g *Graph) Tools() Tools { return g.tools }

// WithTools returns a copy of g that shares g's structure and has tool use
// t. It costs O(1).
func (g *Graph) WithTools(t Tools) *Graph {
	c := *g
	c.tools = t
	return &c
}

// Kind returns the kind (one of Kinds) of the family the graph was drawn
// from: for a mixture, that of the component drawn. It is "" for a graph
// drawn from a family without a kind, read from a file or built with New.
func (g *Graph) Kind() string { return g.kind }

// New checks nodes and edges and returns the graph they describe. It copies
// both arguments. Empty node names become "t<ID>".
//
// Errors name the offending node or edge: names must be unique; Work ≥ 0,
// Difficulty in [0, 1), Coupling in [0, 1],
// 0 ≤ OutputTokens ≤ MaxTokens, 0 ≤ Loop ≤ MaxLoop, Join a known kind;
// edges must join existing nodes, must not be self loops or duplicates, and
// must not close a cycle (the error lists the nodes on one cycle, as in
// "cycle: a -> b -> c -> a").
//
// New costs O(V log V + E) time and O(V + E) memory.
func New(nodes []Node, edges []Edge) (*Graph, error) {
	g := &Graph{}
	var s scratch
	if err := g.build(nodes, edges, &s); err != nil {
		return nil, err
	}
	return g, nil
}

// scratch is the working memory of a graph's construction, which a Drawer
// keeps from draw to draw.
type scratch struct {
	byTo, pos, indeg []int32
	ready            IDQueue
	finish           []sim.Time
	count            []int
}

// resize returns s with length n and every element zero, in s's memory
// where it has the room.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// reuse empties g for another build, keeping its slices' memory.
func (g *Graph) reuse() {
	*g = Graph{
		Nodes: g.Nodes[:0], succOff: g.succOff, succ: g.succ, succTok: g.succTok, predOff: g.predOff, pred: g.pred, predTok: g.predTok,
		topo: g.topo[:0], sources: g.sources[:0], sinks: g.sinks[:0], level: g.level, joinCoupling: g.joinCoupling[:0],
	}
}

// build is New into g, which is zero or emptied by reuse, with working
// memory s.
func (g *Graph) build(nodes []Node, edges []Edge, s *scratch) error {
	n := len(nodes)
	if n > math.MaxInt32 || len(edges) > math.MaxInt32 {
		return fmt.Errorf("task: graph too large: %d nodes, %d edges (limit %d each)", n, len(edges), math.MaxInt32)
	}
	g.Nodes = append(g.Nodes, nodes...)
	// The names New gives are distinct: only a graph with a given name
	// needs checking (a given "t3" may be New's name of node 3).
	var names map[string]ID
	if slices.ContainsFunc(nodes, func(nd Node) bool { return nd.Name != "" }) {
		names = make(map[string]ID, n)
	}
	nameNodes(g.Nodes)
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if names != nil {
			if j, dup := names[nd.Name]; dup {
				return fmt.Errorf("task: nodes %d and %d have the same name %q", j, i, nd.Name)
			}
			names[nd.Name] = ID(i)
		}
		if err := checkNode(nd); err != nil {
			return fmt.Errorf("task: node %q: %w", nd.Name, err)
		}
	}

	// Resolve and check edges.
	outDeg := resize(g.succOff, n+1)
	inDeg := resize(g.predOff, n+1)
	for i, e := range edges {
		if e.From < 0 || int(e.From) >= n || e.To < 0 || int(e.To) >= n {
			return fmt.Errorf("task: edge %d: %d -> %d: node id out of range [0, %d)", i, e.From, e.To, n)
		}
		if e.From == e.To {
			return fmt.Errorf("task: edge %q -> %q: self loop", g.Nodes[e.From].Name, g.Nodes[e.To].Name)
		}
		if e.Tokens < NoTokens || e.Tokens > MaxTokens {
			return fmt.Errorf("task: edge %q -> %q: tokens %d out of range (want %d for none, 0 for the producer's output_tokens, or 1..%d)",
				g.Nodes[e.From].Name, g.Nodes[e.To].Name, e.Tokens, NoTokens, MaxTokens)
		}
		outDeg[e.From+1]++
		inDeg[e.To+1]++
	}
	for v := range n {
		outDeg[v+1] += outDeg[v]
		inDeg[v+1] += inDeg[v]
	}
	g.succOff, g.predOff = outDeg, inDeg
	m := len(edges)
	g.succ, g.succTok = resize(g.succ, m), resize(g.succTok, m)
	g.pred, g.predTok = resize(g.pred, m), resize(g.predTok, m)

	// Two counting sorts give sorted adjacency without comparisons: edges
	// ordered by To, scattered by From, leave each successor list sorted;
	// and the other way round for predecessors.
	s.byTo, s.pos = resize(s.byTo, m), resize(s.pos, n)
	byTo, pos := s.byTo, s.pos
	copy(pos, g.predOff[:n])
	for i, e := range edges {
		byTo[pos[e.To]] = int32(i)
		pos[e.To]++
	}
	copy(pos, g.succOff[:n])
	for _, i := range byTo {
		e := edges[i]
		k := pos[e.From]
		pos[e.From]++
		g.succ[k] = e.To
		g.succTok[k] = g.resolveTokens(e)
	}
	// Successor lists are sorted; detect duplicates there, then derive the
	// predecessor lists by scanning sources in increasing order.
	for v := range n {
		s := g.succ[g.succOff[v]:g.succOff[v+1]]
		for k := 1; k < len(s); k++ {
			if s[k] == s[k-1] {
				return fmt.Errorf("task: duplicate edge %q -> %q", g.Nodes[v].Name, g.Nodes[s[k]].Name)
			}
		}
	}
	copy(pos, g.predOff[:n])
	for v := range n {
		for k := g.succOff[v]; k < g.succOff[v+1]; k++ {
			w := g.succ[k]
			j := pos[w]
			pos[w]++
			g.pred[j] = ID(v)
			g.predTok[j] = g.succTok[k]
		}
	}

	if err := g.sortTopo(s); err != nil {
		return err
	}
	g.computeLevels(s)
	for i := range g.Nodes {
		g.totalWork = satAdd(g.totalWork, g.Nodes[i].Work)
	}
	if n > 0 {
		s.finish = resize(s.finish, n)
		g.critical = s.finish[g.finishes(s.finish, nil)]
	}
	g.computeJoinCoupling()
	for v := range n {
		if g.predOff[v] == g.predOff[v+1] {
			g.sources = append(g.sources, ID(v))
		}
		if g.succOff[v] == g.succOff[v+1] {
			g.sinks = append(g.sinks, ID(v))
		}
	}
	return nil
}

// nameNodes names each unnamed node "t<ID>": below smallNodes, a slice of
// one string made once, so that a draw names its nodes without
// allocating; beyond, all the names in one string.
func nameNodes(nodes []Node) {
	small := smallNames()
	var stack [128]byte
	buf := stack[:0]
	for i := smallNodes; i < len(nodes); i++ {
		if nodes[i].Name == "" {
			buf = strconv.AppendInt(append(buf, 't'), int64(i), 10)
		}
	}
	all := string(buf)
	for i := range nodes {
		switch {
		case nodes[i].Name != "":
		case i < smallNodes:
			nodes[i].Name = smallName(small, i)
		default:
			k := len(strconv.AppendInt(stack[:1], int64(i), 10))
			nodes[i].Name, all = all[:k], all[k:]
		}
	}
}

// smallNodes bounds the nodes whose generated names are slices of
// smallNames.
const smallNodes = 1000

// smallNames is "t0t1…t999", made on first use.
var smallNames = sync.OnceValue(func() string {
	b := make([]byte, 0, 3890)
	for i := range smallNodes {
		b = strconv.AppendInt(append(b, 't'), int64(i), 10)
	}
	return string(b)
})

// smallName is "t<i>" in small, for i < smallNodes: the names of one, two
// and three digits start at 0, 20 and 290.
func smallName(small string, i int) string {
	switch {
	case i < 10:
		return small[2*i : 2*i+2]
	case i < 100:
		o := 20 + 3*(i-10)
		return small[o : o+3]
	default:
		o := 290 + 4*(i-100)
		return small[o : o+4]
	}
}

func (g *Graph) resolveTokens(e Edge) int {
	switch {
	case e.Tokens == NoTokens:
		return 0
	case e.Tokens == 0:
		return g.Nodes[e.From].OutputTokens
	}
	return e.Tokens
}

// checkNode checks the ranges of a node's values; the error names the field.
func checkNode(nd *Node) error {
	switch {
	case nd.Work < 0:
		return fmt.Errorf("work %v is negative", nd.Work)
	case !(nd.Difficulty >= 0 && nd.Difficulty < 1):
		return fmt.Errorf("difficulty %v not in [0, 1)", nd.Difficulty)
	case !(nd.Coupling >= 0 && nd.Coupling <= 1):
		return fmt.Errorf("coupling %v not in [0, 1]", nd.Coupling)
	case nd.OutputTokens < 0 || nd.OutputTokens > MaxTokens:
		return fmt.Errorf("tokens %d not in [0, %d]", nd.OutputTokens, MaxTokens)
	case nd.Loop < 0 || nd.Loop > MaxLoop:
		return fmt.Errorf("loop %d not in [0, %d]", nd.Loop, MaxLoop)
	case nd.Join > JoinAny:
		return fmt.Errorf("join %d unknown (allowed: all, any)", nd.Join)
	}
	return nil
}

// sortTopo orders the nodes with Kahn's algorithm, taking the smallest ready
// ID first, or reports a cycle.
func (g *Graph) sortTopo(s *scratch) error {
	n := len(g.Nodes)
	s.indeg = resize(s.indeg, n)
	indeg, ready := s.indeg, s.ready[:0]
	for v := range n {
		indeg[v] = g.predOff[v+1] - g.predOff[v]
		if indeg[v] == 0 {
			ready = append(ready, ID(v)) // increasing: already a heap
		}
	}
	g.topo = slices.Grow(g.topo, n)
	for ready.Len() > 0 {
		v := ready.Pop()
		g.topo = append(g.topo, v)
		for _, w := range g.Succ(v) {
			indeg[w]--
			if indeg[w] == 0 {
				ready.Push(w)
			}
		}
	}
	s.ready = ready
	if len(g.topo) == n {
		return nil
	}
	return g.cycleError(indeg)
}

// cycleError finds one cycle among the nodes Kahn's algorithm left behind:
// each of them has a predecessor that was left behind too, so walking
// backwards from any of them must revisit a node.
func (g *Graph) cycleError(indeg []int32) error {
	start := ID(-1)
	for v, d := range indeg {
		if d > 0 {
			start = ID(v)
			break
		}
	}
	seen := make(map[ID]int) // node -> position in walk; lookups only
	var walk []ID
	v := start
	for {
		if at, ok := seen[v]; ok {
			walk = walk[at:]
			break
		}
		seen[v] = len(walk)
		walk = append(walk, v)
		for _, p := range g.Pred(v) {
			if indeg[p] > 0 {
				v = p
				break
			}
		}
	}
	// walk follows edges backwards (walk[i+1] -> walk[i]); turn it forwards
	// and start at the smallest ID.
	k := len(walk)
	cycle := make([]ID, k)
	first := 0
	for i := range k {
		cycle[i] = walk[(k-i)%k]
		if cycle[i] < cycle[first] {
			first = i
		}
	}
	const maxShown = 20
	var sb strings.Builder
	sb.WriteString("task: cycle: ")
	for i := range k + 1 {
		if i == maxShown && k > maxShown {
			fmt.Fprintf(&sb, " -> ... (%d nodes in all)", k)
			break
		}
		if i > 0 {
			sb.WriteString(" -> ")
		}
		sb.WriteString(strconv.Quote(g.Nodes[cycle[(first+i)%k]].Name))
	}
	ordered := make([]ID, k)
	for i := range k {
		ordered[i] = cycle[(first+i)%k]
	}
	return &CycleError{Cycle: ordered, msg: sb.String()}
}

// CycleError is the error of New for edges that close a cycle. Readers of
// graph files use it to place the error at the edge that closes it.
type CycleError struct {
	// Cycle lists the nodes of one cycle in edge order, starting at the
	// smallest ID: Cycle[i] -> Cycle[i+1], and the last back to the first.
	Cycle []ID
	msg   string
}

func (e *CycleError) Error() string { return e.msg }

func (g *Graph) computeLevels(s *scratch) {
	g.level = resize(g.level, len(g.Nodes))
	for _, v := range g.topo {
		var l int32
		for _, p := range g.Pred(v) {
			l = max(l, g.level[p]+1)
		}
		g.level[v] = l
	}
	if len(g.Nodes) == 0 {
		return
	}
	var depth int32
	for _, l := range g.level {
		depth = max(depth, l+1)
	}
	s.count = resize(s.count, int(depth))
	count := s.count
	for _, l := range g.level {
		count[l]++
	}
	g.depth = int(depth)
	for _, c := range count {
		g.width = max(g.width, c)
	}
}

// computeJoinCoupling fills joinCoupling from the coupled joins'
// predecessors, leaving it empty when there are none.
func (g *Graph) computeJoinCoupling() {
	for w := range g.Nodes {
		n := &g.Nodes[w]
		if n.Join != JoinAll || n.Coupling <= 0 || len(g.Pred(ID(w))) < 2 {
			continue // a coupling of 0 raises no maximum
		}
		if len(g.joinCoupling) == 0 {
			g.joinCoupling = resize(g.joinCoupling, len(g.Nodes))
		}
		for _, v := range g.Pred(ID(w)) {
			g.joinCoupling[v] = max(g.joinCoupling[v], n.Coupling)
		}
	}
}

// JoinCoupling returns the largest Coupling among the JoinAll nodes with
// two or more predecessors that v feeds, or 0 if it feeds none: how much
// the part v must be reconciled with others. It costs O(1).
func (g *Graph) JoinCoupling(v ID) float64 {
	if len(g.joinCoupling) == 0 {
		return 0
	}
	return g.joinCoupling[v]
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.Nodes) }

// Edges returns the number of edges.
func (g *Graph) Edges() int { return len(g.succ) }

// Succ returns the successors of v in increasing ID order. The slice belongs
// to the graph. It panics if v is out of range.
func (g *Graph) Succ(v ID) []ID {
	a, b := g.succOff[v], g.succOff[v+1]
	return g.succ[a:b:b]
}

// SuccTokens returns the tokens sent along each out-edge of v, parallel to
// Succ(v), with edge overrides and NoTokens resolved. The slice belongs to
// the graph. It panics if v is out of range.
func (g *Graph) SuccTokens(v ID) []int {
	a, b := g.succOff[v], g.succOff[v+1]
	return g.succTok[a:b:b]
}

// Pred returns the predecessors of v in increasing ID order. The slice
// belongs to the graph. It panics if v is out of range.
func (g *Graph) Pred(v ID) []ID {
	a, b := g.predOff[v], g.predOff[v+1]
	return g.pred[a:b:b]
}

// PredTokens returns the tokens received along each in-edge of v, parallel
// to Pred(v). The slice belongs to the graph. It panics if v is out of range.
func (g *Graph) PredTokens(v ID) []int {
	a, b := g.predOff[v], g.predOff[v+1]
	return g.predTok[a:b:b]
}

// EdgeTokens returns the tokens sent along the edge from → to, and whether
// that edge exists. It costs O(log outdegree(from)). It panics if from is out
// of range.
func (g *Graph) EdgeTokens(from, to ID) (int, bool) {
	s := g.Succ(from)
	lo, hi := 0, len(s)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s[mid] < to {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s) && s[lo] == to {
		return g.SuccTokens(from)[lo], true
	}
	return 0, false
}

// Lookup returns the ID of the node with the given name, or -1 and false
// where there is none. It costs O(V).
func (g *Graph) Lookup(name string) (ID, bool) {
	for i := range g.Nodes {
		if g.Nodes[i].Name == name {
			return ID(i), true
		}
	}
	return -1, false
}

// Topo returns every node in topological order: Kahn's algorithm taking the
// smallest ready ID first, so the order depends only on the graph. The slice
// belongs to the graph.
func (g *Graph) Topo() []ID { return g.topo[:len(g.topo):len(g.topo)] }

// Sources returns the nodes without predecessors, in increasing ID order.
// The slice belongs to the graph.
func (g *Graph) Sources() []ID { return g.sources[:len(g.sources):len(g.sources)] }

// Sinks returns the nodes without successors, in increasing ID order. The
// slice belongs to the graph.
func (g *Graph) Sinks() []ID { return g.sinks[:len(g.sinks):len(g.sinks)] }

// TotalWork returns the sum of Work over all nodes: the time one agent of
// speed 1 needs for the whole graph, one attempt (or iteration) per node and
// no overheads. It saturates at sim.MaxTime.
func (g *Graph) TotalWork() sim.Time { return g.totalWork }

// CriticalLength returns the length of CriticalPath, computed once when the
// graph was built.
func (g *Graph) CriticalLength() sim.Time { return g.critical }

// CriticalPath returns the longest path through the graph weighted by Work
// (one attempt or iteration per node), and its nodes from a source to a
// sink: the finish time of the graph with unlimited agents of speed 1 and
// no overheads. JoinAny nodes are treated like JoinAll ones: every
// predecessor counts. Ties go to the smallest IDs. The length saturates at
// sim.MaxTime. It costs O(V + E) time and allocates the path and O(V)
// scratch; the empty graph gives (0, nil).
func (g *Graph) CriticalPath() (sim.Time, []ID) {
	n := len(g.Nodes)
	if n == 0 {
		return 0, nil
	}
	finish := make([]sim.Time, n)
	best := make([]ID, n)
	end := g.finishes(finish, best)
	count := 0
	for v := end; v >= 0; v = best[v] {
		count++
	}
	path := make([]ID, count)
	for v := end; v >= 0; v = best[v] {
		count--
		path[count] = v
	}
	return finish[end], path
}

// finishes sets finish[v] to the end of the longest path to v and, where
// best is not nil, best[v] to the predecessor on it (-1 for none), and
// returns the node that finishes last (the smallest ID among ties). The
// graph must not be empty.
func (g *Graph) finishes(finish []sim.Time, best []ID) ID {
	for _, v := range g.topo {
		var start sim.Time
		b := ID(-1)
		for _, p := range g.Pred(v) {
			if b < 0 || finish[p] > start {
				start, b = finish[p], p
			}
		}
		finish[v] = satAdd(start, g.Nodes[v].Work)
		if best != nil {
			best[v] = b
		}
	}
	end := ID(0)
	for v := 1; v < len(finish); v++ {
		if finish[v] > finish[end] {
			end = ID(v)
		}
	}
	return end
}

func satAdd(a, b sim.Time) sim.Time {
	if a > sim.MaxTime-b {
		return sim.MaxTime
	}
	return a + b
}

// Level returns v's level: 0 for a source, otherwise one more than the
// highest level among its predecessors (the number of edges on the longest
// path from a source to v). It panics if v is out of range.
func (g *Graph) Level(v ID) int { return int(g.level[v]) }

// Depth returns the number of levels (see Level): the number of nodes on the
// longest path counted in nodes, not in Work. The empty graph has depth 0.
func (g *Graph) Depth() int { return g.depth }

// Width returns the largest number of nodes on one level (see Level). It is
// a cheap stand-in for the largest antichain (the most subtasks that could
// ever run at once), which it never exceeds: nodes on one level are pairwise
// independent. For chains, fork-joins, trees and layered graphs it is the
// parallelism one would name.
func (g *Graph) Width() int { return g.width }

// Equal reports whether g and h have the same nodes, in the same order,
// the same edges carrying the same (resolved) tokens, the same tool use
// and the same kind.
func (g *Graph) Equal(h *Graph) bool {
	if g.Len() != h.Len() || g.Edges() != h.Edges() || g.tools != h.tools || g.kind != h.kind {
		return false
	}
	for i := range g.Nodes {
		if g.Nodes[i] != h.Nodes[i] {
			return false
		}
	}
	for i := range g.succ {
		if g.succ[i] != h.succ[i] || g.succTok[i] != h.succTok[i] {
			return false
		}
	}
	for v := 1; v <= g.Len(); v++ {
		if g.succOff[v] != h.succOff[v] {
			return false
		}
	}
	return true
}
