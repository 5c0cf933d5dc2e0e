package collective

import (
	"fmt"
	"math"

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
	callsLeft   int
	callWork    sim.Time // work of the call in progress
	workLeft    sim.Time // work of the attempt not yet in a call
	iteration   int
	inputTokens int
	activity    sim.Time // start of the current traced activity
	kind        string

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
	*a = agent{
		id: n, ep: ep, at: at, main: main, held: -1, cur: -1, delegated: -1, callCosts: callCosts{callWork: -1, prompt: -1},
		inbox: a.inbox[:0], incoming: a.incoming[:0], reads: reads, runAt: a.runAt[:0],
		decideFn: a.decideFn, callFn: a.callFn, callDoneFn: a.callDoneFn,
		checkDoneFn: a.checkDoneFn, reworkDoneFn: a.reworkDoneFn, deliverFn: a.deliverFn,
		toolDoneFn: a.toolDoneFn, runDoneFn: a.runDoneFn,
		runCosts: [2]callCosts{{callWork: -1, prompt: -1}, {callWork: -1, prompt: -1}},
	}
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

// decide asks the policy what to do, now that the agent is free.
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
	var valid Mask
	ep.obs, valid = a.observe()
	obs := &ep.obs
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
		act = mask.First()
		a.decisions++
		a.turn()
	default:
		u := ep.decide.Float64(uint64(a.id), a.decisions, 0)
		a.decisions++
		act = ep.pol.Decide(obs, mask, u)
		if !mask.Has(act) {
			ep.fail(fmt.Errorf("%w: %v (allowed %s) by agent %d at %v", ErrInvalidAction, act, maskString(mask), a.id, ep.env.Now()))
			return
		}
		a.turn()
	}
	ep.res.Actions[act]++
	if ep.opts.Record && mask != 0 {
		ep.res.Decisions = append(ep.res.Decisions, Decision{Agent: a.id, Obs: *obs, Mask: mask, Action: act})
	}
	switch act {
	case Work:
		a.release()
		a.startPart(a.at.pop(), 0)
	case Delegate:
		a.release()
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
}

// turn counts a decision of the orchestrator (the main agent) as one of
// its steps: PARL's critical steps include the orchestration turns.
func (a *agent) turn() {
	if a.main {
		a.steps++
	}
}

func maskString(m Mask) string {
	s := ""
	for a := range Action(NumActions) {
		if m.Has(a) {
			if s != "" {
				s += ","
			}
			s += a.String()
		}
	}
	return s
}

// observe builds the observation and the mask of valid actions, in time
// independent of the numbers of agents and subtasks.
func (a *agent) observe() (Observation, Mask) {
	ep, at, g := a.ep, a.at, a.ep.g
	now := ep.env.Now()
	o := Observation{
		Agent:     a.id,
		Main:      a.main,
		Alone:     at.alone,
		Elapsed:   now.Seconds(),
		Progress:  float64(at.progress) / max(1, float64(g.TotalWork())),
		Ready:     at.nReady,
		Busy:      at.busy,
		Idle:      at.nWaiting,
		Free:      ep.cfg.Agents - ep.live,
		Unread:    len(a.inbox) + a.unreadBoard(),
		Attempts:  ep.res.Attempts,
		Pending:   ep.pending,
		Unchecked: a.held >= 0 && !a.checked,
		Unshared:  a.held >= 0 && !a.shared && a.hasPartners(a.held),
	}
	if ep.cfg.TimeLimit > 0 {
		o.TimeUsed = float64(now) / float64(ep.cfg.TimeLimit)
	}
	if a.held >= 0 {
		o.Retries = int(at.nodes[a.held].tries) - 1
		o.Coupling = a.joinCoupling(a.held)
	}
	if v := at.peek(); v >= 0 {
		// max, not math.Max: the same for these finite values, without a call.
		o.NextWork = float64(g.Nodes[v].Work) / max(1, ep.meanWork)
		o.Coupling = max(o.Coupling, a.joinCoupling(v))
	}
	heldLast := a.held >= 0 && at.left == 1
	o.Complete = at.complete || heldLast

	var m Mask
	if o.Ready > 0 {
		m = m.With(Work)
		// A delegation goes to an idle helper or a new one; a waiting main
		// agent counts as idle but takes no delegation.
		idleHelpers := o.Idle
		if ep.main.at == at && ep.main.state == waiting {
			idleHelpers--
		}
		if !at.alone && (idleHelpers > 0 || o.Free > 0) {
			m = m.With(Delegate)
		}
	} else if a.canDuplicate() {
		m = m.With(Delegate)
	}
	if a.main && !at.alone && o.Free > 0 {
		m = m.With(Attempt)
	}
	if o.Unshared {
		m = m.With(Share)
	}
	if o.Unchecked && int(at.nodes[a.held].checks) <= ep.cfg.Check.Retries {
		m = m.With(Check)
	}
	if o.Ready == 0 {
		switch {
		case a.held >= 0:
			m = m.With(Wait)
		case a.main:
			if at.busy > 0 || ep.pending > 0 {
				m = m.With(Wait)
			}
		case !at.alone:
			m = m.With(Wait)
		}
	}
	// There is nothing to submit before a result exists: the main agent
	// submits its team's complete result or the candidates of independent
	// attempts, and gives up only when nothing else is possible.
	if o.Complete && (a.main || at.alone) || a.main && (len(ep.candidates) > 0 || m == 0) {
		m = m.With(Submit)
	}
	return o, m
}

// joinCoupling is the largest coupling among the joins that part v feeds.
func (a *agent) joinCoupling(v task.ID) float64 {
	g := a.ep.g
	k := 0.0
	for _, w := range g.Succ(v) {
		if n := &g.Nodes[w]; n.Join == task.JoinAll && len(g.Pred(w)) > 1 {
			k = max(k, n.Coupling)
		}
	}
	return k
}

// hasPartners reports whether the held part v joins, at a JoinAll node,
// parts not handed on yet: their makers, present or future, could use a
// finding about v. Whether they need it (the join's coupling) is not
// visible to the agent: sharing at κ = 0 is the pure overhead a team pays
// on divisible work. It reads the joins' counters, not their parts, so it
// costs O(successors).
func (a *agent) hasPartners(v task.ID) bool {
	g := a.ep.g
	for _, w := range g.Succ(v) {
		// v itself is not released yet, so others remain if more than one does.
		if g.Nodes[w].Join == task.JoinAll && a.at.nodes[w].left > 1 {
			return true
		}
	}
	return false
}

func (a *agent) unreadBoard() int {
	n := 0
	now := a.ep.env.Now()
	for _, f := range a.at.board[a.boardRead:] {
		if f.avail > now {
			break
		}
		if f.from != a {
			n++
		}
	}
	return n
}

// startPart begins an attempt at part v: receive inputs made by others,
// then carry the work out in model calls.
func (a *agent) startPart(v task.ID, delay sim.Time) {
	ep, at, g := a.ep, a.at, a.ep.g
	ns := a.part(v)
	ns.status = taken
	ns.maker = int32(a.id)
	a.cur, a.curState = v, &at.nodes[v]
	a.iteration = 0
	a.becomeBusy()
	// Inputs: results of predecessors, sent by their makers.
	arrive := delay
	a.inputTokens = 0
	ns.inputsOK = true
	preds, toks := g.Pred(v), g.PredTokens(v)
	if g.Nodes[v].Join == task.JoinAny && ns.trigger >= 0 {
		ns.inputsOK = at.nodes[ns.trigger].ok
	}
	for i, u := range preds {
		us := &at.nodes[u]
		if g.Nodes[v].Join == task.JoinAny {
			if u != ns.trigger {
				continue
			}
		} else {
			ns.inputsOK = ns.inputsOK && us.ok
		}
		a.steps = max(a.steps, int(us.steps))
		if int(us.maker) == a.id || toks[i] == 0 {
			continue
		}
		d := ep.transfer(toks[i])
		arrive = max(arrive, delay+d)
		a.inputTokens += toks[i]
		ep.message(ep.agents[us.maker], a, toks[i], ep.env.Now(), ep.env.Now()+delay+d, "input")
	}
	readIn := scale(ep.cfg.Comm.Read, float64(a.inputTokens+a.siblingFindings(v)))
	a.setPart(v)
	a.activity = ep.env.Now()
	if a.kind != "spawn" {
		a.kind = "input"
	}
	a.later(arrive+readIn, a.callFn)
}

// siblingFindings hands an agent starting part v the findings already
// shared about the parts v must be reconciled with, as a team passes them
// on to a newcomer, and returns their size.
func (a *agent) siblingFindings(v task.ID) int {
	ep, at, g := a.ep, a.at, a.ep.g
	if at.shares == 0 {
		return 0 // nobody has shared anything: nothing to hand on
	}
	tokens := 0
	now := ep.env.Now()
	for _, w := range g.Succ(v) {
		if nd := &g.Nodes[w]; nd.Join != task.JoinAll || len(g.Pred(w)) < 2 {
			continue
		}
		for _, p := range g.Pred(w) {
			t := at.nodes[p].sharedAt
			if p == v || t == 0 || t > now {
				continue
			}
			if a.reads == nil {
				a.reads = make(map[task.ID]sim.Time)
			}
			if _, seen := a.reads[p]; !seen {
				a.reads[p] = now
				tokens += ep.cfg.Comm.MessageTokens
			}
		}
	}
	a.context += tokens
	return tokens
}

// setPart prepares the calls of one attempt (or loop iteration) at v.
func (a *agent) setPart(v task.ID) {
	work := a.ep.g.Nodes[v].Work
	span := a.ep.cfg.Calls.Span
	calls := 1
	if span > 0 && work > span {
		calls = int((work + span - 1) / span)
	}
	a.callsLeft = calls
	a.callsTotal = calls
	a.runTies = false
	a.workLeft = work
	a.callQ, a.callR = splitWork(work, calls)
	if a.ep.tools != nil {
		a.toolsTotal = a.drawToolCalls()
	}
}

// splitWork returns q and r of work = calls·q + r, 0 ≤ r < calls, for
// nextCallWork. work must not be negative.
func splitWork(work sim.Time, calls int) (q sim.Time, r int) {
	return work / sim.Time(calls), int(work % sim.Time(calls))
}

// nextCallWork is the work of the next call of a part split by splitWork
// into q and r, with left calls to go: what is left over the calls left,
// rounded down, as the calls go. That is q for the first calls − r calls
// and q+1 for the last r, so that no call divides.
func nextCallWork(q sim.Time, r, left int) sim.Time {
	if left <= r {
		return q + 1
	}
	return q
}

// transfer is the delivery delay of a message of the given size.
func (ep *episode) transfer(tokens int) sim.Time {
	d := ep.cfg.Comm.Latency
	if bw := ep.cfg.Comm.Bandwidth; bw > 0 {
		d += scale(sim.Second, float64(tokens)/bw)
	}
	return d
}

// message counts (and traces) one message.
func (ep *episode) message(from, to *agent, tokens int, send, arrive sim.Time, kind string) {
	ep.res.Messages++
	ep.res.MessageTokens += int64(tokens)
	if t := ep.res.Trace; t != nil {
		t.Flows = append(t.Flows, Flow{From: from.id, To: to.id, Send: send, Arrive: arrive, Kind: kind})
	}
}

// readMessages reads delivered findings into context and returns the time
// it takes. It is called before every model call, which usually finds
// nothing to read: that case costs two comparisons.
func (a *agent) readMessages() sim.Time {
	if len(a.inbox) == 0 && a.boardRead == len(a.at.board) {
		return 0
	}
	return a.readDelivered()
}

// readDelivered is readMessages with something to look at.
func (a *agent) readDelivered() sim.Time {
	ep := a.ep
	now := ep.env.Now()
	tokens := 0
	take := func(f finding) {
		tokens += f.tokens
		a.steps = max(a.steps, f.steps)
		if a.reads == nil {
			a.reads = make(map[task.ID]sim.Time)
		}
		if _, seen := a.reads[f.part]; !seen {
			a.reads[f.part] = now
		}
	}
	for _, f := range a.inbox {
		take(f)
	}
	a.inbox = a.inbox[:0]
	board := a.at.board
	for a.boardRead < len(board) && board[a.boardRead].avail <= now {
		if f := board[a.boardRead]; f.from != a {
			take(f)
			ep.res.MessageTokens += int64(f.tokens)
		}
		a.boardRead++
	}
	a.context += tokens
	return scale(ep.cfg.Comm.Read, float64(tokens))
}

// call starts one model call of the part in progress, unless the part
// became moot while the agent waited for its inputs.
func (a *agent) call() {
	if a.stale() {
		return
	}
	a.startCall()
}

// startCall starts one model call of the part in progress, which is not
// stale: afterCall calls it right after callDone or toolDone found so.
func (a *agent) startCall() {
	ep := a.ep
	now := ep.env.Now()
	read := a.readMessages()
	if a.callsLeft == 1 {
		a.part(a.cur).lastCall = now + read
	}
	a.callWork = nextCallWork(a.callQ, a.callR, a.callsLeft)
	a.workLeft -= a.callWork
	c := &ep.cfg.Calls
	prompt := c.SystemPrompt + a.context + a.inputTokens
	cc := &a.callCosts
	cc.update(ep, a.callWork, prompt)
	output := cc.output
	ep.res.ModelCalls++
	ep.res.PromptTokens += int64(prompt)
	ep.res.OutputTokens += output
	a.steps++
	if ep.res.Trace != nil {
		// The span of what came before, and what the call's will show;
		// nothing but a trace reads them.
		a.span(a.activity, now, a.kind, ep.g.Nodes[a.cur].Name)
		a.callPrompt, a.callOutput = int64(prompt), output
		a.activity, a.kind = now, "work"
	}
	if ep.server != nil {
		// The shared server prefills and decodes; the call reaches it
		// after the agent has read its messages and the call's overhead.
		a.req = request{node: a.cur}
		a.req.Prompt, a.req.Output = int64(prompt), output
		ep.server.submit(a, read+c.Overhead)
		return
	}
	d := read + c.Overhead + cc.prefill + cc.work
	if ep.runsOK && a.callsLeft > 1 && a.startRun(d, prompt) {
		return
	}
	a.later(d, a.callDoneFn)
}

// callCosts holds the costs of a model call that depend only on its work
// and its prompt, for the last work and prompt seen: the calls of a part
// have at most two sizes of work and the same prompt until a message is
// read, so most calls reuse them instead of rounding three products again.
type callCosts struct {
	callWork sim.Time // the work output and work are for; -1 for none
	prompt   int      // the prompt prefill is for; -1 for none
	output   int64    // output tokens of callWork
	work     sim.Time // the time callWork takes at the collective's speed
	prefill  sim.Time // the time reading prompt takes
}

func (cc *callCosts) update(ep *episode, callWork sim.Time, prompt int) {
	if callWork != cc.callWork || prompt != cc.prompt {
		cc.compute(ep, callWork, prompt) // apart, so that the common case is inlined
	}
}

// compute is update for a work or a prompt other than the last.
func (cc *callCosts) compute(ep *episode, callWork sim.Time, prompt int) {
	c := &ep.cfg.Calls
	if callWork != cc.callWork {
		cc.callWork = callWork
		cc.output = int64(math.Round(callWork.Seconds() * c.OutputRate))
		cc.work = scale(callWork, 1/ep.cfg.Speed)
	}
	if prompt != cc.prompt {
		cc.prompt = prompt
		cc.prefill = scale(c.PromptToken, float64(prompt))
	}
}

// callDone ends a model call: the tool calls that follow it, if any, come
// next.
func (a *agent) callDone() {
	if a.stale() {
		return
	}
	a.callsLeft--
	if a.toolsTotal > 0 {
		if a.toolsDue = toolCallsAfter(a.toolsTotal, a.callsTotal-a.callsLeft, a.callsTotal); a.toolsDue > 0 {
			a.startTool()
			return
		}
	}
	if a.callsLeft > 0 {
		a.startCall() // afterCall's common case, without a call to it
		return
	}
	a.afterCall()
}

// afterCall goes on after a model call and its tool calls: the next call,
// or after the last one, the attempt's outcome. Its callers have just
// found the part not stale, and nothing here changes that.
func (a *agent) afterCall() {
	ep := a.ep
	if a.callsLeft > 0 {
		a.startCall()
		return
	}
	if a.dup {
		a.abandon() // done before the original: its result is not used
		return
	}
	v := a.cur
	at := a.at
	nd := &ep.g.Nodes[v]
	ns := &at.nodes[v]
	ns.tries++
	ok := ep.outcome.Float64(uint64(at.id), uint64(v), uint64(ns.tries)) < successProb(nd.Difficulty, ep.cfg.Strength)
	if ns.tries == 1 && ns.assigned && a.misread(v) {
		ok = false
		ep.res.HandoffMisses++
	}
	if nd.Loop > 0 && !ok && a.iteration+1 < nd.Loop {
		a.iteration++
		a.setPart(v)
		a.startCall()
		return
	}
	rework := a.reconcile(v, &ok)
	if rework > 0 {
		a.span(a.activity, ep.env.Now(), a.kind, nd.Name)
		a.activity = ep.env.Now()
		a.kind = "rework"
		a.reworkOK = ok
		a.later(rework, a.reworkDoneFn)
		return
	}
	a.finishPart(ok)
}

// stale reports whether the part in progress no longer matters: the
// episode is over, or another agent's success made the part moot, in which
// case it is dropped here, at a model-call boundary.
func (a *agent) stale() bool {
	if a.ep.done {
		return true
	}
	if s := a.curState.status; s == skipped || a.dup && s != taken {
		a.abandon()
		return true
	}
	return false
}

// misread reports whether the agent misunderstood part v, delegated to it,
// in its first attempt (Handoff.Miss): the fewer parts it had read findings
// about when it finished, the likelier. In a silent replay findings carry
// nothing.
func (a *agent) misread(v task.ID) bool {
	ep := a.ep
	if ep.cfg.Handoff.Miss == 0 {
		return false
	}
	read := 0
	if !ep.opts.Silent {
		read = len(a.reads)
	}
	return ep.handoff.Float64(uint64(a.at.id), uint64(v), 0) < ep.cfg.Handoff.missChance(read)
}

// part is the state of part v as the agent starting or working it sees
// it: a duplicate works on its own copy, so that nothing it does reaches
// the original's maker, its outcome or the join.
func (a *agent) part(v task.ID) *nodeState {
	if a.dup {
		return &a.shadow
	}
	return &a.at.nodes[v]
}

// canDuplicate reports whether the agent may delegate a duplicate of its
// last delegation (Handoff.Duplicates): one is still in progress, and a
// helper is idle or may be spawned.
func (a *agent) canDuplicate() bool {
	at := a.at
	if !a.ep.cfg.Handoff.Duplicates || a.delegated < 0 || at.alone || at.nodes[a.delegated].status != taken {
		return false
	}
	idle := at.nWaiting
	if a.ep.main.at == at && a.ep.main.state == waiting {
		idle--
	}
	return idle > 0 || a.ep.cfg.Agents > a.ep.live
}

// abandon drops the part in progress, which is no longer needed, at the
// end of the current model call.
func (a *agent) abandon() {
	a.span(a.activity, a.ep.env.Now(), a.kind, a.ep.g.Nodes[a.cur].Name)
	a.cur, a.curState = -1, nil
	a.dup = false
	a.decide()
}

func (a *agent) finishPart(ok bool) {
	if a.stale() {
		return
	}
	ep := a.ep
	now := ep.env.Now()
	v := a.cur
	ns := &a.at.nodes[v]
	a.span(a.activity, now, a.kind, ep.g.Nodes[v].Name)
	ns.ok = ok && ns.inputsOK
	ns.finish = now
	ns.status = held
	ns.steps = int32(a.steps)
	a.held = v
	a.checked = false
	a.shared = false
	a.cur, a.curState = -1, nil
	a.decide()
}

// successProb is the chance that one attempt of the given difficulty by an
// agent of the given strength is acceptable: (1-d)^(1/s).
func successProb(d, s float64) float64 { return math.Pow(1-d, 1/s) }

// reconcile draws conflicts at a coupled join v and returns the rework time
// (rework mode) or clears ok (fail mode).
func (a *agent) reconcile(v task.ID, ok *bool) sim.Time {
	ep, at, g := a.ep, a.at, a.ep.g
	nd := &g.Nodes[v]
	preds := g.Pred(v)
	if nd.Join != task.JoinAll || nd.Coupling == 0 || len(preds) < 2 {
		return 0
	}
	unreconciled := 0
	var reworkWork sim.Time
	for i, p := range preds {
		for _, q := range preds[i+1:] {
			sp, sq := &at.nodes[p], &at.nodes[q]
			if sp.maker == sq.maker {
				continue
			}
			early, late := p, q
			if sq.finish < sp.finish {
				early, late = q, p
			}
			if ep.knew(late, early, at) {
				continue
			}
			unreconciled++
			reworkWork += min(g.Nodes[p].Work, g.Nodes[q].Work)
		}
	}
	if unreconciled == 0 {
		return 0
	}
	noConflict := math.Pow(1-nd.Coupling, float64(unreconciled))
	if ep.conflict.Float64(uint64(at.id), uint64(v), uint64(at.nodes[v].tries)) < noConflict {
		return 0
	}
	ep.res.Conflicts++
	if ep.cfg.Reconcile.Mode == ConflictFail {
		*ok = false
		return 0
	}
	return scale(reworkWork, ep.cfg.Reconcile.Rework/ep.cfg.Speed)
}

// knew reports whether the maker of part late had read a finding about part
// early before the last model call of late began; in a silent replay
// nobody ever knew.
func (ep *episode) knew(late, early task.ID, at *attempt) bool {
	if ep.opts.Silent {
		return false
	}
	maker := ep.agents[at.nodes[late].maker]
	t, ok := maker.reads[early]
	return ok && t <= at.nodes[late].lastCall
}

// release hands the held part on: its successors may become ready.
func (a *agent) release() {
	v := a.held
	if v < 0 {
		return
	}
	a.held = -1
	if a.at.nodes[v].status == skipped {
		return
	}
	a.at.release(a.ep, v)
}

func (a *agent) wake() {
	if a.state != waiting {
		return
	}
	a.at.nWaiting--
	a.becomeBusy() // deciding is scheduled now; it counts no time
	a.later(0, a.decideFn)
}

func (a *agent) wait() {
	at := a.at
	if at.nReady > 0 {
		// Releasing the held part made work ready: decide again.
		a.becomeBusy()
		a.later(0, a.decideFn)
		return
	}
	a.state = waiting
	at.nWaiting++
	if !a.main {
		at.addWaiting(a)
	}
}

// delegate hands the next ready subtask to a helper: an idle one if any,
// else a new one. With nothing ready, the delegation is a duplicate of the
// agent's last one (Handoff.Duplicates).
func (a *agent) delegate() {
	ep, at := a.ep, a.at
	dup := at.nReady == 0
	v := a.delegated
	if dup {
		ep.res.Duplicates++
	} else {
		v = at.pop()
		at.nodes[v].assigned = true
		a.delegated = v
	}
	ep.res.SubagentTasks++
	h := at.takeIdle()
	if h != nil {
		at.nWaiting--
	}
	var spawn sim.Time
	if h == nil {
		h = ep.newAgent(at, false)
		ep.res.Spawned++
		spawn = ep.cfg.Spawn
	}
	// The delegator writes a hand-off message; the helper starts when it is
	// up and the message has arrived and been read.
	now := ep.env.Now()
	tokens := ep.cfg.Comm.MessageTokens
	write := scale(ep.cfg.Comm.Write, float64(tokens))
	arrive := write + ep.transfer(tokens)
	ep.message(a, h, tokens, now+write, now+arrive, "handoff")
	if spawn > 0 {
		h.kind = "spawn" // the helper's first span covers its start-up
	}
	start := max(spawn, arrive) + scale(ep.cfg.Comm.Read, float64(tokens))
	h.context += tokens
	h.steps = max(h.steps, a.steps) // the subagent's stage starts after this turn
	if h.dup = dup; dup {
		h.shadow = at.nodes[v]
	}
	h.startPart(v, start)
	a.busyFor(write, "handoff", ep.g.Nodes[v].Name)
}

// busyFor keeps the agent busy for d, then lets it decide again.
func (a *agent) busyFor(d sim.Time, kind, label string) {
	a.becomeBusy()
	now := a.ep.env.Now()
	a.span(now, now+d, kind, label)
	a.later(d, a.decideFn)
}

// startAttempt starts an independent attempt with a new agent.
func (a *agent) startAttempt() {
	ep := a.ep
	at := ep.newAttempt()
	at.alone = true
	h := ep.newAgent(at, false)
	h.steps = a.steps
	ep.res.Spawned++
	ep.res.Attempts++
	ep.res.SubagentTasks++
	ep.pending++
	now := ep.env.Now()
	h.becomeBusy()
	h.span(now, now+ep.cfg.Spawn, "spawn", "")
	h.later(ep.cfg.Spawn, h.decideFn)
	a.busyFor(0, "attempt", "")
}

// share sends findings of the held part to its partners.
func (a *agent) share() {
	ep, at, g := a.ep, a.at, a.ep.g
	v := a.held
	a.shared = true
	now := ep.env.Now()
	tokens := ep.cfg.Comm.MessageTokens
	write := scale(ep.cfg.Comm.Write, float64(tokens))
	avail := now + write + ep.transfer(tokens)
	f := finding{part: v, from: a, avail: avail, steps: a.steps, tokens: tokens}
	at.nodes[v].sharedAt = avail
	at.shares++
	switch ep.cfg.Comm.Topology {
	case Blackboard:
		ep.breakRuns(at) // the members read the board at their next call
		at.board = append(at.board, f)
		ep.res.Messages++
		ep.res.MessageTokens += int64(tokens)
	case Broadcast:
		for _, b := range at.members {
			if b != a && b.state != gone {
				a.send(b, f, now+write)
			}
		}
	default:
		ep.shares++ // marks the partners this finding has gone to
		for _, w := range g.Succ(v) {
			if nd := &g.Nodes[w]; nd.Join != task.JoinAll || len(g.Pred(w)) < 2 {
				continue
			}
			for _, q := range g.Pred(w) {
				s := &at.nodes[q]
				if q == v || s.status != taken || int(s.maker) == a.id {
					continue
				}
				if b := ep.agents[s.maker]; b.sharedWith != ep.shares {
					b.sharedWith = ep.shares
					a.send(b, f, now+write)
				}
			}
		}
	}
	a.busyFor(write, "share", g.Nodes[v].Name)
}

// send puts a finding on its way to b. Every finding of an episode takes
// the same time from send to arrival (writing and delivering
// Comm.MessageTokens), so those in transit to b arrive in the order they
// were sent: each delivery event moves the first of them into b's inbox.
func (a *agent) send(b *agent, f finding, sent sim.Time) {
	a.ep.message(a, b, f.tokens, sent, f.avail, "finding")
	b.incoming = append(b.incoming, f)
	a.later(f.avail-a.ep.env.Now(), b.deliverFn)
}

// deliver moves the first finding in transit into the inbox.
func (a *agent) deliver() {
	if a.run {
		a.breakRun() // the next call reads it
	}
	a.inbox = append(a.inbox, a.incoming[0])
	n := copy(a.incoming, a.incoming[1:])
	a.incoming = a.incoming[:n]
}

// check verifies the held part.
func (a *agent) check() {
	ep := a.ep
	v := a.held
	ep.res.Checks++
	ep.res.ModelCalls++
	a.steps++
	a.at.nodes[v].checks++
	a.becomeBusy()
	now := ep.env.Now()
	if ep.server != nil {
		// The check is a model call on the shared server: it reads the
		// part and writes its verdict, Cost times the part's work of output.
		nd := &ep.g.Nodes[v]
		prompt := ep.cfg.Calls.SystemPrompt + a.context + nd.OutputTokens
		output := int64(math.Round(nd.Work.Seconds() * ep.cfg.Check.Cost * ep.cfg.Calls.OutputRate))
		a.req = request{node: v, check: true}
		a.req.Prompt, a.req.Output = int64(prompt), output
		a.activity = now
		a.kind = "check"
		ep.server.submit(a, ep.cfg.Calls.Overhead)
		return
	}
	d := scale(ep.g.Nodes[v].Work, ep.cfg.Check.Cost/ep.cfg.Speed) + ep.cfg.Calls.Overhead
	a.span(now, now+d, "check", ep.g.Nodes[v].Name)
	a.later(d, a.checkDoneFn)
}

// served ends the agent's call at the shared server: a check or a model
// call of the part in progress.
func (a *agent) served() {
	res := a.ep.res
	res.ServedCalls++
	res.ServingTime += a.ep.env.Now() - a.req.Arrive
	if a.req.check {
		a.span(a.activity, a.ep.env.Now(), "check", a.ep.g.Nodes[a.req.node].Name)
		a.checkDone()
		return
	}
	a.callDone()
}

func (a *agent) checkDone() {
	ep := a.ep
	if ep.done {
		return
	}
	v := a.held
	ns := &a.at.nodes[v]
	if ns.status == skipped {
		a.decide() // moot while it was being checked
		return
	}
	right := ep.checkKey.Float64(uint64(a.at.id), uint64(v), uint64(ns.checks)) < ep.cfg.Check.Accuracy
	flagged := ns.ok != right // a right check flags a bad part; a wrong one, a good part
	if flagged && int(ns.tries) <= ep.cfg.Check.Retries {
		ep.res.Retries++
		a.held = -1
		a.startPart(v, 0)
		return
	}
	a.checked = true
	ns.flagged = flagged
	if !flagged {
		a.release()
	}
	a.decide()
}

// submit ends an independent attempt (its result becomes a candidate), or
// the episode (main agent): with several candidates, a verifier selects.
func (a *agent) submit() {
	ep, at := a.ep, a.at
	if !a.main {
		at.submitted = true
		ep.res.SubagentDone++
		ep.pending--
		ep.candidates = append(ep.candidates, at)
		if ep.main.run {
			ep.main.settleRun(ep.env.Now()) // its steps so far, before the max
		}
		ep.main.steps = max(ep.main.steps, at.steps)
		a.state = gone
		ep.live--
		ep.main.wake()
		return
	}
	cands := ep.candidates
	if at.complete {
		ep.cands = append(append(ep.cands[:0], at), cands...)
		cands = ep.cands
	}
	if len(cands) == 0 {
		ep.end(false)
		return
	}
	for _, c := range cands {
		ep.res.CriticalSteps = max(ep.res.CriticalSteps, c.steps)
	}
	if len(cands) == 1 {
		ep.end(cands[0].ok)
		return
	}
	chosen := cands[0]
	var d sim.Time
	for i, c := range cands {
		d += ep.cfg.Select.Cost
		right := ep.selKey.Float64(uint64(i), 0, 0) < ep.cfg.Select.Accuracy
		if c.ok == right { // judged acceptable
			chosen = c
			break
		}
	}
	a.becomeBusy()
	now := ep.env.Now()
	a.span(now, now+d, "select", "")
	ep.res.ModelCalls += len(cands)
	ep.chosen = chosen
	a.later(d, ep.endChosenFn)
}
