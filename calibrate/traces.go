package calibrate

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/calibrate/otel"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/sim"
)

// Operation names of the GenAI semantic conventions. call_llm is what
// any-agent wrote before the conventions settled on chat.
const (
	opAgent = "invoke_agent"
	opTool  = "execute_tool"
)

var modelOps = []string{"chat", "call_llm", "text_completion", "generate_content"}

// AcceptableAttr is the root-span attribute that carries a run's outcome,
// which the GenAI conventions do not.
const AcceptableAttr = "swarmsim.acceptable"

// Call is one model call.
type Call struct {
	Run, Agent, Model string
	// InputTokens and OutputTokens are meaningful only when HasTokens.
	InputTokens, OutputTokens int64
	HasTokens                 bool
	// Duration is in seconds; Start is seconds after the run's start.
	Duration, Start float64
}

// ToolCall is one tool call.
type ToolCall struct {
	Run, Agent, Tool string
	Duration, Start  float64 // seconds; Start after the run's start
}

// Delegation is one invoke_agent span under another: From delegated to To.
type Delegation struct {
	Run, From, To string
	// Start is seconds after the run's start; Wave numbers the groups of
	// delegations from one agent that overlap in time (0, 1, ...).
	Start float64
	Wave  int
	// Startup is the time from the delegated agent's start to its first
	// model call, in seconds (0 when it made none).
	Startup float64
}

// Run is one root invoke_agent span and everything under it.
type Run struct {
	ID, File string
	Duration float64 // seconds
	Calls    int     // model calls with a duration
	Tools    int     // tool calls with a duration
	// Agents counts nested invoke_agent spans; MaxParallel is the largest
	// number of agents (the root included) running at once.
	Agents, MaxParallel int
	// Fanout is the largest number of agents one agent had running at
	// once on its behalf; Waves the most waves of delegation of one agent.
	Fanout, Waves int
	// Acceptable is the root's swarmsim.acceptable, when HasOutcome.
	Acceptable, HasOutcome bool
}

// Report counts what was read and what could not be used.
type Report struct {
	Files, Spans int
	// Outputs counts the directories below a DIR argument that simulate
	// wrote (they hold a manifest.json), whose JSON files are not traces.
	Outputs int
	// NoEnd counts spans without an end time; EndsEarly spans ending
	// before they start; NoEndRuns the runs left out, with everything
	// under them, because their root span is one of these; NoAttributes spans without attributes; NotGenAI spans with
	// attributes but no gen_ai.operation.name; NoTokens model calls
	// without both token counts; Outside GenAI spans under no
	// invoke_agent; NoRoot traces without an invoke_agent span at all.
	// Adopted counts spans whose parent is not in the file, placed under
	// the invoke_agent span that contains them in time.
	NoEnd, EndsEarly, NoEndRuns, NoAttributes, NotGenAI, NoTokens, Outside, NoRoot, Adopted int
	// EndsEarlySpans names each of the EndsEarly spans, as
	// "FILE:LINE: span NAME (ID ID)" with the path Load read the file at,
	// so that a broken clock or file can be found.
	EndsEarlySpans []string
	// Loops names one span of each loop of parents (spans each other's
	// parent, or a span its own: a broken file), the first of the loop in
	// the file, as "FILE: span NAME (ID ID)". The loop is cut there, and
	// the span placed as one whose parent is missing. A span's file is
	// followed by the line it starts on, where known (FILE:LINE).
	Loops []string
	// OutsideRun counts model and tool calls that start before their
	// run's root span or end after it, left out (Traces.dropOutside).
	OutsideRun int
	// OpenInference counts the NotGenAI spans that carry
	// openinference.span.kind: traces under OpenInference's conventions,
	// which name the same calls differently and are not read.
	OpenInference int
	// Repeated counts spans written twice over in one trace of a file
	// (otel.Read keeps an identical repeat in one document: any-agent's
	// OpenAI recorder writes a tool span twice in 7 of its runs): one
	// span, read once, so that its call counts once.
	Repeated int
	// Early counts runs whose root span starts before 2000 (earlyRun) in
	// Unix time. They are read as any other, but integer times in
	// microseconds or milliseconds read as nanoseconds land there, with
	// every duration 1,000 or 1,000,000 times too short, and nothing else
	// would show it.
	Early int
}

// earlyRun is 2000-01-01 in Unix nanoseconds: recorded runs start after
// it, and times in microseconds or milliseconds up to 2262 fall before.
const earlyRun = int64(946_684_800) * 1e9

// String writes the report as one line per count.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %s from %s\n", countOf(r.Spans, "span", "spans"), countOf(r.Files, "file", "files"))
	if r.Repeated > 0 {
		fmt.Fprintln(&b, countOf(r.Repeated, "span written twice over in its trace (read once: one span, one call)", "spans written twice over in their trace (read once: one span, one call)"))
	}
	if r.Outputs > 0 {
		fmt.Fprintf(&b, "directories that simulate wrote (%s), skipped: %d\n", rundir.ManifestName, r.Outputs)
	}
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{r.NoEnd, "span without an end time (left out)", "spans without an end time (left out)"},
		{r.EndsEarly, "span ending before it starts (left out)" + namedAs(r.EndsEarlySpans), "spans ending before they start (left out)" + namedAs(r.EndsEarlySpans)},
		{r.NoEndRuns, "run whose root span has no end time or ends before it starts (left out, with its spans)",
			"runs whose root span has no end time or ends before it starts (left out, with their spans)"},
		{r.NoAttributes, "span without attributes (left out)", "spans without attributes (left out)"},
		{r.NotGenAI, "span without gen_ai.operation.name (left out" + openInference(r.OpenInference) + ")",
			"spans without gen_ai.operation.name (left out" + openInference(r.OpenInference) + ")"},
		{r.NoTokens, "model call without token counts (kept for latency, left out of the token fit)",
			"model calls without token counts (kept for latency, left out of the token fit)"},
		{r.Outside, "GenAI span outside any invoke_agent span (left out)", "GenAI spans outside any invoke_agent span (left out)"},
		{r.OutsideRun, "model or tool call starting before its run's root span or ending after it (left out: timed on another clock?)",
			"model and tool calls starting before their run's root span or ending after it (left out: timed on another clock?)"},
		{r.NoRoot, "trace without an invoke_agent span (left out)", "traces without an invoke_agent span (left out)"},
		{r.Adopted, "span whose parent is not in the file (placed under the invoke_agent span containing it in time)",
			"spans whose parent is not in the file (placed under the invoke_agent span containing them in time)"},
		{len(r.Loops), "loop of parents, spans each other's parent or a span its own (a broken file; cut at its first span, placed under the invoke_agent span containing it in time): " + someOf(r.Loops),
			"loops of parents, spans each other's parent or a span its own (a broken file; each cut at its first span, placed under the invoke_agent span containing it in time): " + someOf(r.Loops)},
		{r.Early, "run starting before 2000 (kept; are its times Unix nanoseconds? microseconds or milliseconds read as nanoseconds make every duration 1,000 or 1,000,000 times too short)",
			"runs starting before 2000 (kept; are their times Unix nanoseconds? microseconds or milliseconds read as nanoseconds make every duration 1,000 or 1,000,000 times too short)"},
	} {
		if c.n > 0 {
			fmt.Fprintln(&b, countOf(c.n, c.one, c.many))
		}
	}
	return b.String()
}

// countOf writes n with the noun phrase one or many that agrees with it:
// "1 file", "0 files".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// someOf joins the first few of names, and says how many more there are.
func someOf(names []string) string {
	const show = 5
	if len(names) <= show {
		return strings.Join(names, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(names[:show], "; "), len(names)-show)
}

// namedAs follows a count with the spans it counts, as someOf writes
// them, or with nothing when none are named.
func namedAs(spans []string) string {
	if len(spans) == 0 {
		return ""
	}
	return ": " + someOf(spans)
}

// openInference says how many of the spans left out follow OpenInference,
// so that traces of it are told why they hold no run.
func openInference(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of them OpenInference's (openinference.span.kind), whose conventions are not read: export the GenAI semantic conventions", n)
}

// Traces is everything read from a set of trace files.
type Traces struct {
	Calls  []Call
	Tools  []ToolCall
	Runs   []Run
	Delegs []Delegation
	// Replay holds each run as a call graph to replay, in the order of
	// Runs.
	Replay []replay.Run
	Report Report
	// paths maps the name a file read by Load goes by in run IDs to its
	// path, so that the report names spans at a path one can open.
	paths map[string]string
}

// SpansName is the trace file that simulate writes into a results
// directory: 'simulate replay --spans' writes the replayed runs there.
const SpansName = "spans.jsonl"

// Load reads every trace file named in paths; a directory stands for the
// .json and .jsonl files below it, in lexical order, but for the
// directories below it that simulate wrote (they hold a manifest.json),
// which are skipped. A directory that simulate wrote named in paths
// stands for the one trace file simulate writes there, SpansName: its
// other JSON files (the manifest, chart indexes) are not traces. A file reached twice
// (named twice, or named and below a named directory as well) is an
// error, since its runs would count twice. Run IDs are the files' paths
// relative to the directory when paths is one directory, and the paths as
// found otherwise, so that files of one name below two directories (one
// trace exported by two frameworks) stay two runs.
func Load(paths []string) (*Traces, error) {
	var t Traces
	// seen maps each file read, resolved, to the argument it was found
	// under.
	seen := map[string]string{}
	for _, p := range paths {
		files, outputs, err := expand(p, len(paths) > 1)
		if err != nil {
			return nil, err
		}
		t.Report.Outputs += outputs
		for _, f := range files {
			key, err := resolve(f.path)
			if err != nil {
				return nil, err
			}
			if first, dup := seen[key]; dup {
				return nil, fmt.Errorf("%s is read twice, from the arguments %s and %s: name each trace file once, or its runs count twice", f.path, first, p)
			}
			seen[key] = p
			if err := t.readFile(f.path, f.name); err != nil {
				return nil, err
			}
		}
	}
	if len(t.Runs) == 0 {
		if t.Report.NoEndRuns > 0 {
			return nil, fmt.Errorf("no usable run in %s: the root span of every run has no end time or ends before it starts\n%s", strings.Join(paths, ", "), t.Report)
		}
		return nil, fmt.Errorf("no run found in %s: no invoke_agent span without an invoke_agent above it\n%s", strings.Join(paths, ", "), t.Report)
	}
	return &t, nil
}

// resolve returns the absolute path of the file at path, links followed:
// one name for each file, however it was reached.
func resolve(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

type traceFile struct{ path, name string }

// expand returns the trace files of the argument p: p itself, or the
// files below it, and the number of directories below p that simulate
// wrote, which it skips (a fit's --out may lie below its traces). The
// files' names are relative to p unless full is set.
func expand(p string, full bool) ([]traceFile, int, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, 0, err
	}
	if !info.IsDir() {
		return []traceFile{{p, filepath.ToSlash(p)}}, 0, nil
	}
	if _, err := os.Stat(filepath.Join(p, rundir.ManifestName)); err == nil {
		return resultSpans(p, full)
	}
	var out []traceFile
	outputs := 0
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != p {
			if _, err := os.Stat(filepath.Join(path, rundir.ManifestName)); err == nil {
				outputs++
				return fs.SkipDir
			}
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")) {
			name := path
			if !full {
				if name, err = filepath.Rel(p, path); err != nil {
					return err
				}
			}
			out = append(out, traceFile{path, filepath.ToSlash(name)})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("%s: no .json or .jsonl file", p)
	}
	return out, outputs, nil
}

// resultSpans returns the trace file of p, a directory that simulate
// wrote: SpansName, or an error that says which results p holds and
// that they hold no spans.
func resultSpans(p string, full bool) ([]traceFile, int, error) {
	path := filepath.Join(p, SpansName)
	info, err := os.Stat(path)
	if err == nil && !info.IsDir() {
		name := SpansName
		if full {
			name = filepath.ToSlash(path)
		}
		return []traceFile{{path, name}}, 0, nil
	}
	what := "results"
	if m, err := rundir.ReadManifest(p); err == nil {
		what = "the results of a " + string(m.Kind)
	}
	return nil, 0, fmt.Errorf("%s holds %s (its %s says so), with no %s: of a directory that simulate wrote, only the replayed runs that 'simulate replay --spans' writes there are traces; name a directory of traces, or trace files", p, what, rundir.ManifestName, SpansName)
}

func (t *Traces) readFile(path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	spans, err := otel.Read(f, path)
	if err != nil {
		return err
	}
	if err := checkSpans(path, spans); err != nil {
		return err
	}
	t.Report.Files++
	if t.paths == nil {
		t.paths = map[string]string{}
	}
	t.paths[name] = path
	t.Add(name, spans)
	return nil
}

// tokenAttrs are the token counts read, which the graph readers bound by
// task.MaxTokens.
var tokenAttrs = []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"}

// stringAttrs are the attributes read as names.
var stringAttrs = []string{"gen_ai.operation.name", "gen_ai.request.model", "gen_ai.response.model", "gen_ai.agent.name", "gen_ai.tool.name"}

// MaxSpan is the longest a span may last, in nanoseconds: the fitted
// scenario's time limit is ten times the longest run, and must be a
// sim.Time (with room for rounding it to 4 digits).
const MaxSpan = int64(sim.MaxTime / 20)

// checkSpans returns an error, naming the file at path and the line the
// span starts on, for a span whose values no fit can use and no run of
// the fitted scenario could reach: a duration above
// MaxSpan, or an attribute read (tokenAttrs, stringAttrs, AcceptableAttr)
// whose value is of the wrong type or out of range. Read as missing, such
// a value would quietly change the fit (a call without tokens, a run
// without an outcome, a call that is no call); a null is missing.
func checkSpans(path string, spans []otel.Span) error {
	for i := range spans {
		if err := checkSpan(&spans[i]); err != nil {
			return fmt.Errorf("%s: %w", spanFile(path, &spans[i]), err)
		}
	}
	return nil
}

// spanAt names the span s of the file called name for a report:
// "FILE:LINE: span NAME (ID ID)", with the file's path where Load read
// it and the line where known.
func (t *Traces) spanAt(name string, s *otel.Span) string {
	if path, ok := t.paths[name]; ok {
		name = path
	}
	return fmt.Sprintf("%s: span %q (ID %s)", spanFile(name, s), s.Name, s.SpanID)
}

// spanFile names the file at path and, when known, the line s starts on
// in it: "FILE:LINE".
func spanFile(path string, s *otel.Span) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", path, s.Line)
	}
	return path
}

// checkSpan is checkSpans for one span.
func checkSpan(s *otel.Span) error {
	if s.HasEnd && s.End-s.Start > MaxSpan {
		return fmt.Errorf("span %q (ID %s): lasts %s s, more than %s s (about %.0f years), the longest a span may last: the fitted time limit, ten times the longest run, must be a simulated time", s.Name, s.SpanID, fmtG(float64(s.End-s.Start)/1e9), fmtG(float64(MaxSpan)/1e9), float64(MaxSpan)/1e9/(365.25*86400))
	}
	for _, key := range tokenAttrs {
		if v := s.Attrs[key]; v != nil {
			n, ok := s.Int(key)
			if !ok {
				return fmt.Errorf("span %q (ID %s): %s: %s is not a whole number: want a token count in [0, %d], written as a number or a string of digits", s.Name, s.SpanID, key, attrString(v), task.MaxTokens)
			}
			if n < 0 || n > task.MaxTokens {
				return fmt.Errorf("span %q (ID %s): %s: %d is out of range [0, %d] (2^40, the most tokens a call may have)", s.Name, s.SpanID, key, n, task.MaxTokens)
			}
		}
	}
	for _, key := range stringAttrs {
		if v := s.Attrs[key]; v != nil {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("span %q (ID %s): %s: %s is not a string: want a name", s.Name, s.SpanID, key, attrString(v))
			}
		}
	}
	if v := s.Attrs[AcceptableAttr]; v != nil {
		if _, ok := s.Bool(AcceptableAttr); !ok {
			return fmt.Errorf("span %q (ID %s): %s: %s is not a boolean: want true or false (or the string \"true\" or \"false\")", s.Name, s.SpanID, AcceptableAttr, attrString(v))
		}
	}
	return nil
}

// attrString writes an attribute's value as it appeared: a string quoted,
// a number as a number.
func attrString(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// Add gathers the runs in spans, read from the file called name.
func (t *Traces) Add(name string, spans []otel.Span) {
	t.Report.Spans += len(spans)
	byTrace := map[string][]*otel.Span{}
	var order []string
	for i := range spans {
		s := &spans[i]
		if _, ok := byTrace[s.TraceID]; !ok {
			order = append(order, s.TraceID)
		}
		byTrace[s.TraceID] = append(byTrace[s.TraceID], s)
	}
	var runs []*runBuild
	for _, id := range order {
		for _, r := range t.tree(name, byTrace[id]) {
			if _, ok := r.root.Duration(); !ok {
				// A run's duration is its root's: without it the run has
				// none to fit, and its calls no start to be placed from.
				t.noEnd(name, r.root)
				t.Report.NoEndRuns++
				continue
			}
			if r.root.Start < earlyRun {
				t.Report.Early++
			}
			t.dropOutside(r.node, r.root)
			runs = append(runs, r)
		}
	}
	slices.SortStableFunc(runs, func(a, b *runBuild) int { return cmp.Compare(a.root.Start, b.root.Start) })
	for i, r := range runs {
		r.id = name
		if len(runs) > 1 {
			r.id = fmt.Sprintf("%s#%d", name, i+1)
		}
		t.addRun(name, r)
	}
}

// dropOutside takes out of the tree below n the model and tool calls
// that do not lie within the span of their run's root, and counts them
// (Report.OutsideRun); their children move up to n's place. A call that
// starts before its run did or ends after it did was timed on another
// clock (a start in local time, say, hours off): its duration would spoil
// the latency fit, and its place the replay's call graph, so it is left
// out of both as a call without an end is. Nested agents are not checked:
// their calls are.
func (t *Traces) dropOutside(n *node, root *otel.Span) {
	var kept []*node
	for queue := slices.Clone(n.children); len(queue) > 0; queue = queue[1:] {
		c := queue[0]
		if _, ok := c.s.Duration(); ok && isCounted(c.op) && (c.s.Start < root.Start || c.s.End > root.End) {
			t.Report.OutsideRun++
			queue = append(queue, c.children...)
			continue
		}
		c.parent = n
		kept = append(kept, c)
		t.dropOutside(c, root)
	}
	// Children in start order, as tree left them.
	slices.SortStableFunc(kept, func(a, b *node) int { return cmp.Compare(a.s.Start, b.s.Start) })
	n.children = kept
}

// node is a span in its trace's tree.
type node struct {
	s        *otel.Span
	op       string
	parent   *node
	children []*node
}

// under reports whether n is m or lies below it.
func (n *node) under(m *node) bool {
	for ; n != nil; n = n.parent {
		if n == m {
			return true
		}
	}
	return false
}

// runBuild is a run whose rows are being made.
type runBuild struct {
	id   string
	root *otel.Span
	node *node
}

// tree links one trace's spans, read from the file called name, and
// returns its runs; it counts what it leaves out.
func (t *Traces) tree(name string, spans []*otel.Span) []*runBuild {
	nodes := make(map[string]*node, len(spans))
	all := make([]*node, 0, len(spans))
	for _, s := range spans {
		if _, dup := nodes[s.SpanID]; dup {
			// A trace holds each span once: otel.Read refuses an ID
			// twice but for one span written twice over, identical,
			// which is one call, not two.
			t.Report.Repeated++
			continue
		}
		n := &node{s: s, op: s.String("gen_ai.operation.name")}
		if len(s.Attrs) == 0 {
			t.Report.NoAttributes++
		} else if n.op == "" {
			t.Report.NotGenAI++
			if s.String("openinference.span.kind") != "" {
				t.Report.OpenInference++
			}
		}
		nodes[s.SpanID] = n
		all = append(all, n)
	}
	var tops, agents []*node
	for _, n := range all {
		if n.op == opAgent {
			agents = append(agents, n)
		}
	}
	for _, n := range all {
		n.parent = nodes[n.s.ParentID]
	}
	// A span in a cycle of parents would be under no root, left out
	// without a count: the cycle is cut, reported, and its span placed as
	// one whose parent is missing.
	cut := cutCycles(all)
	for _, n := range cut {
		t.Report.Loops = append(t.Report.Loops, t.spanAt(name, n.s))
	}
	for _, n := range all {
		if n.parent == nil && n.s.ParentID != "" {
			// Frameworks export GenAI spans under spans of their own that
			// they do not export (Google ADK does): the agent whose span
			// contains this one in time is its agent.
			if n.parent = enclosing(agents, n); n.parent != nil && !slices.Contains(cut, n) {
				t.Report.Adopted++
			}
		}
		if n.parent != nil {
			n.parent.children = append(n.parent.children, n)
		} else {
			tops = append(tops, n)
		}
	}
	// Children in start order, so that rows follow time.
	for _, n := range all {
		slices.SortStableFunc(n.children, func(a, b *node) int { return cmp.Compare(a.s.Start, b.s.Start) })
	}
	var runs []*runBuild
	var visit func(n *node, inAgent bool)
	visit = func(n *node, inAgent bool) {
		if n.op == opAgent && !inAgent {
			runs = append(runs, &runBuild{root: n.s, node: n})
			return
		}
		if n.op != "" && n.op != opAgent && isCounted(n.op) {
			t.Report.Outside++
		}
		for _, c := range n.children {
			visit(c, inAgent)
		}
	}
	for _, n := range tops {
		visit(n, false)
	}
	if len(runs) == 0 {
		t.Report.NoRoot++
	}
	return runs
}

// cutCycles unlinks from its parent the first span, in the order of all,
// of each cycle of parents (a span that is its own parent is one), so
// that the links form trees, and returns those spans.
func cutCycles(all []*node) []*node {
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[*node]int8, len(all))
	order := make(map[*node]int, len(all))
	for i, n := range all {
		order[n] = i
	}
	var cut []*node
	for _, n := range all {
		var path []*node
		m := n
		for ; m != nil && state[m] == unseen; m = m.parent {
			state[m] = onPath
			path = append(path, m)
		}
		if m != nil && state[m] == onPath {
			cycle := path[slices.Index(path, m):]
			first := slices.MinFunc(cycle, func(a, b *node) int { return cmp.Compare(order[a], order[b]) })
			first.parent = nil
			cut = append(cut, first)
		}
		for _, p := range path {
			state[p] = done
		}
	}
	return cut
}

// enclosing returns the shortest invoke_agent span of agents that
// contains n in time, or nil; n itself and the agents below it are not
// candidates, lest n be placed under itself, out of every run.
func enclosing(agents []*node, n *node) *node {
	var best *node
	end := n.s.End
	if !n.s.HasEnd {
		end = n.s.Start
	}
	for _, a := range agents {
		if !a.s.HasEnd || a.s.Start > n.s.Start || a.s.End < end || a.under(n) {
			continue
		}
		if best == nil || a.s.End-a.s.Start < best.s.End-best.s.Start {
			best = a
		}
	}
	return best
}

func isCounted(op string) bool { return op == opTool || slices.Contains(modelOps, op) }

// agentName is an invoke_agent span's agent: gen_ai.agent.name, or what
// follows "invoke_agent " in its name.
func agentName(s *otel.Span) string {
	if a := s.String("gen_ai.agent.name"); a != "" {
		return a
	}
	if a, ok := strings.CutPrefix(s.Name, opAgent+" "); ok {
		return strings.Trim(a, "[]")
	}
	return s.Name
}

// interval is the nanoseconds an agent ran, first and last included, for
// counting how many ran at once.
type interval struct{ first, last int64 }

// runClock reads a run's spans against its root span: times relative to
// its start, and the run's end.
type runClock struct{ start, end int64 }

// newClock returns the clock of the run under the root n. A root without
// a (valid) end ends at the last time seen in its run: the latest end
// (or start, for a span without an end) of the spans below it.
func newClock(n *node) runClock {
	if _, ok := n.s.Duration(); ok {
		return runClock{n.s.Start, n.s.End}
	}
	var last func(n *node) int64
	last = func(n *node) int64 {
		t := n.s.Start
		if _, ok := n.s.Duration(); ok {
			t = n.s.End
		}
		for _, c := range n.children {
			t = max(t, last(c))
		}
		return t
	}
	return runClock{n.s.Start, last(n)}
}

// rel returns ns as seconds since the root span's start.
func (c runClock) rel(ns int64) float64 { return float64(ns-c.start) / 1e9 }

// span returns the agent in n's interval; one without a (valid) end runs
// to the end of the run. An agent that ended as it started (a clock too
// coarse to see it run), or after the run did, still ran: for the
// nanosecond it started in.
func (c runClock) span(n *node) interval {
	end := n.s.End
	if _, ok := n.s.Duration(); !ok {
		end = c.end
	}
	iv := interval{n.s.Start, n.s.Start}
	if end > iv.first {
		iv.last = end - 1
	}
	return iv
}

func (t *Traces) addRun(file string, r *runBuild) {
	root := r.root
	run := Run{ID: r.id, File: file}
	run.Acceptable, run.HasOutcome = root.Bool(AcceptableAttr)
	run.Duration, _ = root.Duration() // Add kept only roots with an end
	clock := newClock(r.node)
	agents := []interval{}
	var walk func(n *node, agent string)
	walk = func(n *node, agent string) {
		var kids []*node
		for _, c := range n.children {
			switch {
			case c.op == opAgent:
				kids = append(kids, c)
			case slices.Contains(modelOps, c.op):
				t.addCall(&run, c.s, agent, clock.rel)
			case c.op == opTool:
				t.addTool(&run, c.s, agent, clock.rel)
			}
			if c.op != opAgent {
				walk(c, agent)
			}
		}
		t.delegations(&run, clock, agent, kids)
		for _, k := range kids {
			agents = append(agents, clock.span(k))
			run.Agents++
			if _, ok := k.s.Duration(); !ok {
				t.noEnd(file, k.s)
			}
			walk(k, agentName(k.s))
		}
	}
	agents = append(agents, clock.span(r.node))
	walk(r.node, agentName(root))
	run.MaxParallel = maxOverlap(agents)
	t.Runs = append(t.Runs, run)
	t.Replay = append(t.Replay, graphRun(r))
}

// noEnd counts the span s of the file called file, which has no valid
// end, as left out: without an end, or ending before it starts, which the
// report names as well.
func (t *Traces) noEnd(file string, s *otel.Span) {
	if s.HasEnd {
		t.Report.EndsEarly++
		t.Report.EndsEarlySpans = append(t.Report.EndsEarlySpans, t.spanAt(file, s))
	} else {
		t.Report.NoEnd++
	}
}

// delegations records the invoke_agent children kids of the agent from:
// their waves (groups that overlap in time) and fan-out.
func (t *Traces) delegations(run *Run, clock runClock, from string, kids []*node) {
	if len(kids) == 0 {
		return
	}
	ivs := make([]interval, len(kids))
	for i, k := range kids {
		ivs[i] = clock.span(k)
	}
	run.Fanout = max(run.Fanout, maxOverlap(ivs))
	wave, waveLast := 0, int64(math.MinInt64)
	for i, k := range kids {
		if i > 0 && ivs[i].first > waveLast {
			wave++
		}
		waveLast = max(waveLast, ivs[i].last)
		d := Delegation{Run: run.ID, From: from, To: agentName(k.s), Start: clock.rel(k.s.Start), Wave: wave}
		if first := firstCall(k); first != nil {
			d.Startup = float64(first.Start-k.s.Start) / 1e9
		}
		t.Delegs = append(t.Delegs, d)
	}
	run.Waves = max(run.Waves, wave+1)
}

// firstCall returns the earliest model call of the agent in n (not of
// agents it delegated to), or nil.
func firstCall(n *node) *otel.Span {
	var first *otel.Span
	var walk func(*node)
	walk = func(n *node) {
		for _, c := range n.children {
			if slices.Contains(modelOps, c.op) && (first == nil || c.s.Start < first.Start) {
				first = c.s
			}
			if c.op != opAgent {
				walk(c)
			}
		}
	}
	walk(n)
	return first
}

// maxOverlap returns the largest number of intervals that contain one
// nanosecond.
func maxOverlap(ivs []interval) int {
	type edge struct {
		at    int64
		delta int
	}
	edges := make([]edge, 0, 2*len(ivs))
	for _, iv := range ivs {
		edges = append(edges, edge{iv.first, 1}, edge{iv.last, -1})
	}
	// At one nanosecond, the intervals that start in it count with those
	// that end in it.
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(b.delta, a.delta))
	})
	best, cur := 0, 0
	for _, e := range edges {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

func (t *Traces) addCall(run *Run, s *otel.Span, agent string, rel func(int64) float64) {
	d, ok := s.Duration()
	if !ok {
		t.noEnd(run.File, s)
		return
	}
	c := Call{Run: run.ID, Agent: agent, Model: modelName(s),
		Duration: d, Start: rel(s.Start)}
	in, okIn := s.Int("gen_ai.usage.input_tokens")
	out, okOut := s.Int("gen_ai.usage.output_tokens")
	if okIn && okOut && in >= 0 && out >= 0 {
		c.InputTokens, c.OutputTokens, c.HasTokens = in, out, true
	} else {
		t.Report.NoTokens++
	}
	run.Calls++
	t.Calls = append(t.Calls, c)
}

func (t *Traces) addTool(run *Run, s *otel.Span, agent string, rel func(int64) float64) {
	d, ok := s.Duration()
	if !ok {
		t.noEnd(run.File, s)
		return
	}
	run.Tools++
	t.Tools = append(t.Tools, ToolCall{Run: run.ID, Agent: agent, Tool: toolName(s), Duration: d, Start: rel(s.Start)})
}

// modelName is a model call's model: gen_ai.request.model, else
// gen_ai.response.model, else "unknown".
func modelName(s *otel.Span) string {
	return cmp.Or(s.String("gen_ai.request.model"), s.String("gen_ai.response.model"), "unknown")
}

// toolName is a tool call's tool: gen_ai.tool.name, else what follows
// "execute_tool " in its name.
func toolName(s *otel.Span) string {
	return cmp.Or(s.String("gen_ai.tool.name"), strings.TrimPrefix(s.Name, opTool+" "))
}

// errNoData is returned when there is nothing to fit.
var errNoData = errors.New("no data")
