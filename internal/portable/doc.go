// Package portable holds a test that keeps the module's floating-point
// arithmetic the same on every architecture: it has no code of its own.
//
// Go may fuse a multiplication and an addition into one multiply-add
// instruction, rounding once instead of twice: on arm64, loong64, ppc64le,
// s390x and riscv64, and on amd64 built with GOAMD64=v3 or above, but not
// on amd64 as Go builds it by default. A fused x*y + z can differ from the
// unfused one in the last bit, and a simulation carries such a bit on: a
// duration rounds to another nanosecond, a probability crosses a draw. An
// explicit conversion, float64(x*y) + z, rounds the product and so forbids
// the fusion, at no cost where nothing is fused.
//
// TestNoFusedMultiplyAdd compiles the module for arm64, whose fusions
// include amd64's, and fails on every fused multiply-add in the code that
// computes results; a canary in testdata must be found, so that a check
// that read nothing cannot pass. The charts (package plots) are left out:
// their geometry is rounded when drawn. What stays machine-dependent is
// outside the module: the standard library's math functions (Exp, Log and
// Log1p on every path; Pow, Expm1, Cos and Lgamma where they are called)
// and gonum's, which differ in their last bits between architectures
// (docs/cluster.md, "Determinism").
package portable
