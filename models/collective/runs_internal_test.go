package collective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// TestInstantsCountLikeAMultiset adds and removes instants at random
// against a plain count per slot, over times from a narrow range so that
// slots are shared: what add, maybe and the held count report must be the
// plain counts'. A miscount would not change an episode, only refuse runs
// in vain or let one tie, which TestRunsChangeNothing would catch only
// where the cases tie.
func TestInstantsCountLikeAMultiset(t *testing.T) {
	var s instants
	require.False(t, s.maybe(5), "a table never reset holds nothing")
	s.reset()
	counts := map[int]int{}
	var held []sim.Time
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		if len(held) > 0 && r.IntN(2) == 0 {
			k := r.IntN(len(held))
			tm := held[k]
			held[k] = held[len(held)-1]
			held = held[:len(held)-1]
			s.remove(tm)
			counts[slot(tm)]--
		} else {
			tm := sim.Time(r.IntN(2 * instantSlots))
			shared, ok := s.add(tm)
			require.True(t, ok)
			require.Equal(t, counts[slot(tm)] > 0, shared, "add(%d)", tm)
			counts[slot(tm)]++
			held = append(held, tm)
		}
		require.Equal(t, len(held), s.n)
		probe := sim.Time(r.IntN(2 * instantSlots))
		require.Equal(t, counts[slot(probe)] > 0, s.maybe(probe), "maybe(%d)", probe)
	}

	// reset empties a table that still holds instants, as an episode that
	// failed leaves it (maybe looks at the counts only while one is held).
	require.NotEmpty(t, held)
	s.reset()
	require.Zero(t, s.n)
	shared, _ := s.add(held[0])
	require.False(t, shared)
	for _, tm := range held {
		require.Equal(t, slot(tm) == slot(held[0]), s.maybe(tm), "reset left %d held", tm)
	}

	// As documented: a slot holds 255 instants, not a 256th.
	s.reset()
	for k := range math.MaxUint8 + 1 {
		_, ok := s.add(0)
		require.Equal(t, k < math.MaxUint8, ok, "instant %d of a slot", k+1)
	}
	require.Equal(t, math.MaxUint8, s.n)
}

// TestOutstandingCountsTheRunsCalls: the virtual call ends the episode
// counts as outstanding, which bound its RunThrough against the event
// limit, are at every decision those of the runs going not applied yet
// (the instants after runNext but the timer's last), and none once the
// episode is over. An overcount would only turn runs off early, which no
// result shows.
func TestOutstandingCountsTheRunsCalls(t *testing.T) {
	g, err := task.Family{Shape: "fork-join", Width: 8, Stages: 2, Work: sim.LogNormal(600, 0.5), OutputTokens: sim.Const(400)}.Draw(rand.New(rand.NewPCG(3, 4)))
	require.NoError(t, err)
	var r Runner
	checked, going := 0, 0
	pol := PolicyFunc(func(o *Observation, m Mask, _ float64) Action {
		var want uint64
		for _, a := range r.ep.running {
			want += uint64(len(a.runAt) - 1 - a.runNext)
		}
		require.Equal(t, want, r.ep.outstanding, "at %v s", o.Elapsed)
		checked++
		going += len(r.ep.running)
		for _, a := range []Action{Submit, Delegate, Work, Wait} {
			if m.Has(a) && (a != Submit || o.Complete) {
				return a
			}
		}
		return m.First()
	})
	for seed := range uint64(4) {
		cfg := Defaults()
		cfg.Agents = 3 + int(seed)
		res, err := r.Run(g, cfg, pol, sim.NewStreams(seed), Options{})
		require.NoError(t, err)
		require.True(t, res.Acceptable || res.TimedOut || res.Stalled)
		assert.Zero(t, r.ep.outstanding, "seed %d: the end settles every run", seed)
		assert.Empty(t, r.ep.running)
	}
	require.Positive(t, checked)
	assert.Positive(t, going, "no decision saw a run going")
}

// TestSlotsSpread: Fibonacci hashing spreads instants over the table, so
// that the instants of runs going seldom share a slot (a shared slot sends
// a look to runOwner, a full one refuses a run). Of instantSlots instants,
// those at random fill about 1 − 1/e ≈ 63% of the slots, as a perfect
// hash would, consecutive nanoseconds more; multiples of a 30 s call span
// fill fewer (816, about five to a slot), still far from one.
func TestSlotsSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		at   func(k int) sim.Time
		min  int
	}{
		{"random", func(int) sim.Time { return sim.Time(r.Int64N(int64(100 * sim.Hour))) }, instantSlots / 2},
		{"1 ns apart", func(k int) sim.Time { return sim.Time(k) }, instantSlots / 2},
		{"30 s apart", func(k int) sim.Time { return sim.Time(k) * 30 * sim.Second }, instantSlots / 8},
	} {
		used := map[int]bool{}
		for k := range instantSlots {
			s := slot(tc.at(k))
			require.True(t, s >= 0 && s < instantSlots, "%s: slot %d", tc.name, s)
			used[s] = true
		}
		assert.Greater(t, len(used), tc.min, tc.name)
	}
}

// TestTraceClip: a span that runs past the finish ends there, one due to
// begin at or after it is dropped, and the rest are kept as they are.
func TestTraceClip(t *testing.T) {
	end := 10 * sim.Second
	tr := &Trace{Spans: []Span{
		{Kind: "a", Start: 0, End: 4 * sim.Second},
		{Kind: "b", Start: 5 * sim.Second, End: end},
		{Kind: "c", Start: 8 * sim.Second, End: 12 * sim.Second},
		{Kind: "d", Start: end, End: 11 * sim.Second},
		{Kind: "e", Start: 11 * sim.Second, End: 13 * sim.Second},
	}}
	tr.clip(end)
	require.Equal(t, []Span{
		{Kind: "a", Start: 0, End: 4 * sim.Second},
		{Kind: "b", Start: 5 * sim.Second, End: end},
		{Kind: "c", Start: 8 * sim.Second, End: end},
	}, tr.Spans)
}
