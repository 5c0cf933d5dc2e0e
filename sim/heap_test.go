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

type named = sim.HeapItem[int, int, int]

// TestHeapAgainstSorted runs random pushes, pops, sets and removals on a
// heap with few distinct keys (so that Tie decides often) and checks every
// pop and removal against a sorted reference. Removals and sets find their
// item by its value with At, as an owner does.
func TestHeapAgainstSorted(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		var h sim.Heap[int, int, int]
		var ref []named // the items in the heap
		next := 0
		item := func() named {
			next++
			return named{Key: r.IntN(5), Tie: next, Value: next}
		}
		sortRef := func() {
			slices.SortFunc(ref, func(a, b named) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Tie, b.Tie)) })
		}
		index := func(value int) int {
			for i := range h.Len() {
				if h.At(i).Value == value {
					return i
				}
			}
			t.Fatalf("seed %d: %d is not in the heap", seed, value)
			return -1
		}
		for op := range 3000 {
			switch k := r.IntN(10); {
			case k < 4 || len(ref) == 0:
				it := item()
				h.Push(it)
				ref = append(ref, it)
			case k < 6:
				sortRef()
				require.Equal(t, ref[0], h.Pop(), "seed %d, op %d: pop", seed, op)
				ref = ref[1:]
			case k < 8:
				j := r.IntN(len(ref))
				it := item()
				it.Value = ref[j].Value // a new key for the same value, at its place
				h.Set(index(ref[j].Value), it)
				ref[j] = it
			default:
				j := r.IntN(len(ref))
				require.Equal(t, ref[j], h.Remove(index(ref[j].Value)), "seed %d, op %d: remove", seed, op)
				ref = slices.Delete(ref, j, j+1)
			}
			require.Equal(t, len(ref), h.Len())
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
