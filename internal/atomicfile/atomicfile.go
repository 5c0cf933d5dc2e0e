// Package atomicfile writes files so that readers see the old content or
// the new, never a part: the data goes to a hidden temporary file in the
// same directory, is synced, and is renamed into place. Every output of
// swarmsim (tables, charts, manifests, sweep records) is written this way,
// so that an interrupted run never leaves a truncated file that looks
// complete.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path atomically, with permissions 0644.
func Write(path string, data []byte) error {
	tmp, err := WriteTemp(path, data)
	if err != nil {
		if tmp != "" {
			os.Remove(tmp)
		}
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteTemp writes data to a new hidden, synced file beside path and
// returns its name, for callers that rename several files into place
// together. On an error the name of a file that was created is returned
// too, for the caller to remove.
func WriteTemp(path string, data []byte) (string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
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
