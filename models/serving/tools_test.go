package serving_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
)

// TestPool: a pool of two places lets two calls in and queues the rest in
// FIFO order; each release hands the place to the first call waiting, and
// only frees it when none waits. A pool of size 0 (and the zero Pool) is
// unlimited.
func TestPool(t *testing.T) {
	var p serving.Pool
	p.Reset(2)
	for id, want := range []bool{true, true, false, false} {
		assert.Equal(t, want, p.Acquire(id), "acquire %d", id)
	}
	type handover struct {
		id int
		ok bool
	}
	var got []handover
	for range 4 {
		id, ok := p.Release()
		got = append(got, handover{id, ok})
	}
	// Calls 2 and 3 take the places of the first two releases, in order;
	// the last two free the places.
	require.Equal(t, []handover{{2, true}, {3, true}, {0, false}, {0, false}}, got)
	// Both places are free again: two more get in, the third waits.
	assert.True(t, p.Acquire(4))
	assert.True(t, p.Acquire(5))
	assert.False(t, p.Acquire(6))

	reset := p
	reset.Reset(0)
	for _, tc := range []struct {
		name string
		pool serving.Pool
	}{{"Reset(0) after use", reset}, {"the zero Pool", serving.Pool{}}} {
		q := tc.pool
		for id := range 100 {
			require.True(t, q.Acquire(id), "%s, call %d", tc.name, id)
		}
		for range 100 {
			_, ok := q.Release()
			require.False(t, ok, "%s: nobody waits", tc.name)
		}
	}
}
