// Package shareddata finds the shared data folder for tests: shared/data
// beside the repository, where CI puts it, or beside a folder above it, as
// for a git worktree of the repository.
package shareddata

import (
	"os"
	"path/filepath"
)

// Find returns the path of shared/data/<parts...> in the first folder at
// or above the working directory that has it, and whether one does.
func Find(parts ...string) (string, bool) {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(append([]string{dir, "shared", "data"}, parts...)...)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		if dir == filepath.Dir(dir) {
			return "", false
		}
		dir = filepath.Dir(dir)
	}
}
