package task

import (
	"os"
	"sync"
	"time"
)

// drawnFiles keeps the graph files that draws of the "file" shape read,
// parsed, so that each draw copies its graph rather than reading and
// parsing the file again: a WfCommons instance of 100 KB took
// milliseconds to parse, several times what simulating an episode on it
// takes. A file is read again when its size or modification time
// changes.
var drawnFiles = fileCache{max: 16}

// fileCache holds at most max parsed files, by path; safe for concurrent
// use. Its graphs are read only: a draw copies the one it takes.
type fileCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]cachedFile
}

type cachedFile struct {
	size  int64
	mod   time.Time
	graph *rawGraph
}

// load reads the graph file at path into rg, reusing rg's memory: from
// the cache where the file is as it was when read, else from the file.
func (c *fileCache) load(path string, rg *rawGraph) error {
	fi, err := os.Stat(path)
	regular := err == nil && fi.Mode().IsRegular()
	if regular {
		c.mu.Lock()
		e, ok := c.entries[path]
		c.mu.Unlock()
		if ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
			rg.copyFrom(e.graph)
			return nil
		}
	}
	read, err := loadRaw(path) // also the errors of a file that is not regular, or gone
	if err != nil {
		return err
	}
	if regular {
		// Kept with the size and time seen before the read: a file
		// changed while it was read is read again next time.
		c.mu.Lock()
		if c.entries == nil || len(c.entries) >= c.max {
			c.entries = make(map[string]cachedFile, c.max)
		}
		c.entries[path] = cachedFile{size: fi.Size(), mod: fi.ModTime(), graph: read}
		c.mu.Unlock()
	}
	rg.copyFrom(read)
	return nil
}

// copyFrom makes rg a copy of g that a draw may fill in: the nodes, their
// attributes' flags and the edges in rg's own memory; the positions of
// edges, which nothing writes, shared.
func (rg *rawGraph) copyFrom(g *rawGraph) {
	rg.nodes = append(rg.nodes[:0], g.nodes...)
	rg.set = append(rg.set[:0], g.set...)
	rg.edges = append(rg.edges[:0], g.edges...)
	rg.edgeAt, rg.findEdge = g.edgeAt, g.findEdge
}
