package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

// ErrOtherWork is returned by Claim.Open for a directory that holds other
// work.
var ErrOtherWork = errors.New("holds other work")

// A Claim describes work that resumes in its directory, such as a sweep:
// the identity file that marks the directory as this work's, and the
// parts it leaves as it goes.
type Claim struct {
	// File is the identity file's name, such as "sweep.json".
	File string
	// Data is the identity file's content for this work.
	Data []byte
	// Same checks a directory's identity file: nil when old describes
	// this work (it resumes), else an error saying how it differs.
	Same func(old []byte) error
	// Clear names what a fresh start removes besides the identity file,
	// the manifest and the files the manifest lists: the parts'
	// directories and outputs written before the manifest, as
	// filepath.Match patterns relative to the directory.
	Clear []string
	// Fresh is how messages tell the user to ask for a fresh start:
	// the command's flag that sets Open's fresh, such as "--fresh".
	Fresh string
	// Sole says that no other process works in the directory (a
	// training, unlike a sweep's shards): then Abort also removes an
	// identity file this process wrote if no part was written under it,
	// since it would mark as resumable a directory with nothing to
	// resume.
	Sole bool
}

// Open prepares path for the work: it creates the directory and writes
// the identity file, or checks that the identity file there describes
// the same work, which then resumes with the parts already written. A
// directory of other work is refused (an error wrapping ErrOtherWork)
// unless fresh is set, which first clears it; a complete directory of
// work that does not resume (a manifest without an identity file) is
// always refused. With fresh, no other process may be working in path;
// for a Sole claim, the complete result that fresh replaces is set aside
// until Commit, and Abort puts it back (see the package doc).
//
// Several processes may open the same directory at once (the shards of a
// cluster job): the first to create the identity file keeps it, and the
// others judge it as they would on resuming, so that of two different
// works started together one is refused. A Sole claim holds the
// directory until Commit or Abort: another Open of it meanwhile, by any
// process, is refused with an error wrapping ErrBusy.
func (c *Claim) Open(path string, fresh bool) (_ *Dir, err error) {
	if err := CheckDir(path); err != nil {
		return nil, err
	}
	d := &Dir{path: path}
	// Two trainings in one directory would each resume from, and then
	// remove, what the other writes: an interrupted one's Abort takes the
	// other's tables away before its Commit lists them. The lock is taken
	// before anything is read, so that neither a fresh start's clearing
	// nor a resume judges a directory that a live process is changing.
	if c.Sole {
		if err := d.holdBusy(); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				d.releaseBusy()
			}
		}()
	}
	// A result that a forced rerun set aside is left alone while that
	// rerun lives; else it comes back, unless the work that set it aside
	// resumes: then this process holds its lock until it commits (which
	// removes it) or aborts, as the rerun did.
	lock, err := lockAside(path)
	if err != nil {
		return nil, err
	}
	if err := removeTemps(path); err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	if _, err := os.Stat(d.Join(c.File)); err != nil || fresh {
		_, err := recoverLocked(path)
		if lock != nil {
			lock.Close()
		}
		if err != nil {
			return nil, err
		}
	} else {
		d.lock = lock
	}
	old, err := os.ReadFile(d.Join(c.File))
	first := false // no identity file: this process may claim the directory first
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(d.Join(ManifestName)); err == nil {
			d.unlock()
			return nil, fmt.Errorf("%s holds a complete run without %s; choose another directory with --out", path, c.File)
		}
		if fresh {
			if err := c.clear(d); err != nil {
				return nil, err
			}
		}
		first = !fresh
	case err != nil && !fresh:
		d.unlock()
		return nil, fmt.Errorf("%s %w: an unreadable %s (%v); use %s to discard it, or --out to choose another directory", path, ErrOtherWork, c.File, err, c.Fresh)
	case err == nil && !fresh:
		serr := c.Same(old)
		if serr == nil {
			if err := d.mkdirAll(path); err != nil {
				d.unlock()
				return nil, err
			}
			// Held already unless another process made the directory
			// and its identity file since the lock was first tried.
			if c.Sole {
				if err := d.holdBusy(); err != nil {
					d.unlock()
					return nil, err
				}
			}
			return d, nil
		}
		d.unlock()
		return nil, fmt.Errorf("%s %w: %w; use %s to discard it, or --out to choose another directory", path, ErrOtherWork, serr, c.Fresh)
	default:
		if err := c.clear(d); err != nil {
			return nil, err
		}
	}
	if err := d.mkdirAll(path); err != nil {
		d.putBack()
		return nil, err
	}
	// A directory that did not exist is held once made, before the
	// identity file that another process's Open would resume from.
	if c.Sole {
		if err := d.holdBusy(); err != nil {
			d.putBack()
			return nil, err
		}
	}
	if first {
		beforeClaim()
		// Another process may have claimed the directory since it was
		// read (two sweeps started at once on one empty --out): the
		// first identity file stays, and this work is judged against it.
		other, err := createOnce(d.Join(c.File), c.Data)
		if err != nil {
			d.putBack()
			return nil, err
		}
		if other != nil {
			if serr := c.Same(other); serr != nil {
				d.unlock()
				return nil, fmt.Errorf("%s %w: %w; use %s to discard it, or --out to choose another directory", path, ErrOtherWork, serr, c.Fresh)
			}
			return d, nil
		}
	} else if err := atomicfile.Write(d.Join(c.File), c.Data); err != nil {
		d.putBack()
		return nil, err
	}
	if c.Sole {
		d.claim = c
	}
	return d, nil
}

// beforeClaim runs right before the identity file is created; tests set
// it to play a process that claims the directory meanwhile.
var beforeClaim = func() {}

// createOnce writes data to path atomically unless path exists, and then
// returns what path holds instead. A hard link of the written file, which
// fails where path exists, is what makes it exclusive; on a filesystem
// without hard links it renames, which replaces a file written meanwhile.
func createOnce(path string, data []byte) (existing []byte, err error) {
	tmp, err := atomicfile.WriteTemp(path, data)
	if tmp != "" {
		defer os.Remove(tmp)
	}
	if err != nil {
		return nil, err
	}
	err = os.Link(tmp, path)
	switch {
	case err == nil:
		return nil, nil
	case errors.Is(err, fs.ErrExist):
		return os.ReadFile(path)
	default:
		return nil, os.Rename(tmp, path)
	}
}

// holdBusy takes the lock that marks d's directory as worked in by this
// process, if the directory exists and d does not hold it yet.
func (d *Dir) holdBusy() error {
	if d.busy != nil {
		return nil
	}
	f, err := lockBusy(d.path)
	if errors.Is(err, ErrBusy) {
		return fmt.Errorf("%s is %w (a training that still runs there): wait for it to end, or choose another --out", d.path, err)
	}
	d.busy = f
	return err
}

// releaseBusy releases the lock that holdBusy took, if any.
func (d *Dir) releaseBusy() {
	if d.busy != nil {
		d.busy.Close()
		d.busy = nil
	}
}

// putBack restores the result that d set aside, if any, for an Open that
// fails: best effort, the error being reported is the one that matters.
func (d *Dir) putBack() {
	if d.previous {
		restore(d.path)
		d.previous = false
	}
	d.unlock()
}

// holdsParts reports whether any of the paths that Clear names in dir
// holds a file.
func (c *Claim) holdsParts(dir string) bool {
	for _, pat := range c.Clear {
		matches, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, m := range matches {
			found := false
			filepath.WalkDir(m, func(_ string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					found = true
					return filepath.SkipAll
				}
				return nil
			})
			if found {
				return true
			}
		}
	}
	return false
}

// clear removes what the work writes into d's directory; other files are
// left alone. For a Sole claim, a complete result (its manifest, the
// files it lists and the identity file) is set aside in PreviousDir
// rather than removed, until d commits (see Dir.Abort); a shared
// directory (a sweep's shards) has no single commit to wait for, and its
// result is removed.
func (c *Claim) clear(d *Dir) error {
	dir := d.path
	if c.Sole {
		lock, moved, err := setAside(dir, c.File)
		d.previous, d.lock = moved, lock
		if err != nil {
			d.putBack()
			return err
		}
	} else if err := removeResult(dir); err != nil {
		return err
	}
	if err := c.removeWork(dir); err != nil {
		d.putBack()
		return err
	}
	return nil
}

// removeWork removes the identity file and the parts of the work in dir.
func (c *Claim) removeWork(dir string) error {
	if err := os.Remove(filepath.Join(dir, c.File)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, pat := range c.Clear {
		matches, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return fmt.Errorf("clear pattern %q: %w", pat, err)
		}
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteFile writes data to path atomically, for a writer that has no Dir
// at hand (a worker writing a part by its path).
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}
