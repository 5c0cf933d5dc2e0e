package collective

import "github.com/swarmsim/swarmsim/models/task"

// valid returns the mask of valid actions, after zeroing o and setting
// the fields of o it rests on; observe fills in the others, only for a
// decision that is asked or recorded (most decisions of a restricted
// policy have no choice: Must). Both take time independent of the numbers
// of agents and subtasks.
func (a *agent) valid(o *Observation) Mask {
	ep, at := a.ep, a.at
	// Zeroed and set field by field, in place: a literal assigned through
	// a pointer is built aside and copied.
	*o = Observation{}
	o.Ready = at.nReady
	o.Idle = at.nWaiting
	o.Free = ep.cfg.Agents - ep.live
	o.Unchecked = a.ownUnchecked()
	o.Unshared = a.held >= 0 && !a.shared && a.hasPartners(a.held)
	o.Complete = a.resultComplete()

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
	} else if a.main && !o.Unchecked {
		// Parts handed back for the orchestrator's check (Check.By).
		if v := at.reviewHead(); v >= 0 {
			o.Unchecked = true
			if int(at.nodes[v].checks) <= ep.cfg.Check.Retries {
				m = m.With(Check)
			}
		}
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
	return m
}

// observe fills in the fields of o, the observation valid began, that
// valid leaves out.
func (a *agent) observe(o *Observation) {
	ep, at, g := a.ep, a.at, a.ep.g
	now := ep.env.Now()
	o.Agent = a.id
	o.Main = a.main
	o.Alone = at.alone
	o.Elapsed = now.Seconds()
	o.Progress = float64(at.progress) / max(1, float64(g.TotalWork()))
	o.Busy = at.busy
	o.Unread = len(a.inbox) + a.unreadBoard()
	o.Attempts = ep.res.Attempts
	o.Pending = ep.pending
	o.Kind = ep.kind
	if ep.cfg.TimeLimit > 0 {
		o.TimeUsed = float64(now) / float64(ep.cfg.TimeLimit)
	}
	if a.held >= 0 {
		o.Retries = int(at.nodes[a.held].tries) - 1
		o.Coupling = g.JoinCoupling(a.held)
	}
	if v := at.peek(); v >= 0 {
		// max, not math.Max: the same for these finite values, without a call.
		o.NextWork = float64(g.Nodes[v].Work) / max(1, ep.meanWork)
		o.Coupling = max(o.Coupling, g.JoinCoupling(v))
	}
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
