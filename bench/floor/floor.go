package floor

import (
	"math"
	"math/bits"
)

// The model: scenarios/library/rlcr-peer.yaml, times in seconds.
const (
	parts    = 8
	nodes    = parts + 2 // root 0, parts 1..8, join 9
	join     = nodes - 1
	agents   = 8
	meanWork = 600.0   // Exp(10 min)
	spawn    = 120.0   // a helper's start-up
	limit    = 12000.0 // 200 min
)

// The learner.
const (
	// B task instances of G rollouts each make an iteration.
	B, G     = 4, 8
	rollouts = B * G
	lr       = 0.05
	beta1    = 0.9
	beta2    = 0.999
	eps      = 1e-8
)

// The live features, in the product's order (models/policy/features.go);
// NF of its 32. The fourteen left out (alone, unread, attempts, pending,
// coupling, retries, complete, unchecked×coupling, unshared×coupling,
// complete×no pending, and the four task kinds: this task has none) are 0
// at every decision of this model, so their
// weights get no gradient and stay 0, and their products add exactly 0 to
// the logits.
const (
	xBias          = iota // 1
	xMain                 // the deciding agent is agent 0
	xTimeUsed             // elapsed / limit
	xLogElapsed           // log1p(elapsed/60 s)/5
	xProgress             // work released / total work
	xReadyFrac            // min(ready, 8)/8
	xLogReady             // log1p(ready)/3
	xLogBusy              // log1p(other agents busy)/3
	xLogIdle              // log1p(other agents waiting)/3
	xLogFree              // log1p(agents not yet spawned)/3
	xUnchecked            // holds a finished part
	xUnshared             // holds a part whose join waits for others
	xLogNextWork          // log1p(work of the next ready part / the task's mean work)
	xHasReady             // 1: a decision is only asked with a part ready
	xReady2Helper         // ready > 1 and an agent to delegate to
	xReady2Time           // (ready > 1) × time used
	xUncheckedTime        // holds a part × time used
	xMainStart            // agent 0 at time 0

	// NF is the number of live features.
	NF = iota
)

// Names are the live features' names, as the product's policy files spell
// them.
var Names = [NF]string{
	xBias: "bias", xMain: "main", xTimeUsed: "time_used", xLogElapsed: "log_elapsed",
	xProgress: "progress", xReadyFrac: "ready_frac", xLogReady: "log_ready", xLogBusy: "log_busy",
	xLogIdle: "log_idle", xLogFree: "log_free", xUnchecked: "unchecked", xUnshared: "unshared",
	xLogNextWork: "log_next_work", xHasReady: "has_ready", xReady2Helper: "ready2_x_helper",
	xReady2Time: "ready2_x_time_used", xUncheckedTime: "unchecked_x_time_used", xMainStart: "main_x_start",
}

// Agent states, as the product's.
const (
	free uint8 = iota
	busy
	waiting
)

// Node states.
const (
	blocked uint8 = iota
	ready
	taken
	held
	released
)

// thirds[n] is log1p(n)/3, the feature of a count n ≤ 8.
var thirds = func() (t [agents + 2]float64) {
	for n := range t {
		t[n] = math.Log1p(float64(n)) / 3
	}
	return t
}()

// rng is splitmix64: one add, three multiplies and shifts a draw.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// float64 is uniform in [0, 1).
func (r *rng) float64() float64 { return float64(float64(r.next()>>11) * 0x1p-53) }

// exp is an exponential draw of the given mean.
func (r *rng) exp(mean float64) float64 { return -mean * math.Log(1-r.float64()) }

// Decision is one decision as a test reads it from a traced episode.
type Decision struct {
	Agent  int
	X      [NF]float64
	Choice bool // delegate was valid too: the policy was asked
	Work   bool // the action: work (else delegate)
	At     float64
}

// episode is one rollout's state: the task's progress, the agents and one
// pending event per agent. Its zero value is reset by run.
type episode struct {
	now  float64
	work *[nodes]float64
	// total is the task's work; mean its mean per node.
	total, mean float64

	status    [nodes]uint8
	readyBits uint16 // ready nodes; the smallest is popped first
	nReady    int
	joinLeft  int // parts not released: the join's predecessors left
	left      int // nodes not released
	progress  float64
	complete  bool

	live, busy, nWaiting int
	state                [agents]uint8
	held, cur            [agents]int8
	fifo                 [agents]int8 // waiting helpers, longest-waiting first
	head, nFifo          int

	at      [agents]float64 // the pending event of each agent
	seq     [agents]uint64  // its order among events at the same time
	pending uint8           // agents with an event
	nextSeq uint64

	done, ok  bool
	finish    float64
	decisions int // every decision, with or without a choice
	delegated int // delegations chosen by the policy
	asked     int // decisions the policy was asked

	// What the policy reads and what the rollout accumulates.
	delta *[NF]float64 // θ_delegate − θ_work
	score *[NF]float64 // Σ (1[delegate] − π(delegate))·x over asked decisions
	r     *rng
	trace []Decision // tests only: every decision, when not nil
}

// schedule sets agent a's event at time t; events at the same time fire
// in the order they were set.
func (e *episode) schedule(a int, t float64) {
	e.at[a], e.seq[a] = t, e.nextSeq
	e.nextSeq++
	e.pending |= 1 << a
}

func (e *episode) becomeBusy(a int) {
	if e.state[a] != busy {
		e.state[a] = busy
		e.busy++
	}
}

// wake lets waiting agent a decide now.
func (e *episode) wake(a int) {
	if e.state[a] != waiting {
		return
	}
	e.nWaiting--
	e.becomeBusy(a)
	e.schedule(a, e.now)
}

// wakeOne wakes the longest-waiting helper, else agent 0 if it waits.
func (e *episode) wakeOne() {
	if e.nFifo > 0 {
		e.wake(e.popWaiting())
		return
	}
	e.wake(0)
}

func (e *episode) popWaiting() int {
	h := int(e.fifo[e.head])
	e.head = (e.head + 1) % agents
	e.nFifo--
	return h
}

func (e *episode) makeReady(v int) {
	e.status[v] = ready
	e.readyBits |= 1 << v
	e.nReady++
	e.wakeOne()
}

// release hands agent a's held part on, if any: its successors may become
// ready, and the join's completes the task.
func (e *episode) release(a int) {
	v := int(e.held[a])
	if v < 0 {
		return
	}
	e.held[a] = -1
	e.status[v] = released
	e.left--
	e.progress += e.work[v]
	switch {
	case v == 0:
		for w := 1; w <= parts; w++ {
			e.makeReady(w)
		}
	case v < join:
		if e.joinLeft--; e.joinLeft == 0 {
			e.makeReady(join)
		}
	default:
		e.complete = true
		e.wake(0)
	}
}

// pop takes the ready node with the smallest number.
func (e *episode) pop() int {
	v := bits.TrailingZeros16(e.readyBits)
	e.readyBits &^= 1 << v
	e.nReady--
	return v
}

// start sets agent a to work on v after delay.
func (e *episode) start(a, v int, delay float64) {
	e.status[v] = taken
	e.cur[a] = int8(v)
	e.becomeBusy(a)
	e.schedule(a, e.now+delay+e.work[v])
}

// end closes the episode now.
func (e *episode) end(ok bool) {
	e.done, e.ok, e.finish = true, ok, e.now
}

// decide is a free agent's turn: the collective's rules, the observation
// and, where work and delegate are both valid, the policy.
func (e *episode) decide(a int) {
	if e.state[a] == busy {
		e.state[a] = free
		e.busy--
	}
	h := int(e.held[a])
	main := a == 0
	if main && (e.complete || h >= 0 && e.left == 1) {
		// A finished result is submitted without a decision.
		e.release(a)
		e.end(e.complete)
		return
	}
	if e.nReady == 0 {
		// Nothing to choose: wait (releasing the held part), or, for
		// agent 0 with nothing under way, give up.
		if h < 0 && main && e.busy == 0 {
			e.end(false)
			return
		}
		e.release(a)
		if e.nReady > 0 {
			e.becomeBusy(a)
			e.schedule(a, e.now)
			return
		}
		e.state[a] = waiting
		e.nWaiting++
		if !main {
			e.fifo[(e.head+e.nFifo)%agents] = int8(a)
			e.nFifo++
		}
		return
	}
	e.decisions++
	idleHelpers := e.nWaiting
	if e.state[0] == waiting {
		idleHelpers-- // agent 0 takes no delegation
	}
	work := true
	choice := idleHelpers > 0 || e.live < agents
	var x [NF]float64
	if choice || e.trace != nil {
		e.features(a, h, &x)
	}
	if choice {
		var d float64 // the logit of delegate less that of work
		for j := range NF {
			d += float64(e.delta[j] * x[j])
		}
		pd := 1 / (1 + math.Exp(-d))
		work = e.r.float64() < 1-pd
		g := -pd
		if !work {
			g++
			e.delegated++
		}
		for j := range NF {
			e.score[j] += float64(g * x[j])
		}
		e.asked++
	}
	if e.trace != nil {
		e.trace = append(e.trace, Decision{Agent: a, X: x, Choice: choice, Work: work, At: e.now})
	}
	e.release(a)
	v := e.pop()
	if work {
		e.start(a, v, 0)
		return
	}
	// Delegate to the longest-waiting helper, else a new one; the
	// delegator decides again at once.
	var delay float64
	var hp int
	if e.nFifo > 0 {
		hp = e.popWaiting()
		e.nWaiting--
	} else {
		hp = e.live
		e.live++
		delay = spawn
	}
	e.start(hp, v, delay)
	e.becomeBusy(a)
	e.schedule(a, e.now)
}

// features writes agent a's observation, holding h, into x.
func (e *episode) features(a, h int, x *[NF]float64) {
	tu := e.now / limit
	ready2 := 0.0
	if e.nReady > 1 {
		ready2 = 1
	}
	x[xBias] = 1
	if a == 0 {
		x[xMain] = 1
		if e.now == 0 {
			x[xMainStart] = 1
		}
	}
	x[xTimeUsed] = tu
	x[xLogElapsed] = math.Log1p(e.now/60) / 5
	x[xProgress] = e.progress / e.total
	x[xReadyFrac] = float64(min(e.nReady, 8)) / 8
	x[xLogReady] = thirds[e.nReady]
	x[xLogBusy] = thirds[e.busy]
	x[xLogIdle] = thirds[e.nWaiting]
	x[xLogFree] = thirds[agents-e.live]
	if h >= 0 {
		x[xUnchecked] = 1
		x[xUncheckedTime] = tu
		if h > 0 && h < join && e.joinLeft > 1 {
			x[xUnshared] = 1
		}
	}
	x[xLogNextWork] = math.Log1p(e.work[bits.TrailingZeros16(e.readyBits)] / e.mean)
	x[xHasReady] = 1
	if e.nReady > 1 && e.nWaiting+agents-e.live > 0 {
		x[xReady2Helper] = 1
	}
	x[xReady2Time] = ready2 * tu
}

// run plays one episode of the task work, total and mean to the end.
func (e *episode) run() {
	e.now = 0
	e.status = [nodes]uint8{ready}
	e.readyBits, e.nReady = 1, 1
	e.joinLeft, e.left, e.progress, e.complete = parts, nodes, 0, false
	e.live, e.busy, e.nWaiting = 1, 0, 0
	e.state = [agents]uint8{}
	e.held = [agents]int8{-1, -1, -1, -1, -1, -1, -1, -1}
	e.cur = e.held
	e.head, e.nFifo = 0, 0
	e.pending, e.nextSeq = 0, 0
	e.done, e.ok, e.finish = false, false, 0
	e.decisions, e.delegated, e.asked = 0, 0, 0

	e.becomeBusy(0)
	e.schedule(0, 0)
	for !e.done {
		// The next event: the earliest, the first set among ties.
		a := -1
		for m := e.pending; m != 0; m &= m - 1 {
			b := bits.TrailingZeros8(m)
			if a < 0 || e.at[b] < e.at[a] || e.at[b] == e.at[a] && e.seq[b] < e.seq[a] {
				a = b
			}
		}
		if a < 0 || e.at[a] > limit {
			e.now = limit
			e.end(false)
			return
		}
		e.pending &^= 1 << a
		e.now = e.at[a]
		if v := e.cur[a]; v >= 0 {
			// The part is done; its maker holds it until its next action.
			e.status[v] = held
			e.held[a], e.cur[a] = v, -1
		}
		e.decide(a)
	}
}
