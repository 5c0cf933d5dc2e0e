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
	key uint64 // priority and sequence number, as the timers order it
	pos int    // index in env.timers, -1 when not pending
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
// ErrClosed once the Env is closed, the errors of Call for a bad delay and
// an error for a Timer never bound by Init; then t is unchanged.
func (t *Timer) Set(delay Time) error {
	e := t.env
	if e == nil {
		return errUnbound
	}
	if e.closed || delay < 0 || delay > MaxTime-e.now {
		return e.callError(delay) // due's checks, here, where the usual path makes no call
	}
	t.at, t.key = e.now+delay, e.nextKey(PriorityNormal)
	it := timerItem{Key: t.at, Tie: t.key, Value: t}
	if t.pos < 0 {
		e.timers.Push(it)
	} else {
		e.timers.Set(t.pos, it)
	}
	return nil
}

// Stop removes t from the queue and reports whether it was pending.
func (t *Timer) Stop() bool {
	if t.env == nil || t.pos < 0 {
		return false
	}
	t.env.timers.Remove(t.pos)
	t.pos = -1
	return true
}

// Pending reports whether t is set and has not fired.
func (t *Timer) Pending() bool { return t.env != nil && t.pos >= 0 }

// When returns the time t fires at; it is meaningful while t is pending.
func (t *Timer) When() Time { return t.at }

// timerHeap holds the pending timers by (time, priority and sequence
// number), each knowing its index.
type timerHeap = Heap[Time, uint64, *Timer]

type timerItem = HeapItem[Time, uint64, *Timer]

// newTimerHeap returns an empty timerHeap that keeps each timer's index.
func newTimerHeap() timerHeap {
	var h timerHeap
	h.Track(func(t *Timer, i int) { t.pos = i })
	return h
}

// firesBefore reports whether the timer t, at the top of the timers,
// fires before it.
func firesBefore(t *timerItem, it *item) bool {
	return t.Key < it.at || (t.Key == it.at && t.Tie < it.key)
}

// popTimer removes and returns the earliest timer. There must be one.
func (e *Env) popTimer() *Timer {
	t := e.timers.Pop().Value
	t.pos = -1
	return t
}

// dropTimers empties the timers, marking every timer not pending, and
// keeps their memory.
func (e *Env) dropTimers() {
	for i := range e.timers.Len() {
		e.timers.At(i).Value.pos = -1
	}
	e.timers.Reset()
}
