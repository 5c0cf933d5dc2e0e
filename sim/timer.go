package sim

import "errors"

var errUnbound = errors.New("sim: timer not bound to an Env (Timer.Init)")

// Timer is a wake-up that its owner can move or stop while it is pending,
// so that a plan that changes (a server whose next departure moves earlier)
// costs a move in the queue instead of a new event and a stale one that
// fires later with nothing to do. A Timer fires at PriorityNormal, like
// Call, and runs its function on the scheduler; the function may set the
// timer again.
//
// Timers wait in a heap of their own, beside the event queue, which knows
// every pending timer's place: moving or stopping one costs O(log m) with
// m pending timers and nothing else in the engine pays for it. The engine
// fires the earlier of the two heads by (time, priority, sequence number),
// the order of every event, so a timer set at some moment ties with other
// events exactly as a Call made at that moment would.
//
// The zero Timer is unbound; Init binds it to an Env. A Timer allocates
// nothing when set, moved, stopped or fired.
type Timer struct {
	env *Env
	fn  func()
	at  Time
	key uint64
	pos int // index in env.timers, -1 when not pending
}

// Init binds t to e, to run fn when it fires, stopping it first if it is
// pending. Timers of a Runner-style owner are bound again to each Env they
// serve, keeping their memory.
func (t *Timer) Init(e *Env, fn func()) {
	t.Stop()
	*t = Timer{env: e, fn: fn, pos: -1}
}

// Set makes t fire after delay, whether it was pending or not: it is as if
// t had been stopped and scheduled anew now, so it takes a new sequence
// number and ties with other events like a Call made now. It returns
// ErrClosed once the Env is closed, the errors of Call for a bad delay or
// a nil function, and an error for a Timer never bound by Init; then t is
// unchanged.
func (t *Timer) Set(delay Time) error {
	e := t.env
	if e == nil {
		return errUnbound
	}
	if e.closed || delay < 0 || delay > MaxTime-e.now || t.fn == nil {
		return e.callError(delay, t.fn) // due's checks, here, where the usual path makes no call
	}
	t.at, t.key = e.now+delay, e.nextKey(PriorityNormal)
	if t.pos < 0 {
		e.timers.push(t)
	} else {
		e.timers.fix(t.pos)
	}
	return nil
}

// Stop removes t from the queue and reports whether it was pending.
func (t *Timer) Stop() bool {
	if t.env == nil || t.pos < 0 {
		return false
	}
	t.env.timers.remove(t.pos)
	return true
}

// Pending reports whether t is set and has not fired.
func (t *Timer) Pending() bool { return t.env != nil && t.pos >= 0 }

// When returns the time t fires at; it is meaningful while t is pending.
func (t *Timer) When() Time { return t.at }

func (t *Timer) before(b *Timer) bool {
	return t.at < b.at || (t.at == b.at && t.key < b.key)
}

// beforeItem reports whether t fires before it.
func (t *Timer) beforeItem(it *item) bool {
	return t.at < it.at || (t.at == it.at && t.key < it.key)
}

// timerHeap is a binary min-heap of pending timers, each knowing its index.
type timerHeap struct {
	t []*Timer
}

func (h *timerHeap) len() int { return len(h.t) }

func (h *timerHeap) push(t *Timer) {
	t.pos = len(h.t)
	h.t = append(h.t, t)
	h.up(t.pos)
}

// pop removes and returns the earliest timer. The heap must not be empty.
// It is remove(0) written out: the last timer, moved to the top, can only
// go down (and a server's timer is often the only one).
func (h *timerHeap) pop() *Timer {
	t := h.t[0]
	last := len(h.t) - 1
	if last > 0 {
		h.t[0] = h.t[last]
		h.t[0].pos = 0
	}
	h.t[last] = nil
	h.t = h.t[:last]
	t.pos = -1
	if last > 1 {
		h.down(0)
	}
	return t
}

// remove takes the timer at index i out of the heap.
func (h *timerHeap) remove(i int) {
	t := h.t[i]
	last := len(h.t) - 1
	if i != last {
		h.swap(i, last)
	}
	h.t[last] = nil
	h.t = h.t[:last]
	t.pos = -1
	if i != last {
		h.fix(i)
	}
}

// fix restores the heap after the timer at index i changed its time.
func (h *timerHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *timerHeap) swap(i, j int) {
	h.t[i], h.t[j] = h.t[j], h.t[i]
	h.t[i].pos, h.t[j].pos = i, j
}

func (h *timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.t[i].before(h.t[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down moves the timer at i down and reports whether it moved.
func (h *timerHeap) down(i int) bool {
	start, n := i, len(h.t)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.t[r].before(h.t[l]) {
			m = r
		}
		if !h.t[m].before(h.t[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// drop empties the heap, marking every timer not pending, and keeps its
// memory.
func (h *timerHeap) drop() {
	for _, t := range h.t {
		t.pos = -1
	}
	clear(h.t)
	h.t = h.t[:0]
}
