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
type queue struct {
	items []item
}

func (q *queue) len() int { return len(q.items) }

// push adds it in O(log n).
func (q *queue) push(it item) {
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
	items := q.items
	top := items[0]
	n := len(items) - 1
	last := items[n]
	items[n] = item{} // drop the handler reference for the garbage collector
	items = items[:n]
	q.items = items
	if n == 0 {
		return top
	}
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
		if !items[best].before(&last) {
			break
		}
		items[i] = items[best]
		i = best
	}
	items[i] = last
	return top
}
