// Package portable holds a test that keeps the module's floating-point
// arithmetic the same on every architecture: it has no code of its own.
//
// Go may fuse a multiplication and an addition into one multiply-add
// instruction, rounding once instead of twice, on arm64, ppc64le, s390x and
// riscv64, but not on amd64. A fused x*y + z can differ from the unfused
// one in the last bit, and a simulation carries such a bit on: a duration
// rounds to another nanosecond, a probability crosses a draw. An explicit
// conversion, float64(x*y) + z, rounds the product and so forbids the
// fusion, at no cost on amd64, where nothing is fused.
//
// TestNoFusedMultiplyAdd compiles the module for arm64 and fails on every
// fused multiply-add in the code that computes results. The charts
// (package plots) are left out: their geometry is rounded when drawn.
// What stays architecture-dependent is outside the module: math.Exp,
// math.Log and math.Log1p differ in their last bit between amd64 and
// arm64 (docs/cluster.md, "Determinism").
package portable
