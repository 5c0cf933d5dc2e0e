package collective

import (
	"math/bits"
	"slices"

	"github.com/swarmsim/swarmsim/sim"
)

// Runs of model calls.
//
// A part of ten minutes' work is carried out in twenty calls of 30 s, and
// each call's end is an event: most of an episode's events, each costing
// the queue, the dispatch, the staleness check and the next call's costs.
// Between two of them, usually nothing happens that the calls could
// notice. So when an agent on its own server starts a call with more to
// follow, it works out the ends of the calls to come (a run: their work,
// prompt and costs are known, as nothing is read in between) and sets one
// timer for the last of them. The calls in between are virtual: what
// their events would do to the agent and the counters is applied when it
// is needed (settle), in their order and at their times, and the count of
// events includes them (sim.Env.Elide).
//
// The episode is then the one the events fired one by one give, to the
// bit, because:
//
//   - A virtual event reads and writes only its own agent's state and
//     adds to the episode's counters; settle applies exactly that, and
//     whoever reads the agent's counts (completed, end) settles first.
//   - What a call would notice breaks the run at the moment it happens:
//     a finding delivered to the agent (deliver), a finding on the
//     attempt's board (share), its part becoming moot (skipAlternatives).
//     Breaking settles the calls ended so far and schedules the next
//     call's end as a real event, which is where the events fired one by
//     one would stand. The end of the episode settles every run.
//   - The order of events: two events at different instants fire in
//     time order whatever their sequence numbers, so only ties could
//     differ. No real event ever ties with a virtual one: a run is not
//     started if one of its instants is pending already (PendingAt) or
//     belongs to another run (the reserved instants), and an event
//     scheduled at one of a run's instants breaks that run first (later),
//     so that the run's next call end is scheduled before it, as it was
//     in the events fired one by one. A run's last call end takes its
//     sequence number when the run starts, not when the call before it
//     ends; any event scheduled in between at its instant breaks the run,
//     and those scheduled after that call's end come after it either way.
//   - The event limit: while runs are allowed, the episode's loop bounds
//     each RunThrough so that real and virtual events together stay below
//     the limit; near it, every run is broken and no new one starts, so
//     that the limit is reached at the same event as one by one.
//
// TestRunsChangeNothing runs episodes both ways, ties included, and
// compares every decision and metric.

// maxRun is the most call ends a run covers: it bounds a run's instants,
// and a longer part starts a new run at the end of one.
const maxRun = 64

// runsOff turns runs off, for the tests that compare the two ways.
var runsOff = false

// startRun starts a run at the call just started, due to end after d,
// instead of scheduling its end, if that is safe; it reports whether it
// did. The call's prompt is the prompt of every call of the run: nothing
// is read in between.
func (a *agent) startRun(d sim.Time, prompt int) bool {
	ep := a.ep
	if a.runTies || a.dup || len(a.inbox) > 0 || len(a.incoming) > 0 || a.boardRead != len(a.at.board) {
		return false
	}
	n := min(a.callsLeft, maxRun)
	if n < 2 || uint64(n-1) > ep.runBudget {
		return false
	}
	// The two sizes of work a call may have, and their costs.
	q, q1 := callCosts{callWork: -1, prompt: -1}, callCosts{callWork: -1, prompt: -1}
	q.update(ep, a.callQ, prompt)
	q1.update(ep, a.callQ+1, prompt)
	base := ep.cfg.Calls.Overhead + q.prefill
	dq, dq1 := base+q.work, base+q1.work
	if d <= 0 || dq <= 0 || dq1 <= 0 {
		return false // a call that takes no time ties with what it follows
	}
	now := ep.env.Now()
	const far = sim.MaxTime / 2
	if d > far-now || max(dq, dq1) > (far-now-d)/sim.Time(n) {
		return false
	}
	// Call j of the run (from 0) starts with callsLeft−j calls left, and
	// its work is callQ+1 if that is at most callR (nextCallWork).
	times := slices.Grow(a.runAt[:0], n)[:n]
	a.runAt = times
	t := now + d
	times[0] = t
	for j := 1; j < n; j++ {
		if a.callsLeft-j <= a.callR {
			t += dq1
		} else {
			t += dq
		}
		times[j] = t
	}
	for _, t := range times {
		if ep.reserved.maybe(t) && ep.runOwner(t) != nil {
			a.runTies = true
			return false
		}
	}
	if ep.env.PendingAt(times) {
		a.runTies = true
		return false
	}
	for _, t := range times {
		ep.reserved.add(t)
	}
	a.run, a.runNext = true, 0
	a.runPrompt, a.runOutQ, a.runOutQ1 = prompt, q.output, q1.output
	ep.runBudget -= uint64(n - 1)
	ep.outstanding += uint64(n - 1)
	ep.runs++
	if err := a.runTimer.Set(t - now); err != nil {
		ep.fail(err)
	}
	return true
}

// settleRun applies the run's virtual call ends due by now, each as
// callDone and startCall would: the call ends, and the next one starts
// with nothing to read.
func (a *agent) settleRun(now sim.Time) {
	ep := a.ep
	last := len(a.runAt) - 1 // the last call end is the timer's, a real event
	k := 0
	for ; a.runNext < last && a.runAt[a.runNext] <= now; a.runNext++ {
		k++
		a.callsLeft--
		if a.callsLeft == 1 {
			a.curState.lastCall = a.runAt[a.runNext]
		}
		a.callWork = nextCallWork(a.callQ, a.callR, a.callsLeft)
		a.workLeft -= a.callWork
		output := a.runOutQ
		if a.callWork != a.callQ {
			output = a.runOutQ1
		}
		ep.res.ModelCalls++
		ep.res.PromptTokens += int64(a.runPrompt)
		ep.res.OutputTokens += output
		a.steps++
	}
	if k > 0 {
		ep.env.Elide(uint64(k))
		ep.outstanding -= uint64(k)
	}
}

// endRun releases the run's instants and its timer; the run must be
// settled.
func (a *agent) endRun() {
	ep := a.ep
	for _, t := range a.runAt {
		ep.reserved.remove(t)
	}
	ep.outstanding -= uint64(len(a.runAt) - 1 - a.runNext)
	a.runTimer.Stop()
	a.run = false
	ep.runs--
}

// runDone is the run's last call end.
func (a *agent) runDone() {
	a.settleRun(a.runAt[len(a.runAt)-1])
	a.endRun()
	a.callDone()
}

// breakRun ends the run now, something having happened that a call could
// notice: the call ends so far are applied, and the next one becomes a
// real event, as it stands when the events fire one by one.
func (a *agent) breakRun() {
	ep := a.ep
	now := ep.env.Now()
	a.settleRun(now)
	next := a.runAt[a.runNext]
	a.endRun()
	if err := ep.env.Call(next-now, a.callDoneFn); err != nil {
		ep.fail(err)
	}
}

// breakRunAt breaks the run whose instant t is, if any: an event is about
// to be scheduled at t.
func (ep *episode) breakRunAt(t sim.Time) {
	if !ep.reserved.maybe(t) {
		return
	}
	if a := ep.runOwner(t); a != nil {
		a.runTies = true
		a.breakRun()
	}
}

// runOwner returns the agent whose run holds the instant t, or nil.
func (ep *episode) runOwner(t sim.Time) *agent {
	for _, a := range ep.agents {
		if a.run {
			if _, found := slices.BinarySearch(a.runAt, t); found {
				return a
			}
		}
	}
	return nil
}

// breakRuns breaks the runs of the attempt's members (nil: of every
// agent).
func (ep *episode) breakRuns(at *attempt) {
	agents := ep.agents
	if at != nil {
		agents = at.members
	}
	for _, a := range agents {
		if a.run {
			a.breakRun()
		}
	}
}

// settleRuns applies the virtual call ends due by now of every run, for
// the end of the episode.
func (ep *episode) settleRuns() {
	now := ep.env.Now()
	for _, a := range ep.agents {
		if a.run {
			a.settleRun(now)
			a.endRun()
		}
	}
}

// runBound bounds the events of the next RunThrough, n at most, so that
// real and virtual events together stay below the episode's limit, and
// sets what new runs may add meanwhile. Near the limit it breaks every
// run and allows no more.
func (ep *episode) runBound(n uint64) uint64 {
	if !ep.runsOK {
		return n
	}
	used := ep.env.Fired() + ep.outstanding
	if used+4*maxRun >= ep.maxEvents {
		ep.breakRuns(nil)
		ep.runsOK = false
		return n
	}
	left := ep.maxEvents - 1 - used
	half := left / 2
	ep.runBudget = left - half
	return min(n, half)
}

// instants counts the instants that runs hold, by a hash of the instant:
// an instant whose count is 0 is held by no run, which is what nearly
// every look finds; otherwise runOwner looks in the runs. It keeps its
// memory from one episode to the next.
type instants struct {
	counts []uint32
	shift  uint
	n      int // instants held
}

// slot is where t is counted: Fibonacci hashing of the nanoseconds.
func (s *instants) slot(t sim.Time) int {
	return int(uint64(t) * 0x9e3779b97f4a7c15 >> s.shift)
}

// maybe reports whether t may be held: false means it is not.
func (s *instants) maybe(t sim.Time) bool {
	return s.n > 0 && s.counts[s.slot(t)] != 0
}

func (s *instants) add(t sim.Time) {
	s.counts[s.slot(t)]++
	s.n++
}

func (s *instants) remove(t sim.Time) {
	s.counts[s.slot(t)]--
	s.n--
}

// reset empties the set for an episode of the given number of agents,
// sized so that a look at an instant no run holds rarely finds a count.
func (s *instants) reset(agents int) {
	size := 1 << min(16, max(10, bits.Len(uint(8*agents*maxRun))))
	if len(s.counts) != size {
		s.counts = make([]uint32, size)
		s.shift = uint(64 - bits.Len(uint(size-1)))
	} else if s.n > 0 {
		clear(s.counts) // an episode that failed left runs going
	}
	s.n = 0
}
