package collective

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Agent states.
const (
	free    uint8 = iota // deciding
	busy                 // doing something that takes time
	waiting              // idle until woken
	gone                 // left the episode
)

type agent struct {
	id    int
	ep    *episode
	at    *attempt
	main  bool
	state uint8
	since sim.Time // start of the current busy period

	held        task.ID // finished part not yet handed on; -1 if none
	checked     bool
	shared      bool
	context     int                  // tokens read into context (messages)
	inbox       []finding            // delivered, unread
	incoming    []finding            // in transit, in the order they arrive
	reads       map[task.ID]sim.Time // findings read: part → when
	sharedWith  uint64               // the episode's share count when a finding last came to it
	reworkOK    bool                 // the outcome that finishes the part after rework
	boardRead   int
	steps       int
	decisions   uint64
	cur         task.ID    // part in progress
	curState    *nodeState // &at.nodes[cur], the original's state, which stale reads at every call
	dup         bool       // cur is a duplicate of a part another agent is making
	shadow      nodeState  // a duplicate's own state of its part, which the original's never sees
	delegated   task.ID    // the last part this agent delegated; -1 if none
	reviewing   task.ID    // the handed-back part the agent is checking (Check.By); -1 if none
	callsLeft   int
	callWork    sim.Time // work of the call in progress
	iteration   int
	inputTokens int
	activity    sim.Time // start of the current traced activity
	kind        string
	// inCall marks, while tracing, a model call or a check at a shared
	// server in flight: its span is written when it ends, so one that the
	// episode's end cuts short is written then (episode's end).
	inCall bool

	// The attempt's work in calls, as splitWork gives it, and the costs
	// of the last call.
	callQ     sim.Time
	callR     int
	callCosts callCosts

	// Shared inference and tools.
	req        request // the call at a shared server
	callsTotal int     // model calls of the attempt in progress
	toolsTotal int     // tool calls of the attempt in progress
	toolsDue   int     // tool calls still to make after the current model call
	toolQueued bool    // waiting for a sandbox since req.Arrive
	// callPrompt and callOutput are the tokens of the model call in
	// progress, for its span in a trace.
	callPrompt, callOutput int64

	// A run of model calls (runs.go): the ends of its calls, the next
	// one not applied yet, and what each call adds to the counts.
	run               bool
	runAt             []sim.Time
	runNext           int
	runPrompt         int
	runOutQ, runOutQ1 int64 // output tokens of a call of work callQ, callQ+1
	// runTies is set when the part's calls tie with another agent's
	// events (a duplicate in step with its original, say): a run would
	// be refused or broken at every call, so none is tried until the
	// next part.
	runTies  bool
	runTimer sim.Timer
	runIndex int          // in episode.running
	runCosts [2]callCosts // the costs of the two sizes of a run's calls, by parity

	// The agent's events, made once so that scheduling one allocates
	// nothing.
	agentFns
}

// agentFns are an agent's events, kept from episode to episode.
type agentFns struct {
	decideFn, callFn, callDoneFn, checkDoneFn, reworkDoneFn, deliverFn func()
	toolDoneFn, runDoneFn                                              func()
}

// newAgent adds an agent to the episode, reusing one of an earlier episode
// if the pool has one.
func (ep *episode) newAgent(at *attempt, main bool) *agent {
	n := len(ep.agents)
	if n == len(ep.agentPool) {
		a := &agent{}
		a.decideFn = a.decide
		a.callFn = a.call
		a.callDoneFn = a.callDone
		a.checkDoneFn = a.checkDone
		a.reworkDoneFn = func() { a.finishPart(a.reworkOK) }
		a.deliverFn = a.deliver
		a.toolDoneFn = a.toolDone
		a.runDoneFn = a.runDone
		ep.agentPool = append(ep.agentPool, a)
	}
	a := ep.agentPool[n]
	reads := a.reads
	if len(reads) > 0 {
		clear(reads) // clearing costs the map's capacity, even when empty
	}
	// The agent is zeroed in place and its fields set one by one: a
	// literal with them would be built aside and copied, twice the
	// agent's 800 bytes.
	inbox, incoming, runAt, fns := a.inbox[:0], a.incoming[:0], a.runAt[:0], a.agentFns
	*a = agent{}
	a.id, a.ep, a.at, a.main = n, ep, at, main
	a.held, a.cur, a.delegated, a.reviewing = -1, -1, -1, -1
	a.callCosts = callCosts{callWork: -1, prompt: -1}
	a.runCosts[0], a.runCosts[1] = a.callCosts, a.callCosts
	a.inbox, a.incoming, a.reads, a.runAt, a.agentFns = inbox, incoming, reads, runAt, fns
	a.runTimer.Init(ep.env, a.runDoneFn)
	ep.agents = ep.agentPool[:n+1]
	at.members = append(at.members, a)
	ep.live++
	return a
}

// later schedules fn after d; the episode's costs are validated, so the
// only possible error is a runaway beyond the clock's range.
func (a *agent) later(d sim.Time, fn func()) {
	if len(a.ep.running) > 0 {
		a.ep.breakRunAt(a.ep.env.Now() + d) // the run's call end goes first, as it was scheduled first
	}
	if err := a.ep.env.Call(d, fn); err != nil {
		a.ep.fail(err)
	}
}

func (a *agent) becomeBusy() {
	if a.state == busy {
		return
	}
	a.state = busy
	a.since = a.ep.env.Now()
	a.at.busy++
	a.ep.busy++
	a.ep.res.ParallelismPeak = max(a.ep.res.ParallelismPeak, a.ep.busy)
}

func (a *agent) becomeFree() {
	if a.state != busy {
		return
	}
	a.state = free
	a.ep.res.AgentTime += a.ep.env.Now() - a.since
	a.at.busy--
	a.ep.busy--
}

// span records a traced activity of this agent from start to end.
func (a *agent) span(start, end sim.Time, kind, label string) {
	if t := a.ep.res.Trace; t != nil && end > start {
		s := Span{Agent: a.id, Start: start, End: end, Kind: kind, Label: label}
		if kind == "work" {
			s.Prompt, s.Output = a.callPrompt, a.callOutput
		}
		t.Spans = append(t.Spans, s)
	}
}

// decide asks the policy what to do, now that the agent is free, and
// applies its choice; a stepped episode (step.go) stops at the choice
// instead.
func (a *agent) decide() {
	ep := a.ep
	if ep.done || ep.err != nil {
		return
	}
	a.becomeFree()
	if a.held >= 0 && a.at.nodes[a.held].status == skipped {
		a.held = -1 // an alternative that another agent's success made moot
	}
	// The observation lives in the episode, so that handing its address to
	// the policy allocates nothing; a policy must not keep it.
	obs := &ep.obs
	valid := a.valid(obs)
	mask := valid
	if ep.opts.Actions != 0 {
		mask &= ep.opts.Actions
	}
	var act Action
	switch {
	case obs.Complete && valid.Has(Submit) && !mask.Has(Submit):
		// A restriction that leaves submitting out makes it automatic, as
		// Must would: a finished result is submitted without a decision,
		// not waited on until nothing is left to happen.
		act, mask = Submit, 0
	case mask == 0 && valid != 0:
		act = Must(obs, valid) // no action the policy may choose is valid: no decision
	case mask.Single():
		// One valid action: a decision without a choice, recorded (it
		// counts, carries no gradient) but costing no policy evaluation.
		a.observe(obs) // for the record
		act = mask.First()
		a.decisions++
		a.turn()
	default:
		a.observe(obs)
		u := ep.decide.Float64(uint64(a.id), a.decisions, 0)
		a.decisions++
		if ep.asks(a) {
			ep.ask(a, mask, u)
			return
		}
		act = ep.pol.Decide(obs, mask, u)
		if !mask.Has(act) {
			ep.fail(fmt.Errorf("%w: %v (allowed %s) by agent %d at %v", ErrInvalidAction, act, mask.List(), a.id, ep.env.Now()))
			return
		}
		a.turn()
	}
	a.apply(act, mask)
}

// apply carries out the action the agent decided on, chosen among mask
// (empty when there was no choice): the second half of decide, which an
// action given from outside enters directly (step.go).
func (a *agent) apply(act Action, mask Mask) {
	ep := a.ep
	ep.res.Actions[act]++
	if ep.opts.Record && mask != 0 {
		ep.res.Decisions = append(ep.res.Decisions, Decision{Agent: a.id, Obs: ep.obs, Mask: mask, Action: act})
	}
	// A delegation holds the wakes of what its decision makes ready
	// (accepting what came back, handing on the delegator's part) until
	// it has taken its helper (wakeHeld below), so that an idle helper is
	// still idle to take it, and none is spawned past the team in its
	// stead. That the mask offered the delegation for an idle helper holds
	// whether it is a duplicate or, after the orchestrator's review made
	// parts ready, not.
	ep.holding = act == Delegate
	seen := true // whether the agent chose seeing its result complete, where that matters
	if a.main && act != Check && act != Share && len(a.at.review) > 0 {
		seen = a.resultComplete()
		a.acceptReview() // the orchestrator chose not to check what came back
	}
	switch act {
	case Work:
		a.release()
		a.startPart(a.at.pop(), 0)
	case Delegate:
		a.release()
		ep.holding = false
		a.delegate()
	case Attempt:
		a.release()
		a.startAttempt()
	case Share:
		a.share()
	case Check:
		a.check()
	case Wait:
		a.release()
		a.wait()
	case Submit:
		a.release()
		a.submit()
	}
	if ep.held > 0 {
		ep.main.at.wakeHeld(ep)
	}
	if !seen && a.at.complete && a.state == waiting {
		// It chose to wait where it could not submit, and accepting what
		// came back (with its own part handed on) completed the result:
		// it decides again, as after a release that makes work ready.
		// Without an acceptance a wait completes the result only where
		// the agent saw it complete, holding the last part.
		a.wake()
	}
}

// resultComplete reports what the agent's observation calls Complete:
// every part of its attempt released but, at most, the one it holds.
func (a *agent) resultComplete() bool {
	return a.at.complete || a.held >= 0 && a.at.left == 1
}

// turn counts a decision of the orchestrator (the main agent) as one of
// its steps: PARL's critical steps include the orchestration turns.
func (a *agent) turn() {
	if a.main {
		a.steps++
	}
}

// busyFor keeps the agent busy for d, then lets it decide again.
func (a *agent) busyFor(d sim.Time, kind, label string) {
	a.becomeBusy()
	now := a.ep.env.Now()
	a.span(now, now+d, kind, label)
	a.later(d, a.decideFn)
}
