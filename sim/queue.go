package sim

import "slices"

// item is one scheduled firing: a handler due at a time, ordered by
// (at, key) where key packs the priority above a sequence number, so the
// order of any two items is total and independent of how they were produced.
type item struct {
	at  Time
	key uint64
	h   handler
}

// The key holds the priority in its top 8 bits and the sequence number in
// the other 56: 7·10¹⁶ events before the sequence could wrap.
const (
	seqBits = 56
	seqMask = 1<<seqBits - 1
)

func (a *item) before(b *item) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// queue holds the items due, earliest first, in one of two forms.
//
// A small queue is a sorted run, items[first:]: pop takes the first item
// and frees its slot, and push walks back from the end to the new item's
// place. An episode of the collective keeps a dozen or so events pending,
// and a new one is usually later than all of them, so that a push costs a
// comparison and no moves, where a heap sifts through its levels on every
// pop and push. In random order (the hold model) a push moves half the
// run.
//
// A run that would grow past maxSorted items becomes a 4-ary min-heap,
// whose pushes and pops cost O(log n) however the items come (a sorted run
// is already a heap), and goes back to a sorted run when it empties. A
// 4-ary heap halves the depth of a binary heap, and its four children
// usually share a cache line pair, which is what a hold workload (pop the
// minimum, push a later item) spends its time on. The heap's pop leaves
// the root empty (hole) rather than filling it at once: most events
// schedule another, and a push into the hole sifts the new item down from
// the root, one pass instead of filling the hole with the last item and
// then sifting the new one up.
//
// Both forms pop in the same order, as any correct queue does: the order
// of items is total.
type queue struct {
	items []item
	first int  // sorted run: where it starts; 0 in a heap
	heap  bool // items is a heap
	hole  bool // heap: items[0] is empty; the rest is a heap under it
}

// maxSorted is the most items a sorted run holds: it bounds what a push
// in random order costs, which moves half the run on average.
const maxSorted = 32

func (q *queue) len() int {
	if q.hole {
		return len(q.items) - 1
	}
	return len(q.items) - q.first
}

// head returns the earliest item, which stays queued. The queue must not
// be empty.
func (q *queue) head() *item {
	if q.hole {
		q.fill()
	}
	return &q.items[q.first]
}

// after reports whether every item is due after t (or none is queued);
// a heap whose root is a hole says no, rather than fill it here.
func (q *queue) after(t Time) bool {
	if q.heap {
		return !q.hole && q.items[0].at > t
	}
	return q.first == len(q.items) || q.items[q.first].at > t
}

// push adds it: O(1) at or near the end of a sorted run, O(log n) in a
// heap. Both forms are written out here, as a call to either would cost
// every event of the other.
func (q *queue) push(it item) {
	if !q.heap {
		n := len(q.items)
		if n == cap(q.items) || n-q.first == maxSorted {
			q.makeRoom()
			n = len(q.items)
		}
		if !q.heap {
			items := q.items
			if f := q.first; n > f && it.before(&items[n-1]) {
				// Not last. An item due before the whole run (an event at
				// the current instant with only later ones pending: a
				// zero-delay call behind the one Env.nowFn holds) takes
				// the free slot before the run's start, if pops have left
				// one, instead of moving the run.
				if f > 0 && it.before(&items[f]) {
					q.first = f - 1
					items[f-1] = it
					return
				}
			}
			items = items[:n+1]
			q.items = items
			i := n
			for i > q.first && it.before(&items[i-1]) {
				items[i] = items[i-1]
				i--
			}
			items[i] = it
			return
		}
	}
	if q.hole {
		q.hole = false
		q.down(it)
		return
	}
	q.items = append(q.items, it)
	items := q.items
	i := len(items) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if !it.before(&items[parent]) {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = it
}

// pop removes and returns the earliest item: O(1) from a sorted run,
// O(log n) from a heap. The queue must not be empty.
func (q *queue) pop() item {
	if !q.heap {
		top := q.items[q.first]
		q.items[q.first].h = nil // drop the handler reference for the garbage collector
		if q.first++; q.first == len(q.items) {
			q.items, q.first = q.items[:0], 0
		}
		return top
	}
	if q.hole {
		q.fill()
	}
	top := q.items[0]
	if len(q.items) == 1 {
		// The last item: an empty queue is a sorted run.
		q.items[0] = item{} // drop the handler reference for the garbage collector
		q.items = q.items[:0]
		q.heap = false
		return top
	}
	q.hole = true
	return top
}

// anyAt reports whether an item is due at one of the instants in ts, which
// are in increasing order (Env.PendingAt).
func (q *queue) anyAt(ts []Time) bool {
	if len(ts) == 0 {
		return false
	}
	if q.heap {
		for i := range q.items {
			if i == 0 && q.hole {
				continue
			}
			if _, found := slices.BinarySearch(ts, q.items[i].at); found {
				return true
			}
		}
		return false
	}
	// Both are sorted: one walk through the two.
	j := 0
	for i := q.first; i < len(q.items); i++ {
		at := q.items[i].at
		for ts[j] < at {
			if j++; j == len(ts) {
				return false
			}
		}
		if ts[j] == at {
			return true
		}
	}
	return false
}

// makeRoom is push's slow path, in a run that fills its array or holds
// maxSorted items: the run becomes a heap, or moves to the front of the
// array if that frees half of it, or the array grows.
func (q *queue) makeRoom() {
	n := len(q.items) - q.first
	switch {
	case n == maxSorted:
		q.compact()
		q.heap = true
	case q.first > 0 && q.first >= n:
		q.compact()
	default:
		q.items = slices.Grow(q.items, 1)
	}
}

// compact moves a sorted run to the front of its array.
func (q *queue) compact() {
	items := q.items
	n := copy(items, items[q.first:])
	clear(items[n:]) // drop the handler references for the garbage collector
	q.items, q.first = items[:n], 0
}

// fill moves the last item into the hole at the root and restores the heap.
func (q *queue) fill() {
	q.hole = false
	items := q.items
	n := len(items) - 1
	last := items[n]
	items[n] = item{} // drop the handler reference for the garbage collector
	q.items = items[:n]
	if n > 0 {
		q.down(last)
	}
}

// down puts it at the root, which is empty, and sifts it down to its place.
func (q *queue) down(it item) {
	items := q.items
	n := len(items)
	i := 0
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		best := first
		if first+4 <= n {
			// All four children exist: compare them without bounds checks.
			c := items[first : first+4 : first+4]
			b := 0
			if c[1].before(&c[b]) {
				b = 1
			}
			if c[2].before(&c[b]) {
				b = 2
			}
			if c[3].before(&c[b]) {
				b = 3
			}
			best += b
		} else {
			for c := first + 1; c < n; c++ {
				if items[c].before(&items[best]) {
					best = c
				}
			}
		}
		if !items[best].before(&it) {
			break
		}
		items[i] = items[best]
		i = best
	}
	items[i] = it
}
