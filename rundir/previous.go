package rundir

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// PreviousDir is the hidden folder, inside a directory, that holds the
// complete result a forced rerun replaces until the rerun commits: its
// manifest and the files it lists, at the same relative paths. Readers
// (List, Open) do not look into it, and no manifest lists it.
const PreviousDir = ".swarmsim-previous"

// setAside moves the complete result in dir (its manifest first, then the
// files the manifest lists, then the extra files named, which the
// manifest does not list) into dir/PreviousDir, so that new work writes
// its files in place without touching the old ones. It reports whether a
// manifest was moved. Renames on one file system keep every byte, the
// mode and the times of the files.
func setAside(dir string, extra ...string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Whatever an earlier run left there is stale: the manifest in dir
	// is the result to keep (Recover ran before).
	prev := filepath.Join(dir, PreviousDir)
	if err := os.RemoveAll(prev); err != nil {
		return false, err
	}
	var m struct {
		Files []string `json:"files"`
	}
	// A manifest that does not parse lists nothing to move but itself.
	_ = json.Unmarshal(b, &m)
	// The manifest goes first: from then on dir is not complete, and
	// dir/PreviousDir holds a manifest, which Recover restores.
	if err := moveFile(dir, prev, ManifestName); err != nil {
		return false, err
	}
	for _, f := range append(m.Files, extra...) {
		if !filepath.IsLocal(filepath.FromSlash(f)) || f == ManifestName || isPrevious(f) {
			continue
		}
		if err := moveFile(dir, prev, f); err != nil {
			return true, err
		}
	}
	return true, nil
}

// isPrevious reports whether the slash-separated relative path f is in
// PreviousDir.
func isPrevious(f string) bool {
	return f == PreviousDir || strings.HasPrefix(f, PreviousDir+"/")
}

// moveFile renames the file name (slash-separated) from the directory
// from to the same relative path under to, making its folders. A missing
// file is no error.
func moveFile(from, to, name string) error {
	src := filepath.Join(from, filepath.FromSlash(name))
	dst := filepath.Join(to, filepath.FromSlash(name))
	if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(src, dst)
}

// restore moves every file in dir/PreviousDir back to its place in dir,
// replacing what stands there (files of new work that never committed),
// the manifest last, so that dir is complete only once every file is
// back; then it removes PreviousDir. It reports whether it restored a
// manifest.
func restore(dir string) (bool, error) {
	prev := filepath.Join(dir, PreviousDir)
	var files []string
	err := filepath.WalkDir(prev, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			rel, err := filepath.Rel(prev, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	hasManifest := slices.Contains(files, ManifestName)
	if !hasManifest {
		// Not a result: what a restore that moved its manifest back
		// before it was stopped left.
		return false, os.RemoveAll(prev)
	}
	for _, f := range files {
		if f == ManifestName {
			continue
		}
		if err := moveFile(prev, dir, f); err != nil {
			return false, err
		}
	}
	if err := moveFile(prev, dir, ManifestName); err != nil {
		return false, err
	}
	return true, os.RemoveAll(prev)
}

// Recover puts back a result that a forced rerun set aside and did not
// replace: the rerun was killed before it could commit or abort (Abort
// restores it otherwise). Where dir holds a manifest, the rerun committed
// and the old result is removed; where it does not, the old result is
// moved back into place, over the uncommitted files of the rerun. It
// reports whether it restored a result, and does nothing where dir
// holds no PreviousDir. No other process may be working in dir.
func Recover(dir string) (bool, error) {
	prev := filepath.Join(dir, PreviousDir)
	if _, err := os.Stat(prev); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err == nil {
		return false, os.RemoveAll(prev)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return restore(dir)
}
