package rundir_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/filetree"
	"github.com/swarmsim/swarmsim/rundir"
)

// oldResult writes a complete result into a new directory, with a file
// that its manifest does not list (a page, a note of the user's), and
// returns the directory. Its files are dated in the past, so that a file
// rewritten with the same bytes shows.
func oldResult(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	for _, f := range []string{"episodes.csv", "summary.csv", "charts/a.svg", "charts/b.svg"} {
		require.NoError(t, d.Write(f, []byte("old "+f+"\n")))
	}
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "old"}))
	require.NoError(t, os.WriteFile(filepath.Join(path, "report.html"), []byte("old page\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(path, "notes.txt"), []byte("mine\n"), 0o600))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, past, past)
	}))
	return path
}

// newWork writes, into d, files of the names of the old result's
// (episodes.csv, charts/a.svg) and others (new.csv, more/x.csv).
func newWork(t *testing.T, d *rundir.Dir) {
	t.Helper()
	for _, f := range []string{"episodes.csv", "charts/a.svg", "new.csv", "more/x.csv"} {
		require.NoError(t, d.Write(f, []byte("new "+f+"\n")))
	}
}

// TestForceKeepsTheOldResult: a forced Create sets the complete result
// aside, where no reader finds it, and the new work writes in place; an
// Abort, whatever the new work wrote, leaves the old result as it was,
// byte for byte, and a Commit leaves only the new one.
func TestForceKeepsTheOldResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		work   func(t *testing.T, d *rundir.Dir)
		commit bool
	}{
		{"abort, nothing written", func(*testing.T, *rundir.Dir) {}, false},
		{"abort after files of the same names and others", newWork, false},
		{"abort after the page is set aside", func(t *testing.T, d *rundir.Dir) {
			require.NoError(t, d.SetAside("report.html"))
			newWork(t, d)
		}, false},
		{"commit", newWork, true},
		{"commit after the page is set aside", func(t *testing.T, d *rundir.Dir) {
			require.NoError(t, d.SetAside("report.html"))
			newWork(t, d)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := oldResult(t)
			before := filetree.Snapshot(t, path)
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			assert.True(t, d.Replacing())
			tc.work(t, d)

			// While the new work runs, the directory is incomplete, and
			// the result set aside is not one to read.
			_, err = rundir.Open(path)
			assert.ErrorIs(t, err, rundir.ErrIncomplete)
			assert.Contains(t, err.Error(), "a forced rerun, running or killed, holds its old result aside in "+rundir.PreviousDir)
			listed, err := rundir.List(filepath.Dir(path))
			require.NoError(t, err)
			assert.Empty(t, listed)

			if !tc.commit {
				d.Abort()
				assert.Equal(t, before, filetree.Snapshot(t, path), "the old result, byte for byte")
				r, err := rundir.Open(path)
				require.NoError(t, err)
				assert.Equal(t, "old", r.Manifest.Scenario)
				return
			}
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "new"}))
			assert.False(t, d.Replacing())
			after := filetree.Snapshot(t, path)
			r, err := rundir.Open(path)
			require.NoError(t, err)
			assert.Equal(t, "new", r.Manifest.Scenario)
			assert.Equal(t, []string{"charts/a.svg", "episodes.csv", "more/x.csv", "new.csv"}, r.Manifest.Files)
			want := []string{rundir.ManifestName, "notes.txt"}
			if _, ok := after["report.html"]; ok {
				want = append(want, "report.html") // not set aside: the caller's to replace
			}
			assert.ElementsMatch(t, append(want, r.Manifest.Files...), keys(after), "nothing of the old result but what no manifest listed")
			assert.Equal(t, before["notes.txt"], after["notes.txt"])
			assert.NoDirExists(t, filepath.Join(path, rundir.PreviousDir))
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestRecover: a forced rerun killed at any point leaves a directory from
// which the next Create (or Claim.Open, or Recover) gets back a complete
// result: the old one where the rerun did not commit, the new one where
// it did, and no PreviousDir either way.
func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		name string
		// kill leaves path as a process killed at some point would.
		kill func(t *testing.T, path string)
		old  bool // the old result comes back (else the new one stays)
		// moved says that Recover moves the old result back: false
		// where the manifest was back already.
		moved bool
	}{
		{"killed before writing", func(t *testing.T, path string) {
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			rundir.Die(d)
		}, true, true},
		{"killed while writing", func(t *testing.T, path string) {
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			newWork(t, d)
			rundir.Die(d)
		}, true, true},
		{"killed while putting the old result back", func(t *testing.T, path string) {
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			newWork(t, d)
			prev := filepath.Join(path, rundir.PreviousDir)
			require.NoError(t, os.Rename(filepath.Join(prev, "summary.csv"), filepath.Join(path, "summary.csv")))
			rundir.Die(d)
		}, true, true},
		{"killed after putting the manifest back", func(t *testing.T, path string) {
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			prev := filepath.Join(path, rundir.PreviousDir)
			require.NoError(t, os.Rename(filepath.Join(prev, rundir.ManifestName), filepath.Join(path, rundir.ManifestName)))
			for _, f := range []string{"episodes.csv", "summary.csv", "charts/a.svg", "charts/b.svg"} {
				require.NoError(t, os.Rename(filepath.Join(prev, f), d.Join(f)))
			}
			rundir.Die(d)
		}, true, false},
		{"killed after the commit", func(t *testing.T, path string) {
			d, err := rundir.Create(path, true)
			require.NoError(t, err)
			newWork(t, d)
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "new"}))
			// The commit removed the old result; put a copy back, as a
			// kill before that removal would have left it.
			require.NoError(t, os.MkdirAll(filepath.Join(path, rundir.PreviousDir), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(path, rundir.PreviousDir, rundir.ManifestName), []byte(`{"kind":"run","scenario":"old"}`), 0o644))
		}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, how := range []string{"Create", "Create --force", "Recover", "Claim.Open --anew"} {
				t.Run(how, func(t *testing.T) {
					path := oldResult(t)
					before := filetree.Snapshot(t, path)
					tc.kill(t, path)
					switch how {
					case "Create":
						_, err := rundir.Create(path, false)
						if tc.old {
							assert.ErrorContains(t, err, "holds a complete run")
						}
					case "Create --force":
						d, err := rundir.Create(path, true)
						require.NoError(t, err)
						d.Abort()
					case "Recover":
						restored, err := rundir.Recover(path)
						require.NoError(t, err)
						assert.Equal(t, tc.moved, restored)
					case "Claim.Open --anew":
						// A claim refuses a complete result without its
						// identity file: it must see the result first.
						c := claim("A")
						c.Sole = true
						_, err := c.Open(path, true)
						assert.ErrorContains(t, err, "holds a complete run without plan.json")
					}
					assert.NoDirExists(t, filepath.Join(path, rundir.PreviousDir))
					r, err := rundir.Open(path)
					require.NoError(t, err)
					if tc.old {
						// Files of the killed rerun that the old result
						// does not have (new.csv) stay, as those of any
						// killed run do; the others are the old ones.
						after := filetree.Snapshot(t, path)
						for f, b := range before {
							assert.Equal(t, b, after[f], "the old %s, byte for byte", f)
						}
						assert.Equal(t, "old", r.Manifest.Scenario)
					} else {
						assert.Equal(t, "new", r.Manifest.Scenario)
					}
				})
			}
		})
	}
}

// TestForceSoleClaim: a forced Sole claim (a training) over a complete
// result of the same kind of work sets it aside with its identity file;
// an Abort puts both back and drops the new work's identity file and
// parts, which would describe work that the restored result does not; a
// Commit leaves only the new result; and a resume of the new work finds
// the old result still set aside, for its Commit to remove.
func TestForceSoleClaim(t *testing.T) {
	sole := func(id string) *rundir.Claim { c := claim(id); c.Sole = true; return c }
	complete := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "train")
		d, err := sole("A").Open(path, false)
		require.NoError(t, err)
		require.NoError(t, d.Write("iterations.csv", []byte("old\n")))
		require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain, Scenario: "old"}))
		return path
	}
	for _, id := range []string{"A", "B"} {
		t.Run("abort, claim "+id, func(t *testing.T) {
			path := complete(t)
			before := filetree.Snapshot(t, path)
			d, err := sole(id).Open(path, true)
			require.NoError(t, err)
			require.NoError(t, d.Write("iterations.csv", []byte("new\n")))
			require.NoError(t, rundir.WriteFile(d.Join("parts/1.json"), []byte("1")))
			d.Abort()
			assert.Equal(t, before, filetree.Snapshot(t, path))
		})
		t.Run("commit, claim "+id, func(t *testing.T) {
			path := complete(t)
			d, err := sole(id).Open(path, true)
			require.NoError(t, err)
			require.NoError(t, d.Write("fit.csv", []byte("new\n")))
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain, Scenario: "new"}))
			assert.ElementsMatch(t, []string{rundir.ManifestName, "fit.csv", "plan.json"}, keys(filetree.Snapshot(t, path)))
			b, err := os.ReadFile(filepath.Join(path, "plan.json"))
			require.NoError(t, err)
			assert.Equal(t, id, string(b))
		})
	}
	t.Run("killed, then resumed", func(t *testing.T) {
		path := complete(t)
		d, err := sole("B").Open(path, true)
		require.NoError(t, err)
		require.NoError(t, rundir.WriteFile(d.Join("parts/1.json"), []byte("1")))
		rundir.Die(d) // Killed here. The same work resumes with its part.
		d, err = sole("B").Open(path, false)
		require.NoError(t, err)
		assert.FileExists(t, filepath.Join(path, "parts", "1.json"))
		assert.DirExists(t, filepath.Join(path, rundir.PreviousDir))
		require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain, Scenario: "new"}))
		assert.NoDirExists(t, filepath.Join(path, rundir.PreviousDir))
	})
	t.Run("resumed while the rerun lives", func(t *testing.T) {
		path := complete(t)
		before := filetree.Snapshot(t, path)
		d, err := sole("B").Open(path, true)
		require.NoError(t, err)
		// The same work, opened again without fresh, would resume it.
		_, err = sole("B").Open(path, false)
		assert.ErrorIs(t, err, rundir.ErrBusy)
		d.Abort()
		assert.Equal(t, before, filetree.Snapshot(t, path))
	})
	t.Run("killed, resumed: the resumer holds the lock", func(t *testing.T) {
		path := complete(t)
		d, err := sole("B").Open(path, true)
		require.NoError(t, err)
		rundir.Die(d)
		r, err := sole("B").Open(path, false)
		require.NoError(t, err)
		_, err = rundir.Recover(path)
		assert.ErrorIs(t, err, rundir.ErrBusy, "no one recovers under a live resumer")
		_, err = rundir.Create(path, true)
		assert.ErrorIs(t, err, rundir.ErrBusy)
		require.NoError(t, r.Commit(&rundir.Manifest{Kind: rundir.KindTrain, Scenario: "new"}))
		assert.NoDirExists(t, filepath.Join(path, rundir.PreviousDir))
		_, err = rundir.Recover(path)
		assert.NoError(t, err, "free once committed")
	})
	t.Run("killed, then forced again", func(t *testing.T) {
		path := complete(t)
		before := filetree.Snapshot(t, path)
		d, err := sole("B").Open(path, true)
		require.NoError(t, err)
		require.NoError(t, rundir.WriteFile(d.Join("parts/1.json"), []byte("1")))
		rundir.Die(d) // Killed here. A forced rerun starts over, from the old result.
		d, err = sole("B").Open(path, true)
		require.NoError(t, err)
		assert.NoFileExists(t, filepath.Join(path, "parts", "1.json"))
		d.Abort()
		assert.Equal(t, before, filetree.Snapshot(t, path))
	})
}

// TestSetAsideSkipsItsOwnFolder: a manifest that lists the folder a
// result is set aside in, or a file in it (edited by hand), does not make
// a forced Create move that folder into itself; the result's own files
// are set aside and come back.
func TestSetAsideSkipsItsOwnFolder(t *testing.T) {
	for _, listed := range []string{rundir.PreviousDir, rundir.PreviousDir + "/x.csv"} {
		t.Run(listed, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run")
			d, err := rundir.Create(path, false)
			require.NoError(t, err)
			require.NoError(t, d.Write("a.csv", []byte("old\n")))
			d.Record(listed, false)
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun}))
			before := filetree.Snapshot(t, path)

			d, err = rundir.Create(path, true)
			require.NoError(t, err)
			assert.NoFileExists(t, filepath.Join(path, "a.csv"), "set aside")
			assert.FileExists(t, filepath.Join(path, rundir.PreviousDir, "a.csv"))
			d.Abort()
			assert.Equal(t, before, filetree.Snapshot(t, path))
		})
	}
}

// TestLiveRerunIsLeftAlone: while a forced rerun writes (its process
// alive, holding the set-aside result's lock), another Create, Claim.Open
// or Recover of the directory is refused with ErrBusy and changes
// nothing, forced or not; the rerun then aborts to the old result, or
// commits its own, as if alone.
func TestLiveRerunIsLeftAlone(t *testing.T) {
	for _, commit := range []bool{false, true} {
		path := oldResult(t)
		before := filetree.Snapshot(t, path)
		d, err := rundir.Create(path, true)
		require.NoError(t, err)
		newWork(t, d)
		during := filetree.Snapshot(t, path)
		for name, try := range map[string]func() error{
			"Create":          func() error { _, err := rundir.Create(path, false); return err },
			"Create --force":  func() error { _, err := rundir.Create(path, true); return err },
			"Recover":         func() error { _, err := rundir.Recover(path); return err },
			"Claim.Open anew": func() error { c := claim("C"); c.Sole = true; _, err := c.Open(path, true); return err },
		} {
			err := try()
			assert.ErrorIs(t, err, rundir.ErrBusy, name)
			assert.ErrorContains(t, err, "wait for it to end, or choose another --out", name)
			assert.Equal(t, during, filetree.Snapshot(t, path), "%s changes nothing", name)
		}
		if commit {
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "new"}))
			assert.NoDirExists(t, filepath.Join(path, rundir.PreviousDir))
			_, err := rundir.Recover(path)
			assert.NoError(t, err, "free once committed")
			continue
		}
		d.Abort()
		assert.Equal(t, before, filetree.Snapshot(t, path), "the old result, byte for byte")
	}
}

// TestSecondRerunLeavesTheFirstsAside: a second forced rerun that reaches
// its set-aside (its Recover passed before the first had set anything
// aside) while the first holds its own, does not clear the first's
// folder: it is refused, and the first aborts to the old result.
func TestSecondRerunLeavesTheFirstsAside(t *testing.T) {
	path := oldResult(t)
	before := filetree.Snapshot(t, path)
	d, err := rundir.Create(path, true)
	require.NoError(t, err)
	// The second rerun read the manifest before the first moved it.
	require.NoError(t, os.WriteFile(filepath.Join(path, rundir.ManifestName), []byte(`{"kind":"run"}`), 0o644))
	err = rundir.SetAside(path)
	assert.ErrorIs(t, err, rundir.ErrBusy)
	require.NoError(t, os.Remove(filepath.Join(path, rundir.ManifestName)))
	d.Abort()
	assert.Equal(t, before, filetree.Snapshot(t, path), "the old result, byte for byte")
}

// TestKilledSetAsideTempIsRemoved: setAside builds PreviousDir under a
// temporary name, PreviousDir-*, locked, and renames it into place. A
// process killed before the rename leaves that folder; the next command
// that writes to the directory removes it, with or without its lock file
// (killed after or before taking the lock). A temporary folder whose lock
// a live process holds is being built, and stays, as does a file of the
// user's that happens to have such a name.
func TestKilledSetAsideTempIsRemoved(t *testing.T) {
	for _, tc := range []struct {
		name     string
		complete bool // the directory holds a result, which open replaces
		open     func(path string) error
	}{
		{"Create", false, func(path string) error { _, err := rundir.Create(path, false); return err }},
		{"Create --force", true, func(path string) error { _, err := rundir.Create(path, true); return err }},
		{"Recover", true, func(path string) error { _, err := rundir.Recover(path); return err }},
		{"Claim.Open anew", false, func(path string) error { _, err := claim("C").Open(path, true); return err }},
		{"Claim.Open resuming", false, func(path string) error {
			require.NoError(t, os.WriteFile(filepath.Join(path, "plan.json"), []byte("C"), 0o644))
			_, err := claim("C").Open(path, false)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := t.TempDir()
			if tc.complete {
				path = oldResult(t)
			}
			locked := filepath.Join(path, rundir.PreviousDir+"-killed-locked")
			unlocked := filepath.Join(path, rundir.PreviousDir+"-killed-early")
			live := filepath.Join(path, rundir.PreviousDir+"-live")
			for _, dir := range []string{locked, unlocked, live} {
				require.NoError(t, os.Mkdir(dir, 0o700))
			}
			// A dead process's lock file: the kernel dropped its lock.
			lock, err := rundir.NewLock(filepath.Join(locked, ".lock"))
			require.NoError(t, err)
			if lock != nil {
				lock.Close()
			}
			hold, err := rundir.NewLock(filepath.Join(live, ".lock"))
			require.NoError(t, err)
			if hold != nil {
				defer hold.Close()
			}
			mine := filepath.Join(path, rundir.PreviousDir+"-notes.txt")
			require.NoError(t, os.WriteFile(mine, []byte("mine\n"), 0o644))

			require.NoError(t, tc.open(path))
			assert.NoDirExists(t, locked)
			assert.NoDirExists(t, unlocked)
			assert.FileExists(t, mine)
			if hold == nil {
				t.Skip("no flock on this system: nothing is held, so nothing is left as live")
			}
			assert.FileExists(t, filepath.Join(live, ".lock"), "a live set-aside's folder stays")
		})
	}
}
