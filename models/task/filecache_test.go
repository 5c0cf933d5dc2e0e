package task

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestFamilyFileReadOnce: draws of the "file" shape parse the file once
// and copy it after, reading it again only when its size or modification
// time changes; drawers on several goroutines fill in their own copies
// (the race detector sees a shared one) and draw what Family.Draw does.
func TestFamilyFileReadOnce(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "pipeline.dot"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "pipeline.dot")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	f := Family{Shape: "file", Path: path, Work: sim.Exponential(30), Difficulty: sim.Uniform(0, 0.2)}

	const draws = 24
	want := make([]*Graph, draws)
	for k := range want {
		want[k], err = f.Draw(newRand(uint64(k)))
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	got := make([][]Node, draws)
	for w := range 4 {
		wg.Go(func() {
			var d Drawer
			for k := w; k < draws; k += 4 {
				g, err := d.Draw(&f, newRand(uint64(k)))
				if err != nil {
					t.Error(err)
					return
				}
				got[k] = append([]Node(nil), g.Nodes...)
			}
		})
	}
	wg.Wait()
	for k := range want {
		assert.Equal(t, want[k].Nodes, got[k], "draw %d", k)
	}
	assert.NotEqual(t, want[0].Nodes, want[1].Nodes, "the family's draws differ by seed")

	tokens := func() int {
		g, err := f.Draw(newRand(1))
		require.NoError(t, err)
		v, ok := g.Lookup("search A")
		require.True(t, ok)
		return g.Nodes[v].OutputTokens
	}
	require.Equal(t, 300, tokens())
	fi, err := os.Stat(path)
	require.NoError(t, err)

	// Rewritten at the same size and time, the file is not read again.
	same := strings.Replace(string(src), "tokens=300", "tokens=301", 1)
	require.Len(t, same, len(src))
	require.NoError(t, os.WriteFile(path, []byte(same), 0o644))
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	assert.Equal(t, 300, tokens(), "read from the cache")

	// A new modification time, or size, reads it again.
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime().Add(time.Second)))
	assert.Equal(t, 301, tokens(), "a new time")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(same, "tokens=301", "tokens=3020", 1)), 0o644))
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime().Add(time.Second)))
	assert.Equal(t, 3020, tokens(), "a new size")

	// A file gone is an error, not its last graph.
	require.NoError(t, os.Remove(path))
	_, err = f.Draw(newRand(1))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestFileCacheBound: the cache keeps every file up to its bound, and a
// file past it starts the cache afresh rather than growing it.
func TestFileCacheBound(t *testing.T) {
	dir := t.TempDir()
	c := fileCache{max: 2}
	var rg rawGraph
	for k, want := range []int{1, 2, 1, 2} {
		path := filepath.Join(dir, fmt.Sprintf("g%d.dot", k))
		require.NoError(t, os.WriteFile(path, []byte("digraph { a [work=1]; b [work=2]; a -> b }\n"), 0o600))
		require.NoError(t, c.load(path, &rg))
		assert.Len(t, rg.nodes, 2)
		assert.Len(t, c.entries, want, "after file %d", k)
		assert.Contains(t, c.entries, path)
	}
}
