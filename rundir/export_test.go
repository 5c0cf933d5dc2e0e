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
