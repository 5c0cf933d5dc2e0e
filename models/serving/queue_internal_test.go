package serving

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestServerQueues checks the servers' queues and heaps on small cases:
// the FIFO ring keeps its order when it wraps and grows; calls on their
// way are kept in order of arrival, those that arrive together in the
// order they were sent, and insert returns a call's place among them;
// calls scheduled at an API end first by time, then in the order they
// were admitted, also when some are taken out; and an API's places in
// flight, the first free on top, after places taken out or changed.
func TestServerQueues(t *testing.T) {
	calls := make([]*Call, 20)
	for i := range calls {
		calls[i] = &Call{ID: i}
	}
	ids := func(pop func() *Call, n int) []int {
		var out []int
		for range n {
			out = append(out, pop().ID)
		}
		return out
	}

	var q fifo[*Call]
	for _, c := range calls[:6] {
		q.push(c)
	}
	require.Equal(t, []int{0, 1, 2, 3}, ids(q.pop, 4))
	for _, c := range calls[6:16] { // wraps the ring of 8, then grows it
		q.push(c)
	}
	require.Equal(t, 12, q.n)
	require.Equal(t, []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, ids(q.pop, 12))

	var in arrivals
	for i, tc := range []struct {
		at    sim.Time
		place int
	}{{5, 0}, {3, 0}, {5, 2}, {9, 3}, {3, 1}, {9, 5}} {
		c := calls[i]
		c.Arrive = tc.at
		require.Equal(t, tc.place, in.insert(c), "call %d, arriving at %d", i, tc.at)
	}
	require.True(t, in.due(3, true))
	require.False(t, in.due(3, false))
	require.Equal(t, []int{1, 4}, ids(in.pop, 2))
	calls[6].Arrive = 6
	require.Equal(t, 2, in.insert(calls[6]), "the place counts from the first call on its way")
	require.Equal(t, []int{0, 2, 6, 3, 5}, ids(in.pop, 5))
	require.Zero(t, in.len())

	var e ends
	for i, at := range []sim.Time{7, 4, 7, 2, 4} {
		e.push(endItem{at: at, seq: uint64(i), id: i})
	}
	require.Equal(t, sim.Time(2), e.first())
	require.Equal(t, []int{3, 1, 4, 0, 2}, ids(func() *Call { return calls[e.pop()] }, 5))
	require.Equal(t, sim.MaxTime, e.first())
	for i, at := range []sim.Time{1, 8, 3, 9, 4, 10, 5, 6} {
		e.push(endItem{at: at, seq: uint64(i), id: i})
	}
	e.remove(1) // in the middle of the heap, with children
	e.remove(7) // the last
	e.remove(0) // the top
	require.Equal(t, []int{2, 4, 6, 3, 5}, ids(func() *Call { return calls[e.pop()] }, 5))

	var s slots
	for _, at := range []sim.Time{9, 2, 7, 2, 5, 1, 8, 6} {
		s.push(at)
	}
	s.remove(7)
	s.remove(2) // one of two
	s.remove(4) // none: nothing changes
	s.replaceFirst(3)
	s.set(9, 4)
	s.set(10, 1) // none: nothing changes
	var got []sim.Time
	for len(s) > 0 {
		first := s[0]
		got = append(got, first)
		s.remove(first)
	}
	require.Equal(t, []sim.Time{2, 3, 4, 5, 6, 8}, got)
}

// TestPrefillIsRounded checks that a prompt's prefill, worked out in
// integers where it can be, is the rounded product, at the edges of the
// integer path and at random; a product beyond the clock's range is
// sim.MaxTime (1<<40 ns a token for 1<<40 tokens), not the arbitrary value
// converting it gives.
func TestPrefillIsRounded(t *testing.T) {
	rounded := func(p sim.Time, n int64) sim.Time {
		if x := math.Round(float64(p) * float64(n)); x < float64(sim.MaxTime) {
			return sim.Time(x)
		}
		return sim.MaxTime
	}
	edges := []int64{0, 1, 2, 17250, 1<<26 - 1, 1 << 26, 1<<26 + 1, 1 << 40, -1, -17250}
	for _, p := range edges {
		for _, n := range edges {
			require.Equal(t, rounded(sim.Time(p), n), prefill(sim.Time(p), n), "%d ns a token, %d tokens", p, n)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		p, n := sim.Time(r.Int64N(1<<27)), r.Int64N(1<<27)
		require.Equal(t, rounded(p, n), prefill(p, n), "%d ns a token, %d tokens", p, n)
	}
}
