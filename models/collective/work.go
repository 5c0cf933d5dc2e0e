package collective

import (
	"math"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

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
		ep.message(Flow{From: int(us.maker), To: a.id, Send: ep.env.Now(), Arrive: ep.env.Now() + delay + d, Kind: "input"}, toks[i])
	}
	readIn := scale(ep.cfg.Comm.Read, float64(a.inputTokens+a.siblingFindings(v)))
	a.setPart(v)
	a.activity = ep.env.Now()
	if a.kind != "spawn" {
		a.kind = "input"
	}
	a.later(arrive+readIn, a.callFn)
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
