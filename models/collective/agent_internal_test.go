package collective

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestNextCallWork checks the closed form of a part's calls against what
// it replaces: each call takes the work left over the calls left, rounded
// down, and together they take the whole work.
func TestNextCallWork(t *testing.T) {
	for _, tc := range []struct {
		work  sim.Time
		calls int
	}{
		{0, 1}, {1, 1}, {7, 1}, {0, 5}, {3, 5}, {5, 5}, {29, 10}, {31, 10},
		{599_999_999_999, 20}, {600 * sim.Second, 20}, {600*sim.Second + 19, 20},
		{1<<62 + 12345, 7}, {1000, 999}, {999, 1000},
	} {
		q, r := splitWork(tc.work, tc.calls)
		left := tc.work
		for n := tc.calls; n > 0; n-- {
			want := left / sim.Time(n)
			require.Equal(t, want, nextCallWork(q, r, n), "work %d in %d calls, %d left", tc.work, tc.calls, n)
			left -= want
		}
		require.Zero(t, left)
	}
}
