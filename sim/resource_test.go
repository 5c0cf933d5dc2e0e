package sim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// observeFunc adapts a function to sim.Observer.
type observeFunc func(sim.Record)

func (f observeFunc) Observe(r sim.Record) { f(r) }

func newResource(t *testing.T, env *sim.Env, capacity int, d sim.Discipline) *sim.Resource {
	t.Helper()
	r, err := sim.NewResource(env, capacity, d)
	require.NoError(t, err)
	return r
}

func TestNewResourceErrors(t *testing.T) {
	env := sim.New(sim.Limits{})
	for _, tc := range []struct {
		name     string
		env      *sim.Env
		capacity int
		d        sim.Discipline
	}{
		{"zero capacity", env, 0, sim.FIFO},
		{"negative capacity", env, -3, sim.ByPriority},
		{"unknown discipline", env, 1, sim.Discipline(7)},
		{"nil env", nil, 1, sim.FIFO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := sim.NewResource(tc.env, tc.capacity, tc.d)
			require.Error(t, err)
			require.Nil(t, r)
		})
	}
	r := newResource(t, env, 3, sim.ByPriority)
	require.Equal(t, 3, r.Capacity())
	require.Equal(t, sim.ByPriority, r.Discipline())
	require.Equal(t, "priority", r.Discipline().String())
	require.Equal(t, "fifo", sim.FIFO.String())
}

// TestResourceCapacity runs many processes that hold units for random
// times, and checks before every firing that no more units are held than
// exist, and that nobody waits while a unit is free.
func TestResourceCapacity(t *testing.T) {
	for _, tc := range []struct {
		capacity int
		d        sim.Discipline
	}{{1, sim.FIFO}, {2, sim.FIFO}, {3, sim.ByPriority}, {7, sim.ByPriority}} {
		t.Run(fmt.Sprintf("cap=%d,%v", tc.capacity, tc.d), func(t *testing.T) {
			env := sim.New(sim.Limits{MaxEvents: 1_000_000})
			r := newResource(t, env, tc.capacity, tc.d)
			holding, maxHolding, served, checks := 0, 0, 0, 0
			env.SetObserver(observeFunc(func(sim.Record) {
				checks++
				if holding > tc.capacity || r.InUse() > tc.capacity || holding > r.InUse() {
					t.Fatalf("at %v: %d holding, %d in use, capacity %d", env.Now(), holding, r.InUse(), tc.capacity)
				}
				if r.QueueLen() > 0 && r.InUse() < tc.capacity {
					t.Fatalf("at %v: %d waiting with %d of %d units in use", env.Now(), r.QueueLen(), r.InUse(), tc.capacity)
				}
			}))
			rng := sim.NewStreams(42).New("capacity", uint64(tc.capacity))
			const procs = 40
			for i := range procs {
				env.Process(fmt.Sprint("p", i), func(p *sim.Proc) error {
					for range 20 {
						if err := p.Wait(sim.Time(rng.IntN(5)) * sim.Second); err != nil {
							return err
						}
						if err := r.Acquire(p, rng.IntN(3)); err != nil {
							return err
						}
						holding++
						maxHolding = max(maxHolding, holding)
						if err := p.Wait(sim.Time(rng.IntN(4)) * sim.Second); err != nil {
							return err
						}
						holding--
						served++
						if err := r.Release(); err != nil {
							return err
						}
					}
					return nil
				})
			}
			require.NoError(t, env.Run())
			require.Equal(t, procs*20, served)
			require.Equal(t, tc.capacity, maxHolding, "the resource should be fully used at times")
			require.Zero(t, r.InUse())
			require.Zero(t, r.QueueLen())
			require.Greater(t, checks, procs*20)
		})
	}
}

// TestResourceOrder queues processes behind a holder and records the order
// in which they are served.
func TestResourceOrder(t *testing.T) {
	// Arrivals at t=1s, 2s, ... with these priorities.
	prios := []int{5, 1, 3, 1, 0, 5, 3}
	for _, tc := range []struct {
		d    sim.Discipline
		want []int // arrival indices in service order
	}{
		{sim.FIFO, []int{0, 1, 2, 3, 4, 5, 6}},
		{sim.ByPriority, []int{4, 1, 3, 2, 6, 0, 5}},
	} {
		t.Run(tc.d.String(), func(t *testing.T) {
			env := sim.New(sim.Limits{})
			r := newResource(t, env, 1, tc.d)
			var order []int
			var grantTimes []sim.Time
			env.Process("holder", func(p *sim.Proc) error {
				if err := r.Acquire(p, 0); err != nil {
					return err
				}
				if err := p.Wait(10 * sim.Second); err != nil {
					return err
				}
				return r.Release()
			})
			for i, prio := range prios {
				env.Process(fmt.Sprint("c", i), func(p *sim.Proc) error {
					if err := p.Wait(sim.Time(i+1) * sim.Second); err != nil {
						return err
					}
					if err := r.Acquire(p, prio); err != nil {
						return err
					}
					order = append(order, i)
					grantTimes = append(grantTimes, p.Now())
					if err := p.Wait(sim.Second); err != nil {
						return err
					}
					return r.Release()
				})
			}
			require.NoError(t, env.Run())
			require.Equal(t, tc.want, order)
			// Each release lets the next waiter in at the same instant.
			for k, at := range grantTimes {
				require.Equal(t, sim.Time(10+k)*sim.Second, at)
			}
		})
	}
}

// TestResourcePriorityHeap checks the priority queue against a sorted
// reference under random arrivals and withdrawals.
func TestResourcePriorityHeap(t *testing.T) {
	for seed := range uint64(5) {
		env := sim.New(sim.Limits{})
		r := newResource(t, env, 1, sim.ByPriority)
		rng := rand.New(rand.NewPCG(seed, 99))
		type waiter struct{ prio, seq int }
		var served, withdrawn []waiter
		const n = 300
		env.Process("holder", func(p *sim.Proc) error {
			if err := r.Acquire(p, 0); err != nil {
				return err
			}
			if err := p.Wait(sim.Hour); err != nil {
				return err
			}
			return r.Release()
		})
		procs := make([]*sim.Proc, n)
		for i := range n {
			w := waiter{prio: rng.IntN(10), seq: i}
			procs[i] = env.Process("w", func(p *sim.Proc) error {
				if err := p.Wait(sim.Time(i+1) * sim.Millisecond); err != nil {
					return err
				}
				err := r.Acquire(p, w.prio)
				if sim.IsInterrupt(err) {
					withdrawn = append(withdrawn, w)
					return nil
				}
				if err != nil {
					return err
				}
				served = append(served, w)
				return r.Release()
			})
		}
		// Withdraw a random third while everyone waits.
		env.Process("reneger", func(p *sim.Proc) error {
			if err := p.Wait(sim.Minute); err != nil {
				return err
			}
			for _, i := range rng.Perm(n)[:n/3] {
				if _, err := procs[i].Interrupt("renege"); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, env.Run())
		require.Len(t, withdrawn, n/3)
		require.Len(t, served, n-n/3)
		require.True(t, slices.IsSortedFunc(served, func(a, b waiter) int {
			if a.prio != b.prio {
				return a.prio - b.prio
			}
			return a.seq - b.seq
		}), "served out of (priority, arrival) order: %v", served)
		require.Zero(t, r.InUse())
	}
}

func TestResourceInterruptWhileQueued(t *testing.T) {
	env := sim.New(sim.Limits{})
	r := newResource(t, env, 1, sim.FIFO)
	var log []string
	logf := func(format string, args ...any) {
		log = append(log, fmt.Sprintf("%v ", env.Now())+fmt.Sprintf(format, args...))
	}
	user := func(name string, hold sim.Time) func(*sim.Proc) error {
		return func(p *sim.Proc) error {
			if err := r.Acquire(p, 0); err != nil {
				logf("%s: %v", name, err)
				return err
			}
			logf("%s acquired", name)
			if err := p.Wait(hold); err != nil {
				return err
			}
			return r.Release()
		}
	}
	env.Process("a", user("a", 10*sim.Second))
	b := env.Process("b", user("b", sim.Second))
	env.Process("c", user("c", sim.Second))
	require.NoError(t, env.Call(2*sim.Second, func() {
		require.Equal(t, 2, r.QueueLen())
		ok, err := b.Interrupt("impatient")
		require.NoError(t, err)
		require.True(t, ok)
	}))
	require.NoError(t, env.Call(3*sim.Second, func() { require.Equal(t, 1, r.QueueLen()) }))
	require.NoError(t, env.Run())
	require.Equal(t, []string{
		"0s a acquired",
		"2s b: sim: interrupted: impatient",
		"10s c acquired",
	}, log)
	require.True(t, sim.IsInterrupt(b.Err()))
	require.Zero(t, r.InUse())
}

// TestResourceInterruptAtGrant interrupts a waiter at the very instant a
// unit is granted to it, before its wait has ended: the unit must pass on
// to the next waiter, not leak.
func TestResourceInterruptAtGrant(t *testing.T) {
	for _, interruptFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("interruptFirst=", interruptFirst), func(t *testing.T) {
			env := sim.New(sim.Limits{})
			r := newResource(t, env, 1, sim.FIFO)
			var bErr error
			var cAt sim.Time = -1
			var b *sim.Proc
			env.Process("a", func(p *sim.Proc) error {
				if err := r.Acquire(p, 0); err != nil {
					return err
				}
				if err := p.Wait(5 * sim.Second); err != nil {
					return err
				}
				if interruptFirst {
					if _, err := b.Interrupt("late"); err != nil {
						return err
					}
				}
				if err := r.Release(); err != nil {
					return err
				}
				if !interruptFirst {
					if _, err := b.Interrupt("late"); err != nil {
						return err
					}
				}
				return nil
			})
			b = env.Process("b", func(p *sim.Proc) error {
				bErr = r.Acquire(p, 0)
				if bErr == nil {
					return r.Release()
				}
				return nil
			})
			env.Process("c", func(p *sim.Proc) error {
				if err := r.Acquire(p, 0); err != nil {
					return err
				}
				cAt = p.Now()
				return r.Release()
			})
			require.NoError(t, env.Run())
			require.True(t, sim.IsInterrupt(bErr), "b: %v", bErr)
			require.Equal(t, 5*sim.Second, cAt)
			require.Zero(t, r.InUse())
			require.Zero(t, r.QueueLen())
		})
	}
}

func TestResourceReleaseErrors(t *testing.T) {
	env := sim.New(sim.Limits{})
	r := newResource(t, env, 2, sim.FIFO)
	require.ErrorIs(t, r.Release(), sim.ErrNotHeld)
	env.Process("p", func(p *sim.Proc) error {
		if err := r.Acquire(p, 0); err != nil {
			return err
		}
		if err := r.Release(); err != nil {
			return err
		}
		return r.Release() // one too many
	})
	err := env.Run()
	require.ErrorIs(t, err, sim.ErrNotHeld)
	require.Zero(t, r.InUse())
}

func TestResourceAcquireErrors(t *testing.T) {
	env := sim.New(sim.Limits{})
	other := sim.New(sim.Limits{})
	r := newResource(t, env, 1, sim.FIFO)
	var foreignErr error
	other.Process("stranger", func(p *sim.Proc) error {
		foreignErr = r.Acquire(p, 0)
		return nil
	})
	require.NoError(t, other.Run())
	require.Error(t, foreignErr)
	require.Zero(t, r.InUse())

	// A waiting Acquire called from outside its process is withdrawn.
	var idle *sim.Proc
	env.Process("holder", func(p *sim.Proc) error { return r.Acquire(p, 0) })
	idle = env.Process("idle", func(p *sim.Proc) error { return p.Wait(sim.Hour) })
	require.NoError(t, env.Step())
	require.NoError(t, env.Step())
	require.ErrorIs(t, r.Acquire(idle, 0), sim.ErrNotActive)
	require.Zero(t, r.QueueLen())
	require.Equal(t, 1, r.InUse())
	env.Close()
}

// TestResourceRequestTimeout gives up waiting with AnyOf and a timeout.
func TestResourceRequestTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patience sim.Time
		want     string
	}{
		{"gives up", 3 * sim.Second, "3s gave up"},
		{"served", 20 * sim.Second, "10s served"},
		// The timeout and the grant fall due at the same instant; the
		// timeout was scheduled first, so it wins, and the request is
		// cancelled after being granted: the unit must pass on.
		{"tie", 10 * sim.Second, "10s gave up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			r := newResource(t, env, 1, sim.FIFO)
			var got string
			laterAt := sim.Time(-1)
			raced := false
			// Started first, so that its timeout is scheduled before the
			// holder's release and wins a tie.
			env.Process("impatient", func(p *sim.Proc) error {
				timeout, err := env.Timeout(tc.patience, nil)
				if err != nil {
					return err
				}
				if err := p.Wait(0); err != nil { // let the holder take the unit
					return err
				}
				req := r.Request(0)
				if _, err := p.Await(env.AnyOf(req, timeout)); err != nil {
					return err
				}
				if !req.Processed() {
					got = fmt.Sprintf("%v gave up", p.Now())
					raced = req.Triggered()
					return r.Cancel(req)
				}
				got = fmt.Sprintf("%v served", p.Now())
				if err := p.Wait(sim.Second); err != nil {
					return err
				}
				return r.Release()
			})
			env.Process("holder", func(p *sim.Proc) error {
				if err := r.Acquire(p, 0); err != nil {
					return err
				}
				if err := p.Wait(10 * sim.Second); err != nil {
					return err
				}
				return r.Release()
			})
			env.Process("later", func(p *sim.Proc) error {
				if err := p.Wait(5 * sim.Second); err != nil {
					return err
				}
				if err := r.Acquire(p, 0); err != nil {
					return err
				}
				laterAt = p.Now()
				return r.Release()
			})
			require.NoError(t, env.Run())
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.name == "tie", raced, "granted but not yet processed when given up")
			if tc.name == "served" {
				require.Equal(t, 11*sim.Second, laterAt)
			} else {
				require.Equal(t, 10*sim.Second, laterAt)
			}
			require.Zero(t, r.InUse())
			require.Zero(t, r.QueueLen())
		})
	}
}

func TestResourceCancel(t *testing.T) {
	env := sim.New(sim.Limits{})
	r := newResource(t, env, 1, sim.FIFO)
	other := newResource(t, env, 1, sim.FIFO)

	granted := r.Request(0) // a unit is free: granted at once
	require.True(t, granted.Triggered())
	require.Equal(t, 1, r.InUse())
	waiting := r.Request(0)
	require.False(t, waiting.Triggered())
	require.Equal(t, 1, r.QueueLen())

	require.ErrorIs(t, other.Cancel(waiting), sim.ErrNotRequest)
	require.ErrorIs(t, r.Cancel(env.NewEvent("stranger")), sim.ErrNotRequest)
	require.ErrorIs(t, r.Cancel(nil), sim.ErrNotRequest)

	require.NoError(t, r.Cancel(waiting))
	require.Zero(t, r.QueueLen())
	require.ErrorIs(t, r.Cancel(waiting), sim.ErrNotRequest)

	third := r.Request(0)
	require.NoError(t, r.Cancel(granted)) // gives the unit to third
	require.True(t, third.Triggered())
	require.Equal(t, 1, r.InUse())
	require.ErrorIs(t, r.Cancel(granted), sim.ErrNotRequest)
	require.NoError(t, r.Release())
	require.Zero(t, r.InUse())
	require.NoError(t, env.Run())
	require.False(t, waiting.Triggered(), "a cancelled request never fires")
}

func TestResourceStats(t *testing.T) {
	env := sim.New(sim.Limits{})
	r := newResource(t, env, 2, sim.FIFO)
	use := func(start, hold sim.Time) {
		env.Process("u", func(p *sim.Proc) error {
			if err := p.Wait(start); err != nil {
				return err
			}
			if err := r.Acquire(p, 0); err != nil {
				return err
			}
			if err := p.Wait(hold); err != nil {
				return err
			}
			return r.Release()
		})
	}
	// Two units busy 0–10s; a third user waits 2s–10s and holds to 14s.
	use(0, 10*sim.Second)
	use(0, 10*sim.Second)
	use(2*sim.Second, 4*sim.Second)
	require.NoError(t, env.RunUntil(20*sim.Second))
	st := r.Stats()
	require.Equal(t, sim.Time(0), st.Start)
	require.Equal(t, 20*sim.Second, st.Elapsed)
	require.Equal(t, uint64(3), st.Grants)
	require.InDelta(t, 8.0/3, st.MeanWait.Seconds(), 1e-9)
	require.InDelta(t, 24.0/20, st.MeanInUse, 1e-12)
	require.InDelta(t, 24.0/40, st.Utilization, 1e-12)
	require.InDelta(t, 8.0/20, st.MeanQueueLen, 1e-12)

	r.ResetStats()
	use(0, 5*sim.Second)
	require.NoError(t, env.RunUntil(30*sim.Second))
	st = r.Stats()
	require.Equal(t, 20*sim.Second, st.Start)
	require.Equal(t, 10*sim.Second, st.Elapsed)
	require.Equal(t, uint64(1), st.Grants)
	require.Zero(t, st.MeanWait)
	require.InDelta(t, 0.5, st.MeanInUse, 1e-12)
	require.InDelta(t, 0.25, st.Utilization, 1e-12)
	require.Zero(t, st.MeanQueueLen)

	r.ResetStats() // an empty window reports the current state
	st = r.Stats()
	require.Zero(t, st.Elapsed)
	require.Zero(t, st.MeanInUse)
	require.Zero(t, st.Grants)
	require.Zero(t, st.MeanWait, "no grant in the window: no wait to average, not 0/0")
}

// TestResourceClose ends an Env with processes still waiting for units.
func TestResourceClose(t *testing.T) {
	env := sim.New(sim.Limits{})
	r := newResource(t, env, 1, sim.FIFO)
	errs := make([]error, 3)
	for i := range errs {
		env.Process("p", func(p *sim.Proc) error {
			errs[i] = r.Acquire(p, 0)
			if errs[i] != nil {
				return errs[i]
			}
			return p.Wait(sim.Hour)
		})
	}
	require.NoError(t, env.RunUntil(sim.Minute))
	require.Equal(t, 2, r.QueueLen())
	env.Close()
	require.NoError(t, errs[0])
	for _, err := range errs[1:] {
		require.True(t, errors.Is(err, sim.ErrClosed), "%v", err)
	}
	require.Zero(t, r.QueueLen())
}

// TestResourceAcquireAllocs: an Acquire that finds a free unit allocates
// nothing.
func TestResourceAcquireAllocs(t *testing.T) {
	env := sim.New(sim.Limits{})
	defer env.Close()
	r := newResource(t, env, 1, sim.FIFO)
	var allocs float64
	env.Process("p", func(p *sim.Proc) error {
		allocs = testing.AllocsPerRun(100, func() {
			if err := r.Acquire(p, 0); err != nil {
				panic(err)
			}
			if err := r.Release(); err != nil {
				panic(err)
			}
		})
		return nil
	})
	require.NoError(t, env.Run())
	require.Zero(t, allocs)
}
