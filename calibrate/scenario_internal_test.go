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
// that the difficulty rounds to 1 in 4 digits, clamps below 1 and says so;
// its comment counts runs and parts in words that agree with them (it
// said "over 1 parts").
func TestDifficultyBelowOne(t *testing.T) {
	for _, c := range []struct {
		name                       string
		acceptable, outcome, nodes int
		want                       string
		clamped                    bool
		counts                     string // in the comment
	}{
		{"none acceptable", 0, 20, 1, "0.9999", true, "0 of 20 runs acceptable (swarmsim.acceptable), over 1 part,"},
		{"none acceptable, many parts", 0, 20, 8, "0.9999", true, "over 8 parts,"},
		{"one in a million", 1, 1000000, 1, "0.9999", true, "1 of 1000000 runs"},
		{"half", 10, 20, 1, "0.5", false, "over 1 part"},
		{"all", 20, 20, 3, "0", false, "over 3 parts"},
		{"one run", 1, 1, 2, "0", false, "1 of 1 run acceptable (swarmsim.acceptable), over 2 parts"},
		{"no outcome", 0, 0, 1, "0", false, "no outcome"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := difficulty(&Fit{Acceptable: c.acceptable, WithOutcome: c.outcome}, c.nodes)
			num, comment, _ := strings.Cut(got, " #")
			assert.Equal(t, c.want, num, got)
			d, err := strconv.ParseFloat(num, 64)
			require.NoError(t, err)
			assert.True(t, d >= 0 && d < 1, "difficulty %v is out of [0, 1)", d)
			assert.Equal(t, c.clamped, strings.Contains(comment, "clamped"), got)
			assert.Contains(t, comment, c.counts)
		})
	}
}

// TestCallsPerWork checks the mean calls over the mean work for a fixed
// work (lo = hi), which makes max(1, ⌈work⌉) calls, and for a uniform one.
func TestCallsPerWork(t *testing.T) {
	for _, c := range []struct {
		lo, hi, want float64
	}{
		{0, 0, 1}, // no work: any rate
		{0.5, 0.5, 2},
		{1.5, 1.5, 2 / 1.5},
		{2, 2, 1},
		{0, 1, 2}, // one call of 0.5 s on average
		{0, 2, 1.5 / 1},
	} {
		assert.InDelta(t, c.want, callsPerWork(c.lo, c.hi), 1e-12, "uniform(%g, %g)", c.lo, c.hi)
	}
}
