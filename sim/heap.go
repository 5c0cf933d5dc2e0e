package sim

import "cmp"

// Heap is a binary min-heap of values, each under a key of two parts
// compared in turn: items are ordered by Key, and items of equal Key by
// Tie. Owners whose order must be total (so that a run is the same on
// every machine) make Tie unique, a sequence number or an id; items equal
// in both pop in no fixed order. Key must not be NaN.
//
// The order is of plain ordered values rather than a method or a function,
// so that the compiler compares them in place: Go calls a method of a type
// parameter, like a func value, indirectly, and a heap that sifts at every
// call of a model would spend more in those calls than in the sift.
//
// The engine's own queues keep their own code: the event queue is a sorted
// run that becomes a 4-ary heap with a hole at its root, and the timers
// and a Resource's waiting requests keep each item's index in the item.
// On this Heap the first cost half as many instructions again per event
// with a thousand pending, and the timers up to a sixth more per move.
//
// An owner that removes or changes an item other than the first finds its
// index with At. The zero Heap is empty and ready to use. Push, Pop, Set
// and Remove cost O(log n); the rest O(1).
type Heap[K, T cmp.Ordered, V any] struct {
	items []HeapItem[K, T, V]
}

// HeapItem is one item of a Heap: a value under its key.
type HeapItem[K, T cmp.Ordered, V any] struct {
	Key   K
	Tie   T // orders items of equal Key
	Value V
}

// before reports whether a comes before b.
func before[K, T cmp.Ordered, V any](a, b *HeapItem[K, T, V]) bool {
	return a.Key < b.Key || a.Key == b.Key && a.Tie < b.Tie
}

// Len returns the number of items.
func (h *Heap[K, T, V]) Len() int { return len(h.items) }

// Top returns the first item, which stays in the heap. The heap must not
// be empty.
func (h *Heap[K, T, V]) Top() *HeapItem[K, T, V] { return &h.items[0] }

// At returns the item at index i, 0 ≤ i < Len(): the heap's items in no
// particular order beyond the first, for a scan.
func (h *Heap[K, T, V]) At(i int) *HeapItem[K, T, V] { return &h.items[i] }

// Push adds it.
func (h *Heap[K, T, V]) Push(it HeapItem[K, T, V]) {
	h.items = append(h.items, it)
	h.up(len(h.items)-1, it)
}

// Pop removes and returns the first item. The heap must not be empty.
func (h *Heap[K, T, V]) Pop() HeapItem[K, T, V] {
	top := h.items[0]
	if last := h.shrink(); len(h.items) > 0 {
		h.down(0, last)
	}
	return top
}

// Set puts it in the place of the item at index i and restores the order:
// Set(0, it) replaces the first item at the cost of one sift, where Pop
// and Push take two.
func (h *Heap[K, T, V]) Set(i int, it HeapItem[K, T, V]) {
	if i > 0 && before(&it, &h.items[(i-1)/2]) {
		h.up(i, it)
		return
	}
	h.down(i, it)
}

// Remove takes out the item at index i and returns it.
func (h *Heap[K, T, V]) Remove(i int) HeapItem[K, T, V] {
	it := h.items[i]
	if last := h.shrink(); i < len(h.items) {
		h.Set(i, last)
	}
	return it
}

// shrink takes the last item off the array and returns it.
func (h *Heap[K, T, V]) shrink() HeapItem[K, T, V] {
	n := len(h.items) - 1
	last := h.items[n]
	var zero HeapItem[K, T, V]
	h.items[n] = zero // drop references for the garbage collector
	h.items = h.items[:n]
	return last
}

// Reset empties the heap, keeping its memory.
func (h *Heap[K, T, V]) Reset() {
	clear(h.items)
	h.items = h.items[:0]
}

// up puts it at index i, whose item is to be overwritten, and sifts it up
// to its place.
func (h *Heap[K, T, V]) up(i int, it HeapItem[K, T, V]) {
	items := h.items
	for i > 0 {
		p := (i - 1) / 2
		if !before(&it, &items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = it
}

// down puts it at index i, whose item is to be overwritten, and sifts it
// down to its place.
func (h *Heap[K, T, V]) down(i int, it HeapItem[K, T, V]) {
	items := h.items
	n := len(items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && before(&items[r], &items[c]) {
			c = r
		}
		if !before(&items[c], &it) {
			break
		}
		items[i] = items[c]
		i = c
	}
	items[i] = it
}
