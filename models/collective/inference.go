package collective

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// A shared model server: a self-hosted deployment (replicas) or a hosted
// API. An agent has at most one model call in flight, so the call's state
// lives in the agent and nothing is allocated per call.
//
// A server knows of a call when it is sent, before it arrives (the agent
// reads its messages and pays the call's overhead on the way), and owns
// one timer, set for its next departure with the calls on their way
// counted in. It takes calls in, queues and admits them in its own
// bookkeeping when that timer fires, at the times they happened, so an
// arrival costs no event: a call costs one event, its end, as it does on
// an agent's own server. The timer moves in place when a new call changes
// the plan. At one nanosecond a server's departures come before its
// arrivals, and its timer ties with other events as a Call made when its
// time last changed would.
type server interface {
	// submit hands the server the agent's call (a.req), which reaches it
	// after delay; the server calls a.served when the call is complete.
	submit(a *agent, delay sim.Time)
	// finish records the server's utilisation in the episode's metrics.
	finish(now sim.Time, m *Metrics)
}

// request is the model call an agent has at a shared server.
type request struct {
	prompt, output int64
	arrive         sim.Time // when it reaches the server
	node           task.ID  // the part it works on or checks
	check          bool     // a check of a held part, not a call of the part in progress
	// On a replica, the prefill of its prompt, which pauses the batch that
	// admits it; at a hosted API, its time there once admitted, drawn when
	// it is sent (the draw is named by the call, not by the time).
	setup, service sim.Time
	api            apiSchedule // at a hosted API
}

// fifo is a first-in first-out queue of agents; it allocates only when it
// grows beyond its largest size so far. Its ring's length is a power of two,
// so that positions wrap with a mask.
type fifo struct {
	buf     []*agent
	head, n int
}

func (q *fifo) push(a *agent) {
	if q.n == len(q.buf) {
		grown := make([]*agent, max(8, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.at(i)
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = a
	q.n++
}

// at returns the i-th agent from the head.
func (q *fifo) at(i int) *agent { return q.buf[(q.head+i)&(len(q.buf)-1)] }

// reset empties the queue and returns it, keeping its memory.
func (q fifo) reset() fifo {
	clear(q.buf)
	return fifo{buf: q.buf}
}

func (q *fifo) pop() *agent {
	a := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return a
}

// arrivals holds the calls on their way to a server, in order of arrival,
// calls that arrive together in the order they were sent. A call usually
// arrives after those sent before it, so insertion is usually an append.
// The times are kept beside the agents, so that ordering and planning do
// not read every agent.
type arrivals struct {
	calls []arrival
	head  int
}

type arrival struct {
	at sim.Time
	a  *agent
}

func (q *arrivals) len() int { return len(q.calls) - q.head }

// at returns the i-th call to arrive, and when.
func (q *arrivals) at(i int) (*agent, sim.Time) {
	c := &q.calls[q.head+i]
	return c.a, c.at
}

// insert adds the agent's call, which arrives at a.req.arrive, and returns
// its place among the calls on their way (len()-1 when it arrives last).
func (q *arrivals) insert(a *agent) int {
	if q.head > 0 && len(q.calls) == cap(q.calls) {
		n := copy(q.calls, q.calls[q.head:])
		clear(q.calls[n:])
		q.calls, q.head = q.calls[:n], 0
	}
	t := a.req.arrive
	i := len(q.calls)
	if i == q.head || q.calls[i-1].at <= t {
		q.calls = append(q.calls, arrival{at: t, a: a})
		return i - q.head
	}
	for i > q.head && q.calls[i-1].at > t {
		i--
	}
	q.calls = append(q.calls, arrival{at: t, a: a})
	if i < len(q.calls)-1 {
		copy(q.calls[i+1:], q.calls[i:])
		q.calls[i] = arrival{at: t, a: a}
	}
	return i - q.head
}

func (q *arrivals) pop() *agent {
	a := q.calls[q.head].a
	q.calls[q.head] = arrival{}
	q.head++
	if q.head == len(q.calls) {
		q.calls, q.head = q.calls[:0], 0
	}
	return a
}

// due reports whether the next call arrives before t, or at t with atT.
func (q *arrivals) due(t sim.Time, atT bool) bool {
	if q.head == len(q.calls) {
		return false
	}
	at := q.calls[q.head].at
	return at < t || atT && at == t
}

// reset empties the queue and returns it, keeping its memory.
func (q arrivals) reset() arrivals {
	clear(q.calls)
	return arrivals{calls: q.calls[:0]}
}

// queueStats integrates a queue's length over time, for Little's law.
type queueStats struct {
	area float64 // ∫ length dt, in nanoseconds
	at   sim.Time
	n    int
}

func (s *queueStats) set(now sim.Time, n int) {
	s.area += float64(float64(now-s.at) * float64(s.n))
	s.at, s.n = now, n
}

// waited books the wait of a call admitted at time at, and traces it as a
// slice.
func (a *agent) waited(at sim.Time) {
	res := a.ep.res
	if res.Trace != nil {
		a.traceWait(at) // apart, so that waited is inlined
	}
	if arrive := a.req.arrive; at > arrive {
		res.ServingWait += at - arrive
		a.activity = at
	}
}

// traceWait traces the call's way to the server and its wait there.
// Reading messages and the call's overhead precede the call at the server
// even when it does not wait, so that a trace's work span is the server's
// time alone (what a client's span of a call to a hosted API measures).
func (a *agent) traceWait(at sim.Time) {
	arrive := a.req.arrive
	label := a.ep.g.Nodes[a.req.node].Name
	a.span(a.activity, arrive, "send", label)
	a.span(arrive, at, "queue", label)
	a.activity = max(a.activity, arrive)
}

// setTimer moves t to fire at due, keeping its place among events of the
// same time when due has not changed; idle (no due) stops it.
func (ep *episode) setTimer(t *sim.Timer, due sim.Time, idle bool) {
	switch {
	case idle:
		t.Stop()
	case t.Pending() && t.When() == due:
	default:
		if err := t.Set(due - ep.env.Now()); err != nil {
			ep.fail(err)
		}
	}
}

// deployment is the self-hosted deployment: replicas that batch
// continuously, each a processor-sharing server whose speed depends on its
// batch (sim.Sharing). Between arrivals and departures a batch's step time
// is constant, so each call's remaining tokens fall linearly and the next
// departure is known exactly: the model costs events per call, not per
// token, and is exact for the fluid model of the batch (each sequence gets
// 1/step(b) tokens per unit time; a prefill pauses the batch). The calls
// on their way are known, so the next departure is planned with them
// (sim.Lookahead) and a change of plan moves the one timer.
type deployment struct {
	ep       *episode
	cfg      *Serving
	replicas []replica
	arriving arrivals
	timer    sim.Timer
	wakeFn   func()
	waking   bool // in wake, which plans once at its end
	// The plan: each replica's lookahead and queue length with the first
	// planned calls on their way taken in, and the first departure then.
	// A call sent later than those continues it.
	ahead   []sim.Lookahead
	queued  []int
	planned int // calls on their way taken in; -1 when the plan stopped at its departure, or is out of date
	due     sim.Time
	busy    bool
	full    bool // every batch is full until due: the plan takes no call in (plan)
}

type replica struct {
	ps     *sim.Sharing
	queue  fifo
	qstats queueStats
}

// newDeployment returns the deployment of cfg for ep, on the memory of old
// (a deployment of an earlier episode) when there is one.
func newDeployment(ep *episode, cfg *Serving, old *deployment) (*deployment, error) {
	d := old
	if d == nil {
		d = &deployment{}
		d.wakeFn = d.wake
	}
	d.ep, d.cfg, d.arriving, d.waking = ep, cfg, d.arriving.reset(), false
	d.planned, d.busy, d.full = -1, false, false
	d.timer.Init(ep.env, d.wakeFn)
	if cap(d.replicas) < cfg.Replicas {
		d.replicas = make([]replica, cfg.Replicas)
		d.ahead, d.queued = make([]sim.Lookahead, cfg.Replicas), make([]int, cfg.Replicas)
	}
	d.replicas, d.ahead, d.queued = d.replicas[:cfg.Replicas], d.ahead[:cfg.Replicas], d.queued[:cfg.Replicas]
	for i := range d.replicas {
		r := &d.replicas[i]
		if r.ps == nil {
			r.ps = &sim.Sharing{}
		}
		if err := r.ps.Reset(cfg.Step, cfg.StepPerSeq); err != nil {
			return nil, err
		}
		r.queue, r.qstats = r.queue.reset(), queueStats{}
	}
	return d, nil
}

// pick returns the replica a call goes to: the one with the fewest
// sequences, batched or queued, by load, the lowest-numbered on a tie.
func pick(n int, load func(i int) int) int {
	best := 0
	for i := 1; i < n; i++ {
		if load(i) < load(best) {
			best = i
		}
	}
	return best
}

func (d *deployment) submit(a *agent, delay sim.Time) {
	a.req.arrive = d.ep.env.Now() + delay
	a.req.setup = prefill(d.cfg.PrefillToken, a.req.prompt) // the prefill pauses the batch that admits the call
	last := d.arriving.insert(a) == d.arriving.len()-1
	switch {
	case d.waking:
		// wake plans when it is done.
	case d.full || d.busy && d.due <= a.req.arrive:
		// A call that arrives after the next departure changes nothing
		// before it, nor does one that queues behind full batches.
	case last && d.planned == d.arriving.len()-1:
		d.extend() // the plan took in every call before this one
	default:
		d.plan()
	}
}

// prefill returns the time a prompt of n tokens takes to prefill at
// perToken, scale(perToken, n): as a product of integers where the
// floating-point one is exact (below 2^53, so that rounding it changes
// nothing), which saves math.Round.
func prefill(perToken sim.Time, n int64) sim.Time {
	if perToken >= 0 && perToken < 1<<26 && n >= 0 && n < 1<<26 {
		return perToken * sim.Time(n)
	}
	return scale(perToken, float64(n))
}

// plan sets the timer for the first departure, with the calls that arrive
// before it taken in on lookahead copies of the replicas, as arrive will.
//
// When every replica's batch is full, a call that arrives before the
// first departure queues and changes nothing before it (arrive admits a
// call only into a batch with room), so the plan is the replicas' own
// first departure, with no lookahead, whatever is on its way or sent
// until then (full).
func (d *deployment) plan() {
	d.due, d.busy = sim.MaxTime, false
	full := true
	for i := range d.replicas {
		ps := d.replicas[i].ps
		if due, ok := ps.Next(); ok {
			d.due, d.busy = min(d.due, due), true
		}
		full = full && ps.Len() >= d.cfg.MaxBatch
	}
	if d.full = full && d.busy; d.full {
		d.planned = -1 // nothing to continue: submit leaves the plan alone
		d.ep.setTimer(&d.timer, d.due, false)
		return
	}
	for i := range d.replicas {
		r := &d.replicas[i]
		d.ahead[i].Reset(r.ps)
		d.queued[i] = r.queue.n
	}
	d.planned = 0
	d.extend()
}

// extend takes the calls on their way that the plan has not taken in
// into it, until the first departure, and sets the timer.
func (d *deployment) extend() {
	for ; d.planned < d.arriving.len(); d.planned++ {
		a, arrive := d.arriving.at(d.planned)
		if d.busy && d.due <= arrive {
			d.planned = -1
			break
		}
		i := pick(len(d.replicas), func(i int) int { return d.ahead[i].Len() + d.queued[i] })
		if d.ahead[i].Len() >= d.cfg.MaxBatch {
			d.queued[i]++
			continue
		}
		d.ahead[i].Add(arrive, float64(a.req.output), a.req.setup)
		d.due, d.busy = d.firstDeparture()
	}
	d.ep.setTimer(&d.timer, d.due, !d.busy)
}

// firstDeparture returns the earliest departure of the lookahead copies,
// and false if none has a call in service.
func (d *deployment) firstDeparture() (sim.Time, bool) {
	first, busy := sim.MaxTime, false
	for i := range d.ahead {
		if due, ok := d.ahead[i].Next(); ok {
			first, busy = min(first, due), true
		}
	}
	return first, busy
}

// arrive takes in the calls that reached the servers before t (and at t,
// with atT), each at its arrival time: it sends it to a replica, which
// batches or queues it. It reports whether there were any.
func (d *deployment) arrive(t sim.Time, atT bool) bool {
	took := false
	for d.arriving.due(t, atT) {
		a := d.arriving.pop()
		r := &d.replicas[pick(len(d.replicas), func(i int) int { return d.replicas[i].ps.Len() + d.replicas[i].queue.n })]
		if r.ps.Len() < d.cfg.MaxBatch {
			r.admit(d, a, a.req.arrive)
		} else {
			r.queue.push(a)
			r.qstats.set(a.req.arrive, r.queue.n)
		}
		took = true
	}
	return took
}

// admit puts the call in the batch at time at: its prompt is prefilled
// first, which pauses the whole batch, then it gets one token per step.
func (r *replica) admit(d *deployment, a *agent, at sim.Time) {
	a.waited(at)
	r.ps.Add(at, a.id, float64(a.req.output), a.req.setup)
}

// wake is the timer's: it takes in the calls that arrived before now,
// ends the calls that are complete (replica by replica), letting queued
// calls into the freed batch slots, takes in the calls that arrive now, and
// plans again.
func (d *deployment) wake() {
	now := d.ep.env.Now()
	d.waking = true
	d.planned = -1 // out of date from here on
	if d.arriving.due(now, false) {
		d.arrive(now, false)
	}
	for {
		for i := range d.replicas {
			d.replicas[i].depart(d, now)
		}
		if !d.arriving.due(now, true) || !d.arrive(now, true) {
			break // else a call with no work may be done already
		}
	}
	d.waking = false
	d.plan()
}

// depart ends the replica's calls that are complete by now.
func (r *replica) depart(d *deployment, now sim.Time) {
	for {
		if due, ok := r.ps.Next(); !ok || due > now {
			return // tested here, where it is inlined, rather than in Pop
		}
		var id int
		var ok bool
		if r.queue.n > 0 && r.ps.Len() == d.cfg.MaxBatch {
			// The freed place goes to the queue's first, in one step.
			a := r.queue.at(0)
			if id, ok = r.ps.Replace(now, a.id, float64(a.req.output), a.req.setup); ok {
				r.queue.pop()
				a.waited(now)
				r.qstats.set(now, r.queue.n)
			}
		} else {
			id, ok = r.ps.Pop(now)
		}
		if !ok {
			return
		}
		for r.queue.n > 0 && r.ps.Len() < d.cfg.MaxBatch {
			r.admit(d, r.queue.pop(), now)
			r.qstats.set(now, r.queue.n)
		}
		d.ep.agents[id].served()
	}
}

func (d *deployment) finish(now sim.Time, m *Metrics) {
	d.arrive(now, false)
	var busy, area, queued float64
	for i := range d.replicas {
		r := &d.replicas[i]
		busy += float64(r.ps.Busy(now))
		area += r.ps.Area(now)
		r.qstats.set(now, r.queue.n)
		queued += r.qstats.area
	}
	if now > 0 {
		m.ServerUtilisation = busy / (float64(now) * float64(len(d.replicas)))
		m.ServingQueueMean = queued / float64(now)
	}
	if busy > 0 {
		m.BatchMean = area / busy
	}
}

// hostedAPI is a hosted API: a concurrency cap and request and token rate
// limits (token buckets holding a minute's worth) in front of calls that
// take a time to first token plus their output at a fixed rate. Calls wait
// in one FIFO queue for all three.
//
// Everything that decides when a call is admitted is known when it is
// sent: when it arrives, its time there (drawn then), and the calls ahead
// of it in the queue, whose admissions and ends are known the same way.
// In a FIFO queue the admission of a call is max(its arrival, the
// admission before it, the first end of the calls holding the cap's
// places, the time the buckets hold its tokens), so the API schedules each
// call when it is sent (schedule), and its timer is set for the first end
// of a scheduled call: arrivals and admissions cost no event, each end
// one. A call sent later that arrives before calls already scheduled goes
// ahead of them in the queue: they are unscheduled, the last first, which
// restores the state before them, and scheduled again behind it. At the
// timer the API takes the admissions up to now in (their waits, trace
// slices and places in flight, at their times) and ends the calls due.
type hostedAPI struct {
	ep   *episode
	cfg  *API
	cap  int // cfg.Concurrency
	room int // the most calls in flight: cap, or no limit
	// As of the last call scheduled: its buckets (nil for no limit), when
	// each of the cap's places is free (with a cap), and its admission.
	rpm, tpm           *sim.TokenBucket
	slots              slots
	last               sim.Time
	scheduled          uint64           // calls scheduled, to order ends that tie
	rpmSpare, tpmSpare *sim.TokenBucket // the buckets' memory, kept for the next episode
	// In real time: the calls scheduled and not admitted yet, in order of
	// arrival, those admitted (booked) so far and those in flight.
	waiting  arrivals
	booked   uint64
	inFlight int
	ends     ends // the calls scheduled and not ended, by end
	// vacant: the top of ends is the call wake is ending, for the next
	// call scheduled to replace (an agent usually sends its next call as
	// its last one ends): a heap's replace costs one sift, a pop and a
	// push two.
	vacant bool
	// ∫ queue length dt and ∫ calls in flight dt, in nanoseconds: from
	// the calls' waits and times in flight, as they are admitted.
	queueArea, flightArea sim.Time
	timer                 sim.Timer
	wakeFn                func()
	waking                bool
	ttft                  sim.Key
	ttftDraw              sim.Sampler
	// The time to first token is drawn from src, named by the call: one
	// hash per call, where the episode's PCG takes two to seed.
	src sim.Source
	rng *rand.Rand
	// The draws made ahead of each agent's calls, by agent id: kept here
	// rather than in the agent, so that an episode without an API (of
	// thousands of agents, say) does not carry them.
	ahead []drawsAhead
}

// apiSchedule is a call's schedule at a hosted API, worked out when it is
// sent, and what working it out changed, to undo it.
type apiSchedule struct {
	admit, last sim.Time // its admission; the API's last admission before it
	slot        sim.Time // the place in flight it took, when took
	took        bool
	rpm, tpm    sim.BucketMark // the buckets before it
}

// newHostedAPI returns the API of cfg for ep, on the memory of old (an API
// of an earlier episode) when there is one.
func newHostedAPI(ep *episode, cfg *API, streams sim.Streams, old *hostedAPI) (*hostedAPI, error) {
	h := old
	if h == nil {
		h = &hostedAPI{}
		h.wakeFn = h.wake
	}
	*h = hostedAPI{ep: ep, cfg: cfg, ttft: streams.Key("ttft"), ttftDraw: cfg.TTFT.Sampler(), wakeFn: h.wakeFn,
		slots: h.slots[:0], waiting: h.waiting.reset(), ends: h.ends.reset(),
		rpmSpare: h.rpmSpare, tpmSpare: h.tpmSpare, rng: h.rng, ahead: h.ahead[:0]}
	if h.rng == nil {
		h.rng = rand.New(&h.src)
	}
	h.cap, h.room = cfg.Concurrency, cfg.Concurrency
	if h.cap == 0 {
		h.room = math.MaxInt
	}
	h.timer.Init(ep.env, h.wakeFn)
	if err := resetBucket(&h.rpm, &h.rpmSpare, cfg.RPM); err != nil {
		return nil, fmt.Errorf("api.rpm: %w", err)
	}
	if err := resetBucket(&h.tpm, &h.tpmSpare, cfg.TPM); err != nil {
		return nil, fmt.Errorf("api.tpm: %w", err)
	}
	return h, nil
}

// resetBucket makes *b a full bucket of perMinute tokens a minute, or nil
// for no limit, on the memory of the bucket it held.
func resetBucket(b **sim.TokenBucket, spare **sim.TokenBucket, perMinute int64) error {
	if perMinute == 0 {
		*b = nil
		return nil
	}
	if *spare == nil {
		*spare = &sim.TokenBucket{}
	}
	*b = *spare
	return (*b).Reset(perMinute, sim.Minute, perMinute)
}

func (h *hostedAPI) submit(a *agent, delay sim.Time) {
	a.req.arrive = h.ep.env.Now() + delay
	d, err := h.serviceTime(a)
	if err != nil {
		h.ep.fail(err)
		return
	}
	a.req.service = d
	// Outside wake, which sets it when done, the timer is set for the
	// first end: a call appended moves it only if it ends first.
	if i, n := h.waiting.insert(a), h.waiting.len(); i == n-1 {
		err = h.schedule(a)
		if err == nil && !h.waking && h.ends[0].id == a.id {
			h.setTimer()
		}
	} else if err = h.reschedule(i, n); err == nil && !h.waking {
		h.setTimer()
	}
	if err != nil {
		h.ep.fail(err)
	}
}

// reschedule schedules the calls on their way from the i-th, a call sent
// now that arrives before those after it: they queue behind it, so they
// are undone, the last first, and scheduled again. They arrive later than
// now, so none is admitted yet.
func (h *hostedAPI) reschedule(i, n int) error {
	h.settle()
	for j := n - 1; j > i; j-- {
		b, _ := h.waiting.at(j)
		h.unschedule(b)
	}
	for j := i; j < n; j++ {
		b, _ := h.waiting.at(j)
		if err := h.schedule(b); err != nil {
			return err
		}
	}
	return nil
}

// schedule works out when the agent's call is admitted, behind the calls
// scheduled before it, and when it ends.
func (h *hostedAPI) schedule(a *agent) error {
	s := &a.req.api
	t := max(a.req.arrive, h.last)
	s.took = h.cap > 0 && len(h.slots) == h.cap
	if s.took { // it takes the place free first
		s.slot = h.slots[0]
		t = max(t, s.slot)
	}
	// The buckets are asked from t; the call is admitted when both hold
	// its tokens, and takes them then. Each takes them at t if it can, and
	// is put back and takes them later if the other one is short.
	admit, tokens := t, a.req.prompt+a.req.output
	tpmAt, tpmTook := t, false
	if h.tpm != nil {
		if !h.tpm.Holds(tokens) {
			_, err := h.tpm.Ready(t, tokens)
			return fmt.Errorf("collective: api.tpm: a call of %d tokens can never be admitted: %w", tokens, err)
		}
		s.tpm = h.tpm.Mark()
		ready, took := h.tpm.TakeReady(t, tokens)
		admit, tpmAt, tpmTook = ready, ready, took
	}
	if h.rpm != nil {
		s.rpm = h.rpm.Mark()
		ready, took := h.rpm.TakeReady(t, 1) // one request always fits
		admit = max(admit, ready)
		if took && ready < admit {
			h.rpm.Restore(s.rpm)
			took = false
		}
		if !took {
			h.rpm.Take(admit, 1)
		}
	}
	if h.tpm != nil && (!tpmTook || tpmAt < admit) {
		if tpmTook {
			h.tpm.Restore(s.tpm)
		}
		h.tpm.Take(admit, tokens)
	}
	s.admit, s.last, h.last = admit, h.last, admit
	end := admit + a.req.service
	switch {
	case s.took:
		h.slots.replaceFirst(end)
	case h.cap > 0:
		h.slots.push(end)
	}
	h.scheduled++
	if it := (endItem{at: end, seq: h.scheduled, id: a.id}); h.vacant {
		h.ends[0], h.vacant = it, false
		h.ends.down(0)
	} else {
		h.ends.push(it)
	}
	return nil
}

// unschedule undoes the schedule of the agent's call, the last scheduled.
func (h *hostedAPI) unschedule(a *agent) {
	s := &a.req.api
	h.ends.remove(a.id)
	h.scheduled--
	switch end := s.admit + a.req.service; {
	case s.took:
		h.slots.set(end, s.slot)
	case h.cap > 0:
		h.slots.remove(end)
	}
	if h.rpm != nil {
		h.rpm.Restore(s.rpm)
	}
	if h.tpm != nil {
		h.tpm.Restore(s.tpm)
	}
	h.last = s.last
}

// admit takes in the admissions up to t, in order, each once a place in
// flight is free: at an instant, the ends of calls free their places one
// by one.
func (h *hostedAPI) admit(t sim.Time) {
	if h.inFlight < h.room && h.waiting.head < len(h.waiting.calls) { // the API is often full: no call then
		h.admitFirst(t)
	}
}

// admitFirst is admit past its test: there is room and a call waits.
func (h *hostedAPI) admitFirst(t sim.Time) {
	q := &h.waiting
	for {
		a := q.calls[q.head].a
		at := a.req.api.admit
		if at > t {
			return
		}
		q.pop()
		h.booked++
		h.inFlight++
		h.queueArea += at - a.req.arrive
		h.flightArea += a.req.service
		a.waited(at)
		if h.inFlight >= h.room || q.head >= len(q.calls) {
			return
		}
	}
}

// settle pops the top of ends if it is still vacant.
func (h *hostedAPI) settle() {
	if h.vacant {
		h.vacant = false
		h.ends.pop()
	}
}

// setTimer sets the timer for the first end of a scheduled call.
func (h *hostedAPI) setTimer() {
	first := h.ends.first()
	h.ep.setTimer(&h.timer, first, first == sim.MaxTime)
}

// wake is the timer's: it takes in the admissions up to now and ends the
// calls due now that were admitted, each freeing its place for the queue
// before the agent goes on; a call sent meanwhile that arrives and ends
// now ends at the next wake, at this instant.
func (h *hostedAPI) wake() {
	now := h.ep.env.Now()
	h.waking = true
	h.admit(now)
	for len(h.ends) > 0 && h.ends[0].at <= now && h.ends[0].seq <= h.booked {
		a := h.ep.agents[h.ends[0].id]
		h.vacant = true
		h.inFlight--
		h.admit(now)
		a.served()
		h.settle()
	}
	h.waking = false
	// The timer has fired, so it is set anew (setTimer's test of whether
	// it keeps its place is for a pending one).
	if first := h.ends.first(); first != sim.MaxTime {
		if err := h.timer.Set(first - now); err != nil {
			h.ep.fail(err)
		}
	}
}

// serviceTime draws the time to first token of the agent's call and adds
// the time to generate its output. A call of a part usually finds its draw
// done ahead (drawAhead).
func (h *hostedAPI) serviceTime(a *agent) (sim.Time, error) {
	if a.id >= len(h.ahead) {
		h.growAhead(a.id)
	}
	var ttft float64
	if b := &h.ahead[a.id]; a.req.check {
		ttft = h.checkTTFT(a, b)
	} else if x, y := a.workKey(); b.next < b.n && b.x == x && b.y == y {
		ttft = b.ttft[b.next&(aheadCalls-1)]
		b.next++
		b.y++
	} else {
		ttft = h.drawAhead(a, b, x, y)
	}
	out := float64(a.req.output) / h.cfg.OutputRate
	d, err := sim.FromSeconds(ttft + out)
	if err != nil {
		return 0, fmt.Errorf("collective: api: a call of %v s is beyond the range of virtual time", ttft+out)
	}
	return d, nil
}

// checkTTFT returns the time to first token of the agent's check, the one
// drawn ahead (in b, the agent's) when it is the check's.
func (h *hostedAPI) checkTTFT(a *agent, b *drawsAhead) float64 {
	x, y := checkKey(a.at, a.req.node)
	if b.check && b.checkX == x && b.checkY == y {
		b.check = false
		return b.checkTTFT
	}
	return h.draw(x, y)
}

// drawAhead draws the time to first token of the agent's call, named (x,
// y), and of the part's calls after it, up to aheadCalls in all, and, when
// they reach the part's last call, of the check of the part that usually
// follows; it returns the call's and keeps the others in b, the agent's.
//
// Each draw is a chain of dependent steps (a hash, the ziggurat,
// math.Exp) that takes the processor several times longer to finish than
// to issue, and at a call the chain ends in comparisons that decide the
// call's schedule, so that one draw at a time waits for every chain; draws
// that do not depend on each other, one after the other in one loop,
// overlap. A draw is a pure function of the episode's key and the call's
// names, so the values are those drawn one at a time, and a draw kept for
// a call the agent does not make (it drops the part, or checks another) is
// never used.
func (h *hostedAPI) drawAhead(a *agent, b *drawsAhead, x, y uint64) float64 {
	call := a.callsTotal - a.callsLeft
	n := max(1, min(a.callsLeft, aheadCalls))
	if call+n > 1<<20 {
		n = 1 // the call's number would carry into the loop iteration's bits of its name
	}
	// The next calls are named y+1, y+2, ... (workKey).
	for i := range n {
		h.src.Seed(h.ttft, x, y+uint64(i), 0) // draw, inlined
		b.ttft[i&(aheadCalls-1)] = h.ttftDraw.Sample(h.rng)
	}
	b.x, b.y, b.n, b.next = x, y+1, n, 1
	if b.check = call+n == a.callsTotal; b.check {
		b.checkX, b.checkY = checkKeyOf(a.at, a.cur, a.at.nodes[a.cur].checks+1)
		b.checkTTFT = h.draw(b.checkX, b.checkY)
	}
	return b.ttft[0]
}

// growAhead makes room for the draws ahead of the agent of that id and
// those before it; after the first episode it allocates only for a larger
// collective.
func (h *hostedAPI) growAhead(id int) {
	for len(h.ahead) <= id {
		h.ahead = append(h.ahead, drawsAhead{})
	}
}

// aheadCalls is the most draws kept ahead of an agent's calls, a power of
// two: a part of the default span has a few calls.
const aheadCalls = 8

// drawsAhead holds the times to first token worked out ahead of an agent's
// calls of one part (drawAhead): the next calls', the first of them named
// (x, y) and each after it y+1, and its check's.
type drawsAhead struct {
	x, y           uint64
	ttft           [aheadCalls]float64
	next, n        int
	checkX, checkY uint64
	checkTTFT      float64
	check          bool
}

// draw draws the time to first token of the call named (x, y).
func (h *hostedAPI) draw(x, y uint64) float64 {
	h.src.Seed(h.ttft, x, y, 0)
	return h.ttftDraw.Sample(h.rng)
}

// checkKey names the check of part v by the part and how many checks it
// has had.
func checkKey(at *attempt, v task.ID) (uint64, uint64) {
	return checkKeyOf(at, v, at.nodes[v].checks)
}

func (h *hostedAPI) finish(now sim.Time, m *Metrics) {
	h.admit(now - 1) // before now
	queue, flight := h.queueArea, h.flightArea
	for i := range h.waiting.len() {
		if _, arrive := h.waiting.at(i); arrive < now {
			queue += now - arrive
		}
	}
	for _, e := range h.ends {
		if e.seq <= h.booked && e.at > now {
			flight -= e.at - now // in flight past the end
		}
	}
	if now <= 0 {
		return
	}
	m.ServingQueueMean = float64(queue) / float64(now)
	inFlight := float64(flight) / float64(now)
	if h.cap > 0 {
		m.ServerUtilisation = inFlight / float64(h.cap)
	}
	m.BatchMean = inFlight
}

// ends holds the calls scheduled at the API and not ended as a binary
// heap, the first to end on top, of calls that end together the first
// admitted.
type ends []endItem

// endItem names the agent by its id rather than a pointer, so that moving
// items in the heap needs no write barrier.
type endItem struct {
	at  sim.Time
	seq uint64
	id  int
}

func (e ends) less(i, j int) bool {
	return e[i].at < e[j].at || e[i].at == e[j].at && e[i].seq < e[j].seq
}

// first returns when the first call ends, or sim.MaxTime for none.
func (e ends) first() sim.Time {
	if len(e) == 0 {
		return sim.MaxTime
	}
	return e[0].at
}

func (e *ends) push(it endItem) {
	*e = append(*e, it)
	e.up(len(*e) - 1)
}

func (e ends) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(i, p) {
			break
		}
		e[i], e[p] = e[p], e[i]
		i = p
	}
}

func (e ends) down(i int) {
	for {
		m := 2*i + 1
		if m >= len(e) {
			break
		}
		if r := m + 1; r < len(e) && e.less(r, m) {
			m = r
		}
		if !e.less(m, i) {
			break
		}
		e[i], e[m] = e[m], e[i]
		i = m
	}
}

// pop removes the first call to end and returns its agent's id.
//
// The hole at the top goes down to a leaf, each step one comparison of the
// two children, and the last item fills it from there up (Floyd's
// variant): it usually belongs near the bottom.
func (e *ends) pop() int {
	h := *e
	id, last := h[0].id, len(h)-1
	i := 0
	for {
		m := 2*i + 1
		if m >= last {
			break
		}
		if r := m + 1; r < last && h.less(r, m) {
			m = r
		}
		h[i] = h[m]
		i = m
	}
	h[i] = h[last]
	*e = h[:last]
	e.up(i)
	return id
}

// remove takes the call of the agent of that id out of the heap.
func (e *ends) remove(id int) {
	for i := range *e {
		if (*e)[i].id == id {
			e.removeAt(i)
			return
		}
	}
}

func (e *ends) removeAt(i int) {
	h := *e
	last := len(h) - 1
	h[i] = h[last]
	h = h[:last]
	*e = h
	if i < last {
		h.down(i)
		h.up(i)
	}
}

// reset empties the heap and returns it, keeping its memory.
func (e ends) reset() ends { return e[:0] }

// slots holds when each of the places in flight at an API with a cap is
// free, as a binary min-heap: as the calls scheduled so far leave them.
type slots []sim.Time

func (s *slots) push(t sim.Time) {
	*s = append(*s, t)
	s.up(len(*s) - 1)
}

// replaceFirst makes the place free first free at t, no earlier.
func (s slots) replaceFirst(t sim.Time) {
	s[0] = t
	s.down(0)
}

// set makes one place free at t free at u.
func (s slots) set(t, u sim.Time) {
	for i, v := range s {
		if v == t {
			s[i] = u
			s.down(i)
			s.up(i)
			return
		}
	}
}

// remove takes out one place that is free at t.
func (s *slots) remove(t sim.Time) {
	h := *s
	for i, v := range h {
		if v == t {
			last := len(h) - 1
			h[i] = h[last]
			*s = h[:last]
			if i < last {
				s.down(i)
				s.up(i)
			}
			return
		}
	}
}

func (s slots) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			return
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (s slots) down(i int) {
	for {
		m := 2*i + 1
		if m >= len(s) {
			return
		}
		if r := m + 1; r < len(s) && s[r] < s[m] {
			m = r
		}
		if s[i] <= s[m] {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}

// toolPool is the collective's pool of tool sandboxes; size 0 is
// unlimited.
type toolPool struct {
	ep      *episode
	size    int
	inUse   int
	queue   fifo
	latency sim.Key
	draw    sim.Sampler // of the task's tool latency
}

// startTool begins the agent's next tool call, or queues it for a sandbox.
func (a *agent) startTool() {
	t := a.ep.tools
	now := a.ep.env.Now()
	a.span(a.activity, now, a.kind, a.ep.g.Nodes[a.cur].Name)
	a.activity = now
	if t.size > 0 && t.inUse >= t.size {
		a.req.arrive = now
		a.toolQueued = true
		t.queue.push(a)
		return
	}
	t.run(a, now)
}

func (t *toolPool) run(a *agent, now sim.Time) {
	ep := t.ep
	t.inUse++
	label := ep.g.Nodes[a.cur].Name
	if now > a.req.arrive && a.toolQueued {
		ep.res.ToolWait += now - a.req.arrive
		a.span(a.req.arrive, now, "tool-wait", label)
	}
	a.toolQueued = false
	x, y := a.workKey()
	s := t.draw.Sample(ep.draw(t.latency, x, y, uint64(a.toolsDue)))
	d, err := sim.FromSeconds(s)
	if err != nil {
		ep.fail(fmt.Errorf("collective: task.tool_latency: drew %v s, beyond the range of virtual time", s))
		return
	}
	ep.res.ToolCalls++
	a.span(now, now+d, "tool", label)
	a.activity = now + d
	a.later(d, a.toolDoneFn)
}

// toolDone frees the sandbox for the next queued call and goes on with the
// agent's work.
func (a *agent) toolDone() {
	t := a.ep.tools
	t.inUse--
	if t.queue.n > 0 {
		t.run(t.queue.pop(), a.ep.env.Now())
	}
	if a.stale() {
		return
	}
	a.toolsDue--
	if a.toolsDue > 0 {
		a.startTool()
		return
	}
	a.afterCall()
}

// toolCallsAfter returns how many of the attempt's tool calls follow its
// j-th model call (1-based) of n: they are spread evenly, the last ones
// after the last call.
func toolCallsAfter(total, j, n int) int {
	return total*j/n - total*(j-1)/n
}

// drawToolCalls draws the number of tool calls of one attempt (or loop
// iteration) at part v.
func (a *agent) drawToolCalls() int {
	ep := a.ep
	calls := ep.g.Tools().Calls
	if calls.IsZero() {
		return 0
	}
	x, y := a.workKey()
	n := calls.Sample(ep.draw(ep.toolCalls, x, y, 0))
	return int(math.Min(math.Round(n), maxToolCalls))
}

// workKey names the model call in progress by the work it does, not by the
// agent or the time: attempt copy, part, try, loop iteration and call. The
// draws of a call (its time to first token, its tool calls) are then the
// same whoever makes it and whenever, so that a variant that only changes
// timing (a rate limit, a smaller pool) sees the same luck.
func (a *agent) workKey() (uint64, uint64) {
	tries := uint64(a.at.nodes[a.cur].tries)
	call := uint64(a.callsTotal - a.callsLeft)
	return uint64(a.at.id)<<32 | uint64(a.cur), tries<<40 | uint64(a.iteration)<<20 | call
}

// checkKeyOf names the check of part v after checks checks (this one
// counted).
func checkKeyOf(at *attempt, v task.ID, checks int32) (uint64, uint64) {
	return uint64(at.id)<<32 | uint64(v), 1<<63 | uint64(checks)
}

// maxToolCalls bounds the tool calls of one attempt, so that a typo in a
// distribution cannot stall an episode in tool calls.
const maxToolCalls = 1 << 20
