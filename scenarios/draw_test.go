package scenarios

import (
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestRandomAxisValue: a random draw is stored as the field's type, to
// the edges of that type's range and no further: integers rounded,
// durations read as seconds, distributions as constants.
func TestRandomAxisValue(t *testing.T) {
	two63 := math.Ldexp(1, 63)
	for _, tc := range []struct {
		name string
		t    reflect.Type
		x    float64
		want any // nil for an error
	}{
		{"float", reflect.TypeFor[float64](), 0.25, 0.25},
		{"int rounded", reflect.TypeFor[int](), 2.5, 3},
		{"int64 at its least", reflect.TypeFor[int64](), -two63, int64(math.MinInt64)},
		{"int64 past its most", reflect.TypeFor[int64](), two63, nil},
		{"int8 past its most", reflect.TypeFor[int8](), 128, nil},
		{"uint8 at its most", reflect.TypeFor[uint8](), 255.4, uint8(255)},
		{"uint8 past its most", reflect.TypeFor[uint8](), 256, nil},
		{"uint64 past its most", reflect.TypeFor[uint64](), 2 * two63, nil},
		{"uint at its least", reflect.TypeFor[uint](), -0.4, uint(0)},
		{"uint negative", reflect.TypeFor[uint](), -1, nil},
		{"duration zero", timeType, 0, sim.Time(0)},
		{"duration in seconds", timeType, 1.5, 1500 * sim.Millisecond},
		{"duration negative", timeType, -1e-9, nil},
		{"duration past the most", timeType, two63 / float64(sim.Second), nil},
		{"distribution", distType, 0.123456789, sim.Const(0.123456789)},
		{"string", reflect.TypeFor[string](), 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ax := RandomAxis{Path: "x"}
			v, err := ax.value(tc.t, tc.x)
			if tc.want == nil {
				assert.ErrorContains(t, err, "x: ")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.Interface())
		})
	}
}
