package policy

import (
	"math"
	"testing"
)

// TestCountScaleIsLog1p checks the counts' features, table and beyond,
// against log1p(n)/div bit for bit.
func TestCountScaleIsLog1p(t *testing.T) {
	for _, s := range []*countScale{thirds, halves} {
		for n := -3; n < 3*len(s.small); n++ {
			want := math.Log1p(float64(max(n, 0))) / s.div
			if got := s.of(n); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("log1p(%d)/%v: got %v, want %v", n, s.div, got, want)
			}
		}
	}
}
