package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// idHandler marks queue items so that the test can tell them apart.
type idHandler int

func (idHandler) fire(*Env, uint64)        {}
func (idHandler) describe() (Kind, string) { return KindCallback, "" }

func compareItems(a, b item) int {
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.key, b.key))
}

// randomItems returns n items with few distinct times and priorities, so
// that ties on time, and on (time, priority), are common. Keys are unique,
// as the engine makes them, so the expected order is fully determined.
func randomItems(r *rand.Rand, n, times int) []item {
	items := make([]item, n)
	for i := range items {
		prio := uint64(r.IntN(3))
		items[i] = item{
			at:  Time(r.IntN(times)),
			key: prio<<seqBits | uint64(i+1),
			h:   idHandler(i),
		}
	}
	return items
}

// pushBoth pushes the item of sequence number seq due at at with
// priority prio onto q, and inserts it in its place in ref, which stays
// sorted.
func pushBoth(q *queue, ref []item, at Time, prio, seq uint64) []item {
	it := item{at: at, key: prio<<seqBits | seq, h: idHandler(seq)}
	q.push(it)
	i, _ := slices.BinarySearchFunc(ref, it, compareItems)
	return slices.Insert(ref, i, it)
}

func TestQueuePopsInSortedOrder(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := r.IntN(300) // includes 0, 1 and sizes that leave partial child groups
		items := randomItems(r, n, 1+r.IntN(8))

		var q queue
		for _, it := range items {
			q.push(it)
		}
		require.Equal(t, n, q.len())

		want := slices.Clone(items)
		slices.SortFunc(want, compareItems)
		got := make([]item, 0, n)
		for q.len() > 0 {
			got = append(got, q.pop())
		}
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// TestQueueInterleaved mixes pushes and pops, as a running simulation does,
// and checks every pop against a sorted reference.
func TestQueueInterleaved(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 11))
		var q queue
		var ref []item
		var seq uint64
		var now Time
		for step := range 2000 {
			if len(ref) == 0 || r.IntN(5) < 3 {
				seq++
				// Never earlier than the last pop, as in the engine.
				ref = pushBoth(&q, ref, now+Time(r.IntN(4)), uint64(r.IntN(3)), seq)
				continue
			}
			got := q.pop()
			if got != ref[0] {
				require.Equal(t, ref[0], got, "seed %d step %d", seed, step)
			}
			ref = ref[1:]
			now = got.at
		}
		require.Equal(t, len(ref), q.len())
	}
}

// TestQueueFullTies checks that items equal in both time and key come out
// in a sorted run whatever their handlers.
func TestQueueFullTies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var q queue
	for i := range 500 {
		q.push(item{at: Time(r.IntN(3)), key: uint64(r.IntN(2)), h: idHandler(i)})
	}
	prev := q.pop()
	for q.len() > 0 {
		it := q.pop()
		require.LessOrEqual(t, compareItems(prev, it), 0)
		prev = it
	}
}

func TestQueuePopClearsHandler(t *testing.T) {
	var q queue
	for i := range 10 {
		q.push(item{at: Time(i), key: uint64(i + 1), h: idHandler(i)})
	}
	for range 10 {
		q.pop()
	}
	// The backing array keeps no handler alive for the garbage collector.
	for _, it := range q.items[:cap(q.items)] {
		require.Nil(t, it.h)
	}
}

// TestQueueRunAndHeap grows and drains the queue many times across
// maxSorted, with pushes due now (which go to the front of a sorted run)
// and later, and checks every pop against a sorted reference and the form
// the queue is in: a sorted run until it would pass maxSorted items, a
// heap from then on until it empties.
func TestQueueRunAndHeap(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 13))
		var q queue
		var ref []item
		var seq uint64
		var now Time
		grown := false // the queue has passed maxSorted since it was last empty
		for range 40 {
			target := r.IntN(3 * maxSorted)
			for len(ref) < target {
				seq++
				at := now
				if r.IntN(3) > 0 {
					at += Time(r.IntN(50))
				}
				ref = pushBoth(&q, ref, at, uint64(r.IntN(3)), seq)
				grown = grown || len(ref) > maxSorted
				require.Equal(t, grown, q.heap, "seed %d: %d items", seed, len(ref))
			}
			drain := r.IntN(len(ref) + 1)
			if r.IntN(4) == 0 {
				drain = len(ref)
			}
			for range drain {
				got := q.pop()
				require.Equal(t, ref[0], got, "seed %d", seed)
				ref = ref[1:]
				now = got.at
			}
			if len(ref) == 0 {
				grown = false
				require.False(t, q.heap, "seed %d: an empty queue is a sorted run", seed)
			}
			require.Equal(t, len(ref), q.len())
		}
	}
}

// TestQueueModel runs random pushes, pops and looks at the head, as the
// engine makes them (never earlier than the last pop, often at that very
// time and so ahead of items already queued), against a sorted reference,
// through every change of form: a run that moves to the front of its
// array, grows it, becomes a heap, leaves its root empty and fills it for
// a look at the head. After every operation the array keeps no handler
// outside the items queued (the root a heap's pop leaves empty aside,
// which the next push overwrites), and while the queue has never held more than
// maxSorted items its array stays within a bound however long it runs: a
// run that only moved forward would grow it without end.
func TestQueueModel(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 17))
		var q queue
		var ref, sorted []item
		var seq uint64
		var now Time
		big := seed%3 == 0 // passes maxSorted now and then; the others never do
		most := 0
		for step := range 2000 {
			switch op := r.IntN(10); {
			case op < 5 && (big || len(ref) < maxSorted):
				seq++
				at := now
				if r.IntN(4) > 0 {
					at += Time(r.IntN(20))
				}
				ref = pushBoth(&q, ref, at, uint64(r.IntN(3)), seq)
			case op < 8 && len(ref) > 0:
				got := q.pop()
				require.Equal(t, ref[0], got, "seed %d step %d", seed, step)
				ref = ref[1:]
				now = got.at
			case len(ref) > 0:
				require.Equal(t, ref[0], *q.head(), "seed %d step %d", seed, step)
			}
			most = max(most, len(ref))
			require.Equal(t, len(ref), q.len(), "seed %d step %d", seed, step)
			live := q.items[q.first:]
			if q.hole {
				live = q.items[1:]
			}
			sorted = append(sorted[:0], live...)
			slices.SortFunc(sorted, compareItems)
			if !slices.Equal(ref, sorted) {
				require.Equal(t, ref, sorted, "seed %d step %d: the items queued", seed, step)
			}
			for i, it := range q.items[:cap(q.items)] {
				if (i < q.first || i >= len(q.items)) && it.h != nil {
					t.Fatalf("seed %d step %d: slot %d keeps a handler", seed, step, i)
				}
			}
			if most <= maxSorted && cap(q.items) > 4*maxSorted {
				t.Fatalf("seed %d step %d: an array of %d for at most %d items", seed, step, cap(q.items), most)
			}
		}
		if big {
			require.Greater(t, most, maxSorted, "seed %d", seed)
		}
	}
}
