//go:build !unix

package rundir

import (
	"errors"
	"io/fs"
	"os"
)

// newLock creates the file path. Without flock, no lock is taken: a
// forced rerun's set-aside result is then recovered by whichever command
// writes to its directory next, live rerun or not.
func newLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// tryLock opens the file path; no process is ever seen to hold it.
func tryLock(path string) (f *os.File, held bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return f, false, err
}
