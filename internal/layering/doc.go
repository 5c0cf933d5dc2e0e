// Package layering holds a test that keeps the module's layers: it has no
// code of its own.
//
// Dependencies flow one way, from the command down to the engine:
//
//	cmd → experiment → scenarios, plots, rundir, results, metric → models → sim, stats
//
// with internal/... beside the bottom, usable by every layer. The test lists
// the module's packages and their imports with `go list -deps -json ./...`
// and checks each of a table of rules, each naming the packages it
// constrains and the module packages they must not import; a violation
// names the importing package, the imported one and the rule. Only the
// imports of a package's own code count: a test file may reach further,
// since nothing imports it.
//
// The rules check what exists, so a rule about a package not yet written
// holds trivially. docs/architecture.md describes the layers.
package layering
