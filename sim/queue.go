package sim

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

// queue is a 4-ary min-heap of items. A 4-ary heap halves the depth of a
// binary heap, and its four children usually share a cache line pair, which
// is what a hold workload (pop the minimum, push a later item) spends its
// time on.
//
// pop leaves the root empty (hole) rather than filling it at once: most
// events schedule another, and a push into the hole sifts the new item
// down from the root, one pass instead of filling the hole with the last
// item and then sifting the new one up. Any correct heap pops in the same
// order, since the order of items is total.
type queue struct {
	items []item
	hole  bool // items[0] is empty; the rest is a heap under it
}

func (q *queue) len() int {
	if q.hole {
		return len(q.items) - 1
	}
	return len(q.items)
}

// head returns the earliest item, which stays queued. The queue must not
// be empty.
func (q *queue) head() *item {
	if q.hole {
		q.fill()
	}
	return &q.items[0]
}

// push adds it in O(log n).
func (q *queue) push(it item) {
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

// pop removes and returns the earliest item in O(log n). The queue must not
// be empty.
func (q *queue) pop() item {
	if q.hole {
		q.fill()
	}
	top := q.items[0]
	if len(q.items) == 1 {
		q.items[0] = item{} // drop the handler reference for the garbage collector
		q.items = q.items[:0]
		return top
	}
	q.hole = true
	return top
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
