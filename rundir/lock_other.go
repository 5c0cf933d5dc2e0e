//go:build !unix || aix || (solaris && !illumos)

package rundir

import "os"

// Where the system has no flock (Windows, Solaris, AIX), nothing is
// locked: a forced rerun's set-aside result is recovered by whichever
// command writes to its directory next, live rerun or not. No file is
// kept open either: Windows would refuse to rename or remove the folder
// that holds it.

// newLock takes no lock.
func newLock(string) (*os.File, error) { return nil, nil }

// tryLock sees no lock held.
func tryLock(string) (*os.File, bool, error) { return nil, false, nil }

// lockBusy sees no other process at work.
func lockBusy(string) (*os.File, error) { return nil, nil }
