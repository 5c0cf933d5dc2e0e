// Package race says whether the binary was built with the race detector
// (go test -race), so that a test can run shorter there, or skip work on
// one goroutine where the detector can find nothing and which it makes
// some fifteen times slower; the plain run checks the rest.
package race
