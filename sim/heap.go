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
// parameter, like a func value, indirectly, and a heap that sifts on every
// event would spend more in those calls than in the sift.
//
// An owner that removes or changes items other than the first learns their
// places from Track. The zero Heap is empty and ready to use. Push, Pop,
// Set and Remove cost O(log n); the rest O(1).
type Heap[K, T cmp.Ordered, V any] struct {
	items []HeapItem[K, T, V]
	moved func(v V, i int)
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

// Track makes the heap call moved with an item's value and its index
// whenever the item takes a new place, so that its owner can find it for
// Set and Remove. An item that leaves the heap is not reported.
func (h *Heap[K, T, V]) Track(moved func(v V, i int)) { h.moved = moved }

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
	if n := len(h.items) - 1; n > 0 {
		h.up(n, it)
	} else if h.moved != nil {
		h.moved(it.Value, 0) // a heap of one, such as a lone server's timer
	}
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
	if len(h.items) == 1 { // a heap of one, such as a lone server's timer
		h.items[0] = it
		if h.moved != nil {
			h.moved(it.Value, 0)
		}
		return
	}
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

// Reset empties the heap, keeping its memory and its Track.
func (h *Heap[K, T, V]) Reset() {
	clear(h.items)
	h.items = h.items[:0]
}

// up puts it at index i, whose item is to be overwritten, and sifts it up
// to its place. Each sift is written twice, with and without Track's
// calls, so that an untracked heap tests for them once, not at every step.
func (h *Heap[K, T, V]) up(i int, it HeapItem[K, T, V]) {
	items := h.items
	if h.moved != nil {
		h.upTracked(i, it)
		return
	}
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
	if h.moved != nil {
		h.downTracked(i, it)
		return
	}
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

// upTracked is up for a heap with Track.
func (h *Heap[K, T, V]) upTracked(i int, it HeapItem[K, T, V]) {
	items, moved := h.items, h.moved
	for i > 0 {
		p := (i - 1) / 2
		if !before(&it, &items[p]) {
			break
		}
		items[i] = items[p]
		moved(items[i].Value, i)
		i = p
	}
	items[i] = it
	moved(it.Value, i)
}

// downTracked is down for a heap with Track.
func (h *Heap[K, T, V]) downTracked(i int, it HeapItem[K, T, V]) {
	items, moved := h.items, h.moved
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
		moved(items[i].Value, i)
		i = c
	}
	items[i] = it
	moved(it.Value, i)
}
