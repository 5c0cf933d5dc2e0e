package collective

import (
	"math"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

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
	ep.message(Flow{From: a.id, To: h.id, Send: now + write, Arrive: now + arrive, Kind: "handoff"}, tokens)
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

// check verifies the held part; or, for the main agent with none
// unchecked, the first part its helpers handed back (Check.By); or, for a
// helper whose parts the orchestrator checks, hands the held part back.
func (a *agent) check() {
	ep := a.ep
	if a.handsBack() {
		a.handBack()
		return
	}
	v := a.held
	if !a.ownUnchecked() {
		v = a.at.reviewHead()
		a.at.review = a.at.review[1:]
		a.reviewing = v
	}
	// The check is a model call: it reads the part and writes its
	// verdict, Cost times the part's work of output.
	nd := &ep.g.Nodes[v]
	prompt := ep.cfg.Calls.SystemPrompt + a.context + nd.OutputTokens
	output := int64(math.Round(nd.Work.Seconds() * ep.cfg.Check.Cost * ep.cfg.Calls.OutputRate))
	if ep.cfg.TokenBudget > 0 && !ep.spend(a, int64(prompt)+output) {
		return // the check is not made, and the agent stops
	}
	ep.res.Checks++
	ep.res.ModelCalls++
	a.steps++
	a.at.nodes[v].checks++
	a.becomeBusy()
	now := ep.env.Now()
	if ep.server != nil {
		a.req = request{node: v, check: true}
		a.req.Prompt, a.req.Output = int64(prompt), output
		a.activity = now
		a.kind = "check"
		a.inCall = ep.res.Trace != nil
		ep.server.submit(a, ep.cfg.Calls.Overhead)
		return
	}
	d := scale(ep.g.Nodes[v].Work, ep.cfg.Check.Cost/ep.cfg.Speed) + ep.cfg.Calls.Overhead
	a.span(now, now+d, "check", ep.g.Nodes[v].Name)
	a.later(d, a.checkDoneFn)
}

// flags reports the verdict of the latest check of part v of attempt at:
// a right check flags a bad part; a wrong one, a good part.
func (ep *episode) flags(at *attempt, v task.ID) bool {
	ns := &at.nodes[v]
	right := ep.checkKey.Float64(uint64(at.id), uint64(v), uint64(ns.checks)) < ep.cfg.Check.Accuracy
	return ns.ok != right
}

func (a *agent) checkDone() {
	ep := a.ep
	if ep.done {
		return
	}
	if v := a.reviewing; v >= 0 {
		a.reviewing = -1
		a.reviewed(v)
		a.decide()
		return
	}
	v := a.held
	ns := &a.at.nodes[v]
	if ns.status == skipped {
		a.decide() // moot while it was being checked
		return
	}
	flagged := ep.flags(a.at, v)
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
	ok, d := ep.merge(cands)
	a.becomeBusy()
	now := ep.env.Now()
	a.span(now, now+d, "select", "")
	ep.mergedOK = ok
	a.later(d, ep.endChosenFn)
}

// merge merges several candidates as Selection.Merge says, counting a
// model call for each: it returns whether the result is acceptable and
// the time the merge takes.
func (ep *episode) merge(cands []*attempt) (ok bool, d sim.Time) {
	ep.res.ModelCalls += len(cands)
	if ep.cfg.Select.Merge == MergeSynthesis {
		// Nothing is judged: every candidate goes into the result.
		ok = true
		for _, c := range cands {
			d += ep.cfg.Select.Cost
			ok = ok && c.ok
		}
		return ok, d
	}
	chosen := cands[0]
	for i, c := range cands {
		d += ep.cfg.Select.Cost
		right := ep.selKey.Float64(uint64(i), 0, 0) < ep.cfg.Select.Accuracy
		if c.ok == right { // judged acceptable
			chosen = c
			break
		}
	}
	return chosen.ok, d
}
