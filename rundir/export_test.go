package rundir

// ParseManifest lets the fuzz target, in package rundir_test beside
// FuzzParseTable, read manifests from bytes rather than directories.
var ParseManifest = parseManifest

// SetSyncFiles replaces Commit's sync of the files Write wrote, until the
// test ends.
func SetSyncFiles(t interface{ Cleanup(func()) }, f func(paths []string) error) {
	old := syncFiles
	syncFiles = f
	t.Cleanup(func() { syncFiles = old })
}

// Die leaves d as a process killed while writing it would: its set-aside
// result stays, and its locks go, as the kernel releases a dead
// process's locks.
func Die(d *Dir) { d.unlock(); d.releaseBusy() }

// SetAside is setAside, which a test calls as a second rerun would, right
// after the Recover of its Create.
func SetAside(dir string) error {
	lock, _, err := setAside(dir)
	if lock != nil {
		lock.Close()
	}
	return err
}

// NewLock is newLock: a test holds a lock as a live setAside would.
var NewLock = newLock

// SetBeforeClaim runs f where Claim.Open is about to create the identity
// file, until the test ends.
func SetBeforeClaim(t interface{ Cleanup(func()) }, f func()) {
	old := beforeClaim
	beforeClaim = f
	t.Cleanup(func() { beforeClaim = old })
}
