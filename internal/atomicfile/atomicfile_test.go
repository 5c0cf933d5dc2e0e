package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	require.NoError(t, atomicfile.Write(path, []byte("old")))
	require.NoError(t, atomicfile.Write(path, []byte("new")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755)) // a non-empty directory: rename fails
	require.Error(t, atomicfile.Write(target, []byte("data")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the directory that was there")
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	require.NoError(t, atomicfile.Replace(path, []byte("old")))
	require.NoError(t, atomicfile.Replace(path, []byte("new")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
	info, err := entries[0].Info()
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), info.Mode().Perm())
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
