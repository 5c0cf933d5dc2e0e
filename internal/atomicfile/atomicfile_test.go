package atomicfile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

// TestWrite checks Write and Replace: each leaves the new content, with
// permissions 0644, and no temporary file.
func TestWrite(t *testing.T) {
	for name, write := range map[string]func(string, []byte) error{"Write": atomicfile.Write, "Replace": atomicfile.Replace} {
		dir := t.TempDir()
		path := filepath.Join(dir, "a.csv")
		require.NoError(t, write(path, []byte("old")), name)
		require.NoError(t, write(path, []byte("new")), name)
		got, err := os.ReadFile(path)
		require.NoError(t, err, name)
		require.Equal(t, "new", string(got), name)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err, name)
		require.Len(t, entries, 1, "%s: no temporary file left", name)
		info, err := entries[0].Info()
		require.NoError(t, err, name)
		require.Equal(t, os.FileMode(0o644), info.Mode().Perm(), name)
	}
}

// TestWriteFailureLeavesNothing: a write onto a directory fails, saying
// so, and leaves no temporary file.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755)) // a non-empty directory: rename fails
	// Said as what it is, not as rename's "file exists" of a temporary name.
	require.EqualError(t, atomicfile.Write(target, []byte("data")), target+" is a directory: want a file's path")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the directory that was there")
}

// TestWriteNamesThePathAsked: a write into a folder that is missing fails
// naming the file asked for, not the hidden temporary file.
func TestWriteNamesThePathAsked(t *testing.T) {
	for name, write := range map[string]func(string, []byte) error{"Write": atomicfile.Write, "Replace": atomicfile.Replace} {
		path := filepath.Join(t.TempDir(), "missing", "x.dot")
		err := write(path, []byte("data"))
		require.EqualError(t, err, "create "+path+": no such file or directory", name)
		require.ErrorIs(t, err, fs.ErrNotExist, name)
	}
}

func TestSyncNamesTheFilesThatFail(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, name)
		require.NoError(t, atomicfile.Replace(p, []byte(name)))
		paths = append(paths, p)
	}
	require.NoError(t, atomicfile.Sync(paths))
	require.NoError(t, atomicfile.Sync(nil))
	require.NoError(t, os.Remove(paths[0]))
	require.NoError(t, os.Remove(paths[2]))
	err := atomicfile.Sync(paths)
	require.ErrorContains(t, err, "syncing "+paths[0])
	require.ErrorContains(t, err, "syncing "+paths[2])
	require.NotContains(t, err.Error(), paths[1]+":")
}
