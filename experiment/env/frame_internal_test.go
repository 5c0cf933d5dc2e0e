package env

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An array's memory, copied at once, is the payload the protocol's byte
// order gives number by number.
func TestArraysMemoryIsPayload(t *testing.T) {
	f4 := []float32{0, -1.5, float32(math.NaN()), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, 3e38}
	f8 := []float64{0, -1.5, math.NaN(), math.Inf(1), math.SmallestNonzeroFloat64, math.MaxFloat64}
	i4 := []int32{0, -1, 1, math.MinInt32, math.MaxInt32, 258}
	each := func() []byte {
		b := appendF4([]byte("head"), f4)
		b = appendF8(b, f8)
		b = appendF4(b, nil)
		return appendI4(b, i4)
	}
	was := littleEndian
	t.Cleanup(func() { littleEndian = was })
	littleEndian = false
	want := each()
	assert.Equal(t, []byte{'h', 'e', 'a', 'd', 0, 0, 0, 0, 0, 0, 0xc0, 0xbf}, want[:12], "little-endian numbers after what was there")
	assert.Len(t, want, 4+4*len(f4)+8*len(f8)+4*len(i4))
	if !was {
		t.Skip("a big-endian machine writes every array number by number")
	}
	littleEndian = true
	assert.Equal(t, want, each())
}
