package sim

import (
	"errors"
	"fmt"
)

// ErrTriggered is returned when an event is triggered twice.
var ErrTriggered = errors.New("sim: event already triggered")

// waiter is told when an event it waits for has been processed.
type waiter interface {
	onEvent(ev *Event)
}

// eventFunc adapts a plain function to a waiter.
type eventFunc func(*Event)

func (f eventFunc) onEvent(ev *Event) { f(ev) }

type eventState uint8

const (
	pending   eventState = iota // not triggered
	triggered                   // has its outcome, scheduled to be processed
	processed                   // its waiters have been told
)

// Event is something that happens once, with a value or an error: a
// signal between processes, a timeout, a condition, the end of a process.
// Processes wait for events with Proc.Await; functions can be attached with
// OnDone. Triggering an event schedules it; its waiters run when the
// scheduler reaches it, in the order they started waiting.
//
// A failed event that nobody waits for when it is processed stops the run
// with its error, so that failures are never dropped silently. The one
// exception is the interrupt of a process that ended on one, an orderly
// stop, carried by its Done event and by an AllOf or AnyOf over that.
type Event struct {
	env   *Env
	name  string
	state eventState
	// engine marks the events that the engine triggers itself, a
	// process's Done and the event of an AllOf or AnyOf: Succeed and Fail
	// refuse them, since a model's trigger would take the place of the
	// outcome, and the process's failure, or the member's, would be
	// dropped when it came.
	engine bool
	// orderly marks a process's Done whose process ended in order,
	// returning nil or an *Interrupt, and a condition that failed with
	// such a Done's interrupt: processed with nobody waiting, its
	// interrupt stops no run. Any other event failed with an *Interrupt
	// (a model's own, by Fail) is a failure like any other.
	orderly bool
	value   any
	err     error
	waiters []waiter
}

// NewEvent returns an untriggered event. The name appears in observer
// records and error messages; it may be empty.
func (e *Env) NewEvent(name string) *Event {
	return &Event{env: e, name: name}
}

// Timeout returns an event that succeeds with value after delay.
func (e *Env) Timeout(delay Time, value any) (*Event, error) {
	if e.closed {
		return nil, ErrClosed
	}
	at, err := e.due(delay)
	if err != nil {
		return nil, err
	}
	ev := &Event{env: e, name: "timeout", state: triggered, value: value}
	e.schedule(at, PriorityNormal, ev)
	return ev, nil
}

// Name returns the event's name.
func (ev *Event) Name() string { return ev.name }

// Triggered reports whether the event has its outcome (it may not have been
// processed yet).
func (ev *Event) Triggered() bool { return ev.state != pending }

// Processed reports whether the event's waiters have been told.
func (ev *Event) Processed() bool { return ev.state == processed }

// Value returns the value the event succeeded with, or nil.
func (ev *Event) Value() any { return ev.value }

// Err returns the error the event failed with, or nil.
func (ev *Event) Err() error { return ev.err }

// Succeed triggers the event with a value. Its waiters run when the
// scheduler reaches it, at the current time.
// The Done event of a process and the event of an AllOf or AnyOf are
// triggered by the engine alone: Succeed on one is an error.
func (ev *Event) Succeed(value any) error {
	if ev.engine {
		return ev.engineOnly()
	}
	return ev.trigger(value, nil)
}

// Fail triggers the event with an error. err must not be nil. As for
// Succeed, the engine's own events (a process's Done, an AllOf or AnyOf)
// are refused.
func (ev *Event) Fail(err error) error {
	if err == nil {
		return errors.New("sim: Fail needs a non-nil error")
	}
	if ev.engine {
		return ev.engineOnly()
	}
	return ev.trigger(nil, err)
}

// engineOnly is the error of a model's trigger of an event that the engine
// triggers.
func (ev *Event) engineOnly() error {
	return fmt.Errorf("sim: event %q is triggered by the engine (a process's Done, an AllOf or AnyOf), not by Succeed or Fail", ev.name)
}

func (ev *Event) trigger(value any, err error) error {
	if ev.state != pending {
		return fmt.Errorf("%w: %q", ErrTriggered, ev.name)
	}
	if ev.env == nil {
		return errors.New("sim: event not made by an Env (Env.NewEvent)")
	}
	if ev.env.closed {
		return ErrClosed
	}
	ev.state, ev.value, ev.err = triggered, value, err
	ev.env.schedule(ev.env.now, PriorityNormal, ev)
	return nil
}

// OnDone calls fn when the event is processed. Attaching a function counts
// as handling a failure. If the event has already been processed, fn is
// called at once. A nil fn panics here, at the mistake, rather than when
// the event is processed.
func (ev *Event) OnDone(fn func(*Event)) {
	if fn == nil {
		panic("sim: OnDone(nil): the function to call is nil")
	}
	if ev.state == processed {
		fn(ev)
		return
	}
	ev.waiters = append(ev.waiters, eventFunc(fn))
}

func (ev *Event) addWaiter(w waiter) { ev.waiters = append(ev.waiters, w) }

func (ev *Event) removeWaiter(w waiter) {
	for i, x := range ev.waiters {
		if x == w {
			ev.waiters = append(ev.waiters[:i], ev.waiters[i+1:]...)
			return
		}
	}
}

func (ev *Event) describe() (Kind, string) { return KindEvent, ev.name }

func (ev *Event) fire(e *Env, _ uint64) {
	ev.state = processed
	waiters := ev.waiters
	ev.waiters = nil
	if ev.err != nil && len(waiters) == 0 && !ev.orderly {
		e.fail(ev.err)
		return
	}
	for _, w := range waiters {
		w.onEvent(ev)
	}
}
