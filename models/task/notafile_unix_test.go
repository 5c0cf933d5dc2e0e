//go:build unix

package task

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadNotAFile: a FIFO, a device and a directory named as a graph
// file are said to be what they are, without waiting for a writer or
// reading a device that may never end.
func TestLoadNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.dot")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// /dev/null, which ends at once, stands for /dev/zero, which a test
	// without the check would read until memory ran out.
	null := filepath.Join(dir, "null.json")
	require.NoError(t, os.Symlink("/dev/null", null))
	folder := filepath.Join(dir, "folder.dot")
	require.NoError(t, os.Mkdir(folder, 0o700))
	for _, tc := range []struct{ path, want string }{
		{fifo, fifo + " is not a regular file (p---------): want a graph file (.dot, .gv, .json)"},
		{null, null + " is not a regular file (Dc---------): want a graph file (.dot, .gv, .json)"},
		{folder, folder + " is a directory, not a graph file (.dot, .gv, .json)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(tc.path)
			done <- err
		}()
		select {
		case err := <-done:
			assert.EqualError(t, err, tc.want)
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still waits after 10 s", tc.path)
		}
	}
}
