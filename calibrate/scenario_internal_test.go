package calibrate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDifficultyBelowOne checks that the written difficulty is in [0, 1)
// whatever share of the runs was acceptable: none acceptable, or so few
// that the difficulty rounds to 1 in 4 digits, clamps below 1 and says so.
func TestDifficultyBelowOne(t *testing.T) {
	for _, c := range []struct {
		name                       string
		acceptable, outcome, nodes int
		want                       string
		clamped                    bool
	}{
		{"none acceptable", 0, 20, 1, "0.9999", true},
		{"none acceptable, many parts", 0, 20, 8, "0.9999", true},
		{"one in a million", 1, 1000000, 1, "0.9999", true},
		{"half", 10, 20, 1, "0.5", false},
		{"all", 20, 20, 3, "0", false},
		{"no outcome", 0, 0, 1, "0", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := difficulty(&Fit{Acceptable: c.acceptable, WithOutcome: c.outcome}, c.nodes)
			num, comment, _ := strings.Cut(got, " #")
			assert.Equal(t, c.want, num, got)
			d, err := strconv.ParseFloat(num, 64)
			require.NoError(t, err)
			assert.True(t, d >= 0 && d < 1, "difficulty %v is out of [0, 1)", d)
			assert.Equal(t, c.clamped, strings.Contains(comment, "clamped"), got)
		})
	}
}
