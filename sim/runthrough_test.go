package sim_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

func TestRunThrough(t *testing.T) {
	env := sim.New(sim.Limits{})
	var fired []sim.Time
	for _, s := range []sim.Time{1, 2, 3, 3, 4, 5, 6} {
		require.NoError(t, env.Call(s*sim.Second, func() { fired = append(fired, env.Now()) }))
	}

	next, err := env.RunThrough(3*sim.Second, 100)
	require.NoError(t, err)
	require.Equal(t, []sim.Time{1, 2, 3, 3}, seconds(fired), "at or before t")
	require.Equal(t, 4*sim.Second, next)
	require.Equal(t, 3*sim.Second, env.Now(), "the clock stays at the last event")

	next, err = env.RunThrough(sim.MaxTime, 1)
	require.NoError(t, err)
	require.Equal(t, []sim.Time{1, 2, 3, 3, 4}, seconds(fired), "n events at most")
	require.Equal(t, 5*sim.Second, next)

	require.NoError(t, env.Call(0, func() { env.Stop(); fired = append(fired, -env.Now()) }))
	next, err = env.RunThrough(sim.MaxTime, 100)
	require.NoError(t, err)
	require.Equal(t, []sim.Time{1, 2, 3, 3, 4, -4}, seconds(fired), "Stop ends the run after its event")
	require.Equal(t, 5*sim.Second, next)

	env.Stop() // outside a run: nothing
	next, err = env.RunThrough(sim.MaxTime, 100)
	require.NoError(t, err)
	require.Equal(t, []sim.Time{1, 2, 3, 3, 4, -4, 5, 6}, seconds(fired))
	require.Equal(t, sim.MaxTime, next, "none left")

	next, err = env.RunThrough(sim.MaxTime, 100)
	require.NoError(t, err, "an empty Env is not an error")
	require.Equal(t, sim.MaxTime, next)
	require.Equal(t, 6*sim.Second, env.Now())
}

func seconds(ts []sim.Time) []sim.Time {
	out := make([]sim.Time, len(ts))
	for i, t := range ts {
		out[i] = t / sim.Second
	}
	return out
}

// TestRunThroughLimits: the limits end RunThrough with Step's errors, after
// the same events.
// TestRunThroughInclusive: "at or before t" holds for every way an event
// is scheduled (a zero-delay call made at t skips the queue; a Timer has
// a heap of its own), and at the event limit an event due at t is the
// limit's.
func TestRunThroughInclusive(t *testing.T) {
	env := sim.New(sim.Limits{})
	var fired []string
	var tm sim.Timer
	tm.Init(env, func() { fired = append(fired, "timer") })
	require.NoError(t, tm.Set(2*sim.Second))
	require.NoError(t, env.Call(2*sim.Second, func() {
		fired = append(fired, "queued")
		require.NoError(t, env.Call(0, func() { fired = append(fired, "now") }))
	}))
	require.NoError(t, env.Call(3*sim.Second, func() { fired = append(fired, "later") }))
	next, err := env.RunThrough(2*sim.Second, 100)
	require.NoError(t, err)
	require.Equal(t, []string{"timer", "queued", "now"}, fired)
	require.Equal(t, 3*sim.Second, next)

	env = sim.New(sim.Limits{MaxEvents: 1})
	for _, at := range []sim.Time{sim.Second, 2 * sim.Second} {
		require.NoError(t, env.Call(at, func() {}))
	}
	_, err = env.RunThrough(sim.Second, 100)
	require.NoError(t, err)
	_, err = env.RunThrough(2*sim.Second, 100)
	require.ErrorIs(t, err, sim.ErrEventLimit, "the event due at t is past the limit")

	env = sim.New(sim.Limits{MaxTime: 5 * sim.Second})
	require.NoError(t, env.Call(6*sim.Second, func() {}))
	_, err = env.RunThrough(6*sim.Second, 100)
	require.ErrorIs(t, err, sim.ErrTimeLimit, "the event due at t is past the time limit")
}

func TestRunThroughLimits(t *testing.T) {
	tick := func(env *sim.Env) {
		var again func()
		again = func() { env.Call(sim.Second, again) }
		env.Call(0, again)
	}
	for _, tt := range []struct {
		name   string
		limits sim.Limits
		n      uint64
		want   error
	}{
		{"events", sim.Limits{MaxEvents: 10}, 3, sim.ErrEventLimit},
		{"events in one call", sim.Limits{MaxEvents: 10}, 1000, sim.ErrEventLimit},
		{"time", sim.Limits{MaxTime: 10 * sim.Second}, 4, sim.ErrTimeLimit},
		{"time in one call", sim.Limits{MaxTime: 10 * sim.Second}, 1000, sim.ErrTimeLimit},
	} {
		t.Run(tt.name, func(t *testing.T) {
			byStep := sim.New(tt.limits)
			tick(byStep)
			require.ErrorIs(t, byStep.Run(), tt.want)

			env := sim.New(tt.limits)
			tick(env)
			var err error
			for range 100 {
				if _, err = env.RunThrough(sim.MaxTime, tt.n); err != nil {
					break
				}
			}
			require.ErrorIs(t, err, tt.want)
			require.Equal(t, byStep.Fired(), env.Fired())
			require.Equal(t, byStep.Now(), env.Now())
			_, err = env.RunThrough(sim.MaxTime, tt.n)
			require.ErrorIs(t, err, tt.want, "the error sticks")
		})
	}

	// A bound beyond which nothing is due is no error.
	env := sim.New(sim.Limits{MaxEvents: 2, MaxTime: 10 * sim.Second})
	env.Call(sim.Second, func() {})
	env.Call(20*sim.Second, func() {})
	next, err := env.RunThrough(5*sim.Second, 100)
	require.NoError(t, err)
	require.Equal(t, 20*sim.Second, next)
}

// TestRunThroughMatchesStep runs random models of callbacks, timers that
// move and stop, and processes twice: by Step, and by RunThrough with
// random bounds and counts. The firings, as an observer sees them, are the
// same.
func TestRunThroughMatchesStep(t *testing.T) {
	for seed := range uint64(30) {
		var runs [2][]sim.Record
		for way := range 2 {
			r := rand.New(rand.NewPCG(seed, 3))
			env := sim.New(sim.Limits{})
			obs := &recorder{}
			env.SetObserver(obs)
			timers := make([]sim.Timer, 3)
			left := 600
			var act func()
			act = func() {
				if left--; left <= 0 {
					return
				}
				switch k := r.IntN(10); {
				case k < 5:
					env.CallPriority(sim.Time(r.IntN(4))*sim.Millisecond, sim.Priority(r.IntN(3)), act)
					if r.IntN(3) == 0 {
						env.Call(sim.Time(r.IntN(4))*sim.Millisecond, act)
					}
				case k < 8:
					tm := &timers[r.IntN(len(timers))]
					tm.Set(sim.Time(r.IntN(5)) * sim.Millisecond)
					env.Call(sim.Time(r.IntN(3))*sim.Millisecond, act)
				case k < 9:
					timers[r.IntN(len(timers))].Stop()
					env.Call(sim.Millisecond, act)
				default:
					env.Process("p", func(p *sim.Proc) error {
						if err := p.Wait(sim.Millisecond); err != nil {
							return err
						}
						act()
						return nil
					})
				}
			}
			for i := range timers {
				timers[i].Init(env, act)
			}
			env.Call(0, act)
			env.Call(0, act)
			if way == 0 {
				require.NoError(t, env.Run())
			} else {
				drive := rand.New(rand.NewPCG(seed, 4)) // not r: the model's draws stay the same
				for calls := 0; env.Pending() > 0; calls++ {
					require.Less(t, calls, 100_000, "seed %d: no progress", seed)
					bound := env.Now() + sim.Time(drive.IntN(5))*sim.Millisecond
					next, err := env.RunThrough(bound, uint64(1+drive.IntN(20)))
					require.NoError(t, err)
					require.Equal(t, env.Peek(), next)
				}
			}
			env.Close()
			runs[way] = obs.recs
		}
		require.NotEmpty(t, runs[0])
		require.Equal(t, runs[0], runs[1], "seed %d", seed)
	}
}

// TestRunThroughFailure: a process that fails with nobody waiting for it
// stops RunThrough as it stops Run (the same error, after the same events,
// and it sticks, also once the event limit is reached), and a timer due past the time limit is the time limit's
// error, as an event is.
func TestRunThroughFailure(t *testing.T) {
	boom := errors.New("boom")
	build := func() *sim.Env {
		env := sim.New(sim.Limits{})
		for i := range 5 {
			require.NoError(t, env.Call(sim.Time(i)*sim.Second, func() {}))
		}
		env.Process("p", func(p *sim.Proc) error {
			if err := p.Wait(2500 * sim.Millisecond); err != nil {
				return err
			}
			return boom
		})
		return env
	}
	byRun := build()
	require.ErrorIs(t, byRun.Run(), boom)
	env := build()
	_, err := env.RunThrough(sim.MaxTime, 1000)
	require.ErrorIs(t, err, boom)
	require.Equal(t, byRun.Fired(), env.Fired())
	require.Equal(t, byRun.Now(), env.Now())
	_, err = env.RunThrough(sim.MaxTime, 1000)
	require.ErrorIs(t, err, boom, "the error sticks")
	require.Equal(t, byRun.Fired(), env.Fired(), "and nothing more fires")

	// At the event limit too, the failure is what sticks, as for Step.
	for _, step := range []bool{true, false} {
		env = sim.New(sim.Limits{MaxEvents: 2}) // the start and the end of p
		env.Process("p", func(*sim.Proc) error { return boom })
		require.NoError(t, env.Call(sim.Second, func() {}))
		next := func() error {
			if step {
				return env.Step()
			}
			_, err := env.RunThrough(sim.MaxTime, 100)
			return err
		}
		err = next()
		for err == nil {
			err = next()
		}
		require.ErrorIs(t, err, boom, "step %v", step)
		require.ErrorIs(t, next(), boom, "step %v: the failure sticks", step)
	}

	env = sim.New(sim.Limits{MaxTime: 10 * sim.Second})
	var tm sim.Timer
	tm.Init(env, func() { t.Error("a timer past the time limit fired") })
	require.NoError(t, tm.Set(20*sim.Second))
	next, err := env.RunThrough(15*sim.Second, 100)
	require.NoError(t, err, "nothing due by t")
	require.Equal(t, 20*sim.Second, next)
	_, err = env.RunThrough(sim.MaxTime, 100)
	require.ErrorIs(t, err, sim.ErrTimeLimit)
}
