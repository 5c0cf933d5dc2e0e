package serving

import "github.com/swarmsim/swarmsim/sim"

// ends holds the calls scheduled at an API and not ended, the first to end
// on top, of calls that end together the first scheduled (Tie, the order
// of scheduling). An item names its call by its id (Value) rather than a
// pointer, so that moving items in the heap needs no write barrier.
type ends struct {
	sim.Heap[sim.Time, uint64, int]
}

type endItem = sim.HeapItem[sim.Time, uint64, int]

// first returns when the first call ends, or sim.MaxTime for none.
func (e *ends) first() sim.Time {
	if e.Len() == 0 {
		return sim.MaxTime
	}
	return e.Top().Key
}

// remove takes the call of that id out of the heap.
func (e *ends) remove(id int) {
	for i := range e.Len() {
		if e.At(i).Value == id {
			e.Remove(i)
			return
		}
	}
}

// slots holds when each of the places in flight at an API with a cap is
// free, the first free on top: as the calls scheduled so far leave them.
// Places free at the same time are alike, so nothing breaks their ties.
type slots struct {
	sim.Heap[sim.Time, int, struct{}]
}

func slot(t sim.Time) sim.HeapItem[sim.Time, int, struct{}] {
	return sim.HeapItem[sim.Time, int, struct{}]{Key: t}
}

// set makes one place free at t free at u.
func (s *slots) set(t, u sim.Time) {
	for i := range s.Len() {
		if s.At(i).Key == t {
			s.Set(i, slot(u))
			return
		}
	}
}

// remove takes out one place that is free at t.
func (s *slots) remove(t sim.Time) {
	for i := range s.Len() {
		if s.At(i).Key == t {
			s.Remove(i)
			return
		}
	}
}
