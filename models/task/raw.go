package task

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// attrs records which node attributes a file gave explicitly, so that a
// Family of shape "file" can draw the others.
type attrs uint8

const (
	hasWork attrs = 1 << iota
	hasDifficulty
	hasTokens
	hasCoupling
	hasLoop
	hasJoin
)

// rawGraph is what the readers produce before New checks it.
type rawGraph struct {
	nodes []Node
	set   []attrs // parallel to nodes
	edges []Edge
	// edgeAt is where each edge was written ("line:col"), for readers
	// that know; nil otherwise.
	edgeAt []string
	// findEdge, for readers that can only search their file for where
	// edge i was written (the WfFormat reader: its task's id), returns
	// it as edgeAt would, or "" where not found: a search worth making
	// for an error's edge alone. nil where edgeAt is given, or neither.
	findEdge func(i int) string
}

func (rg *rawGraph) build(name string) (*Graph, error) {
	g := &Graph{}
	var s scratch
	if err := rg.buildInto(g, name, &s); err != nil {
		return nil, err
	}
	return g, nil
}

// buildInto is build into g, zero or emptied by reuse, with working
// memory s.
func (rg *rawGraph) buildInto(g *Graph, name string, s *scratch) error {
	if err := g.build(rg.nodes, rg.edges, s); err != nil {
		return fmt.Errorf("%s%s: %w", name, rg.where(err), err)
	}
	return nil
}

// where returns ":line:col" of the edge that closes the cycle err reports,
// when err is a cycle and the reader recorded its position or finds it.
func (rg *rawGraph) where(err error) string {
	var ce *CycleError
	if !errors.As(err, &ce) || len(ce.Cycle) == 0 || (len(rg.edgeAt) != len(rg.edges) && rg.findEdge == nil) {
		return ""
	}
	from, to := ce.Cycle[len(ce.Cycle)-1], ce.Cycle[0]
	for i, e := range rg.edges {
		if e.From != from || e.To != to {
			continue
		}
		at := ""
		if len(rg.edgeAt) == len(rg.edges) {
			at = rg.edgeAt[i]
		} else {
			at = rg.findEdge(i)
		}
		if at == "" {
			return ""
		}
		return ":" + at
	}
	return ""
}

// Load reads a graph file, choosing the format by extension: ".dot" and
// ".gv" are read with ReadDOT, ".json" with ReadWfFormat. Errors start with
// path.
func Load(path string) (*Graph, error) {
	rg, err := loadRaw(path)
	if err != nil {
		return nil, err
	}
	return rg.build(path)
}

// LoadFor is Load for the family f of shape file, whose fields are named
// under prefix in errors ("task", "task.components[0]"). Where f draws no
// work, a node that gives none itself is an error: its subtask would take
// no time, so that every episode on the graph would end at once. A field
// of f that no node draws, every node giving its own, is an error too,
// given but never used: a WfFormat file gives every task's work and output
// tokens, so task.work or task.output_tokens beside it would do nothing.
func LoadFor(path, prefix string, f *Family) (*Graph, error) {
	rg, err := loadRaw(path)
	if err != nil {
		return nil, err
	}
	var every attrs = hasWork | hasDifficulty | hasTokens | hasCoupling | hasLoop
	for v, set := range rg.set {
		if set&hasWork == 0 && f.Work.IsZero() {
			return nil, fmt.Errorf("%s: node %q gives no work, and %s.work is not given, so its subtask would take no time (give the node a work attribute, or %s.work)", path, rg.nodes[v].Name, prefix, prefix)
		}
		every &= set
	}
	if len(rg.nodes) > 0 {
		for _, a := range []struct {
			field string
			given bool
			set   attrs
			what  string
		}{
			{"work", !f.Work.IsZero(), hasWork, "its work (a WfFormat task its runtimeInSeconds, a DOT node its work attribute)"},
			{"output_tokens", !f.OutputTokens.IsZero(), hasTokens, "its output tokens (a WfFormat task the sizes of its output files, a DOT node its tokens attribute)"},
			{"difficulty", !f.Difficulty.IsZero(), hasDifficulty, "its difficulty attribute"},
			{"coupling", !f.Coupling.IsZero(), hasCoupling, "its coupling attribute"},
			{"loop", f.Loop != 0, hasLoop, "its loop attribute"},
		} {
			if a.given && every&a.set != 0 {
				return nil, fmt.Errorf("%s: %s.%s: given but never used: every node of the file gives %s, which a draw of %s.%s would stand in for; remove it", path, prefix, a.field, a.what, prefix, a.field)
			}
		}
	}
	return rg.build(path)
}

// Extensions Load accepts, for messages.
const loadExts = ".dot, .gv, .json"

func loadReader(path string) (func(f *os.File) (*rawGraph, error), error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dot", ".gv":
		return func(f *os.File) (*rawGraph, error) { return readDOT(f, path) }, nil
	case ".json":
		return func(f *os.File) (*rawGraph, error) { return readWfFormat(f, path) }, nil
	}
	return nil, fmt.Errorf("%s: unknown graph file extension %q (allowed: %s)", path, filepath.Ext(path), loadExts)
}

// skipByteOrderMark moves f past a UTF-8 byte-order mark at its start,
// which some editors write and neither the DOT lexer nor encoding/json
// reads; f is left at its start otherwise.
func skipByteOrderMark(f *os.File) error {
	var head [3]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if n == 3 && string(head[:]) == "\uFEFF" {
		return nil
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

func loadRaw(path string) (*rawGraph, error) {
	read, err := loadReader(path)
	if err != nil {
		return nil, err
	}
	// Only a regular file is opened: opening a FIFO waits for a writer,
	// and a device such as /dev/zero never ends (simulate env's reset
	// hung, or read until memory ran out).
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a graph file (%s)", path, loadExts)
		}
		return nil, fmt.Errorf("%s is not a regular file (%v): want a graph file (%s)", path, fi.Mode().Type(), loadExts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := skipByteOrderMark(f); err != nil {
		return nil, err
	}
	rg, err := read(f)
	if err == nil && len(rg.nodes) == 0 {
		// Said here, where the file is known: an episode on it fails
		// later with "the task graph is empty", naming no file.
		return nil, fmt.Errorf("%s: no tasks: a task graph needs at least one (a DOT node, or a WfFormat task)", path)
	}
	return rg, err
}
