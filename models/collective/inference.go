package collective

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// A shared model server: a self-hosted deployment (replicas) or a hosted
// API. An agent has at most one model call in flight, so the call's state
// lives in the agent and nothing is allocated per call.
type server interface {
	// submit hands the server the agent's call (a.req), which has just
	// reached it; the server calls a.callDone when the call is complete.
	submit(a *agent)
	// finish records the server's utilisation in the episode's metrics.
	finish(now sim.Time, m *Metrics)
}

// request is the model call an agent has at a shared server.
type request struct {
	prompt, output int64
	arrive         sim.Time // when it reached the server
	node           task.ID  // the part it works on or checks
	check          bool     // a check of a held part, not a call of the part in progress
}

// fifo is a first-in first-out queue of agents; it allocates only when it
// grows beyond its largest size so far.
type fifo struct {
	buf     []*agent
	head, n int
}

func (q *fifo) push(a *agent) {
	if q.n == len(q.buf) {
		grown := make([]*agent, max(8, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = a
	q.n++
}

func (q *fifo) peek() *agent { return q.buf[q.head] }

// reset empties the queue and returns it, keeping its memory.
func (q fifo) reset() fifo {
	clear(q.buf)
	return fifo{buf: q.buf}
}

func (q *fifo) pop() *agent {
	a := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return a
}

// queueStats integrates a queue's length over time, for Little's law.
type queueStats struct {
	area float64 // ∫ length dt, in nanoseconds
	at   sim.Time
	n    int
}

func (s *queueStats) set(now sim.Time, n int) {
	s.area += float64(now-s.at) * float64(s.n)
	s.at, s.n = now, n
}

// waited books the wait of a call admitted now, and traces it as a slice.
func (a *agent) waited(now sim.Time) {
	arrive := a.req.arrive
	if a.ep.res.Trace != nil {
		// Reading messages and the call's overhead precede the call at the
		// server even when it does not wait, so that a trace's work span
		// is the server's time alone (what a client's span of a call to a
		// hosted API measures).
		label := a.ep.g.Nodes[a.req.node].Name
		a.span(a.activity, arrive, "send", label)
		a.span(arrive, now, "queue", label)
		a.activity = max(a.activity, arrive)
	}
	if now <= arrive {
		return
	}
	a.ep.res.ServingWait += now - arrive
	a.activity = now
}

// wakeUp makes sure fn runs at due or before: armed is the earliest
// wake-up still pending (sim.MaxTime for none), and a plan that moved later
// (an arrival slowed the batch down) needs no new one, because the pending
// wake-up fires first and plans again. Only a plan that moved earlier costs
// an event; a wake-up that finds nothing due does nothing. That is events
// per call, never per token.
func (ep *episode) wakeUp(armed *sim.Time, due sim.Time, fn func()) {
	if *armed <= due {
		return
	}
	*armed = due
	if err := ep.env.Call(due-ep.env.Now(), fn); err != nil {
		ep.fail(err)
	}
}

// woken marks the earliest pending wake-up as fired, if it is the one
// firing now.
func (ep *episode) woken(armed *sim.Time) {
	if *armed == ep.env.Now() {
		*armed = sim.MaxTime
	}
}

// deployment is the self-hosted deployment: replicas that batch
// continuously, each a processor-sharing server whose speed depends on its
// batch (sim.Sharing). Between arrivals and departures a batch's step time
// is constant, so each call's remaining tokens fall linearly and the next
// departure is known exactly: the model costs events per call, not per
// token, and is exact for the fluid model of the batch (each sequence gets
// 1/step(b) tokens per unit time; a prefill pauses the batch).
type deployment struct {
	ep       *episode
	cfg      *Serving
	replicas []replica
}

type replica struct {
	d      *deployment
	ps     *sim.Sharing
	queue  fifo
	qstats queueStats
	armed  sim.Time
	wakeFn func()
}

// newDeployment returns the deployment of cfg for ep, on the memory of old
// (a deployment of an earlier episode) when there is one.
func newDeployment(ep *episode, cfg *Serving, old *deployment) (*deployment, error) {
	d := old
	if d == nil {
		d = &deployment{}
	}
	d.ep, d.cfg = ep, cfg
	if cap(d.replicas) < cfg.Replicas {
		d.replicas = make([]replica, cfg.Replicas)
	}
	d.replicas = d.replicas[:cfg.Replicas]
	for i := range d.replicas {
		r := &d.replicas[i]
		if r.ps == nil {
			r.ps = &sim.Sharing{}
			r.wakeFn = r.wake
		}
		if err := r.ps.Reset(cfg.Step, cfg.StepPerSeq); err != nil {
			return nil, err
		}
		r.d, r.armed, r.queue, r.qstats = d, sim.MaxTime, r.queue.reset(), queueStats{}
	}
	return d, nil
}

// submit sends the call to the replica with the fewest sequences, batched
// or queued (the lowest-numbered on a tie).
func (d *deployment) submit(a *agent) {
	now := d.ep.env.Now()
	a.req.arrive = now
	best := &d.replicas[0]
	for i := 1; i < len(d.replicas); i++ {
		r := &d.replicas[i]
		if r.ps.Len()+r.queue.n < best.ps.Len()+best.queue.n {
			best = r
		}
	}
	if best.ps.Len() < d.cfg.MaxBatch {
		best.admit(a, now)
	} else {
		best.queue.push(a)
		best.qstats.set(now, best.queue.n)
	}
	best.rearm()
}

// admit puts the call in the batch: its prompt is prefilled first, which
// pauses the whole batch, then it gets one token per step.
func (r *replica) admit(a *agent, now sim.Time) {
	a.waited(now)
	r.ps.Add(now, a.id, float64(a.req.output), scale(r.d.cfg.PrefillToken, float64(a.req.prompt)))
}

func (r *replica) rearm() {
	if due, ok := r.ps.Next(); ok {
		r.d.ep.wakeUp(&r.armed, due, r.wakeFn)
	}
}

// wake ends the calls that are complete, letting queued calls into the
// freed batch slots.
func (r *replica) wake() {
	ep := r.d.ep
	ep.woken(&r.armed)
	now := ep.env.Now()
	for {
		id, ok := r.ps.Pop(now)
		if !ok {
			break
		}
		for r.queue.n > 0 && r.ps.Len() < r.d.cfg.MaxBatch {
			r.admit(r.queue.pop(), now)
			r.qstats.set(now, r.queue.n)
		}
		r.rearm()
		ep.agents[id].served()
	}
	r.rearm()
}

func (d *deployment) finish(now sim.Time, m *Metrics) {
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
type hostedAPI struct {
	ep       *episode
	cfg      *API
	rpm, tpm *sim.TokenBucket // nil for no limit
	inFlight int

	rpmSpare, tpmSpare *sim.TokenBucket // the buckets' memory, kept for the next episode
	queue              fifo
	qstats             queueStats
	flight             queueStats // calls in flight over time
	armed              sim.Time
	pumpFn             func()
	ttft               sim.Key
}

// newHostedAPI returns the API of cfg for ep, on the memory of old (an API
// of an earlier episode) when there is one.
func newHostedAPI(ep *episode, cfg *API, streams sim.Streams, old *hostedAPI) (*hostedAPI, error) {
	h := old
	if h == nil {
		h = &hostedAPI{}
		h.pumpFn = func() {
			h.ep.woken(&h.armed)
			h.pump()
		}
	}
	*h = hostedAPI{ep: ep, cfg: cfg, armed: sim.MaxTime, ttft: streams.Key("ttft"), queue: h.queue.reset(), pumpFn: h.pumpFn,
		rpmSpare: h.rpmSpare, tpmSpare: h.tpmSpare}
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

func (h *hostedAPI) submit(a *agent) {
	now := h.ep.env.Now()
	a.req.arrive = now
	h.queue.push(a)
	h.qstats.set(now, h.queue.n)
	h.pump()
}

// pump admits queued calls, in order, while the limits allow, and else
// schedules itself for when the rate limits will let the first one through.
func (h *hostedAPI) pump() {
	ep := h.ep
	now := ep.env.Now()
	for h.queue.n > 0 {
		if h.cfg.Concurrency > 0 && h.inFlight >= h.cfg.Concurrency {
			return // a call's end pumps again
		}
		a := h.queue.peek()
		ready := now
		if h.rpm != nil {
			t, _ := h.rpm.Ready(now, 1) // one request always fits
			ready = max(ready, t)
		}
		tokens := a.req.prompt + a.req.output
		if h.tpm != nil {
			t, err := h.tpm.Ready(now, tokens)
			if err != nil {
				ep.fail(fmt.Errorf("collective: api.tpm: a call of %d tokens can never be admitted: %w", tokens, err))
				return
			}
			ready = max(ready, t)
		}
		if ready > now {
			ep.wakeUp(&h.armed, ready, h.pumpFn)
			return
		}
		if h.rpm != nil {
			h.rpm.Take(now, 1)
		}
		if h.tpm != nil {
			h.tpm.Take(now, tokens)
		}
		h.queue.pop()
		h.qstats.set(now, h.queue.n)
		h.inFlight++
		h.flight.set(now, h.inFlight)
		a.waited(now)
		d, err := h.serviceTime(a)
		if err != nil {
			ep.fail(err)
			return
		}
		a.later(d, a.apiDoneFn)
	}
}

// serviceTime draws the time to first token of the agent's call and adds
// the time to generate its output.
func (h *hostedAPI) serviceTime(a *agent) (sim.Time, error) {
	ep := h.ep
	var x, y uint64
	if a.req.check {
		// Checks are named by the part and how many checks it had.
		x, y = uint64(a.at.id)<<32|uint64(a.req.node), 1<<63|uint64(a.at.nodes[a.req.node].checks)
	} else {
		x, y = a.workKey()
	}
	ttft := h.cfg.TTFT.Sample(ep.draw(h.ttft, x, y, 0))
	out := float64(a.req.output) / h.cfg.OutputRate
	d, err := sim.FromSeconds(ttft + out)
	if err != nil {
		return 0, fmt.Errorf("collective: api: a call of %v s is beyond the range of virtual time", ttft+out)
	}
	return d, nil
}

// done ends a call at the API.
func (h *hostedAPI) done(a *agent) {
	h.inFlight--
	h.flight.set(h.ep.env.Now(), h.inFlight)
	h.pump()
	a.served()
}

func (h *hostedAPI) finish(now sim.Time, m *Metrics) {
	h.qstats.set(now, h.queue.n)
	h.flight.set(now, h.inFlight)
	if now <= 0 {
		return
	}
	m.ServingQueueMean = h.qstats.area / float64(now)
	inFlight := h.flight.area / float64(now)
	if h.cfg.Concurrency > 0 {
		m.ServerUtilisation = inFlight / float64(h.cfg.Concurrency)
	}
	m.BatchMean = inFlight
}

// toolPool is the collective's pool of tool sandboxes; size 0 is
// unlimited.
type toolPool struct {
	ep      *episode
	size    int
	inUse   int
	queue   fifo
	latency sim.Key
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
	s := ep.g.Tools().Latency.Sample(ep.draw(t.latency, x, y, uint64(a.toolsDue)))
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

// maxToolCalls bounds the tool calls of one attempt, so that a typo in a
// distribution cannot stall an episode in tool calls.
const maxToolCalls = 1 << 20
