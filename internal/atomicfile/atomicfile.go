// Package atomicfile writes files so that readers see the old content or
// the new, never a part: the data goes to a hidden temporary file in the
// same directory, is synced (Write), and is renamed into place. Every
// output of swarmsim (tables, charts, manifests, sweep records) is written
// this way, so that an interrupted run never leaves a truncated file that
// looks complete.
//
// Replace skips the sync, for a writer that syncs its files together once
// its work is done (Sync) and marks the work complete only then, as a run
// directory's manifest does: each sync waits for the disk, and waited for
// in turn they took a few percent of a short training.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Write writes data to path atomically, with permissions 0644.
func Write(path string, data []byte) error {
	return write(path, data, true)
}

// Replace is Write without the sync: readers see the old content or the
// new, and so does a process that outlives this one; after a crash of the
// system before Sync has returned, the file may hold neither (it may be
// empty).
func Replace(path string, data []byte) error {
	return write(path, data, false)
}

func write(path string, data []byte, synced bool) error {
	tmp, err := writeTemp(path, data, synced)
	if err != nil {
		if tmp != "" {
			os.Remove(tmp)
		}
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			// rename's own words name the temporary file and "file exists".
			return fmt.Errorf("%s is a directory: want a file's path", path)
		}
		return err
	}
	return nil
}

// WriteTemp writes data to a new hidden, synced file beside path and
// returns its name, for callers that rename several files into place
// together. On an error the name of a file that was created is returned
// too, for the caller to remove.
func WriteTemp(path string, data []byte) (string, error) {
	return writeTemp(path, data, true)
}

func writeTemp(path string, data []byte, synced bool) (string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		// CreateTemp's error names the hidden file's pattern, which the
		// caller never asked for (open /no/such/.x.dot.417004130.tmp):
		// name the file asked for, keeping the cause.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", &fs.PathError{Op: "create", Path: path, Err: pe.Err}
		}
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil && synced {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return f.Name(), fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Name(), nil
}

// Sync flushes the files at paths to disk, up to maxSyncs at once: the
// file system can then commit them together rather than one wait each.
// It returns the errors of the files that failed, each naming its file.
func Sync(paths []string) error {
	errs := make([]error, len(paths))
	open := make(chan struct{}, maxSyncs)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() {
			open <- struct{}{}
			errs[i] = syncFile(p)
			<-open
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// maxSyncs bounds the files Sync holds open at once, well below the
// smallest common limit on a process's open files (256 on macOS).
const maxSyncs = 32

func syncFile(path string) error {
	flag := os.O_RDONLY // enough for fsync, and a read-only file opens
	if runtime.GOOS == "windows" {
		flag = os.O_RDWR // FlushFileBuffers needs a handle that may write
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	return nil
}
