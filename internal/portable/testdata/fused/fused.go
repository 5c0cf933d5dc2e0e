// Package fused is TestNoFusedMultiplyAdd's canary: the one multiply-add
// that the check must find, or it finds nothing.
package fused

// MulAdd returns x*y + z, which Go fuses into one instruction on arm64.
func MulAdd(x, y, z float64) float64 { return x*y + z }
