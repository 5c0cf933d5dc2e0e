package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// world is a Resource of one free unit and a Store that holds one item,
// with room for another, in a fresh Env.
type world struct {
	env *sim.Env
	r   *sim.Resource
	s   *sim.Store[int]
}

func newWorld(t *testing.T) world {
	t.Helper()
	env := sim.New(sim.Limits{})
	t.Cleanup(env.Close)
	r, err := sim.NewResource(env, 1, sim.FIFO)
	require.NoError(t, err)
	w := world{env: env, r: r, s: sim.NewStore[int](env, 2)}
	require.True(t, w.s.TryPut(1))
	return w
}

// untouched checks that w's unit is free and its one item still there.
func (w world) untouched(t *testing.T) {
	t.Helper()
	require.Zero(t, w.r.InUse(), "a unit was taken")
	require.Equal(t, 1, w.s.Len(), "an item was taken or stored")
}

// TestWaitsOutsideTheirProcess: a Resource or Store operation that need not
// wait is still a wait of p, and fails from outside p or on a closed Env
// as Wait does, taking and storing nothing.
func TestWaitsOutsideTheirProcess(t *testing.T) {
	for _, op := range []struct {
		name string
		do   func(w world, p *sim.Proc) error
	}{
		{"Acquire", func(w world, p *sim.Proc) error { return w.r.Acquire(p, 0) }},
		{"Put", func(w world, p *sim.Proc) error { return w.s.Put(p, 2) }},
		{"Get", func(w world, p *sim.Proc) error { _, err := w.s.Get(p); return err }},
		{"GetFunc", func(w world, p *sim.Proc) error {
			_, err := w.s.GetFunc(p, func(int) bool { return true })
			return err
		}},
	} {
		for _, from := range []struct {
			name string
			want error
			call func(env *sim.Env, p *sim.Proc, f func()) // makes f run outside p
		}{
			{"callback", sim.ErrNotActive, func(env *sim.Env, _ *sim.Proc, f func()) { require.NoError(t, env.Call(1, f)) }},
			{"other process", sim.ErrNotActive, func(env *sim.Env, _ *sim.Proc, f func()) {
				env.Process("other", func(*sim.Proc) error { f(); return nil })
			}},
			{"closed env", sim.ErrClosed, func(env *sim.Env, _ *sim.Proc, f func()) {
				require.NoError(t, env.RunUntil(1))
				env.Close()
				f()
			}},
		} {
			t.Run(op.name+"/"+from.name, func(t *testing.T) {
				w := newWorld(t)
				p := w.env.Process("p", func(p *sim.Proc) error { return p.Wait(sim.Hour) })
				var got error
				done := false
				from.call(w.env, p, func() { got, done = op.do(w, p), true })
				if !done {
					require.NoError(t, w.env.Run())
				}
				require.True(t, done)
				require.ErrorIs(t, got, from.want)
				w.untouched(t)
			})
		}
		t.Run(op.name+"/nil process", func(t *testing.T) {
			w := newWorld(t)
			require.Error(t, op.do(w, nil))
			w.untouched(t)
		})
	}
}

// TestEventMisuse: a nil event, an event of another Env or a zero Event
// given to the event API is an error the model can see, not a panic.
func TestEventMisuse(t *testing.T) {
	other := sim.New(sim.Limits{})
	defer other.Close()
	for _, tc := range []struct {
		name string
		ev   func(env *sim.Env) *sim.Event // what a process awaits
	}{
		{"Await nil", func(*sim.Env) *sim.Event { return nil }},
		{"AnyOf nil", func(env *sim.Env) *sim.Event { return env.AnyOf(env.NewEvent("ok"), nil) }},
		{"AllOf nil", func(env *sim.Env) *sim.Event { return env.AllOf(nil) }},
		{"AnyOf foreign", func(env *sim.Env) *sim.Event { return env.AnyOf(other.NewEvent("foreign")) }},
		{"AllOf foreign", func(env *sim.Env) *sim.Event {
			ok, err := env.Timeout(1, nil)
			require.NoError(t, err)
			return env.AllOf(ok, other.NewEvent("foreign"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			defer env.Close()
			var got error
			env.Process("p", func(p *sim.Proc) error {
				_, got = p.Await(tc.ev(env))
				return nil
			})
			require.NoError(t, env.Run())
			require.Error(t, got)
			require.NotErrorIs(t, got, sim.ErrNotActive)
		})
	}
	t.Run("zero Event", func(t *testing.T) {
		var ev sim.Event
		require.Error(t, ev.Succeed(1))
		require.Error(t, ev.Fail(sim.ErrClosed))
		require.False(t, ev.Triggered())
	})
}

// TestRunClosed: the run loops on a closed Env report ErrClosed, as Step
// does, instead of a nil that reads as a run that went to its end; a
// process started after Close never runs, and the loops say so.
func TestRunClosed(t *testing.T) {
	for _, run := range []struct {
		name string
		do   func(env *sim.Env) error
	}{
		{"Step", func(env *sim.Env) error { return env.Step() }},
		{"Run", func(env *sim.Env) error { return env.Run() }},
		{"RunUntil", func(env *sim.Env) error { return env.RunUntil(sim.Hour) }},
		{"RunThrough", func(env *sim.Env) error { _, err := env.RunThrough(sim.Hour, 10); return err }},
	} {
		t.Run(run.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			env.Process("early", func(p *sim.Proc) error { return p.Wait(sim.Minute) })
			require.NoError(t, env.RunUntil(sim.Second))
			env.Close()
			late := env.Process("late", func(*sim.Proc) error { return nil })
			require.ErrorIs(t, run.do(env), sim.ErrClosed)
			require.Equal(t, sim.Second, env.Now(), "the clock of a closed Env stays")
			require.ErrorIs(t, late.Err(), sim.ErrClosed)
		})
	}
}

// TestCallNilFunction: a nil function is refused when it is scheduled, not
// a nil-pointer panic when it fires (or, with no delay, silently lost).
func TestCallNilFunction(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(env *sim.Env) error
	}{
		{"Call now", func(env *sim.Env) error { return env.Call(0, nil) }},
		{"Call later", func(env *sim.Env) error { return env.Call(sim.Second, nil) }},
		{"CallPriority", func(env *sim.Env) error { return env.CallPriority(0, sim.PriorityUrgent, nil) }},
		{"Timer", func(env *sim.Env) error {
			var tm sim.Timer
			tm.Init(env, nil)
			return tm.Set(sim.Second)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			t.Cleanup(env.Close)
			require.ErrorContains(t, tc.call(env), "function to call is nil")
			require.Zero(t, env.Pending(), "nothing was scheduled")
			require.NoError(t, env.Run())
		})
	}
}

// TestProcessNilFunction: a process given a nil function fails at its
// start with an error that says so, naming the process, where it used to
// stop the run as a panic of the process: a nil pointer dereference and a
// stack in the engine's code.
func TestProcessNilFunction(t *testing.T) {
	env := sim.New(sim.Limits{})
	t.Cleanup(env.Close)
	p := env.Process("worker", nil)
	err := env.Run()
	require.ErrorContains(t, err, `process "worker": sim: the process's function is nil`)
	require.NotContains(t, err.Error(), "panicked")
	require.True(t, p.Finished())
}

// TestPanicsAtTheMistake: OnDone, which returns no error, panics at a nil
// function when it is given, not when the event is processed; a panic in
// a callback leaves Run as a panic, as docs/engine.md says.
func TestPanicsAtTheMistake(t *testing.T) {
	env := sim.New(sim.Limits{})
	t.Cleanup(env.Close)
	ev := env.NewEvent("e")
	require.PanicsWithValue(t, "sim: OnDone(nil): the function to call is nil", func() { ev.OnDone(nil) })
	require.NoError(t, ev.Succeed(nil))
	require.NoError(t, env.Run(), "nothing was attached")
	require.NoError(t, env.Call(0, func() { panic("boom") }))
	require.PanicsWithValue(t, "boom", func() { _ = env.Run() })
}

// TestRunFromAnEvent: Run, RunUntil, RunThrough and Step called from an
// event of a run of the same Env are refused, and stop that run with the
// error, instead of firing events from inside the event in progress (which
// set the clock back and resumed a running coroutine).
func TestRunFromAnEvent(t *testing.T) {
	loops := []struct {
		name string
		run  func(env *sim.Env) error
	}{
		{"Run", func(env *sim.Env) error { return env.Run() }},
		{"RunUntil", func(env *sim.Env) error { return env.RunUntil(sim.Hour) }},
		{"RunThrough", func(env *sim.Env) error { _, err := env.RunThrough(sim.Hour, 100); return err }},
		{"Step", func(env *sim.Env) error {
			for {
				if err := env.Step(); err != nil {
					return err // ErrNoEvents once the run is over
				}
			}
		}},
	}
	callers := []struct {
		name string
		at   func(env *sim.Env, f func()) // makes f run from an event at 1ns
	}{
		{"callback", func(env *sim.Env, f func()) { require.NoError(t, env.Call(1, f)) }},
		{"process", func(env *sim.Env, f func()) {
			env.Process("runner", func(p *sim.Proc) error {
				if err := p.Wait(1); err != nil {
					return err
				}
				f()
				return nil
			})
		}},
		{"OnDone", func(env *sim.Env, f func()) {
			ev, err := env.Timeout(1, nil)
			require.NoError(t, err)
			ev.OnDone(func(*sim.Event) { f() })
		}},
	}
	for _, caller := range callers {
		for _, outer := range loops {
			for _, inner := range loops {
				t.Run(caller.name+"/"+outer.name+"/"+inner.name, func(t *testing.T) {
					env := sim.New(sim.Limits{})
					t.Cleanup(env.Close)
					var innerErr error
					caller.at(env, func() { innerErr = inner.run(env) })
					later := false
					require.NoError(t, env.Call(2, func() { later = true }))

					outerErr := outer.run(env)
					require.ErrorContains(t, innerErr, "sim: "+inner.name+" called at 1ns from an event of a run of the same Env")
					require.Equal(t, innerErr, outerErr, "the run in progress stops with the error")
					require.False(t, later, "nothing fired past the refused call")
					require.Equal(t, sim.Time(1), env.Now())
				})
			}
		}
	}
	// A second refusal in the same event names its own call, not the
	// first one, which the run has stopped with already; the refused
	// RunThrough still returns the time of the next event, as documented.
	for _, inner := range loops {
		t.Run("twice in one event/"+inner.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			t.Cleanup(env.Close)
			var next sim.Time
			var first, second error
			require.NoError(t, env.Call(1, func() {
				next, first = env.RunThrough(sim.Hour, 100)
				second = inner.run(env)
			}))
			require.NoError(t, env.Call(2, func() {}))

			require.ErrorContains(t, env.Run(), "sim: RunThrough called at 1ns", "the run stops with the first refusal")
			require.ErrorContains(t, first, "sim: RunThrough called at 1ns")
			require.Equal(t, sim.Time(2), next, "the next event's time")
			require.ErrorContains(t, second, "sim: "+inner.name+" called at 1ns")
		})
	}
	t.Run("after Reset", func(t *testing.T) {
		env := sim.New(sim.Limits{})
		t.Cleanup(env.Close)
		var innerErr error
		require.NoError(t, env.Call(1, func() {
			env.Reset(sim.Limits{})
			innerErr = env.Run()
		}))
		require.ErrorContains(t, env.Run(), "runs do not nest")
		require.ErrorContains(t, innerErr, "runs do not nest", "Reset does not end the run on the stack")
	})
}
