package sim

import "fmt"

// condition waits for some or all of a set of events.
type condition struct {
	ev      *Event
	events  []*Event
	left    int // events still needed
	settled bool
}

// AllOf returns an event that succeeds when every one of events has
// succeeded, or fails with the first failure among them. Its value is the
// slice of events. With no events it succeeds at once. A nil event, or one
// of another Env, among events makes it fail at once. Only its events
// trigger it: Succeed and Fail on it are errors (as on AnyOf's).
func (e *Env) AllOf(events ...*Event) *Event {
	return e.condition("all of", len(events), events)
}

// AnyOf returns an event that succeeds as soon as one of events has
// succeeded, or fails if the first one to be processed failed. Its value is
// the slice of events; check Processed on each to see which ones happened.
// With no events it succeeds at once; a nil event, or one of another Env,
// among events makes it fail at once.
func (e *Env) AnyOf(events ...*Event) *Event {
	return e.condition("any of", min(1, len(events)), events)
}

func (e *Env) condition(name string, need int, events []*Event) *Event {
	c := &condition{ev: &Event{env: e, name: name, engine: true}, events: append([]*Event(nil), events...), left: need}
	for i, ev := range c.events {
		// Refused before any member is listened to: a nil member would
		// panic, and one of another Env would settle c from that Env's run.
		if ev == nil || ev.env != e {
			what := "nil"
			if ev != nil {
				what = fmt.Sprintf("%q of another environment", ev.name)
			}
			_ = c.ev.trigger(nil, fmt.Errorf("sim: %s: event %d is %s", name, i, what))
			return c.ev
		}
	}
	if need == 0 {
		c.settle(nil)
		return c.ev
	}
	for _, ev := range c.events {
		switch {
		case c.settled:
			return c.ev // settled by an event already processed
		case ev.state == processed:
			c.onEvent(ev)
		default:
			ev.addWaiter(c)
		}
	}
	return c.ev
}

func (c *condition) onEvent(ev *Event) {
	if c.settled {
		return
	}
	if ev.err != nil {
		c.ev.orderly = ev.orderly // an interrupted process's end stays an orderly stop
		c.settle(ev.err)
		return
	}
	c.left--
	if c.left == 0 {
		c.settle(nil)
	}
}

func (c *condition) settle(err error) {
	c.settled = true
	// Stop listening, so that a later failure of another event is not
	// swallowed (nobody else may be waiting for it) and long-lived events
	// do not collect settled conditions.
	for _, ev := range c.events {
		if ev.state != processed {
			ev.removeWaiter(c)
		}
	}
	// trigger, not Succeed and Fail, which refuse the engine's events; it
	// fails only on a closed Env, where nothing runs any more.
	if err != nil {
		_ = c.ev.trigger(nil, err)
		return
	}
	_ = c.ev.trigger(c.events, nil)
}
