package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestCallNowIsPending: a zero-delay Call made when nothing else is due by
// now fires next without going through the queue; it is still a pending
// event like any other to Peek, Pending, PendingAt, RunThrough's bound,
// Step, the limits and Close.
func TestCallNowIsPending(t *testing.T) {
	// nowCall returns an Env at 2 s with a Call(0) pending before an
	// event at 5 s, and the count of the Call's firings.
	nowCall := func(t *testing.T, limits sim.Limits) (*sim.Env, *int) {
		env := sim.New(limits)
		require.NoError(t, env.Call(5*sim.Second, func() {}))
		require.NoError(t, env.RunUntil(2*sim.Second))
		fired := new(int)
		require.NoError(t, env.Call(0, func() { *fired++ }))
		return env, fired
	}

	t.Run("pending", func(t *testing.T) {
		env, fired := nowCall(t, sim.Limits{})
		require.Equal(t, 2*sim.Second, env.Peek(), "due now, before the later event")
		require.Equal(t, 2, env.Pending())
		require.True(t, env.PendingAt([]sim.Time{sim.Second, 2 * sim.Second}))
		require.False(t, env.PendingAt([]sim.Time{sim.Second, 3 * sim.Second}))

		next, err := env.RunThrough(sim.Second, 10)
		require.NoError(t, err, "through an instant before now, nothing is due")
		require.Equal(t, 2*sim.Second, next)
		require.Zero(t, *fired)

		require.NoError(t, env.Step())
		require.Equal(t, 1, *fired)
		require.Equal(t, 2*sim.Second, env.Now())
		require.Equal(t, 5*sim.Second, env.Peek())
		require.Equal(t, 1, env.Pending())
		require.Equal(t, uint64(1), env.Fired())
	})

	t.Run("event limit", func(t *testing.T) {
		env, fired := nowCall(t, sim.Limits{MaxEvents: 1})
		require.NoError(t, env.Step())
		require.NoError(t, env.Call(0, func() { *fired++ }))
		require.ErrorIs(t, env.Step(), sim.ErrEventLimit)
		require.Equal(t, 1, *fired, "the call past the limit does not fire")
	})

	t.Run("time limit", func(t *testing.T) {
		env, fired := nowCall(t, sim.Limits{MaxTime: sim.Second})
		require.ErrorIs(t, env.Step(), sim.ErrTimeLimit)
		require.Zero(t, *fired, "due after the limit")
	})

	t.Run("close", func(t *testing.T) {
		env, fired := nowCall(t, sim.Limits{})
		env.Close()
		require.Zero(t, env.Pending(), "Close drops it with the rest")
		require.Equal(t, sim.MaxTime, env.Peek())
		require.Zero(t, *fired)
	})
}
