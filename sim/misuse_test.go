package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// TestWaitsOutsideTheirProcess: a Resource or Store operation that need not
// wait is still a wait of p, and fails from outside p or on a closed Env
// as Wait does, taking and storing nothing.
func TestWaitsOutsideTheirProcess(t *testing.T) {
	type world struct {
		r *sim.Resource
		s *sim.Store[int] // holds one item, with room for another
	}
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
				env := sim.New(sim.Limits{})
				defer env.Close()
				r, err := sim.NewResource(env, 1, sim.FIFO)
				require.NoError(t, err)
				w := world{r: r, s: sim.NewStore[int](env, 2)}
				require.True(t, w.s.TryPut(1))
				p := env.Process("p", func(p *sim.Proc) error { return p.Wait(sim.Hour) })
				var got error
				done := false
				from.call(env, p, func() { got, done = op.do(w, p), true })
				if !done {
					require.NoError(t, env.Run())
				}
				require.True(t, done)
				require.ErrorIs(t, got, from.want)
				require.Zero(t, r.InUse(), "a unit was taken")
				require.Equal(t, 1, w.s.Len(), "an item was taken or stored")
			})
		}
	}
}
