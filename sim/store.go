package sim

import (
	"errors"
	"fmt"
)

// Store is a mailbox: a FIFO buffer of items of type T that processes put
// into and get from, waiting when it is full or empty. A capacity of 0
// means unbounded, so that Put never waits.
//
// Getters are served in the order they started waiting; GetFunc waits for
// the first item that satisfies a test, and a getter whose test fails does
// not hold up later getters. A Put that finds a waiting getter hands its
// item over directly. Putters that find the store full wait in FIFO order.
//
// An item handed to a waiting getter keeps its slot of the capacity until
// the getter's wait ends (at the same virtual time); if the getter is
// interrupted in between, the item goes back to the front of the store.
// Likewise a waiting putter is granted a slot before its wait ends, and
// stores its item only when the wait ends. So an interrupted Put stores
// nothing, an interrupted Get takes nothing, and no item is lost or
// duplicated.
//
// Store uses only the public event API: every wait is for an Event.
type Store[T any] struct {
	env      *Env
	capacity int
	items    ring[T]
	getters  ring[*storeGetter[T]]
	putters  ring[*storePutter[T]]
	// reserved counts slots held by items handed to getters, and slots
	// granted to putters, whose waits have not yet ended.
	reserved int
}

type storeGetter[T any] struct {
	ev     *Event
	match  func(T) bool // nil matches anything
	v      T
	handed bool
}

type storePutter[T any] struct {
	ev      *Event
	v       T
	granted bool
}

// NewStore returns an empty store holding at most capacity items; 0 means
// unbounded. It panics if capacity is negative.
func NewStore[T any](env *Env, capacity int) *Store[T] {
	if capacity < 0 {
		panic(fmt.Sprintf("sim: NewStore with negative capacity %d", capacity))
	}
	return &Store[T]{env: env, capacity: capacity}
}

// Len returns the number of items in the store (not counting items already
// handed to getters whose wait has not ended).
func (s *Store[T]) Len() int { return s.items.len() }

// Cap returns the capacity; 0 means unbounded.
func (s *Store[T]) Cap() int { return s.capacity }

// Getters returns the number of processes waiting to get an item.
func (s *Store[T]) Getters() int { return s.getters.len() }

// Putters returns the number of processes waiting to put an item.
func (s *Store[T]) Putters() int { return s.putters.len() }

// room reports whether one more item fits.
func (s *Store[T]) room() bool {
	return s.capacity == 0 || s.items.len()+s.reserved < s.capacity
}

// Put adds v to the store, waiting while the store is full. If p is
// interrupted while it waits, v is not stored and the *Interrupt is
// returned. If there is room and no putter is waiting, Put returns at once
// without suspending p.
func (s *Store[T]) Put(p *Proc, v T) error {
	if p == nil {
		return errors.New("sim: Put needs a process (TryPut does not)")
	}
	if p.Env() != s.env {
		return fmt.Errorf("sim: process %q puts into a store of another environment", p.Name())
	}
	// Put is a wait of p even when there is room: checked before TryPut
	// stores v, as Wait checks before it waits.
	if err := p.enter(); err != nil {
		return err
	}
	if s.TryPut(v) {
		return nil
	}
	pu := &storePutter[T]{ev: s.env.NewEvent("put"), v: v}
	s.putters.pushBack(pu)
	if _, err := p.Await(pu.ev); err != nil {
		if pu.granted {
			s.reserved--
			s.admit() // pass the slot on
		} else {
			s.putters.removeAt(indexOf(&s.putters, pu))
		}
		return err
	}
	s.reserved--
	s.offer(v)
	return nil
}

// TryPut adds v if there is room and no putter is waiting, and reports
// whether it did. It never waits, so callbacks can use it.
func (s *Store[T]) TryPut(v T) bool {
	if s.putters.len() > 0 || !s.room() {
		return false
	}
	s.offer(v)
	return true
}

// Get removes and returns the oldest item, waiting while the store is
// empty. If p is interrupted while it waits, nothing is taken and the
// *Interrupt is returned. If an item is there, Get returns at once without
// suspending p.
func (s *Store[T]) Get(p *Proc) (T, error) {
	return s.GetFunc(p, nil)
}

// GetFunc removes and returns the oldest item for which match returns true,
// waiting until there is one. A nil match accepts any item. match must not
// use the store. Cost: O(n) in the items scanned.
//
// Only items in the store are candidates: in a full bounded store, an item
// that a waiting putter holds becomes one when a slot frees, so a GetFunc
// that matches nothing stored waits until other getters make room.
func (s *Store[T]) GetFunc(p *Proc, match func(T) bool) (T, error) {
	var zero T
	if p == nil {
		return zero, errors.New("sim: Get needs a process")
	}
	if p.Env() != s.env {
		return zero, fmt.Errorf("sim: process %q gets from a store of another environment", p.Name())
	}
	// As in Put: checked before an item is taken.
	if err := p.enter(); err != nil {
		return zero, err
	}
	for i := range s.items.len() {
		if v := s.items.at(i); match == nil || match(v) {
			s.items.removeAt(i)
			s.admit()
			return v, nil
		}
	}
	g := &storeGetter[T]{ev: s.env.NewEvent("get"), match: match}
	s.getters.pushBack(g)
	if _, err := p.Await(g.ev); err != nil {
		if g.handed {
			s.reserved--
			s.putBack(g.v)
		} else {
			s.getters.removeAt(indexOf(&s.getters, g))
		}
		return zero, err
	}
	s.reserved--
	s.admit()
	return g.v, nil
}

// offer places v, for which there is room: with the first waiting getter
// that accepts it, or at the back of the store.
func (s *Store[T]) offer(v T) {
	if !s.handOff(v) {
		s.items.pushBack(v)
	}
}

// putBack returns v, which an interrupted getter was handed, to where it
// came from: the first waiting getter that accepts it, or the front of the
// store. Its slot was freed by the caller.
func (s *Store[T]) putBack(v T) {
	if !s.handOff(v) {
		s.items.pushFront(v)
	}
}

// handOff gives v to the first waiting getter that accepts it, if any; the
// item then holds a slot until the getter's wait ends.
func (s *Store[T]) handOff(v T) bool {
	for i := range s.getters.len() {
		g := s.getters.at(i)
		if g.match == nil || g.match(v) {
			s.getters.removeAt(i)
			g.v, g.handed = v, true
			s.reserved++
			// Succeed can only fail on a closed Env, where nothing runs any more.
			_ = g.ev.Succeed(nil)
			return true
		}
	}
	return false
}

// admit grants free slots to waiting putters, in order.
func (s *Store[T]) admit() {
	for s.putters.len() > 0 && s.room() {
		pu := s.putters.popFront()
		pu.granted = true
		s.reserved++
		_ = pu.ev.Succeed(nil)
	}
}

// ring is a double-ended queue in a circular buffer.
type ring[E any] struct {
	buf  []E
	head int
	n    int
}

func (q *ring[E]) len() int { return q.n }

func (q *ring[E]) at(i int) E { return q.buf[(q.head+i)%len(q.buf)] }

func (q *ring[E]) grow() {
	if q.n < len(q.buf) {
		return
	}
	buf := make([]E, max(8, 2*len(q.buf)))
	for i := range q.n {
		buf[i] = q.at(i)
	}
	q.buf, q.head = buf, 0
}

func (q *ring[E]) pushBack(v E) {
	q.grow()
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

func (q *ring[E]) pushFront(v E) {
	q.grow()
	q.head = (q.head + len(q.buf) - 1) % len(q.buf)
	q.buf[q.head] = v
	q.n++
}

func (q *ring[E]) popFront() E {
	var zero E
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v
}

// removeAt removes the i-th element, shifting the ones after it. O(n-i).
func (q *ring[E]) removeAt(i int) {
	if i == 0 {
		q.popFront()
		return
	}
	var zero E
	size := len(q.buf)
	for j := i; j < q.n-1; j++ {
		q.buf[(q.head+j)%size] = q.buf[(q.head+j+1)%size]
	}
	q.buf[(q.head+q.n-1)%size] = zero
	q.n--
}

// indexOf returns the position of v, which must be in q.
func indexOf[E comparable](q *ring[E], v E) int {
	for i := range q.n {
		if q.at(i) == v {
			return i
		}
	}
	panic("sim: store waiter not found")
}
