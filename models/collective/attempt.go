package collective

import (
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Node states within one attempt.
const (
	blocked  uint8 = iota // waiting for predecessors
	ready                 // may be started
	taken                 // an agent is working on it
	held                  // finished, not yet handed on by its maker
	released              // its result is available to successors
	skipped               // no longer needed (an alternative succeeded)
)

type nodeState struct {
	left     int32 // predecessors not yet released (JoinAll)
	status   uint8
	ok       bool // own attempt acceptable and inputs acceptable
	inputsOK bool
	maker    int32
	tries    int32
	checks   int32
	steps    int32    // maker's step clock when it finished
	finish   sim.Time // when its maker finished the last attempt
	lastCall sim.Time // when the last model call of that attempt began
	trigger  task.ID  // for JoinAny: the predecessor that made it ready
	sharedAt sim.Time // when a finding about it became available; 0 if never
	flagged  bool     // its maker's last check flagged it, with no retry left
	assigned bool     // delegated to a subagent
}

// attempt is one copy of the task's progress: the main team's, or an
// independent attempt's.
type attempt struct {
	id        int
	nodes     []nodeState
	ready     task.IDQueue
	nReady    int
	left      int // nodes neither released nor skipped
	sinksLeft int
	progress  sim.Time // work released or skipped
	members   []*agent
	waiting   []*agent // FIFO from waitHead; entries whose agent stopped waiting are skipped
	waitHead  int
	nWaiting  int
	busy      int
	board     []finding
	review    []task.ID // parts handed back for the orchestrator's check (Check.By)
	shares    int       // findings shared so far
	complete  bool
	ok        bool
	steps     int
	submitted bool
	alone     bool
}

type finding struct {
	part   task.ID
	from   *agent
	avail  sim.Time
	steps  int
	tokens int
}

// newAttempt adds a copy of the task's progress to the episode, reusing
// the memory of an earlier episode's if the pool has one.
func (ep *episode) newAttempt() *attempt {
	g := ep.g
	n := len(ep.attempts)
	if n == len(ep.attemptPool) {
		ep.attemptPool = append(ep.attemptPool, &attempt{})
	}
	at := ep.attemptPool[n]
	nodes := at.nodes[:0]
	if cap(nodes) < g.Len() {
		nodes = make([]nodeState, 0, g.Len())
	}
	*at = attempt{
		id: n, nodes: nodes[:g.Len()], left: g.Len(), sinksLeft: len(g.Sinks()),
		ready: at.ready[:0], members: at.members[:0], waiting: at.waiting[:0], board: at.board[:0], review: at.review[:0],
	}
	for v := range g.Len() {
		at.nodes[v] = nodeState{maker: -1, trigger: -1, left: int32(len(g.Pred(task.ID(v))))}
		if at.nodes[v].left == 0 {
			at.nodes[v].status = ready
			at.ready.Push(task.ID(v))
			at.nReady++
		}
	}
	ep.attempts = ep.attemptPool[:n+1]
	return at
}

func (at *attempt) release(ep *episode, v task.ID) {
	g := ep.g
	ns := &at.nodes[v]
	ns.status = released
	if ns.assigned {
		ep.res.SubagentDone++
	}
	at.left--
	at.progress += g.Nodes[v].Work
	for _, w := range g.Succ(v) {
		ws := &at.nodes[w]
		if ws.status != blocked {
			continue
		}
		ws.left--
		if g.Nodes[w].Join == task.JoinAny {
			// The first alternative believed good settles the search; one
			// known to be bad does only if it is the last.
			if !ns.flagged || ws.left == 0 {
				ws.trigger = v
				at.makeReady(ep, w)
				at.skipAlternatives(ep, w)
			}
			continue
		}
		if ws.left == 0 {
			at.makeReady(ep, w)
		}
	}
	if len(g.Succ(v)) == 0 {
		at.sinksLeft--
		at.ok = (at.sinksLeft == len(g.Sinks())-1 || at.ok) && ns.ok
		if at.sinksLeft == 0 {
			at.completed(ep)
		}
	}
}

// skipAlternatives marks the other predecessors of a JoinAny node that no
// longer feed anything as not needed. Agents working on one, or holding
// one, notice at their next model call or decision and drop it.
func (at *attempt) skipAlternatives(ep *episode, w task.ID) {
	g := ep.g
	for _, u := range g.Pred(w) {
		us := &at.nodes[u]
		if us.status == released || us.status == skipped {
			continue
		}
		needed := false
		for _, x := range g.Succ(u) {
			if at.nodes[x].status == blocked {
				needed = true
				break
			}
		}
		if needed {
			continue
		}
		if us.status == ready {
			at.nReady--
		}
		if us.status == taken {
			if m := ep.agents[us.maker]; m.run && m.cur == u {
				m.breakRun() // its next call finds the part moot
			}
		}
		us.status = skipped
		at.left--
		at.progress += g.Nodes[u].Work
	}
}

func (at *attempt) makeReady(ep *episode, w task.ID) {
	at.nodes[w].status = ready
	at.ready.Push(w)
	at.nReady++
	if ep.holding {
		ep.held++
		return
	}
	at.wakeOne(ep)
}

func (at *attempt) completed(ep *episode) {
	at.complete = true
	at.steps = 0
	for _, a := range at.members {
		if a.run {
			a.settleRun(ep.env.Now()) // its steps so far
		}
		at.steps = max(at.steps, a.steps)
	}
	if at == ep.main.at {
		// The orchestrator's next turn follows its team's longest chain.
		ep.main.steps = max(ep.main.steps, at.steps)
		ep.main.wake()
		return
	}
	for _, a := range at.members {
		a.wake()
	}
}

// pop takes the ready subtask with the smallest ID. The queue must hold
// one.
func (at *attempt) pop() task.ID {
	for {
		v := at.ready.Pop()
		if at.nodes[v].status == ready {
			at.nReady--
			return v
		}
	}
}

// peek returns the next ready subtask, or -1.
func (at *attempt) peek() task.ID {
	for at.ready.Len() > 0 {
		v := at.ready.Min()
		if at.nodes[v].status == ready {
			return v
		}
		at.ready.Pop()
	}
	return -1
}

// wakeOne wakes the longest-waiting helper of the attempt, or else its
// main agent if that waits.
func (at *attempt) wakeOne(ep *episode) {
	if h := at.takeIdle(); h != nil {
		h.wake()
		return
	}
	if len(at.members) > 0 && at.members[0].main { // the main agent is its team's first member
		at.members[0].wake()
	}
}

// takeIdle removes and returns the longest-waiting helper, or nil.
func (at *attempt) takeIdle() *agent {
	for at.waitHead < len(at.waiting) {
		a := at.waiting[at.waitHead]
		at.waitHead++
		if at.waitHead == len(at.waiting) {
			at.waiting, at.waitHead = at.waiting[:0], 0 // empty: start again at the front
		}
		if a.state == waiting {
			return a
		}
	}
	return nil
}

// addWaiting queues a helper that starts waiting.
func (at *attempt) addWaiting(a *agent) {
	if at.waitHead > 0 && len(at.waiting) == cap(at.waiting) {
		n := copy(at.waiting, at.waiting[at.waitHead:])
		at.waiting, at.waitHead = at.waiting[:n], 0
	}
	at.waiting = append(at.waiting, a)
}
