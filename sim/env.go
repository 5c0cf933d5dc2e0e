package sim

import (
	"errors"
	"fmt"
	"slices"
)

// Priority orders events that fall due at the same instant: lower values
// fire first. Within one priority, events fire in the order they were
// scheduled.
type Priority uint8

// Priorities used by the engine. Interrupts and process starts are PriorityUrgent,
// so that they take effect before anything else planned for the same instant.
const (
	PriorityUrgent Priority = 0
	PriorityNormal Priority = 1
	PriorityLate   Priority = 2
)

// Errors reported by the engine. Each is wrapped with details; test with
// errors.Is.
var (
	ErrNoEvents      = errors.New("sim: no events scheduled")
	ErrNegativeDelay = errors.New("sim: negative delay")
	ErrTimeOverflow  = errors.New("sim: virtual time overflow")
	ErrEventLimit    = errors.New("sim: event limit reached")
	ErrTimeLimit     = errors.New("sim: virtual time limit reached")
	ErrClosed        = errors.New("sim: environment closed")
	ErrNotActive     = errors.New("sim: called outside the running process")
)

// Limits bound a run so that a runaway model ends with an error instead of
// a hang. A zero field means no bound.
type Limits struct {
	// MaxEvents is the most events one Env may process in its lifetime.
	MaxEvents uint64
	// MaxTime is the latest virtual time an event may fire at. It bounds
	// the events, not the clock: RunUntil(t) with t past MaxTime moves the
	// clock to t when no event falls due before t, and the first event
	// due from then on reports the limit.
	MaxTime Time
}

// Kind says what fired, for observers.
type Kind uint8

// Kinds of firing reported to an Observer.
const (
	KindCallback Kind = iota
	KindProcess
	KindEvent
	KindInterrupt
)

func (k Kind) String() string {
	switch k {
	case KindProcess:
		return "process"
	case KindEvent:
		return "event"
	case KindInterrupt:
		return "interrupt"
	}
	return "callback"
}

// Record describes one firing, in the order the engine processes them.
type Record struct {
	Seq      uint64 // the sequence number given when it was scheduled
	Time     Time
	Priority Priority
	Kind     Kind
	Name     string // process or event name; empty for anonymous callbacks
}

// Observer is told about every firing before it happens; it is the hook for
// tracing and event logs. It must not schedule or trigger anything.
type Observer interface {
	Observe(Record)
}

// handler is what the queue holds: anything that can be fired.
type handler interface {
	fire(e *Env, key uint64)
	describe() (Kind, string)
}

// Env is a simulation environment: a virtual clock and the queue of events
// due on it. Exactly one thing runs at a time: the scheduler fires one
// event, which may resume one process, which runs until it waits again.
//
// The zero Env is ready to use, with the clock at 0 and no limits.
// An Env must be used from one goroutine.
type Env struct {
	now    Time
	q      queue
	timers timerHeap // pending Timers, beside q
	seq    uint64
	fired  uint64
	limits Limits
	obs    Observer
	active *Proc
	live   procList
	err    error // a failure that stops the run
	closed bool
	stop   bool // Stop was called during the RunThrough in progress
	// running is set while Step or a run loop is on the stack, so that
	// one called from an event of that run is refused (enterRun).
	running bool
	// nowFn is a callback due now that fires before everything pending:
	// a Call with no delay made when nothing else is due by now, as most
	// of the collective's zero-delay steps are. It waits here, not in the
	// queue, saving a push and a pop; nowKey is the key it took, so that
	// it fires exactly where the queue would have put it. nil if none.
	nowFn  func()
	nowKey uint64
	// closedItems and closedTimers keep the queues' memory after Close,
	// for Reset.
	closedItems  []item
	closedTimers []*Timer
}

// New returns an environment with the given limits.
func New(limits Limits) *Env {
	return &Env{limits: limits}
}

// Now returns the current virtual time.
func (e *Env) Now() Time { return e.now }

// Fired returns the number of events processed so far.
func (e *Env) Fired() uint64 { return e.fired }

// Pending returns the number of events scheduled and not yet processed,
// including stale timers of interrupted waits.
func (e *Env) Pending() int {
	n := e.q.len() + e.timers.len()
	if e.nowFn != nil {
		n++
	}
	return n
}

// Peek returns the time of the next scheduled event, or MaxTime if none.
func (e *Env) Peek() Time {
	if e.nowFn != nil {
		return e.now
	}
	if e.timers.len() > 0 {
		return e.peekWithTimers()
	}
	if e.q.len() == 0 {
		return MaxTime
	}
	return e.q.head().at
}

// peekWithTimers is Peek when timers are pending.
func (e *Env) peekWithTimers() Time {
	at := e.timers.t[0].at
	if e.q.len() > 0 {
		at = min(at, e.q.head().at)
	}
	return at
}

// nextTimer returns the pending timer that fires before everything in the
// event queue, or nil if the queue's head comes first.
func (e *Env) nextTimer() *Timer {
	if e.timers.len() == 0 {
		return nil
	}
	t := e.timers.t[0]
	if e.q.len() > 0 && !t.beforeItem(e.q.head()) {
		return nil
	}
	return t
}

// Elide counts n events as processed, as if they had fired: Fired and the
// event limit include them. It is for a model that works out a run of its
// own events in one step, where it has shown that firing them one by one
// would change nothing but the count (the collective's runs of model
// calls), so that the count stays that of the events fired one by one. It
// checks no limit: the model keeps the count below it, and a RunThrough in
// progress bounds only the events it fires itself.
func (e *Env) Elide(n uint64) { e.fired += n }

// PendingAt reports whether an event is pending at one of the instants in
// ts, which must be in increasing order; timers are not looked at (their
// owners know when they are due). A model that works out a run of its own
// events in one step checks with it that none of them ties with an event
// already scheduled, whose order against them the sequence numbers would
// decide. It costs O(pending + len(ts)) while the queue is a sorted run,
// O(pending · log len(ts)) beyond.
func (e *Env) PendingAt(ts []Time) bool {
	if e.nowFn != nil {
		if _, found := slices.BinarySearch(ts, e.now); found {
			return true
		}
	}
	return e.q.anyAt(ts)
}

// SetObserver installs o to be told about every firing; nil removes it.
func (e *Env) SetObserver(o Observer) { e.obs = o }

// schedule queues h to fire delay after now and returns its key. The
// caller has checked that delay is valid.
func (e *Env) schedule(at Time, prio Priority, h handler) uint64 {
	key := e.nextKey(prio)
	if e.nowFn != nil && at == e.now && key < e.nowKey {
		e.queueNow() // an urgent event now goes first
	}
	e.q.push(item{at: at, key: key, h: h})
	return key
}

// queueNow moves nowFn into the queue, where it keeps its place by its
// key: something is to go before it.
func (e *Env) queueNow() {
	e.q.push(item{at: e.now, key: e.nowKey, h: callback(e.nowFn)})
	e.nowFn = nil
}

// nextKey returns the key of the next event scheduled at priority prio:
// the priority above the next sequence number.
func (e *Env) nextKey(prio Priority) uint64 {
	e.seq++
	return uint64(prio)<<seqBits | e.seq
}

// due checks a delay and returns the instant it ends at.
func (e *Env) due(delay Time) (Time, error) {
	if delay < 0 {
		return 0, fmt.Errorf("%w: %v", ErrNegativeDelay, delay)
	}
	if delay > MaxTime-e.now {
		return 0, fmt.Errorf("%w: %v after %v", ErrTimeOverflow, delay, e.now)
	}
	return e.now + delay, nil
}

// callback adapts a plain function to the queue; func values are
// pointer-shaped, so the conversion allocates nothing.
type callback func()

func (f callback) fire(*Env, uint64)        { f() }
func (f callback) describe() (Kind, string) { return KindCallback, "" }

// Call schedules fn to run after delay, at PriorityNormal priority. Callbacks are
// the cheapest kind of event: no process, no coroutine switch, just a heap
// operation, or none for a call with no delay made when nothing else is due
// by now. fn runs on the scheduler and must not wait; a nil fn is an error.
func (e *Env) Call(delay Time, fn func()) error {
	return e.CallPriority(delay, PriorityNormal, fn)
}

// CallPriority is Call with an explicit priority.
func (e *Env) CallPriority(delay Time, prio Priority, fn func()) error {
	if e.closed || delay < 0 || delay > MaxTime-e.now || fn == nil {
		return e.callError(delay, fn) // checked here too, as due would: a Call is the most common event
	}
	key := e.nextKey(prio)
	if delay == 0 {
		now := e.now
		switch {
		case e.nowFn == nil && prio <= PriorityNormal && e.q.after(now) && (e.timers.len() == 0 || e.timers.t[0].at > now):
			// Nothing can fire before it: no queue. A later push can
			// only go before it with a lower priority (schedule's check);
			// Wait and Timer, at PriorityNormal, cannot.
			e.nowFn, e.nowKey = fn, key
			return nil
		case e.nowFn != nil && key < e.nowKey:
			e.queueNow()
		}
	}
	e.q.push(item{at: e.now + delay, key: key, h: callback(fn)}) // schedule, without a call
	return nil
}

// callError is the error of a Call that cannot be scheduled.
func (e *Env) callError(delay Time, fn func()) error {
	if e.closed {
		return ErrClosed
	}
	if fn == nil {
		// Scheduled, a nil function would panic when it fired, far from the
		// call; with no delay it stood for "no call due now" and was lost.
		return errors.New("sim: the function to call is nil (Call's fn, or Timer.Init's)")
	}
	_, err := e.due(delay)
	return err
}

// Step processes the next event. It returns ErrNoEvents when nothing is
// scheduled, a limit error when a bound in Limits is reached, or the error
// of a failure that nothing handled (a process that panicked, or failed
// with nobody waiting for it). Called from an event of a run of the same
// Env, it fires nothing and fails that run (see Run).
func (e *Env) Step() error {
	if err := e.enterRun("Step"); err != nil {
		return err
	}
	// Not deferred, unlike the run loops' leaveRun: a caller may step
	// once an event, and a deferred call cost the callback path a tenth
	// of its instructions. A panic of a callback that leaves Step leaves
	// the Env marked as running, which a panic leaves unusable anyway.
	err := e.fireNext()
	e.leaveRun()
	return err
}

// enterRun marks the start of Step or a run loop, or, when one is in
// progress already, refuses the call and fails that run. A run cannot
// nest: the inner loop fires events from inside the event in progress,
// so the running process's own interrupt resumes a coroutine that is
// running (an iter.Pull panic), a callback it fires counts as that process
// and can suspend it with the inner loop half done while the outer one
// goes on, and an inner RunUntil or Step can take the clock past the
// outer RunUntil's end, which then sets it back. The run fails too, so
// that the mistake surfaces even where the caller drops the error.
func (e *Env) enterRun(method string) error {
	if e.running {
		return e.nested(method)
	}
	e.running = true
	return nil
}

// nested is enterRun's refusal, out of line so that enterRun is inlined.
func (e *Env) nested(method string) error {
	err := fmt.Errorf("sim: %s called at %v from an event of a run of the same Env (a callback, a process or an OnDone function): runs do not nest; schedule the work as events of the run instead", method, e.now)
	e.fail(err)
	return err
}

// leaveRun marks the end of what enterRun started. The run loops defer
// it, so that a panic that leaves a callback does not leave the Env
// marked as running.
func (e *Env) leaveRun() { e.running = false }

// fireNext processes the next event: the body of Step and of the run loops.
func (e *Env) fireNext() error {
	if e.err != nil {
		return e.err
	}
	if e.nowFn != nil {
		return e.fireNow()
	}
	if e.timers.len() > 0 {
		if t := e.nextTimer(); t != nil {
			return e.fireTimer(t)
		}
	}
	if e.q.len() == 0 {
		return e.cannotStep()
	}
	next := e.q.head()
	if e.limits.MaxEvents != 0 && e.fired >= e.limits.MaxEvents || e.limits.MaxTime != 0 && next.at > e.limits.MaxTime {
		return e.limitReached(next.at)
	}
	it := e.q.pop()
	e.now = it.at
	e.fired++
	if e.obs != nil {
		kind, name := it.h.describe()
		e.obs.Observe(Record{Seq: it.key & seqMask, Time: it.at, Priority: Priority(it.key >> seqBits), Kind: kind, Name: name})
	}
	it.h.fire(e, it.key)
	return e.err
}

// fireNow fires nowFn, the earliest of everything scheduled.
func (e *Env) fireNow() error {
	if e.limits.MaxEvents != 0 && e.fired >= e.limits.MaxEvents || e.limits.MaxTime != 0 && e.now > e.limits.MaxTime {
		return e.limitReached(e.now)
	}
	fn := e.nowFn
	e.nowFn = nil
	e.fired++
	if e.obs != nil {
		e.observeNow()
	}
	fn()
	return e.err
}

// observeNow shows the observer the firing of nowFn.
func (e *Env) observeNow() {
	e.obs.Observe(Record{Seq: e.nowKey & seqMask, Time: e.now, Priority: Priority(e.nowKey >> seqBits), Kind: KindCallback})
}

// fireTimer fires t, the earliest of everything scheduled.
func (e *Env) fireTimer(t *Timer) error {
	if e.limits.MaxEvents != 0 && e.fired >= e.limits.MaxEvents || e.limits.MaxTime != 0 && t.at > e.limits.MaxTime {
		return e.limitReached(t.at)
	}
	e.timers.pop()
	e.runTimer(t)
	return e.err
}

// runTimer fires t, which has left the timers.
func (e *Env) runTimer(t *Timer) {
	e.now = t.at
	e.fired++
	if e.obs != nil {
		e.observeTimer(t) // apart, so that runTimer is inlined
	}
	t.fn()
}

// observeTimer shows the observer the firing of t.
func (e *Env) observeTimer(t *Timer) {
	e.obs.Observe(Record{Seq: t.key & seqMask, Time: t.at, Priority: Priority(t.key >> seqBits), Kind: KindCallback})
}

// limitReached records which bound of Limits the next event, due at next,
// would break.
func (e *Env) limitReached(next Time) error {
	if e.limits.MaxEvents != 0 && e.fired >= e.limits.MaxEvents {
		e.err = fmt.Errorf("%w: %d events processed by %v", ErrEventLimit, e.fired, e.now)
	} else {
		e.err = fmt.Errorf("%w: next event at %v is past %v", ErrTimeLimit, next, e.limits.MaxTime)
	}
	return e.err
}

// cannotStep says why there is no event to process.
func (e *Env) cannotStep() error {
	switch {
	case e.err != nil:
		return e.err
	case e.closed:
		return ErrClosed
	}
	return ErrNoEvents
}

// Run processes events until none are left. It returns nil when the queue
// runs dry, or the first error Step would report: ErrClosed on a closed Env,
// also one that an event of this run closed.
//
// Run, RunUntil, RunThrough and Step must not be called from an event of
// a run in progress on the same Env (a callback, a process, an OnDone
// function): such a call fires nothing and returns an error, which also
// stops the run in progress with it.
func (e *Env) Run() error {
	if err := e.enterRun("Run"); err != nil {
		return err
	}
	defer e.leaveRun()
	if e.err == nil && e.closed {
		return ErrClosed // as Step reports it: the closed Env dropped what was scheduled
	}
	for e.err == nil && e.Pending() > 0 {
		if err := e.fireNext(); err != nil {
			return err
		}
	}
	if e.err == nil && e.closed {
		return ErrClosed // closed by an event of this run, which dropped the rest
	}
	return e.err
}

// RunUntil processes every event due strictly before t, then sets the clock
// to t. Events due at t or later stay scheduled. t before Now is an error,
// and so is a closed Env (ErrClosed), whose clock stays where it was, also
// when an event of this run closed it. As Run, it is refused from an
// event of a run in progress.
//
// Limits.MaxTime bounds the events RunUntil fires, not t: an event due
// after MaxTime and before t is ErrTimeLimit, with the clock left at the
// last event fired, as Run reports it; with none, the clock moves to t,
// also past MaxTime, without an error.
func (e *Env) RunUntil(t Time) error {
	if err := e.enterRun("RunUntil"); err != nil {
		return err
	}
	defer e.leaveRun()
	if t < e.now {
		return fmt.Errorf("sim: RunUntil(%v) is before the current time %v", t, e.now)
	}
	if e.err == nil && e.closed {
		return ErrClosed // and the clock stays: nothing happens on a closed Env
	}
	for e.err == nil && e.Pending() > 0 && e.Peek() < t {
		if err := e.fireNext(); err != nil {
			return err
		}
	}
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return ErrClosed // closed by an event of this run: the clock stays
	}
	e.now = t
	return nil
}

// RunThrough fires the events due at or before t, in order, until Stop is
// called, n events have fired, or the next event is due after t (or none
// is left). It returns the time of the next event, MaxTime if none, and
// the first error Step would report. Unlike RunUntil it leaves the clock
// at the last event fired. As Run, it is refused from an event of a run in
// progress.
//
// It is Step in a loop, for a model that runs one episode to its end: the
// checks that Step makes once per event (the limits, the caller's own
// "is it over?") are made once per call, or on the event that ends the
// run, which costs a long series of short events a good part of its
// engine time.
func (e *Env) RunThrough(t Time, n uint64) (Time, error) {
	if err := e.enterRun("RunThrough"); err != nil {
		return e.Peek(), err
	}
	defer e.leaveRun()
	e.stop = false
	if e.err != nil {
		return e.Peek(), e.err // a failure sticks, as for Step: the limits below would replace it
	}
	if e.closed {
		return e.Peek(), ErrClosed
	}
	// The event limit becomes a bound on n: the call that would fire the
	// event past it reports the limit, as Step does.
	if m := e.limits.MaxEvents; m != 0 {
		if e.fired >= m {
			if e.Pending() > 0 && e.Peek() <= t {
				return e.Peek(), e.limitReached(e.Peek())
			}
			return e.Peek(), e.err
		}
		n = min(n, m-e.fired)
	}
	// So does the time limit: an event due after it and by t is an error.
	through := t
	if m := e.limits.MaxTime; m != 0 {
		through = min(t, m)
	}
	for ; n > 0 && !e.stop; n-- { // a failure stops it too
		if fn := e.nowFn; fn != nil {
			if e.now > through {
				break
			}
			// fireNow's firing, written out as the queue's is below.
			e.nowFn = nil
			e.fired++
			if e.obs != nil {
				e.observeNow()
			}
			fn()
			continue
		}
		if e.timers.len() > 0 {
			// A shared server's timer is pending through most of an
			// episode: its events must not make every event slower.
			// nextTimer, written out.
			if t := e.timers.t[0]; e.q.len() == 0 || t.beforeItem(e.q.head()) {
				if t.at > through {
					break
				}
				e.timers.pop()
				e.runTimer(t)
				continue
			}
		}
		if e.q.len() == 0 {
			break
		}
		if e.q.head().at > through {
			break
		}
		// fireNext's firing, written out: as a function of its own it
		// is not inlined, and the call per event cost 2% of a training's
		// instructions.
		it := e.q.pop()
		e.now = it.at
		e.fired++
		if e.obs != nil {
			kind, name := it.h.describe()
			e.obs.Observe(Record{Seq: it.key & seqMask, Time: it.at, Priority: Priority(it.key >> seqBits), Kind: kind, Name: name})
		}
		it.h.fire(e, it.key)
	}
	stopped := e.stop
	e.stop = false
	next := e.Peek()
	if e.err == nil && e.closed {
		return next, ErrClosed // closed by an event of this call
	}
	if e.err == nil && !stopped && next > through && next <= t {
		return next, e.limitReached(next)
	}
	return next, e.err
}

// Stop makes the RunThrough in progress return once the event being fired
// is done: a model whose run ends at an event says so at no cost to the
// events before it. Outside RunThrough it does nothing.
func (e *Env) Stop() { e.stop = true }

// fail records the first unhandled failure; it stops the run, and a
// RunThrough in progress as Stop does, so that its loop need not look at
// the error after every event.
func (e *Env) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	e.stop = true
}

// Reset returns the environment to the state New(limits) gives, keeping the
// memory of its event queue, so that a series of runs on one Env allocates
// nothing once the queue has grown. Processes still waiting are ended
// first, as by Close. The observer is removed.
func (e *Env) Reset(limits Limits) {
	e.Close()
	items, timers := e.closedItems[:0], e.closedTimers[:0]
	*e = Env{limits: limits, running: e.running} // reset by an event, the run is still on the stack
	e.q.items, e.timers.t = items, timers
}

// Close ends every process still waiting, so that their coroutines are
// released, and drops all scheduled events. Waits in those processes return
// ErrClosed; a process must then return. The Env cannot be used afterwards.
// Close is how a long series of episodes avoids leaking suspended processes.
//
// A callback or a process may call Close during a run: the run loop then
// returns ErrClosed, and a process that closes its own Env goes on to its
// end, its waits returning ErrClosed.
func (e *Env) Close() {
	if e.closed {
		return
	}
	e.closed = true
	e.nowFn = nil
	if p := e.active; p != nil {
		// Closed by the running process: its coroutine is the one running,
		// and stopping it from inside would hand control back to the
		// scheduler with the rest of Close undone (events went on firing
		// and the process never ended). It is left to end itself: it is
		// no longer the running process, so that its waits return
		// ErrClosed, and its end reports nothing.
		e.live.remove(p)
		p.closed = true
		e.active = nil
	}
	for p := e.live.head; p != nil; p = e.live.head {
		e.live.remove(p)
		p.stop()
	}
	clear(e.q.items) // drop the handlers for the garbage collector
	e.closedItems = e.q.items[:0]
	e.q = queue{}
	e.timers.drop()
	e.closedTimers = e.timers.t
	e.timers.t = nil
}
