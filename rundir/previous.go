package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
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

// lockName is the file in PreviousDir whose lock the process that set
// the result aside holds until it commits or aborts, so that Recover,
// called by another command on the same directory, leaves the result of
// a live rerun alone.
const lockName = ".lock"

// ErrBusy is wrapped by the error of Recover, and so of Create and
// Claim.Open, for a directory whose set-aside result a live process
// holds: a forced rerun is writing there.
var ErrBusy = errors.New("being rewritten by another command")

// setAside moves the complete result in dir (its manifest first, then the
// files the manifest lists, then the extra files named, which the
// manifest does not list) into dir/PreviousDir, so that new work writes
// its files in place without touching the old ones. It returns the lock
// of the folder, held until the work commits or aborts (nil where dir
// holds no result), and reports whether a manifest was moved. Renames on
// one file system keep every byte, the mode and the times of the files.
func setAside(dir string, extra ...string) (*os.File, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	// Whatever an earlier run left there is stale: the manifest in dir
	// is the result to keep (Recover ran before). But a rerun may have
	// set a result aside since, and hold it: that one stays.
	prev := filepath.Join(dir, PreviousDir)
	stale, err := lockAside(dir)
	if err != nil {
		return nil, false, err
	}
	err = os.RemoveAll(prev)
	if stale != nil {
		stale.Close()
	}
	if err != nil {
		return nil, false, err
	}
	// The folder is made under another name and locked before it is
	// renamed into place: Recover never finds it unlocked while this
	// process lives.
	tmp, err := os.MkdirTemp(dir, PreviousDir+"-*")
	if err != nil {
		return nil, false, err
	}
	lock, err := newLock(filepath.Join(tmp, lockName))
	if err == nil {
		err = os.Rename(tmp, prev)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return nil, false, err
	}
	var m struct {
		Files []string `json:"files"`
	}
	// A manifest that does not parse lists nothing to move but itself.
	_ = json.Unmarshal(b, &m)
	// The manifest goes first: from then on dir is not complete, and
	// dir/PreviousDir holds a manifest, which Recover restores.
	if err := moveFile(dir, prev, ManifestName); err != nil {
		return lock, false, err
	}
	for _, f := range append(m.Files, extra...) {
		if !filepath.IsLocal(filepath.FromSlash(f)) || f == ManifestName || isPrevious(f) {
			continue
		}
		if err := moveFile(dir, prev, f); err != nil {
			return lock, true, err
		}
	}
	return lock, true, nil
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
			if rel != lockName {
				files = append(files, filepath.ToSlash(rel))
			}
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
// holds no PreviousDir. A result that a live process holds aside (a
// forced rerun writing in dir) is an error wrapping ErrBusy. It also
// removes the temporary folders of set-asides killed before they were
// renamed into place (removeTemps).
func Recover(dir string) (bool, error) {
	lock, err := lockAside(dir)
	if err != nil {
		return false, err
	}
	if lock != nil {
		defer lock.Close()
	}
	if err := removeTemps(dir); err != nil {
		return false, err
	}
	return recoverLocked(dir)
}

// removeTemps removes the folders PreviousDir-* in dir that no live
// process holds: setAside builds PreviousDir under such a name, and a
// process killed before its rename leaves one that nothing else would
// remove. One whose lock is held is being built, and stays. One without
// a lock file was left between its making and its lock, or is in that
// instant now: then its setAside fails to lock or rename it, before it
// has moved anything, and the result it would have set aside stays in
// place. A temporary folder never holds a file of a result: setAside
// moves them only after the rename.
func removeTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), PreviousDir+"-") {
			continue
		}
		tmp := filepath.Join(dir, e.Name())
		lock, held, err := tryLock(filepath.Join(tmp, lockName))
		if err != nil {
			return err
		}
		if held {
			continue
		}
		err = os.RemoveAll(tmp)
		if lock != nil {
			lock.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lockAside takes the lock of the result set aside in dir, if there is
// one: the lock file to close (nil where dir holds no PreviousDir, or one
// without a lock file), or an error wrapping ErrBusy where a live process
// holds it.
func lockAside(dir string) (*os.File, error) {
	prev := filepath.Join(dir, PreviousDir)
	if _, err := os.Stat(prev); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	lock, held, err := tryLock(filepath.Join(prev, lockName))
	if err != nil {
		return nil, err
	}
	if held {
		return nil, fmt.Errorf("%s is %w (a forced rerun, which holds the result it replaces aside in %s): wait for it to end, or choose another --out", dir, ErrBusy, PreviousDir)
	}
	return lock, nil
}

// recoverLocked is Recover with the set-aside result's lock held.
func recoverLocked(dir string) (bool, error) {
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
