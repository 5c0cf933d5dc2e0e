package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

func TestStoreFIFO(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[string](env, 0)
	require.Zero(t, s.Cap())
	var got []string
	env.Process("producer", func(p *sim.Proc) error {
		for _, v := range []string{"a", "b", "c", "d", "e"} {
			if err := s.Put(p, v); err != nil {
				return err
			}
		}
		return nil
	})
	env.Process("consumer", func(p *sim.Proc) error {
		for range 5 {
			v, err := s.Get(p)
			if err != nil {
				return err
			}
			got = append(got, v)
		}
		return nil
	})
	require.NoError(t, env.Run())
	require.Equal(t, []string{"a", "b", "c", "d", "e"}, got)
	require.Zero(t, s.Len())
}

// TestStoreBlockingGet: getters wait on an empty store and are served in
// the order they started waiting, at the instant of each put.
func TestStoreBlockingGet(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[int](env, 0)
	var log []string
	for i := range 3 {
		env.Process(fmt.Sprint("g", i), func(p *sim.Proc) error {
			if err := p.Wait(sim.Time(i) * sim.Millisecond); err != nil {
				return err
			}
			v, err := s.Get(p)
			if err != nil {
				return err
			}
			log = append(log, fmt.Sprintf("%v g%d got %d", p.Now(), i, v))
			return nil
		})
	}
	env.Process("producer", func(p *sim.Proc) error {
		for v := range 3 {
			if err := p.Wait(sim.Second); err != nil {
				return err
			}
			if err := s.Put(p, 10+v); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, env.RunUntil(500*sim.Millisecond))
	require.Equal(t, 3, s.Getters())
	require.NoError(t, env.Run())
	require.Equal(t, []string{"1s g0 got 10", "2s g1 got 11", "3s g2 got 12"}, log)
	require.Zero(t, s.Getters())
}

// TestStoreBlockingPut: a bounded store makes putters wait, in order, and
// never holds more than its capacity.
func TestStoreBlockingPut(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[int](env, 2)
	env.SetObserver(observeFunc(func(sim.Record) {
		if s.Len() > s.Cap() {
			t.Fatalf("at %v: %d items in a store of capacity %d", env.Now(), s.Len(), s.Cap())
		}
	}))
	var putAt []sim.Time
	var got []int
	env.Process("producer", func(p *sim.Proc) error {
		for v := range 5 {
			if err := s.Put(p, v); err != nil {
				return err
			}
			putAt = append(putAt, p.Now())
		}
		return nil
	})
	env.Process("consumer", func(p *sim.Proc) error {
		for range 5 {
			if err := p.Wait(sim.Second); err != nil {
				return err
			}
			v, err := s.Get(p)
			if err != nil {
				return err
			}
			got = append(got, v)
		}
		return nil
	})
	require.NoError(t, env.RunUntil(500*sim.Millisecond))
	require.Equal(t, 2, s.Len())
	require.Equal(t, 1, s.Putters())
	require.False(t, s.TryPut(99), "full")
	require.NoError(t, env.Run())
	require.Equal(t, []sim.Time{0, 0, sim.Second, 2 * sim.Second, 3 * sim.Second}, putAt)
	require.Equal(t, []int{0, 1, 2, 3, 4}, got)
}

func TestStoreTryPut(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[int](env, 1)
	var got []string
	env.Process("consumer", func(p *sim.Proc) error {
		for range 2 {
			v, err := s.Get(p)
			if err != nil {
				return err
			}
			got = append(got, fmt.Sprintf("%v %d", p.Now(), v))
		}
		return nil
	})
	// Callbacks cannot wait, so they use TryPut.
	require.NoError(t, env.Call(sim.Second, func() {
		require.True(t, s.TryPut(1)) // handed to the waiting consumer
		// The item holds the only slot until the consumer's wait ends.
		require.False(t, s.TryPut(2))
	}))
	require.NoError(t, env.Call(2*sim.Second, func() {
		require.True(t, s.TryPut(3))
		require.False(t, s.TryPut(4))
	}))
	require.NoError(t, env.Run())
	require.Equal(t, []string{"1s 1", "2s 3"}, got)
}

func TestStoreGetFunc(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[int](env, 0)
	even := func(v int) bool { return v%2 == 0 }
	big := func(v int) bool { return v > 10 }
	var log []string
	get := func(name string, match func(int) bool) {
		env.Process(name, func(p *sim.Proc) error {
			v, err := s.GetFunc(p, match)
			if err != nil {
				return err
			}
			log = append(log, fmt.Sprintf("%v %s got %d", p.Now(), name, v))
			return nil
		})
	}
	env.Process("producer", func(p *sim.Proc) error {
		for _, v := range []int{1, 3, 4, 5, 6} {
			if err := s.Put(p, v); err != nil {
				return err
			}
		}
		if err := p.Wait(sim.Second); err != nil {
			return err
		}
		for _, v := range []int{11, 7} {
			if err := s.Put(p, v); err != nil {
				return err
			}
		}
		return nil
	})
	get("even", even)                               // first even item: 4
	get("big", big)                                 // nothing yet: waits
	get("any", nil)                                 // oldest item: 1
	get("even2", even)                              // 6
	get("even3", even)                              // waits, not holding up the others
	get("any2", nil)                                // 3
	get("any3", nil)                                // 5
	get("last", func(v int) bool { return v == 7 }) // waits for 7
	require.NoError(t, env.Run())
	require.Equal(t, []string{
		"0s even got 4",
		"0s any got 1",
		"0s even2 got 6",
		"0s any2 got 3",
		"0s any3 got 5",
		"1s big got 11",
		"1s last got 7",
	}, log)
	require.Equal(t, 1, s.Getters(), "even3 still waits")
	require.Zero(t, s.Len())
}

// TestStoreInterruptedGetter: a getter interrupted while it waits takes
// nothing, and the next item stays in the store or goes to the next
// getter.
func TestStoreInterruptedGetter(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[string](env, 0)
	var errG error
	g := env.Process("g", func(p *sim.Proc) error {
		_, errG = s.Get(p)
		return errG
	})
	require.NoError(t, env.Call(sim.Second, func() {
		require.Equal(t, 1, s.Getters())
		_, err := g.Interrupt("stop")
		require.NoError(t, err)
	}))
	require.NoError(t, env.Call(2*sim.Second, func() {
		require.Zero(t, s.Getters())
		require.True(t, s.TryPut("x"))
	}))
	require.NoError(t, env.Run())
	require.True(t, sim.IsInterrupt(errG))
	require.Equal(t, 1, s.Len(), "the item is not lost to the withdrawn getter")
}

// TestStoreInterruptAtHandOff interrupts a getter at the very instant an
// item is handed to it, before its wait ends: the item must come back,
// first to another waiting getter that wants it, else to the front of the
// store.
func TestStoreInterruptAtHandOff(t *testing.T) {
	for _, tc := range []struct {
		name        string
		otherGetter bool
		want        []string
	}{
		{"back to store", false, []string{"later got x", "later got y"}},
		{"to next getter", true, []string{"other got x", "later got y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(sim.Limits{})
			s := sim.NewStore[string](env, 2)
			var log []string
			var errG error
			var g *sim.Proc
			g = env.Process("g", func(p *sim.Proc) error {
				_, errG = s.Get(p)
				return errG
			})
			if tc.otherGetter {
				env.Process("other", func(p *sim.Proc) error {
					v, err := s.GetFunc(p, func(v string) bool { return v == "x" })
					log = append(log, "other got "+v)
					return err
				})
			}
			env.Process("producer", func(p *sim.Proc) error {
				if err := p.Wait(sim.Second); err != nil {
					return err
				}
				if err := s.Put(p, "x"); err != nil { // handed to g
					return err
				}
				if _, err := g.Interrupt("too late"); err != nil {
					return err
				}
				return s.Put(p, "y")
			})
			env.Process("later", func(p *sim.Proc) error {
				if err := p.Wait(2 * sim.Second); err != nil {
					return err
				}
				for s.Len() > 0 {
					v, err := s.Get(p)
					if err != nil {
						return err
					}
					log = append(log, "later got "+v)
				}
				return nil
			})
			require.NoError(t, env.Run())
			require.True(t, sim.IsInterrupt(errG), "g: %v", errG)
			require.Equal(t, tc.want, log)
			require.Zero(t, s.Len())
		})
	}
}

// TestStoreInterruptedPutter: an interrupted putter stores nothing, also
// when a slot was granted to it at the instant of the interrupt; the slot
// passes to the next putter.
func TestStoreInterruptedPutter(t *testing.T) {
	for _, atGrant := range []bool{false, true} {
		t.Run(fmt.Sprint("atGrant=", atGrant), func(t *testing.T) {
			env := sim.New(sim.Limits{})
			s := sim.NewStore[string](env, 1)
			require.True(t, s.TryPut("first"))
			var errA error
			var putB sim.Time = -1
			a := env.Process("a", func(p *sim.Proc) error {
				errA = s.Put(p, "a")
				return errA
			})
			env.Process("b", func(p *sim.Proc) error {
				if err := s.Put(p, "b"); err != nil {
					return err
				}
				putB = p.Now()
				return nil
			})
			var got []string
			env.Process("consumer", func(p *sim.Proc) error {
				if err := p.Wait(sim.Second); err != nil {
					return err
				}
				if !atGrant {
					if _, err := a.Interrupt("give up"); err != nil {
						return err
					}
					if err := p.Wait(0); err != nil {
						return err
					}
					if n := s.Putters(); n != 1 {
						return fmt.Errorf("%d putters wait, want 1", n)
					}
				}
				for range 2 {
					v, err := s.Get(p) // frees a slot: granted to a, then b
					if err != nil {
						return err
					}
					got = append(got, v)
					if atGrant && len(got) == 1 {
						if _, err := a.Interrupt("give up"); err != nil {
							return err
						}
					}
				}
				return nil
			})
			require.NoError(t, env.Run())
			require.True(t, sim.IsInterrupt(errA), "a: %v", errA)
			require.Equal(t, []string{"first", "b"}, got)
			require.Equal(t, sim.Second, putB)
			require.Zero(t, s.Len())
			require.Zero(t, s.Putters())
		})
	}
}

// TestStoreConservation runs producers and consumers on small bounded
// stores with random interrupts, and checks that every item stored is got
// exactly once or is still in the store, and that the capacity holds.
func TestStoreConservation(t *testing.T) {
	for _, capacity := range []int{0, 1, 3} {
		t.Run(fmt.Sprint("cap=", capacity), func(t *testing.T) {
			env := sim.New(sim.Limits{MaxEvents: 1_000_000})
			s := sim.NewStore[int](env, capacity)
			env.SetObserver(observeFunc(func(sim.Record) {
				if capacity > 0 && s.Len() > capacity {
					t.Fatalf("at %v: %d items, capacity %d", env.Now(), s.Len(), capacity)
				}
			}))
			rng := rand.New(rand.NewPCG(uint64(capacity), 7))
			var stored, got []int
			var procs []*sim.Proc
			next := 0
			for i := range 4 {
				procs = append(procs, env.Process(fmt.Sprint("producer", i), func(p *sim.Proc) error {
					for range 50 {
						v := next
						next++
						err := s.Put(p, v)
						if sim.IsInterrupt(err) {
							continue
						} else if err != nil {
							return err
						}
						stored = append(stored, v)
						if err := p.Wait(sim.Time(rng.IntN(3)) * sim.Second); err != nil && !sim.IsInterrupt(err) {
							return err
						}
					}
					return nil
				}))
			}
			for i := range 4 {
				procs = append(procs, env.Process(fmt.Sprint("consumer", i), func(p *sim.Proc) error {
					for range 60 {
						var v int
						var err error
						if i%2 == 0 {
							v, err = s.Get(p)
						} else {
							v, err = s.GetFunc(p, func(v int) bool { return v%3 != 0 })
						}
						if sim.IsInterrupt(err) {
							continue
						} else if err != nil {
							return err
						}
						got = append(got, v)
						if err := p.Wait(sim.Time(rng.IntN(3)) * sim.Second); err != nil && !sim.IsInterrupt(err) {
							return err
						}
					}
					return nil
				}))
			}
			// Interrupt random processes, often at instants when items
			// are handed over.
			interrupts := 0
			var chaos func()
			chaos = func() {
				if p := procs[rng.IntN(len(procs))]; !p.Finished() {
					if ok, _ := p.Interrupt("chaos"); ok {
						interrupts++
					}
				}
				if env.Now() < 200*sim.Second {
					_ = env.Call(sim.Time(rng.IntN(2))*sim.Second, chaos)
				}
			}
			require.NoError(t, env.Call(0, chaos))
			require.NoError(t, env.Run())
			require.Greater(t, interrupts, 50)

			// Whatever is left in the store, drain it.
			env.Process("drain", func(p *sim.Proc) error {
				for s.Len() > 0 {
					v, err := s.Get(p)
					if err != nil {
						return err
					}
					got = append(got, v)
				}
				return nil
			})
			require.NoError(t, env.Run())
			slices.Sort(stored)
			slices.Sort(got)
			require.Equal(t, stored, got, "items lost or duplicated")
			require.Greater(t, len(got), 50)
		})
	}
}

func TestNewStoreNegativeCapacity(t *testing.T) {
	require.Panics(t, func() { sim.NewStore[int](sim.New(sim.Limits{}), -1) })
}

func TestStoreClose(t *testing.T) {
	env := sim.New(sim.Limits{})
	s := sim.NewStore[int](env, 1)
	require.True(t, s.TryPut(1))
	errs := make([]error, 2)
	env.Process("putter", func(p *sim.Proc) error {
		errs[0] = s.Put(p, 2)
		return errs[0]
	})
	env.Process("getter", func(p *sim.Proc) error {
		_, errs[1] = s.GetFunc(p, func(v int) bool { return v > 5 })
		return errs[1]
	})
	require.NoError(t, env.Run())
	require.Equal(t, 1, s.Putters())
	require.Equal(t, 1, s.Getters())
	env.Close()
	for _, err := range errs {
		require.ErrorIs(t, err, sim.ErrClosed)
	}
	require.Zero(t, s.Putters())
	require.Zero(t, s.Getters())
	require.Equal(t, 1, s.Len())
}
