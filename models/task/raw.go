package task

import (
	"fmt"
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
}

func (rg *rawGraph) build(name string) (*Graph, error) {
	g, err := New(rg.nodes, rg.edges)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
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

func loadRaw(path string) (*rawGraph, error) {
	read, err := loadReader(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f)
}
