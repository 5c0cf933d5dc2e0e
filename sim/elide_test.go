package sim_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestPendingAt schedules random events, in numbers on both sides of the
// queue's change from a sorted run to a heap, pops some (leaving the
// heap's root empty), and checks PendingAt against the pending times for
// random sets of instants, some of them pending.
func TestPendingAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 31, 32, 33, 100} {
		for trial := range 20 {
			env := sim.New(sim.Limits{})
			var due []sim.Time
			for range n {
				d := sim.Time(rng.IntN(200))
				require.NoError(t, env.Call(d, func() {}))
				due = append(due, d)
			}
			slices.Sort(due)
			if pops := trial % 3; pops > 0 && len(due) >= pops {
				for range pops {
					require.NoError(t, env.Step())
				}
				due = due[pops:]
			}
			var timer sim.Timer
			timer.Init(env, func() {})
			require.NoError(t, timer.Set(1000))
			for range 30 {
				ts := make([]sim.Time, rng.IntN(6))
				for i := range ts {
					ts[i] = env.Now() + sim.Time(rng.IntN(220))
				}
				if trial%2 == 0 && len(due) > 0 && len(ts) > 0 {
					ts[0] = due[rng.IntN(len(due))] // one that is pending
				}
				ts = append(ts, 1000) // the timer's: timers are not looked at
				slices.Sort(ts)
				ts = slices.Compact(ts)
				want := false
				for _, t := range ts {
					if _, found := slices.BinarySearch(due, t); found {
						want = true
					}
				}
				require.Equal(t, want, env.PendingAt(ts), "n %d, trial %d, instants %v, due %v", n, trial, ts, due)
			}
		}
	}
}

// TestElide counts elided events in Fired and against the event limit.
func TestElide(t *testing.T) {
	env := sim.New(sim.Limits{MaxEvents: 5})
	for i := range 3 {
		require.NoError(t, env.Call(sim.Time(i), func() {}))
	}
	require.NoError(t, env.Step())
	env.Elide(3)
	require.Equal(t, uint64(4), env.Fired())
	require.NoError(t, env.Step(), "the fifth event")
	require.ErrorIs(t, env.Step(), sim.ErrEventLimit, "the sixth is past the limit")
}
