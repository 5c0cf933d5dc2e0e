package rundir

// ParseManifest lets the fuzz target, in package rundir_test beside
// FuzzParseTable, read manifests from bytes rather than directories.
var ParseManifest = parseManifest
