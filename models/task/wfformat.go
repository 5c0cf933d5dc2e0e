package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/jsonpos"
	"github.com/swarmsim/swarmsim/sim"
)

// BytesPerToken converts the file sizes of WfFormat workflows to tokens: an
// edge carrying b bytes carries ⌈b / BytesPerToken⌉ tokens (about four bytes
// of English text per token).
const BytesPerToken = 4

// ReadWfFormat reads a workflow in the WfCommons WfFormat JSON format; name
// (usually the file name) starts every error message, which also names the
// task and the field at fault.
//
// Schema 1.5 is read from workflow.specification (tasks with id, parents,
// children, inputFiles, outputFiles; files with id and sizeInBytes) and
// workflow.execution.tasks (id, runtimeInSeconds). The older 1.4 layout,
// where workflow.tasks holds everything (runtimeInSeconds, and files as
// {link: input|output, name, sizeInBytes}), is read too.
//
// Each task becomes a node named by its id (1.4: its id, or else its name),
// in file order, with Work = runtimeInSeconds and OutputTokens = the tokens
// of all its output files. Edges are the union of parents and children
// lists. An edge carries the tokens of the files that are both outputs of
// the parent and inputs of the child (NoTokens when there are none). Other
// node attributes are left at zero. A cycle is an error placed at the id of
// the task whose parents or children list closes it.
func ReadWfFormat(r io.Reader, name string) (*Graph, error) {
	rg, err := readWfFormat(r, name)
	if err != nil {
		return nil, err
	}
	return rg.build(name)
}

// WfFormat documents, as far as they are read.
type (
	wfDoc struct {
		SchemaVersion string      `json:"schemaVersion"`
		Workflow      *wfWorkflow `json:"workflow"`
	}
	wfWorkflow struct {
		Specification *wfSpec `json:"specification"`
		Execution     *struct {
			Tasks []wfExecTask `json:"tasks"`
		} `json:"execution"`
		Tasks []wfTask14 `json:"tasks"` // schema 1.4
	}
	wfSpec struct {
		Tasks []wfSpecTask `json:"tasks"`
		Files []wfFile     `json:"files"`
	}
	wfSpecTask struct {
		ID          string   `json:"id"`
		Parents     []string `json:"parents"`
		Children    []string `json:"children"`
		InputFiles  []string `json:"inputFiles"`
		OutputFiles []string `json:"outputFiles"`
	}
	wfFile struct {
		ID          string   `json:"id"`
		SizeInBytes *float64 `json:"sizeInBytes"`
	}
	wfExecTask struct {
		ID               string   `json:"id"`
		RuntimeInSeconds *float64 `json:"runtimeInSeconds"`
	}
	wfTask14 struct {
		ID               string   `json:"id"`
		Name             string   `json:"name"`
		Parents          []string `json:"parents"`
		Children         []string `json:"children"`
		RuntimeInSeconds *float64 `json:"runtimeInSeconds"`
		Files            []struct {
			Link        string   `json:"link"`
			Name        string   `json:"name"`
			SizeInBytes *float64 `json:"sizeInBytes"`
		} `json:"files"`
	}
)

// wfTask is a task in the form common to both layouts.
type wfTask struct {
	id                string
	alias             string // schema 1.4: the name, which parents and children may use
	parents, children []string
	in, out           []int32 // file indices, sorted, without duplicates
	runtime           *float64
}

type wfReader struct {
	name  string
	src   []byte           // the file, to place a task's errors
	files map[string]int32 // file id -> index; lookups only
	sizes []float64        // bytes, by file index
}

func readWfFormat(r io.Reader, name string) (*rawGraph, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var doc wfDoc
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, jsonError(name, src, err)
	}
	rd := &wfReader{name: name, src: src, files: make(map[string]int32)}
	var tasks []wfTask
	switch {
	case doc.Workflow == nil:
		return nil, fmt.Errorf("%s: workflow: missing", name)
	case doc.Workflow.Specification != nil:
		tasks, err = rd.spec15(doc.Workflow)
	case doc.Workflow.Tasks != nil:
		tasks, err = rd.tasks14(doc.Workflow.Tasks)
	default:
		return nil, fmt.Errorf("%s: workflow: neither specification.tasks (schema 1.5) nor tasks (schema 1.4)", name)
	}
	if err != nil {
		return nil, err
	}
	return rd.graph(tasks)
}

// jsonError turns a decoding error into one with line:column or the field.
func jsonError(name string, src []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the bad one included; at the end of
		// the input, point just past it.
		off := se.Offset - 1
		if se.Offset >= int64(len(src)) {
			off = int64(len(src))
		}
		line, col := jsonpos.LineCol(src, off)
		return fmt.Errorf("%s:%d:%d: invalid JSON: %v", name, line, col, se)
	case errors.As(err, &te):
		line, col := jsonpos.LineCol(src, te.Offset-1) // the value's last byte
		field := te.Field
		if field == "" {
			field = "top level"
		}
		return fmt.Errorf("%s:%d:%d: %s: want %s, found %s", name, line, col, field, jsonpos.Kind(te.Type), te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := jsonpos.LineCol(src, int64(len(src)))
		return fmt.Errorf("%s:%d:%d: invalid JSON: unexpected end of input", name, line, col)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func (rd *wfReader) errf(task, field, format string, args ...any) error {
	return fmt.Errorf("%s%s: task %q: %s: %s", rd.name, rd.taskAt(task), task, field, fmt.Sprintf(format, args...))
}

// taskAt returns ":line:col" of the first "id" or "name" key whose value
// is task, the task's own in the files WfCommons writes (the
// specification's tasks come before the execution's), or "" where the
// file spells the id otherwise (with escapes the decoder undid).
func (rd *wfReader) taskAt(task string) string {
	quoted, err := json.Marshal(task)
	if err != nil || rd.src == nil {
		return ""
	}
	re, err := regexp.Compile(`"(?:id|name)"\s*:\s*` + regexp.QuoteMeta(string(quoted)))
	if err != nil {
		return ""
	}
	loc := re.FindIndex(rd.src)
	if loc == nil {
		return ""
	}
	line, col := jsonpos.LineCol(rd.src, int64(loc[0]))
	return fmt.Sprintf(":%d:%d", line, col)
}

// addFile registers a file and its size; field names the place for errors.
func (rd *wfReader) addFile(id string, size *float64, where, field string) (int32, error) {
	if size == nil {
		return 0, fmt.Errorf("%s: %s: file %q: sizeInBytes: missing", rd.name, where, id)
	}
	if !(*size >= 0) || *size > 1e18 {
		return 0, fmt.Errorf("%s: %s: file %q: sizeInBytes: %v not in [0, 1e18]", rd.name, where, id, *size)
	}
	if k, ok := rd.files[id]; ok { // schema 1.4 repeats files: the first size counts
		return k, nil
	}
	k := int32(len(rd.sizes))
	rd.files[id] = k
	rd.sizes = append(rd.sizes, *size)
	return k, nil
}

func (rd *wfReader) spec15(wf *wfWorkflow) ([]wfTask, error) {
	spec := wf.Specification
	for i, f := range spec.Files {
		if _, dup := rd.files[f.ID]; dup {
			return nil, fmt.Errorf("%s: workflow.specification.files[%d]: duplicate file id %q", rd.name, i, f.ID)
		}
		if _, err := rd.addFile(f.ID, f.SizeInBytes, "workflow.specification.files["+strconv.Itoa(i)+"]", "sizeInBytes"); err != nil {
			return nil, err
		}
	}
	runtime := make(map[string]*float64) // task id -> runtime; lookups only
	if wf.Execution != nil {
		for i, et := range wf.Execution.Tasks {
			if _, dup := runtime[et.ID]; dup {
				return nil, fmt.Errorf("%s: workflow.execution.tasks[%d]: duplicate task id %q", rd.name, i, et.ID)
			}
			if et.RuntimeInSeconds == nil {
				return nil, rd.errf(et.ID, "workflow.execution.tasks["+strconv.Itoa(i)+"].runtimeInSeconds", "missing")
			}
			runtime[et.ID] = et.RuntimeInSeconds
		}
	}
	tasks := make([]wfTask, len(spec.Tasks))
	seen := make(map[string]bool, len(spec.Tasks)) // lookups only
	for i, st := range spec.Tasks {
		t := &tasks[i]
		t.id, t.parents, t.children = st.ID, st.Parents, st.Children
		if t.id == "" {
			return nil, fmt.Errorf("%s: workflow.specification.tasks[%d]: id: missing", rd.name, i)
		}
		if seen[t.id] {
			return nil, rd.errf(t.id, "id", "duplicate task id")
		}
		seen[t.id] = true
		var err error
		if t.in, err = rd.fileRefs(t.id, "inputFiles", st.InputFiles); err != nil {
			return nil, err
		}
		if t.out, err = rd.fileRefs(t.id, "outputFiles", st.OutputFiles); err != nil {
			return nil, err
		}
		rt, ok := runtime[t.id]
		if !ok {
			return nil, rd.errf(t.id, "runtimeInSeconds", "no entry in workflow.execution.tasks")
		}
		t.runtime = rt
		delete(runtime, t.id)
	}
	if len(runtime) > 0 {
		for i, et := range wf.Execution.Tasks { // file order, not map order
			if _, left := runtime[et.ID]; left {
				return nil, fmt.Errorf("%s: workflow.execution.tasks[%d]: task %q is not in workflow.specification.tasks", rd.name, i, et.ID)
			}
		}
	}
	return tasks, nil
}

// fileRefs resolves file ids to sorted, deduplicated indices.
func (rd *wfReader) fileRefs(task, field string, ids []string) ([]int32, error) {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		k, ok := rd.files[id]
		if !ok {
			return nil, rd.errf(task, field, "file %q is not in workflow.specification.files", id)
		}
		out = append(out, k)
	}
	return sortUnique(out), nil
}

func sortUnique(s []int32) []int32 {
	slices.Sort(s)
	return slices.Compact(s)
}

func (rd *wfReader) tasks14(list []wfTask14) ([]wfTask, error) {
	tasks := make([]wfTask, len(list))
	for i, lt := range list {
		t := &tasks[i]
		t.id, t.alias = lt.ID, lt.Name
		if t.id == "" {
			t.id = lt.Name
		}
		if t.id == "" {
			return nil, fmt.Errorf("%s: workflow.tasks[%d]: id and name: missing", rd.name, i)
		}
		t.parents, t.children, t.runtime = lt.Parents, lt.Children, lt.RuntimeInSeconds
		if t.runtime == nil {
			return nil, rd.errf(t.id, "runtimeInSeconds", "missing")
		}
		for j, f := range lt.Files {
			where := fmt.Sprintf("workflow.tasks[%d].files[%d]", i, j)
			k, err := rd.addFile(f.Name, f.SizeInBytes, where, "sizeInBytes")
			if err != nil {
				return nil, err
			}
			switch f.Link {
			case "input":
				t.in = append(t.in, k)
			case "output":
				t.out = append(t.out, k)
			default:
				return nil, rd.errf(t.id, where+".link", "%q is neither input nor output", f.Link)
			}
		}
		t.in, t.out = sortUnique(t.in), sortUnique(t.out)
	}
	return tasks, nil
}

func (rd *wfReader) tokens(bytes float64) int {
	return int(math.Ceil(bytes / BytesPerToken))
}

func (rd *wfReader) graph(tasks []wfTask) (*rawGraph, error) {
	rg := &rawGraph{nodes: make([]Node, len(tasks)), set: make([]attrs, len(tasks))}
	ids := make(map[string]ID, len(tasks)) // lookups only
	for i := range tasks {
		t := &tasks[i]
		if _, dup := ids[t.id]; dup {
			return nil, rd.errf(t.id, "id", "duplicate task id")
		}
		ids[t.id] = ID(i)
		if !(*t.runtime >= 0) {
			return nil, rd.errf(t.id, "runtimeInSeconds", "%v is negative", *t.runtime)
		}
		work, err := sim.FromSeconds(*t.runtime)
		if err != nil {
			return nil, rd.errf(t.id, "runtimeInSeconds", "%v is out of range %s", *t.runtime, workRange)
		}
		var out float64
		for _, k := range t.out {
			out += rd.sizes[k]
		}
		tok := rd.tokens(out)
		if tok > MaxTokens {
			return nil, rd.errf(t.id, "outputFiles", "%v bytes in all exceed %d tokens", out, MaxTokens)
		}
		rg.nodes[i] = Node{Name: t.id, Work: work, OutputTokens: tok}
		rg.set[i] = hasWork | hasTokens
	}
	alias := make(map[string]ID) // lookups only
	for i := range tasks {
		if a := tasks[i].alias; a != "" {
			if _, isID := ids[a]; !isID {
				alias[a] = ID(i)
			}
		}
	}
	lookup := func(ref string) (ID, bool) {
		if k, ok := ids[ref]; ok {
			return k, true
		}
		k, ok := alias[ref]
		return k, ok
	}
	seen := make(map[[2]ID]bool) // lookups only
	// by holds, per edge, the task whose parents or children list gave
	// it first: a cycle's error is placed at that task's id.
	var by []ID
	rg.findEdge = func(i int) string { return strings.TrimPrefix(rd.taskAt(tasks[by[i]].id), ":") }
	addEdge := func(from, to, in ID) error {
		key := [2]ID{from, to}
		if seen[key] {
			return nil
		}
		seen[key] = true
		var b float64
		pf, cf := tasks[from].out, tasks[to].in
		for i, j := 0, 0; i < len(pf) && j < len(cf); { // sorted intersection
			switch {
			case pf[i] < cf[j]:
				i++
			case pf[i] > cf[j]:
				j++
			default:
				b += rd.sizes[pf[i]]
				i++
				j++
			}
		}
		tok := rd.tokens(b)
		if tok > MaxTokens {
			return rd.errf(tasks[to].id, "inputFiles", "%v bytes from %q exceed %d tokens", b, tasks[from].id, MaxTokens)
		}
		if tok == 0 {
			tok = NoTokens
		}
		rg.edges = append(rg.edges, Edge{From: from, To: to, Tokens: tok})
		by = append(by, in)
		return nil
	}
	for i := range tasks {
		t := &tasks[i]
		for _, p := range t.parents {
			k, ok := lookup(p)
			if !ok {
				return nil, rd.errf(t.id, "parents", "unknown task %q", p)
			}
			if k == ID(i) {
				return nil, rd.errf(t.id, "parents", "task lists itself")
			}
			if err := addEdge(k, ID(i), ID(i)); err != nil {
				return nil, err
			}
		}
		for _, c := range t.children {
			k, ok := lookup(c)
			if !ok {
				return nil, rd.errf(t.id, "children", "unknown task %q", c)
			}
			if k == ID(i) {
				return nil, rd.errf(t.id, "children", "task lists itself")
			}
			if err := addEdge(ID(i), k, ID(i)); err != nil {
				return nil, err
			}
		}
	}
	return rg, nil
}
