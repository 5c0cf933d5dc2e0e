package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

// TestSyncHoldsFewFilesOpen syncs 1,000 files under a limit of 128 open
// files: Sync opens a bounded number at once.
func TestSyncHoldsFewFilesOpen(t *testing.T) {
	dir := t.TempDir()
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprint(i))
		require.NoError(t, atomicfile.Replace(paths[i], []byte("x")))
	}
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old))
	low := old
	low.Cur = 128
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	err := atomicfile.Sync(paths)
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old))
	require.NoError(t, err)
	_, err = os.Stat(paths[999])
	require.NoError(t, err)
}
