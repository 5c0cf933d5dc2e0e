package collective

import (
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

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

// transfer is the delivery delay of a message of the given size.
func (ep *episode) transfer(tokens int) sim.Time {
	d := ep.cfg.Comm.Latency
	if bw := ep.cfg.Comm.Bandwidth; bw > 0 {
		d += scale(sim.Second, float64(tokens)/bw)
	}
	return d
}

// message counts (and traces) one message f of the given size.
func (ep *episode) message(f Flow, tokens int) {
	ep.res.Messages++
	ep.res.MessageTokens += int64(tokens)
	if t := ep.res.Trace; t != nil {
		t.Flows = append(t.Flows, f)
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

// send puts a finding on its way to b. Every finding of an episode takes
// the same time from send to arrival (writing and delivering
// Comm.MessageTokens), so those in transit to b arrive in the order they
// were sent: each delivery event moves the first of them into b's inbox.
func (a *agent) send(b *agent, f finding, sent sim.Time) {
	a.ep.message(Flow{From: a.id, To: b.id, Send: sent, Arrive: f.avail, Kind: "finding"}, f.tokens)
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
