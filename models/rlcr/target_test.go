package rlcr_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

func TestIterationsToTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rewards []float64
		target  float64
		want    int
		reached bool
	}{
		{"first iteration", []float64{1, 0, 0}, 1, 0, true},
		{"short window at the start", []float64{0, 2, 0}, 1, 1, true},
		// One iteration at 3 lifts the five-iteration mean only to 0.6.
		{"one lucky iteration is not enough", []float64{0, 0, 0, 0, 0, 0, 3, 0, 0}, 1, 9, false},
		{"the mean of the last five", []float64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, 0.8, 8, true},
		// At iteration 5 the first leaves the window: the mean of 1..5 is 1.
		{"the first iteration leaves the window", []float64{-10, 1, 1, 1, 1, 1}, 1, 5, true},
		{"never", []float64{0, 0.5, 0.7}, 1, 3, false},
		{"empty", nil, 0, 0, false},
		{"negative rewards", []float64{-3, -2, -1, -1, -1}, -1.75, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := rlcr.IterationsToTarget(tc.rewards, tc.target)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.reached, ok)
		})
	}
}

func TestTarget(t *testing.T) {
	assert.InDelta(t, 0.8, rlcr.Target(0, 1, 0.8), 1e-12)
	assert.InDelta(t, -1.4, rlcr.Target(-5, -0.5, 0.8), 1e-12)
	assert.InDelta(t, 2, rlcr.Target(2, 2, 0.8), 1e-12)
}

// Time a learning curve: 80% of the way from the initial reward 0 to the
// best 1 is 0.8, which the five-iteration mean first reaches at iteration
// 8 (0.1, 0.5, 0.9, 1, 1 average 0.7 at iteration 7; 0.5, 0.9, 1, 1, 1
// average 0.88 at 8).
func ExampleIterationsToTarget() {
	rewards := []float64{0, 0, 0, 0.1, 0.5, 0.9, 1, 1, 1, 1}
	it, ok := rlcr.IterationsToTarget(rewards, rlcr.Target(rewards[0], 1, 0.8))
	fmt.Println(it, ok)
	// Output: 8 true
}
