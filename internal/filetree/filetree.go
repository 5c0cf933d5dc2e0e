// Package filetree snapshots a folder's files for tests that check a
// command left a directory as it was, byte for byte.
package filetree

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Snapshot returns every file below dir, by slash-separated relative
// path, as its mode, modification time and the SHA-256 of its content:
// two snapshots are equal only where no file was added, removed or
// rewritten (the hash keeps a failing test's diff short).
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = fmt.Sprintf("%v %v %x", fi.Mode(), fi.ModTime(), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot of %s: %v", dir, err)
	}
	return files
}
