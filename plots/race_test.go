//go:build race

package plots

// RaceEnabled says whether the tests run under the race detector; it is
// exported for the tests of package plots_test.
const RaceEnabled = true
