package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

// ManifestName is the file whose presence marks a complete directory. It
// is written last.
const ManifestName = "manifest.json"

// A Dir is an output directory being written. Its methods may be called
// from several goroutines.
type Dir struct {
	path string

	mu sync.Mutex
	// created lists directories made by this run, outermost first.
	created []string
	// files lists the files of the result so far, relative to path, with
	// slashes, in the order written.
	files []string
	// written lists the files Abort removes: those of files written by
	// this process, not parts.
	written []string
	// unsynced lists the files Write wrote, which Commit syncs before it
	// writes the manifest.
	unsynced []string
	// claim is the Sole claim whose identity file this process wrote, if
	// any: Abort removes the file when no part was written.
	claim *Claim
	// previous says that the complete result this work replaces is set
	// aside in PreviousDir: Commit removes it, Abort puts it back. lock
	// is that folder's lock, held meanwhile (see Recover).
	previous bool
	lock     *os.File
	// busy is the lock of the directory itself that a Sole claim holds
	// until Commit or Abort (see Claim.Open).
	busy *os.File
}

// Create prepares path for new work. It refuses a directory that holds a
// complete result (a manifest) unless force is set; with force, it moves
// the old manifest, then the files it lists, aside into PreviousDir, so
// that the directory never mixes a stale manifest with new results and
// the old result stays whole until the new one replaces it: Commit
// removes it, Abort puts it back. Files that no manifest lists (the parts
// of interrupted work) are left alone. A result that a killed forced
// rerun left aside is put back first (Recover).
func Create(path string, force bool) (*Dir, error) {
	if err := CheckDir(path); err != nil {
		return nil, err
	}
	if _, err := Recover(path); err != nil {
		return nil, err
	}
	d := &Dir{path: path}
	if _, err := os.Stat(d.Join(ManifestName)); err == nil {
		if !force {
			return nil, fmt.Errorf("%s holds a complete run (%s); use --force to overwrite it, or --out to choose another directory", path, ManifestName)
		}
		lock, moved, err := setAside(path)
		d.previous, d.lock = moved, lock
		if err != nil {
			d.putBack() // best effort: the error says what went wrong
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := d.mkdirAll(path); err != nil {
		d.putBack()
		// The error names the parent that failed; the reader gave path.
		return nil, fmt.Errorf("making the directory %s: %w", path, err)
	}
	return d, nil
}

// ErrNotDir is wrapped by the error for a path that cannot become a
// directory: it, or a folder above it, is a file.
var ErrNotDir = errors.New("not a directory")

// CheckDir reports, in one clear sentence, why path cannot be made into a
// directory, before anything is written: it names a file, or a file stands
// where one of its parent folders would be.
func CheckDir(path string) error {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && p == filepath.Clean(path):
			return fmt.Errorf("%s is a file, %w: the results are a directory of files; choose another --out", path, ErrNotDir)
		case err == nil:
			return fmt.Errorf("%s cannot be made: %s is a file, %w; choose another --out", path, p, ErrNotDir)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err // a file above p answers ENOTDIR: look further up
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// removeResult removes the manifest in dir and the files it lists.
func removeResult(dir string) error {
	path := filepath.Join(dir, ManifestName)
	var m struct {
		Files []string `json:"files"`
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// A manifest that does not parse lists nothing we may remove.
	_ = json.Unmarshal(b, &m)
	if err := os.Remove(path); err != nil {
		return err
	}
	for _, f := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(f)) || f == ManifestName {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SetAside moves the file name (slash-separated), which the result being
// replaced holds but its manifest does not list (a page written after
// it), aside with that result: Commit removes it, Abort puts it back.
// Where no result is being replaced, it removes the file. A missing file
// is no error.
func (d *Dir) SetAside(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.previous {
		return moveFile(d.path, filepath.Join(d.path, PreviousDir), name)
	}
	if err := os.Remove(d.Join(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Replacing reports whether d replaces a complete result, set aside until
// Commit, which Abort puts back.
func (d *Dir) Replacing() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.previous
}

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Join returns the path of name (slash-separated, relative to d).
func (d *Dir) Join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// mkdirAll makes dir and its missing parents, remembering those it made.
func (d *Dir) mkdirAll(dir string) error {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	slices.Reverse(missing)
	d.mu.Lock()
	d.created = append(d.created, missing...)
	d.mu.Unlock()
	return nil
}

// Mkdir makes the subdirectory name of d (and its parents).
func (d *Dir) Mkdir(name string) error { return d.mkdirAll(d.Join(name)) }

// Write writes data to the file name in d atomically and lists it in the
// manifest. Abort removes it. It is synced to disk with the others at
// Commit, before the manifest is written: a directory that a crash of the
// system leaves without its manifest is incomplete anyway.
func (d *Dir) Write(name string, data []byte) error {
	if err := d.Mkdir(filepath.ToSlash(filepath.Dir(filepath.FromSlash(name)))); err != nil {
		return err
	}
	if err := atomicfile.Replace(d.Join(name), data); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.written = append(d.written, name)
	d.unsynced = append(d.unsynced, name)
	d.addFile(name)
	return nil
}

// Remove removes the file name from d and from the manifest's list, as
// when a checkpoint is no longer needed. A missing file is no error.
func (d *Dir) Remove(name string) error {
	if err := os.Remove(d.Join(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.files = slices.DeleteFunc(d.files, func(f string) bool { return f == name })
	d.written = slices.DeleteFunc(d.written, func(f string) bool { return f == name })
	d.unsynced = slices.DeleteFunc(d.unsynced, func(f string) bool { return f == name })
	return nil
}

// Record lists the file name, written into d by another atomic writer
// (plots.Save) or as a part, in the manifest. Abort removes it unless it
// is a part.
func (d *Dir) Record(name string, part bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !part {
		d.written = append(d.written, name)
	}
	d.addFile(name)
}

func (d *Dir) addFile(name string) {
	if !slices.Contains(d.files, name) {
		d.files = append(d.files, name)
	}
}

// Files returns the files listed so far, sorted.
func (d *Dir) Files() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	fs := slices.Clone(d.files)
	slices.Sort(fs)
	return fs
}

// Commit syncs the files Write wrote, at once, then writes the manifest,
// listing every recorded file: the last file of the work, which makes the
// directory complete. The manifest lists what was recorded when Commit
// began, each file synced.
func (d *Dir) Commit(m *Manifest) error {
	d.mu.Lock()
	m.Files = slices.Sorted(slices.Values(d.files))
	names := slices.Clone(d.unsynced)
	d.mu.Unlock()
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = d.Join(name)
	}
	if err := syncFiles(paths); err != nil {
		return err
	}
	d.mu.Lock()
	d.unsynced = slices.DeleteFunc(d.unsynced, func(f string) bool { return slices.Contains(names, f) })
	d.mu.Unlock()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest of %s: %w", d.path, err)
	}
	if err := atomicfile.Write(d.Join(ManifestName), append(b, '\n')); err != nil {
		return err
	}
	// The new result is complete: the one it replaces goes, whether this
	// process set it aside or a forced run that this one resumes did.
	// Should that fail, the next Create or Recover removes it.
	d.mu.Lock()
	defer d.mu.Unlock()
	os.RemoveAll(d.Join(PreviousDir))
	d.previous = false
	d.unlock()
	d.releaseBusy()
	return nil
}

// unlock releases the lock of the set-aside result, if d holds it.
func (d *Dir) unlock() {
	if d.lock != nil {
		d.lock.Close()
		d.lock = nil
	}
}

// syncFiles is atomicfile.Sync, which a test replaces to act while Commit
// syncs.
var syncFiles = atomicfile.Sync

// Abort removes every file this process wrote (not the parts, and the
// identity file of a Sole claim only if no part was written), then the
// directories it made if they are empty. Where d replaces a complete
// result (Create or Claim.Open with force), it puts that result back,
// byte for byte; the identity file and parts of a Sole claim then go
// too, since they would describe work that the restored result does not.
// It is best effort: the error being reported is the one that matters.
func (d *Dir) Abort() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.written {
		os.Remove(d.Join(f))
	}
	d.files, d.written, d.unsynced = nil, nil, nil
	switch {
	case d.previous && d.claim != nil:
		d.claim.removeWork(d.path)
	case d.claim != nil && !d.claim.holdsParts(d.path):
		os.Remove(d.Join(d.claim.File))
	}
	if d.previous {
		restore(d.path)
		d.previous = false
	}
	d.unlock()
	for _, dir := range slices.Backward(d.created) {
		os.Remove(dir) // fails, as it should, on a directory that is not empty
	}
	d.releaseBusy()
}
