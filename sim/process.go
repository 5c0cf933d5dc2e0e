package sim

import (
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
)

// errNilProcess is the failure of a process given a nil function.
var errNilProcess = errors.New("sim: the process's function is nil (Env.Process's fn)")

// Interrupt is the error a waiting process receives when another part of the
// model interrupts it. Cause says why (a deadline, a preemption).
type Interrupt struct {
	Cause any
}

func (i *Interrupt) Error() string { return fmt.Sprintf("sim: interrupted: %v", i.Cause) }

// IsInterrupt reports whether err is, or wraps, an *Interrupt.
func IsInterrupt(err error) bool {
	var i *Interrupt
	return errors.As(err, &i)
}

// Proc is a process: a Go function that runs on the virtual clock and waits
// with Wait, Await and the resource and store operations, written as
// straight-line code. Each process is a coroutine (iter.Pull), so a switch
// between the scheduler and a process costs tens of nanoseconds and exactly
// one process runs at a time.
//
// A process ends when its function returns. An error it returns fails its
// Done event; if nobody waits for that, the run stops with the error. An
// error that is, or wraps, an *Interrupt counts as an orderly stop.
type Proc struct {
	// The fields every wait touches come first, in one cache line: with
	// thousands of processes, each event otherwise misses twice.
	env       *Env
	wake      uint64 // key of the queue item that may resume us; 0 if none
	next      func() (struct{}, bool)
	yield     func(struct{}) bool
	resumeErr error // delivered by the wait that resumes

	name      string
	fn        func(*Proc) error
	stop      func()
	waitingOn *Event
	done      *Event
	finished  bool
	err       error
	// closed is set when the Env was closed (or reset) by this process
	// while it ran: its waits return ErrClosed and its end reports
	// nothing, also on an Env that Reset made usable again.
	closed bool

	prev, nextLive *Proc // the Env's list of live processes
}

// Process starts fn as a new process at the current time, before other
// events due now (its start is PriorityUrgent). The name identifies it in
// errors and traces. A nil fn is a process that fails at its start, with
// an error that says so.
func (e *Env) Process(name string, fn func(*Proc) error) *Proc {
	if fn == nil {
		// Run, a nil function would panic in the coroutine, and the run
		// would stop on a nil dereference in the engine's stack.
		fn = func(*Proc) error { return errNilProcess }
	}
	p := &Proc{env: e, name: name, fn: fn}
	if e.closed {
		p.finished, p.err = true, ErrClosed
		return p
	}
	p.next, p.stop = iter.Pull(p.body)
	e.live.add(p)
	p.wake = e.schedule(e.now, PriorityUrgent, p)
	return p
}

// body is the coroutine: it runs fn and records how it ended.
func (p *Proc) body(yield func(struct{}) bool) {
	p.yield = yield
	defer func() {
		if r := recover(); r != nil {
			p.env.fail(fmt.Errorf("sim: process %q panicked at %v: %v\n%s", p.name, p.env.now, r, debug.Stack()))
			p.finish(fmt.Errorf("sim: process %q panicked: %v", p.name, r))
		}
	}()
	p.finish(p.fn(p))
}

func (p *Proc) finish(err error) {
	if p.finished {
		return
	}
	p.finished, p.err = true, err
	p.env.live.remove(p)
	if p.env.closed || p.closed {
		return
	}
	if p.done == nil && (err == nil || IsInterrupt(err) || errors.Is(err, ErrClosed)) {
		return // nobody can be waiting, and there is no failure to report
	}
	if p.done == nil {
		p.done = p.newDone()
	}
	if err != nil && !IsInterrupt(err) {
		p.done.trigger(nil, fmt.Errorf("process %q: %w", p.name, err))
		return
	}
	// An interrupted end is not a failure of the run, but waiters learn of it.
	p.done.state, p.done.err, p.done.orderly = triggered, err, true
	if len(p.done.waiters) > 0 || err == nil {
		p.env.schedule(p.env.now, PriorityNormal, p.done)
	} else {
		p.done.state = processed
	}
}

// Name returns the process's name.
func (p *Proc) Name() string { return p.name }

// Env returns the environment the process runs in.
func (p *Proc) Env() *Env { return p.env }

// Now returns the current virtual time.
func (p *Proc) Now() Time { return p.env.now }

// Finished reports whether the process has returned.
func (p *Proc) Finished() bool { return p.finished }

// Err returns the error the process returned (after it has finished).
func (p *Proc) Err() error { return p.err }

// Done returns an event processed when the process ends. It fails with the
// process's error, if any. Only the process's end triggers it: Succeed and
// Fail on it are errors.
func (p *Proc) Done() *Event {
	if p.done == nil {
		p.done = p.newDone()
		if p.finished {
			// marked as finish would have marked it, for a condition over it
			p.done.state, p.done.err, p.done.orderly = processed, p.err, p.err == nil || IsInterrupt(p.err)
		}
	}
	return p.done
}

// newDone returns the process's Done event, which only its end triggers.
func (p *Proc) newDone() *Event {
	return &Event{env: p.env, name: p.name, engine: true}
}

func (p *Proc) describe() (Kind, string) { return KindProcess, p.name }

// fire resumes the process if key is the wake-up it is waiting for; an
// interrupted wait leaves its timer in the queue, and that stale item is
// recognised here and ignored.
func (p *Proc) fire(_ *Env, key uint64) {
	if key != p.wake {
		return
	}
	p.wake = 0
	p.resume()
}

func (p *Proc) onEvent(ev *Event) {
	if p.waitingOn != ev {
		return
	}
	p.waitingOn = nil
	p.resume()
}

func (p *Proc) resume() {
	e := p.env
	prev := e.active
	e.active = p
	p.next()
	e.active = prev
}

// enter checks that p is the running process.
func (p *Proc) enter() error {
	if p.env.active != p {
		if p.env.closed || p.closed {
			return ErrClosed
		}
		return fmt.Errorf("%w: process %q", ErrNotActive, p.name)
	}
	return nil
}

// suspend hands control back to the scheduler until something resumes p.
func (p *Proc) suspend() error {
	if !p.yield(struct{}{}) {
		// Close stopped the coroutine: never yield again.
		p.env.active = nil
		return ErrClosed
	}
	err := p.resumeErr
	p.resumeErr = nil
	return err
}

// Wait suspends the process for d of virtual time. It returns an *Interrupt
// if the process is interrupted first, and an error for a negative d or a
// call from outside the running process.
func (p *Proc) Wait(d Time) error {
	e := p.env
	if e.active != p || d < 0 || d > MaxTime-e.now {
		return p.waitChecked(d)
	}
	// The hot path of every process model, kept free of calls but the
	// queue push and the switch back to the scheduler.
	e.seq++
	p.wake = uint64(PriorityNormal)<<seqBits | e.seq
	e.q.push(item{at: e.now + d, key: p.wake, h: p})
	return p.suspend()
}

// waitChecked is Wait with every check spelled out and reported.
func (p *Proc) waitChecked(d Time) error {
	if err := p.enter(); err != nil {
		return err
	}
	at, err := p.env.due(d)
	if err != nil {
		return err
	}
	p.wake = p.env.schedule(at, PriorityNormal, p)
	return p.suspend()
}

// Await suspends the process until ev has been processed and returns its
// value and error. If ev was processed already, Await returns at once.
// Awaiting a failed event handles its failure.
func (p *Proc) Await(ev *Event) (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	if ev == nil || ev.env != p.env {
		if ev == nil {
			return nil, fmt.Errorf("sim: process %q awaits a nil event", p.name)
		}
		return nil, fmt.Errorf("sim: process %q awaits event %q of another environment", p.name, ev.name)
	}
	if ev.state == processed {
		return ev.value, ev.err
	}
	ev.addWaiter(p)
	p.waitingOn = ev
	if err := p.suspend(); err != nil {
		return nil, err
	}
	return ev.value, ev.err
}

// Interrupt makes the process's current wait return an *Interrupt with the
// given cause. It takes effect at the current time, before other events due
// now. Interrupting a finished process does nothing and returns false. A
// process cannot interrupt itself.
func (p *Proc) Interrupt(cause any) (bool, error) {
	if p.finished {
		return false, nil
	}
	if p.env.active == p {
		return false, fmt.Errorf("sim: process %q cannot interrupt itself", p.name)
	}
	if p.env.closed {
		return false, ErrClosed
	}
	p.env.schedule(p.env.now, PriorityUrgent, &interruption{p: p, ir: &Interrupt{Cause: cause}})
	return true, nil
}

type interruption struct {
	p  *Proc
	ir *Interrupt
}

func (x *interruption) describe() (Kind, string) { return KindInterrupt, x.p.name }

func (x *interruption) fire(*Env, uint64) {
	p := x.p
	if p.finished {
		return
	}
	// The process has started and waits: its start is an urgent event
	// scheduled when it was made, so it comes before any interrupt of it.
	p.wake = 0 // a pending timer stays queued, now stale
	if ev := p.waitingOn; ev != nil {
		ev.removeWaiter(p)
		p.waitingOn = nil
	}
	p.resumeErr = x.ir
	p.resume()
}

// procList is an intrusive list of the processes that have not finished.
type procList struct{ head *Proc }

func (l *procList) add(p *Proc) {
	p.nextLive = l.head
	if l.head != nil {
		l.head.prev = p
	}
	l.head = p
}

func (l *procList) remove(p *Proc) {
	if p.prev != nil {
		p.prev.nextLive = p.nextLive
	} else if l.head == p {
		l.head = p.nextLive
	}
	if p.nextLive != nil {
		p.nextLive.prev = p.prev
	}
	p.prev, p.nextLive = nil, nil
}
