package collective

import "github.com/swarmsim/swarmsim/models/task"

// The orchestrator's checks (Check.By: orchestrator): a helper of the main
// team that checks its part hands it back to the main agent instead, and
// the main agent verifies it at its own time. The part stays held by its
// maker's name, and not handed on, until the main agent has checked or
// accepted it.

// handsBack reports whether the agent's check hands its part back to the
// orchestrator: it is a helper of the main team, and the orchestrator
// checks.
func (a *agent) handsBack() bool {
	return a.ep.cfg.Check.By == ByOrchestrator && !a.main && a.at == a.ep.main.at
}

// handBack queues the held part for the main agent's check, which it
// wakes; the helper decides again at once.
func (a *agent) handBack() {
	ep, at := a.ep, a.at
	v := a.held
	a.held = -1
	at.review = append(at.review, v)
	ep.main.wake()
	a.busyFor(0, "handback", ep.g.Nodes[v].Name)
}

// ownUnchecked reports whether the agent holds a part it has not checked.
func (a *agent) ownUnchecked() bool { return a.held >= 0 && !a.checked }

// reviewHead returns the first part handed back for the orchestrator's
// check that still matters, dropping those another agent's success made
// moot, or -1 if none is left.
func (at *attempt) reviewHead() task.ID {
	for len(at.review) > 0 {
		v := at.review[0]
		if at.nodes[v].status != skipped {
			return v
		}
		at.review = at.review[1:]
	}
	return -1
}

// reviewed ends the main agent's check of a part handed back to it: a
// flagged part with retries left goes back to the ready subtasks, to be
// redone by whoever takes it; any other is handed on (a flagged one
// marked so, as a maker hands on a part flagged after its last retry).
// The part's causal chain now runs through the orchestrator's check.
//
// The parts this makes ready wait for the main agent's decision, which
// follows at once, before any helper is woken for them: the orchestrator
// hands on what it verified (a waiting helper is still idle when it
// decides), and wakeHeld wakes helpers for those still ready after it.
func (a *agent) reviewed(v task.ID) {
	ep, at := a.ep, a.at
	ns := &at.nodes[v]
	if ns.status == skipped {
		return // moot while it was being checked
	}
	flagged := ep.flags(at, v)
	ns.steps = max(ns.steps, int32(a.steps))
	ep.holding = true
	if flagged && int(ns.tries) <= ep.cfg.Check.Retries {
		ep.res.Retries++
		at.makeReady(ep, v)
	} else {
		ns.flagged = flagged
		at.release(ep, v)
	}
	ep.holding = false
}

// wakeHeld wakes, after the main agent's decision, a helper for each part
// its check made ready that is still ready (reviewed).
func (at *attempt) wakeHeld(ep *episode) {
	n := min(ep.held, at.nReady)
	ep.held = 0
	for range n {
		at.wakeOne(ep)
	}
}

// acceptReview hands on, unchecked, every part still waiting for the main
// agent's check: it chose to do something else.
func (a *agent) acceptReview() {
	at := a.at
	for v := at.reviewHead(); v >= 0; v = at.reviewHead() {
		at.review = at.review[1:]
		at.release(a.ep, v)
	}
}
