package collective

import (
	"math"
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
//     one would stand. The end of the episode settles every run. A
//     duplicate's calls look at its original's progress, which nothing
//     breaks a run for, so a duplicate runs none of its calls.
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
const maxRun = 32

// maxRunPending is the most events and timers pending (runs' timers
// included) for a run to start: it bounds what checking a run's instants
// against them costs (PendingAt, runOwner), and the instants held, which
// a collective of thousands of agents, each with an event pending, would
// make a burden on every event rather than a saving.
const maxRunPending = 64

// runsOff turns runs off, for the tests that compare the two ways.
var runsOff = false

// startRun starts a run at the call just started, due to end after d,
// instead of scheduling its end, if that is safe; it reports whether it
// did. The call's prompt is the prompt of every call of the run: nothing
// is read in between.
func (a *agent) startRun(d sim.Time, prompt int) bool {
	ep := a.ep
	if a.runTies || a.dup || len(a.inbox) > 0 || len(a.incoming) > 0 || a.boardRead != len(a.at.board) || ep.env.Pending() >= maxRunPending {
		return false
	}
	n := min(a.callsLeft, maxRun)
	if n < 2 || uint64(n-1) > ep.runBudget || d <= 0 {
		return false
	}
	// The calls after the first start with callsLeft−1 down to
	// callsLeft−n+1 calls left; a call with left calls left has work
	// callQ+1 if left ≤ callR, else callQ (nextCallWork). The costs of
	// the sizes the run has:
	var dq, dq1 sim.Time
	var outQ, outQ1 int64
	if a.callsLeft-1 > a.callR {
		c := a.costsOf(a.callQ, prompt)
		dq, outQ = ep.cfg.Calls.Overhead+c.prefill+c.work, c.output
		if dq <= 0 {
			return false // a call that takes no time ties with the one before
		}
	}
	if a.callsLeft-n+1 <= a.callR {
		c := a.costsOf(a.callQ+1, prompt)
		dq1, outQ1 = ep.cfg.Calls.Overhead+c.prefill+c.work, c.output
		if dq1 <= 0 {
			return false
		}
	}
	now := ep.env.Now()
	const far = sim.MaxTime / 2
	if d > far-now || max(dq, dq1) > (far-now-d)/sim.Time(n) {
		return false
	}
	// The instants, each reserved as it is worked out; one that another
	// run holds, or an event pending at one, refuses the run.
	times := slices.Grow(a.runAt[:0], n)[:n]
	a.runAt = times
	t := now + d
	for j := range n {
		if j > 0 {
			if a.callsLeft-j <= a.callR {
				t += dq1
			} else {
				t += dq
			}
		}
		times[j] = t
		shared, ok := ep.reserved.add(t)
		if !ok {
			a.unreserve(times[:j])
			return false
		}
		if shared && ep.runOwner(t) != nil {
			a.unreserve(times[:j+1])
			return false
		}
	}
	if ep.env.PendingAt(times) {
		a.unreserve(times)
		return false
	}
	a.run, a.runNext = true, 0
	a.runPrompt, a.runOutQ, a.runOutQ1 = prompt, outQ, outQ1
	a.runIndex = len(ep.running)
	ep.running = append(ep.running, a)
	ep.runBudget -= uint64(n - 1)
	ep.outstanding += uint64(n - 1)
	if err := a.runTimer.Set(t - now); err != nil {
		ep.fail(err)
	}
	return true
}

// unreserve releases the instants of a run refused, and gives up runs for
// the rest of the part: its calls tie with other events.
func (a *agent) unreserve(times []sim.Time) {
	for _, t := range times {
		a.ep.reserved.remove(t)
	}
	a.runTies = true
}

// costsOf returns the costs of a call of the given work and prompt: the
// last call's if they are its, else those kept for runs, one for each
// parity of the work (a run's two sizes differ by one).
func (a *agent) costsOf(work sim.Time, prompt int) *callCosts {
	if cc := &a.callCosts; cc.callWork == work && cc.prompt == prompt {
		return cc
	}
	cc := &a.runCosts[work&1]
	cc.update(a.ep, work, prompt)
	return cc
}

// settleRun applies the run's virtual call ends due by now as callDone
// and startCall would apply them one by one: each ends a call and starts
// the next, with nothing to read. Their sums are worked out at once.
func (a *agent) settleRun(now sim.Time) {
	last := len(a.runAt) - 1 // the last call end is the timer's, a real event
	first, i := a.runNext, a.runNext
	for i < last && a.runAt[i] <= now {
		i++
	}
	k := i - first
	if k == 0 {
		return
	}
	a.runNext = i
	// The calls started have left0−1 down to left0−k calls left; those
	// with at most callR left have work callQ+1.
	left0 := a.callsLeft
	a.callsLeft = left0 - k
	if a.callsLeft == 1 {
		a.curState.lastCall = a.runAt[first+left0-2] // the last call's start
	}
	n1 := max(0, min(a.callR, left0-1)-a.callsLeft+1)
	a.callWork = nextCallWork(a.callQ, a.callR, a.callsLeft)
	ep := a.ep
	ep.res.ModelCalls += k
	ep.res.PromptTokens += int64(k) * int64(a.runPrompt)
	ep.res.OutputTokens += int64(k-n1)*a.runOutQ + int64(n1)*a.runOutQ1
	a.steps += k
	ep.env.Elide(uint64(k))
	ep.outstanding -= uint64(k)
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
	last := ep.running[len(ep.running)-1]
	ep.running[a.runIndex], last.runIndex = last, a.runIndex
	ep.running[len(ep.running)-1] = nil
	ep.running = ep.running[:len(ep.running)-1]
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
	for _, a := range ep.running {
		// The instants before runNext have passed; t has not.
		at := a.runAt[a.runNext:]
		if t < at[0] || t > at[len(at)-1] {
			continue
		}
		if _, found := slices.BinarySearch(at, t); found {
			return a
		}
	}
	return nil
}

// breakRuns breaks the runs of the attempt's members (nil: every run).
func (ep *episode) breakRuns(at *attempt) {
	// Backwards: a run that ends moves the last one into its place.
	for i := len(ep.running) - 1; i >= 0; i-- {
		if a := ep.running[i]; at == nil || a.at == at {
			a.breakRun()
		}
	}
}

// settleRuns applies the virtual call ends due by now of every run and
// ends them, for the end of the episode.
func (ep *episode) settleRuns() {
	now := ep.env.Now()
	for i := len(ep.running) - 1; i >= 0; i-- {
		a := ep.running[i]
		a.settleRun(now)
		a.endRun()
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
	// The margin leaves both halves of what is left at least 2·maxRun:
	// the RunThrough fires at least one event, and a whole run fits.
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
// every look finds; otherwise runOwner looks in the runs. The table is
// small (4 KiB), so that it stays in the first-level cache beside what an
// episode touches: 8192 counts of 16 bits cost a training about a sixth
// more CPU time, in misses elsewhere, than the runs saved. A count is 8
// bits, and a slot that holds 255 instants refuses one more, as a tie
// would.
type instants struct {
	counts []uint8 // instantSlots of them, made at the first use
	n      int     // instants held
}

const (
	instantBits  = 12
	instantSlots = 1 << instantBits
)

// slot is where t is counted: Fibonacci hashing of the nanoseconds.
func slot(t sim.Time) int { return int(uint64(t) * 0x9e3779b97f4a7c15 >> (64 - instantBits)) }

// maybe reports whether t may be held: false means it is not.
func (s *instants) maybe(t sim.Time) bool {
	return s.n > 0 && s.counts[slot(t)] != 0
}

// add counts t and reports whether its slot already held an instant (t,
// or another that hashes there); ok is false, and nothing counted, if
// the slot is full.
func (s *instants) add(t sim.Time) (shared, ok bool) {
	c := &s.counts[slot(t)]
	if *c == math.MaxUint8 {
		return true, false
	}
	*c++
	s.n++
	return *c > 1, true
}

func (s *instants) remove(t sim.Time) {
	s.counts[slot(t)]--
	s.n--
}

// reset empties the set, keeping its memory.
func (s *instants) reset() {
	switch {
	case s.counts == nil:
		s.counts = make([]uint8, instantSlots)
	case s.n > 0:
		clear(s.counts) // an episode that failed left runs going
	}
	s.n = 0
}
