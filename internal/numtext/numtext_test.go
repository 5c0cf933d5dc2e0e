package numtext_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/internal/numtext"
)

func TestShortest(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    float64
		want string
	}{
		{"zero", 0, "0"},
		{"negative zero", math.Copysign(0, -1), "0"},
		{"smallest negative", -math.SmallestNonzeroFloat64, "-5e-324"},
		{"negative", -1.0 / 3, "-0.3333333333333333"},
		{"seventeen digits", math.Nextafter(0.3, 1), "0.30000000000000004"},
		{"large", 1 << 53, "9.007199254740992e+15"},
		{"NaN", math.NaN(), "NaN"},
		{"+Inf", math.Inf(1), "+Inf"},
		{"-Inf", math.Inf(-1), "-Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, numtext.Shortest(tc.v))
			assert.Equal(t, "x,"+tc.want, string(numtext.AppendShortest([]byte("x,"), tc.v)))
		})
	}
}

func TestFixed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        float64
		decimals int
		want     string
	}{
		{"zero", 0, 2, "0.00"},
		{"negative zero", math.Copysign(0, -1), 2, "0.00"},
		{"negative zero, no decimals", math.Copysign(0, -1), 0, "0"},
		{"small negative rounded to zero", -0.004, 2, "0.00"},
		{"small negative kept", -0.005001, 2, "-0.01"},
		{"negative", -1.25, 1, "-1.2"},
		{"positive", 3.14159, 3, "3.142"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, numtext.Fixed(tc.v, tc.decimals))
		})
	}
}
