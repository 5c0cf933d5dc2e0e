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
				it := item{at: now + Time(r.IntN(4)), key: uint64(r.IntN(3))<<seqBits | seq, h: idHandler(seq)}
				q.push(it)
				i, _ := slices.BinarySearchFunc(ref, it, compareItems)
				ref = slices.Insert(ref, i, it) // ref stays sorted
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
				it := item{at: at, key: uint64(r.IntN(3))<<seqBits | seq, h: idHandler(seq)}
				q.push(it)
				i, _ := slices.BinarySearchFunc(ref, it, compareItems)
				ref = slices.Insert(ref, i, it)
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
