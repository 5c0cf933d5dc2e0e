//go:build unix && !aix && !(solaris && !illumos)

package rundir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// newLock creates the file path and takes its lock, which the kernel
// releases when the file is closed or the process ends, however it ends.
func newLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// tryLock takes the lock of the file path if no live process holds it:
// it returns the file to close (nil where there is no file), and held
// where another process holds the lock.
func tryLock(path string) (f *os.File, held bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return f, false, nil
}

// lockBusy takes the lock of the directory path itself, which marks the
// Sole work in it as live: it returns nil where path does not exist yet
// or cannot be locked, and an error wrapping ErrBusy where another live
// process holds it. A lock on the directory, not on a file in it, adds
// nothing to the directory's listing and is released however the process
// ends.
func lockBusy(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		// A file system that cannot lock a directory opened for reading
		// (NFS, which emulates flock with byte-range locks that need a
		// writable file; Lustre mounted without flock) runs the training
		// unguarded, as a platform without locks does, rather than
		// refuse every training there.
		return nil, nil
	}
	return f, nil
}
