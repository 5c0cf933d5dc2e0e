package sim_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// tracked is a heap item's value that knows its index, as a timer does.
type tracked struct {
	name int
	pos  int // -1 when out of the heap
}

type trackedItem = sim.HeapItem[int, int, *tracked]

// TestHeapAgainstSorted runs random pushes, pops, sets and removals on a
// heap with few distinct keys (so that Tie decides often) and checks every
// pop against a sorted reference, and every tracked index after each
// operation. Removals and sets pick items by their tracked index, as an
// owner would.
func TestHeapAgainstSorted(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		var h sim.Heap[int, int, *tracked]
		h.Track(func(v *tracked, i int) { v.pos = i })
		var ref []trackedItem // the items in the heap
		next := 0
		item := func() trackedItem {
			next++
			return trackedItem{Key: r.IntN(5), Tie: next, Value: &tracked{name: next, pos: -1}}
		}
		sortRef := func() {
			slices.SortFunc(ref, func(a, b trackedItem) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Tie, b.Tie)) })
		}
		for op := range 3000 {
			switch k := r.IntN(10); {
			case k < 4 || len(ref) == 0:
				it := item()
				h.Push(it)
				ref = append(ref, it)
			case k < 6:
				sortRef()
				got := h.Pop()
				require.Equal(t, ref[0], got, "seed %d, op %d: pop", seed, op)
				got.Value.pos = -1
				ref = ref[1:]
			case k < 8:
				j := r.IntN(len(ref))
				it := item()
				it.Value = ref[j].Value // a new key for the same value, at its place
				h.Set(ref[j].Value.pos, it)
				ref[j] = it
			default:
				j := r.IntN(len(ref))
				got := h.Remove(ref[j].Value.pos)
				require.Equal(t, ref[j], got, "seed %d, op %d: remove", seed, op)
				got.Value.pos = -1
				ref = slices.Delete(ref, j, j+1)
			}
			require.Equal(t, len(ref), h.Len())
			for i := range h.Len() {
				require.Equal(t, i, h.At(i).Value.pos, "seed %d, op %d: the tracked index", seed, op)
			}
		}
		sortRef()
		for _, want := range ref {
			require.Equal(t, want, h.Pop())
		}
		require.Zero(t, h.Len())
	}
}

// A heap of jobs by due time, jobs due together in the order they came.
func ExampleHeap() {
	var h sim.Heap[sim.Time, int, string]
	for i, job := range []struct {
		due  sim.Time
		name string
	}{{3 * sim.Second, "c"}, {sim.Second, "a"}, {3 * sim.Second, "d"}, {2 * sim.Second, "b"}} {
		h.Push(sim.HeapItem[sim.Time, int, string]{Key: job.due, Tie: i, Value: job.name})
	}
	for h.Len() > 0 {
		it := h.Pop()
		fmt.Println(it.Key, it.Value)
	}
	// Output:
	// 1s a
	// 2s b
	// 3s c
	// 3s d
}
