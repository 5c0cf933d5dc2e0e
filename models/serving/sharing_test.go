package serving_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// drain pops every job due by the server's next departure, repeatedly, and
// returns the departure time of each job id.
func drain(t *testing.T, s *serving.Sharing) map[int]sim.Time {
	out := map[int]sim.Time{}
	for {
		due, ok := s.Next()
		if !ok {
			return out
		}
		id, ok := s.Pop(due)
		require.True(t, ok, "a job is due at %v", due)
		out[id] = due
	}
}

// TestSharingSimultaneous is the closed form of the batch: W identical
// jobs of O units, each with setup P, added together, all finish at
// W·P + O·(unit + perJob·(W−1)), with a per-job cost and without one
// (where the server keeps its own arithmetic, and where jobs of other
// sizes leave one by one at full speed).
func TestSharingSimultaneous(t *testing.T) {
	const unit = 5800 * sim.Microsecond
	for _, perJob := range []sim.Time{200 * sim.Microsecond, 0} {
		for _, w := range []int{1, 2, 3, 8, 32, 100} {
			for _, o := range []float64{1, 170, 4096} {
				s, err := serving.NewSharing(unit, perJob)
				require.NoError(t, err)
				const setup = 17 * sim.Microsecond * 500
				for id := range w {
					s.Add(0, id, o, setup)
				}
				want := sim.Time(w)*setup + sim.Time(o)*(unit+perJob*sim.Time(w-1))
				got := drain(t, s)
				require.Len(t, got, w)
				for id, at := range got {
					assert.Equal(t, want, at, "per job %v, W=%d O=%v job %d", perJob, w, o, id)
				}
				assert.Equal(t, want, s.Busy(want))
				assert.InDelta(t, float64(w)*float64(want), s.Area(want), 1e-6*float64(want))
			}
		}
	}
	// Without a per-job cost every job goes at full speed: jobs of other
	// sizes, added together, finish at W·P + O_i·unit each.
	s, err := serving.NewSharing(unit, 0)
	require.NoError(t, err)
	const w, setup = 5, 3 * sim.Millisecond
	for id := range w {
		s.Add(0, id, float64(10*(id+1)), setup)
	}
	got := drain(t, s)
	area := 0.0 // each job is in service from 0 to its end
	for id := range w {
		assert.Equal(t, w*setup+sim.Time(10*(id+1))*unit, got[id], "job %d", id)
		area += float64(got[id])
	}
	last := got[w-1]
	assert.Equal(t, last, s.Busy(last+sim.Second), "busy until the last job leaves")
	assert.InDelta(t, area, s.Area(last+sim.Second), 1e-9*area)
}

// TestSharingOrder: jobs that finish together leave in id order, and a
// job never leaves before its time.
func TestSharingOrder(t *testing.T) {
	s, err := serving.NewSharing(sim.Millisecond, 0)
	require.NoError(t, err)
	for _, id := range []int{5, 2, 9} {
		s.Add(0, id, 10, 0)
	}
	_, ok := s.Pop(10*sim.Millisecond - 1)
	assert.False(t, ok, "not yet")
	var order []int
	for id, ok := s.Pop(10 * sim.Millisecond); ok; id, ok = s.Pop(10 * sim.Millisecond) {
		order = append(order, id)
	}
	assert.Equal(t, []int{2, 5, 9}, order)
	_, ok = s.Next()
	assert.False(t, ok)
}

// fluidJob is a job of the reference model.
type fluidJob struct {
	id   int
	left *big.Rat // units of work still to do
}

// fluidReference simulates the same server the slow, obvious way, in exact
// rational arithmetic: at every arrival and departure it recomputes every
// job's remaining work (what Sharing avoids), and it lets a job leave at
// the first whole nanosecond at or after the instant its work is done, as
// Sharing does. It returns each job's departure time.
func fluidReference(unit, perJob sim.Time, arrivals []sim.Time, works []int64, setups []sim.Time) map[int]sim.Time {
	out := map[int]sim.Time{}
	var jobs []*fluidJob
	now := new(big.Rat)
	paused := new(big.Rat)
	step := func(n int) *big.Rat { return new(big.Rat).SetInt64(int64(unit) + int64(perJob)*int64(n-1)) }
	advance := func(to *big.Rat) {
		from := now
		if paused.Cmp(from) > 0 {
			from = paused
		}
		if to.Cmp(from) > 0 && len(jobs) > 0 {
			got := new(big.Rat).Sub(to, from)
			got.Quo(got, step(len(jobs)))
			for _, j := range jobs {
				j.left.Sub(j.left, got)
			}
		}
		now = new(big.Rat).Set(to)
	}
	next := 0
	for next < len(arrivals) || len(jobs) > 0 {
		// The next departure: the smallest remaining work, at the current speed.
		var dep *big.Rat
		var first *fluidJob
		if len(jobs) > 0 {
			for _, j := range jobs {
				if first == nil || j.left.Cmp(first.left) < 0 || j.left.Cmp(first.left) == 0 && j.id < first.id {
					first = j
				}
			}
			from := now
			if paused.Cmp(from) > 0 {
				from = paused
			}
			exact := new(big.Rat).Mul(first.left, step(len(jobs)))
			exact.Add(exact, from)
			// Round up to the nanosecond.
			q := new(big.Int).Quo(exact.Num(), exact.Denom())
			if new(big.Rat).SetInt(q).Cmp(exact) < 0 {
				q.Add(q, big.NewInt(1))
			}
			dep = new(big.Rat).SetInt(q)
		}
		if next < len(arrivals) {
			arr := new(big.Rat).SetInt64(int64(arrivals[next]))
			if dep == nil || arr.Cmp(dep) < 0 {
				advance(arr)
				if paused.Cmp(now) < 0 {
					paused = new(big.Rat).Set(now)
				}
				paused = new(big.Rat).Add(paused, new(big.Rat).SetInt64(int64(setups[next])))
				jobs = append(jobs, &fluidJob{id: next, left: new(big.Rat).SetInt64(works[next])})
				next++
				continue
			}
		}
		advance(dep)
		for i, j := range jobs {
			if j == first {
				jobs = append(jobs[:i], jobs[i+1:]...)
				break
			}
		}
		out[first.id] = sim.Time(new(big.Int).Quo(dep.Num(), dep.Denom()).Int64())
	}
	return out
}

// TestSharingAgainstReference compares Sharing with the exact reference on
// random arrival patterns, 50 seeds: every departure within a nanosecond
// (the reference rounds exactly, Sharing in floating point).
func TestSharingAgainstReference(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 11))
		unit := sim.Time(1 + r.Int64N(int64(10*sim.Millisecond)))
		perJob := sim.Time(r.Int64N(int64(unit)))
		n := 2 + r.IntN(40)
		arrivals := make([]sim.Time, n)
		works := make([]int64, n)
		setups := make([]sim.Time, n)
		var at sim.Time
		for i := range n {
			at += sim.Time(r.Int64N(int64(200 * unit)))
			arrivals[i] = at
			works[i] = 1 + r.Int64N(400)
			if r.IntN(2) == 0 {
				setups[i] = sim.Time(r.Int64N(int64(20 * unit)))
			}
		}
		want := fluidReference(unit, perJob, arrivals, works, setups)

		s, err := serving.NewSharing(unit, perJob)
		require.NoError(t, err)
		got := map[int]sim.Time{}
		for i := 0; i < n || s.Len() > 0; {
			due, busy := s.Next()
			if i < n && (!busy || arrivals[i] < due) {
				s.Add(arrivals[i], i, float64(works[i]), setups[i])
				i++
				continue
			}
			id, ok := s.Pop(due)
			require.True(t, ok)
			got[id] = due
		}
		require.Len(t, got, n)
		for id, w := range want {
			assert.InDelta(t, int64(w), int64(got[id]), 1, "seed %d job %d", seed, id)
		}
	}
}

// TestLookaheadEqualsSharing: a lookahead made at any point of a random
// run and given the next arrivals predicts, bit for bit, the server's next
// departure after the same arrivals, and leaves the server unchanged; 50
// seeds, with and without a per-job cost, with setups, and with the
// lookahead made again over reused memory.
func TestLookaheadEqualsSharing(t *testing.T) {
	var l serving.Lookahead
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 12))
		unit := sim.Time(1 + r.Int64N(int64(10*sim.Millisecond)))
		perJob := sim.Time(0)
		if seed%2 == 0 {
			perJob = sim.Time(r.Int64N(int64(unit)))
		}
		s, err := serving.NewSharing(unit, perJob)
		require.NoError(t, err)
		var at sim.Time
		checks := 0
		for id := 0; id < 60; {
			due, busy := s.Next()
			// The next few arrivals, all before the server's next departure.
			k := r.IntN(4)
			arrive := make([]sim.Time, 0, k)
			t0 := at
			for range k {
				t0 += sim.Time(r.Int64N(int64(50 * unit)))
				if busy && t0 >= due {
					break
				}
				arrive = append(arrive, t0)
			}
			if len(arrive) == 0 {
				if !busy {
					at += sim.Time(r.Int64N(int64(50 * unit)))
					s.Add(at, id, float64(1+r.Int64N(300)), 0)
					id++
					continue
				}
				_, ok := s.Pop(due)
				require.True(t, ok)
				at = due
				continue
			}
			works := make([]float64, len(arrive))
			setups := make([]sim.Time, len(arrive))
			for i := range arrive {
				works[i] = float64(1 + r.Int64N(300))
				if r.IntN(3) == 0 {
					setups[i] = sim.Time(r.Int64N(int64(20 * unit)))
				}
			}
			l.Reset(s)
			require.Equal(t, s.Len(), l.Len())
			gotDue, gotBusy := l.Next()
			require.Equal(t, busy, gotBusy)
			if busy {
				require.Equal(t, due, gotDue, "seed %d: a fresh lookahead is the server", seed)
			}
			for i, a := range arrive {
				l.Add(a, works[i], setups[i])
			}
			predicted, _ := l.Next()
			require.Equal(t, len(arrive)+s.Len(), l.Len())
			if busy {
				stillDue, _ := s.Next()
				require.Equal(t, due, stillDue, "seed %d: the server is unchanged", seed)
			}
			for i, a := range arrive {
				s.Add(a, id, works[i], setups[i])
				id++
			}
			actual, _ := s.Next()
			require.Equal(t, actual, predicted, "seed %d after %d arrivals", seed, len(arrive))
			at = arrive[len(arrive)-1]
			checks++
		}
		require.Greater(t, checks, 5, "seed %d: the script must compare something", seed)
	}
}

// TestSharingReplace: Replace is Pop and then, if a job was popped, Add of
// the new job, on random sequences of jobs (10 seeds, with and without a
// per-job cost and setups): the departures, the integrals and the whole
// server's state are the same, and Replace pops nothing (and adds
// nothing) before the first departure.
func TestSharingReplace(t *testing.T) {
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 2))
		perJob := sim.Time(r.IntN(2)) * 200 * sim.Microsecond
		a, err := serving.NewSharing(5*sim.Millisecond, perJob)
		require.NoError(t, err)
		b, _ := serving.NewSharing(5*sim.Millisecond, perJob)
		id, replaced := 0, 0
		for range 4 {
			work, setup := float64(1+r.IntN(300)), sim.Time(r.IntN(3))*sim.Millisecond
			a.Add(0, id, work, setup)
			b.Add(0, id, work, setup)
			id++
		}
		for range 200 {
			due, ok := a.Next()
			require.True(t, ok)
			now := due
			if r.IntN(4) == 0 {
				now = due - 1 // too early: nothing is popped
			}
			work, setup := float64(1+r.IntN(300)), sim.Time(r.IntN(3))*sim.Millisecond
			got, gotOK := a.Replace(now, id, work, setup)
			want, wantOK := b.Pop(now)
			require.Equal(t, wantOK, gotOK, "seed %d", seed)
			if wantOK {
				require.Equal(t, want, got, "seed %d", seed)
				b.Add(now, id, work, setup)
				replaced++
				id++
			}
			aDue, _ := a.Next()
			bDue, _ := b.Next()
			require.Equal(t, bDue, aDue, "seed %d", seed)
			require.Equal(t, b.Len(), a.Len(), "seed %d", seed)
			require.Equal(t, b.Busy(now), a.Busy(now), "seed %d", seed)
			require.Equal(t, b.Area(now), a.Area(now), "seed %d", seed)
			require.Equal(t, serving.SharingState(b), serving.SharingState(a), "seed %d: the whole state", seed)
		}
		require.Greater(t, replaced, 100, "seed %d", seed)
		// The same jobs leave at the same times.
		require.Equal(t, drain(t, b), drain(t, a), "seed %d", seed)
	}
}

func TestSharingErrors(t *testing.T) {
	_, err := serving.NewSharing(0, 1)
	assert.Error(t, err)
	_, err = serving.NewSharing(1, -1)
	assert.Error(t, err)
}

func ExampleSharing() {
	// A decode step of 6 ms with one sequence, 0.5 ms longer per further
	// sequence: two calls of 100 tokens each, the second joining 300 ms in,
	// when the first has 50 tokens; together they take 6.5 ms a token.
	s, _ := serving.NewSharing(6*sim.Millisecond, 500*sim.Microsecond)
	s.Add(0, 1, 100, 0)
	s.Add(300*sim.Millisecond, 2, 100, 0)
	for {
		due, ok := s.Next()
		if !ok {
			break
		}
		id, _ := s.Pop(due)
		fmt.Printf("call %d done at %v\n", id, due)
	}
	// Output:
	// call 1 done at 625ms
	// call 2 done at 925ms
}
