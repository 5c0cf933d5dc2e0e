package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestTimerEqualsCancelledCalls: a timer that is set, moved and stopped
// fires exactly where a Call made at each Set would, had the calls it
// superseded been cancelled, among plain callbacks of every priority tying
// with it. The reference runs the same random script with Calls and a
// cancelled flag per call.
func TestTimerEqualsCancelledCalls(t *testing.T) {
	prios := []sim.Priority{sim.PriorityUrgent, sim.PriorityNormal, sim.PriorityLate}
	for seed := range uint64(40) {
		run := func(useTimer bool) []int {
			r := rand.New(rand.NewPCG(seed, 2))
			env := sim.New(sim.Limits{})
			var fired []int
			timers := make([]sim.Timer, 3)
			live := make([]*bool, len(timers)) // reference: the call a timer stands for
			var step func(id int)
			step = func(id int) {
				fired = append(fired, id)
				for range 1 + r.IntN(3) {
					d := sim.Time(r.IntN(3)) * sim.Second
					switch k := r.IntN(len(timers) + 2); {
					case k < len(timers) && r.IntN(4) == 0:
						if useTimer {
							timers[k].Stop()
						} else if live[k] != nil {
							*live[k] = false
							live[k] = nil
						}
					case k < len(timers):
						if useTimer {
							require.NoError(t, timers[k].Set(d))
							continue
						}
						if live[k] != nil {
							*live[k] = false
						}
						ok := true
						live[k] = &ok
						require.NoError(t, env.Call(d, func() {
							if ok {
								live[k] = nil
								step(-1 - k)
							}
						}))
					default:
						next := len(fired) + 1000
						require.NoError(t, env.CallPriority(d, prios[r.IntN(len(prios))], func() { step(next) }))
					}
				}
			}
			for k := range timers {
				timers[k].Init(env, func() { step(-1 - k) })
			}
			for i := range 3 {
				require.NoError(t, env.Call(sim.Time(i), func() { step(i) }))
			}
			for env.Pending() > 0 && len(fired) < 2000 {
				require.NoError(t, env.Step())
			}
			return fired
		}
		want, got := run(false), run(true)
		require.Greater(t, len(want), 1, "seed %d: the script must do something", seed)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// TestTimer covers a timer's life: pending state, its time, moving,
// stopping, firing, and the Env's Peek, Pending, RunUntil, Reset and Close.
func TestTimer(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time)
	}{
		{"fires once at its time", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(5))
			require.True(t, tm.Pending())
			require.Equal(t, sim.Time(5), tm.When())
			require.Equal(t, sim.Time(5), env.Peek())
			require.Equal(t, 1, env.Pending())
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{5}, *fired)
			require.False(t, tm.Pending())
		}},
		{"moved earlier fires once, early", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(9))
			require.NoError(t, tm.Set(3))
			require.Equal(t, 1, env.Pending())
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{3}, *fired)
			require.Equal(t, uint64(1), env.Fired())
		}},
		{"moved later fires once, late", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(3))
			require.NoError(t, tm.Set(9))
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{9}, *fired)
		}},
		{"no delay fires now", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, env.RunUntil(3))
			require.NoError(t, tm.Set(0))
			require.True(t, tm.Pending())
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{3}, *fired)
		}},
		{"stopped never fires", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.False(t, tm.Stop(), "not pending yet")
			require.NoError(t, tm.Set(3))
			require.True(t, tm.Stop())
			require.False(t, tm.Pending())
			require.Equal(t, 0, env.Pending())
			require.Equal(t, sim.MaxTime, env.Peek())
			require.ErrorIs(t, env.Step(), sim.ErrNoEvents)
			require.Empty(t, *fired)
		}},
		{"RunUntil stops before it", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(7))
			require.NoError(t, env.RunUntil(7))
			require.Empty(t, *fired)
			require.NoError(t, env.RunUntil(8))
			require.Equal(t, []sim.Time{7}, *fired)
		}},
		{"bad delays leave it unchanged", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(4))
			require.ErrorIs(t, tm.Set(-1), sim.ErrNegativeDelay)
			require.NoError(t, tm.Set(sim.MaxTime), "the last instant is allowed")
			require.True(t, tm.Pending())
			require.Equal(t, sim.MaxTime, tm.When(), "and the timer is set to it")
			require.NoError(t, tm.Set(4))
			require.NoError(t, env.Call(10, func() {}))
			require.NoError(t, env.RunUntil(5))
			require.ErrorIs(t, tm.Set(sim.MaxTime), sim.ErrTimeOverflow)
			require.Equal(t, []sim.Time{4}, *fired)
			require.False(t, tm.Pending())
		}},
		{"event limit counts it", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			env.Reset(sim.Limits{MaxEvents: 1})
			require.NoError(t, tm.Set(1))
			require.NoError(t, env.Call(2, func() {}))
			require.ErrorIs(t, env.Run(), sim.ErrEventLimit)
			require.Equal(t, []sim.Time{1}, *fired)
		}},
		{"time limit stops it", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			env.Reset(sim.Limits{MaxTime: 5})
			require.NoError(t, tm.Set(6))
			require.ErrorIs(t, env.Run(), sim.ErrTimeLimit)
			require.Empty(t, *fired)
		}},
		{"Reset drops it and it can be set again", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(6))
			env.Reset(sim.Limits{})
			require.False(t, tm.Pending())
			require.Equal(t, 0, env.Pending())
			require.NoError(t, tm.Set(2))
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{2}, *fired)
		}},
		{"Close refuses it", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			require.NoError(t, tm.Set(6))
			env.Close()
			require.False(t, tm.Pending())
			require.ErrorIs(t, tm.Set(1), sim.ErrClosed)
		}},
		{"its function may set it again", func(t *testing.T, env *sim.Env, tm *sim.Timer, fired *[]sim.Time) {
			tm.Init(env, func() {
				*fired = append(*fired, env.Now())
				if len(*fired) < 3 {
					require.NoError(t, tm.Set(2))
				}
			})
			require.NoError(t, tm.Set(1))
			require.NoError(t, env.Run())
			require.Equal(t, []sim.Time{1, 3, 5}, *fired)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			var fired []sim.Time
			var tm sim.Timer
			tm.Init(env, func() { fired = append(fired, env.Now()) })
			c.run(t, env, &tm, &fired)
		})
	}
}

// TestTimerUnbound: the zero Timer is not pending and refuses to be set.
func TestTimerUnbound(t *testing.T) {
	var tm sim.Timer
	require.False(t, tm.Pending())
	require.False(t, tm.Stop())
	require.Error(t, tm.Set(1))
}

// TestTimerAllocs: setting, moving and firing a timer allocates nothing.
func TestTimerAllocs(t *testing.T) {
	env := sim.New(sim.Limits{})
	var tm sim.Timer
	tm.Init(env, func() {})
	allocs := testing.AllocsPerRun(100, func() {
		_ = tm.Set(5)
		_ = tm.Set(2)
		_ = env.Run()
	})
	require.Zero(t, allocs)
}
