// Package experiments holds no code: its tests check, on seeds that were
// not used to design them, the findings that docs/experiments.md reports
// for the library's exp-* scenarios. Each test runs the scenario as
// embedded (the same trials, at the seeds 1001 and up instead of the
// scenario's 1 and up), computes the claimed difference or trend per seed,
// and fails when a one-sided test at the stated α no longer finds the
// claimed direction: Wilcoxon's signed-rank test (exact, by enumerating
// sign flips) for paired comparisons of variants that share their task
// draws, and Jonckheere–Terpstra's trend test (by permutation, with a
// fixed seed) for dose-responses.
//
// Under the race detector the tests run a few iterations of one seed
// only: the race run checks concurrency, and the plain `go test ./...`
// checks the claims.
package experiments
