package serving

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/sim"
)

// Replicas is a self-hosted deployment: replicas that batch continuously,
// each a processor-sharing server whose speed depends on its batch
// (Sharing). Between arrivals and departures a batch's step time is
// constant, so each call's remaining tokens fall linearly and the next
// departure is known exactly: the model costs events per call, not per
// token, and is exact for the fluid model of the batch (each sequence gets
// 1/step(b) tokens per unit time; a prefill pauses the batch).
//
// The deployment knows of a call when it is sent, before it arrives, and
// owns one timer, set for its next departure with the calls on their way
// counted in (Lookahead). It takes calls in, queues and admits them in its
// own bookkeeping when that timer fires, at the times they happened, so an
// arrival costs no event: a call costs one event, its end. The timer moves
// in place when a new call changes the plan. At one nanosecond the
// deployment's departures come before its arrivals, and its timer ties
// with other events as a Call made when its time last changed would.
//
// The zero Replicas is ready for Reset.
type Replicas struct {
	env      *sim.Env
	client   Client
	cfg      *Deployment
	replicas []replica
	arriving arrivals
	timer    sim.Timer
	wakeFn   func()
	waking   bool // in wake, which plans once at its end
	// The plan: each replica's lookahead and queue length with the first
	// planned calls on their way taken in, and the first departure then.
	// A call sent later than those continues it.
	ahead   []Lookahead
	queued  []int
	planned int // calls on their way taken in; -1 when the plan stopped at its departure, or is out of date
	due     sim.Time
	busy    bool
	full    bool // every batch is full until due: the plan takes no call in (plan)
}

type replica struct {
	ps     *Sharing
	queue  fifo[*Call]
	qstats queueStats
}

// Reset makes d the empty deployment of cfg on env, telling client of its
// calls, on the memory it had. cfg must be valid (Step positive,
// StepPerSeq not negative) and outlive the episode.
func (d *Replicas) Reset(env *sim.Env, cfg *Deployment, client Client) error {
	if d.wakeFn == nil {
		d.wakeFn = d.wake
	}
	d.env, d.client, d.cfg, d.arriving, d.waking = env, client, cfg, d.arriving.reset(), false
	d.planned, d.busy, d.full = -1, false, false
	d.timer.Init(env, d.wakeFn)
	if cap(d.replicas) < cfg.Replicas {
		d.replicas = make([]replica, cfg.Replicas)
		d.ahead, d.queued = make([]Lookahead, cfg.Replicas), make([]int, cfg.Replicas)
	}
	d.replicas, d.ahead, d.queued = d.replicas[:cfg.Replicas], d.ahead[:cfg.Replicas], d.queued[:cfg.Replicas]
	for i := range d.replicas {
		r := &d.replicas[i]
		if r.ps == nil {
			r.ps = &Sharing{}
		}
		if err := r.ps.Reset(cfg.Step, cfg.StepPerSeq); err != nil {
			return err
		}
		r.queue, r.qstats = r.queue.reset(), queueStats{}
	}
	return nil
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

// Submit sends the call c, which reaches the deployment after delay; the
// deployment tells its client when c is admitted and when it is done. c
// must stay in flight until then.
func (d *Replicas) Submit(c *Call, delay sim.Time) {
	c.Arrive = d.env.Now() + delay
	c.setup = prefill(d.cfg.PrefillToken, c.Prompt) // the prefill pauses the batch that admits the call
	if c.setup == sim.MaxTime {
		// Taken in, it would never leave, and every call batched with it
		// would wait for ever: say so rather than stall the episode.
		d.client.Fail(fmt.Errorf("serving: the prefill of a prompt of %d tokens at serving.prefill_token %v a token is beyond the virtual clock's range (about 292 years): lower prefill_token or the prompt's tokens", c.Prompt, d.cfg.PrefillToken))
		return
	}
	last := d.arriving.insert(c) == d.arriving.len()-1
	switch {
	case d.waking:
		// wake plans when it is done.
	case d.full || d.busy && d.due <= c.Arrive:
		// A call that arrives after the next departure changes nothing
		// before it, nor does one that queues behind full batches.
	case last && d.planned == d.arriving.len()-1:
		d.extend() // the plan took in every call before this one
	default:
		d.plan()
	}
}

// prefill returns the time a prompt of n tokens takes to prefill at
// perToken, rounded to the nanosecond: as a product of integers where the
// floating-point one is exact (below 2^53, so that rounding it changes
// nothing), which saves math.Round. A time beyond the clock's range is
// sim.MaxTime, where converting it would give an arbitrary one (negative
// on amd64).
func prefill(perToken sim.Time, n int64) sim.Time {
	if perToken >= 0 && perToken < 1<<26 && n >= 0 && n < 1<<26 {
		return perToken * sim.Time(n)
	}
	t := math.Round(float64(perToken) * float64(n))
	if t >= float64(sim.MaxTime) {
		return sim.MaxTime
	}
	return sim.Time(t)
}

// plan sets the timer for the first departure, with the calls that arrive
// before it taken in on lookahead copies of the replicas, as arrive will.
//
// When every replica's batch is full, a call that arrives before the
// first departure queues and changes nothing before it (arrive admits a
// call only into a batch with room), so the plan is the replicas' own
// first departure, with no lookahead, whatever is on its way or sent
// until then (full).
func (d *Replicas) plan() {
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
		d.planned = -1 // nothing to continue: Submit leaves the plan alone
		moveTimer(&d.timer, d.env.Now(), d.due, !d.busy, d.client)
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
func (d *Replicas) extend() {
	for ; d.planned < d.arriving.len(); d.planned++ {
		c, arrive := d.arriving.at(d.planned)
		if d.busy && d.due <= arrive {
			d.planned = -1
			break
		}
		i := pick(len(d.replicas), func(i int) int { return d.ahead[i].Len() + d.queued[i] })
		if d.ahead[i].Len() >= d.cfg.MaxBatch {
			d.queued[i]++
			continue
		}
		d.ahead[i].Add(arrive, float64(c.Output), c.setup)
		d.due, d.busy = d.firstDeparture()
	}
	moveTimer(&d.timer, d.env.Now(), d.due, !d.busy, d.client)
}

// firstDeparture returns the earliest departure of the lookahead copies,
// and false if none has a call in service.
func (d *Replicas) firstDeparture() (sim.Time, bool) {
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
func (d *Replicas) arrive(t sim.Time, atT bool) bool {
	took := false
	for d.arriving.due(t, atT) {
		c := d.arriving.pop()
		r := &d.replicas[pick(len(d.replicas), func(i int) int { return d.replicas[i].ps.Len() + d.replicas[i].queue.n })]
		if r.ps.Len() < d.cfg.MaxBatch {
			r.admit(d, c, c.Arrive)
		} else {
			r.queue.push(c)
			r.qstats.set(c.Arrive, r.queue.n)
		}
		took = true
	}
	return took
}

// admit puts the call in the batch at time at: its prompt is prefilled
// first, which pauses the whole batch, then it gets one token per step.
func (r *replica) admit(d *Replicas, c *Call, at sim.Time) {
	d.client.Admitted(c.ID, at)
	r.ps.Add(at, c.ID, float64(c.Output), c.setup)
}

// wake is the timer's: it takes in the calls that arrived before now,
// ends the calls that are complete (replica by replica), letting queued
// calls into the freed batch slots, takes in the calls that arrive now, and
// plans again.
func (d *Replicas) wake() {
	now := d.env.Now()
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
func (r *replica) depart(d *Replicas, now sim.Time) {
	for {
		if due, ok := r.ps.Next(); !ok || due > now {
			return // tested here, where it is inlined, rather than in Pop
		}
		var id int
		var ok bool
		if r.queue.n > 0 && r.ps.Len() == d.cfg.MaxBatch {
			// The freed place goes to the queue's first, in one step.
			c := r.queue.at(0)
			if id, ok = r.ps.Replace(now, c.ID, float64(c.Output), c.setup); ok {
				r.queue.pop()
				d.client.Admitted(c.ID, now)
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
		d.client.Done(id)
	}
}

// Finish takes in the calls that arrived before now, the end of the
// episode, and returns the deployment's figures up to now.
func (d *Replicas) Finish(now sim.Time) Stats {
	d.arrive(now, false)
	var busy, area, queued float64
	for i := range d.replicas {
		r := &d.replicas[i]
		busy += float64(r.ps.Busy(now))
		area += r.ps.Area(now)
		r.qstats.set(now, r.queue.n)
		queued += r.qstats.area
	}
	var s Stats
	if now > 0 {
		s.Utilisation = busy / (float64(now) * float64(len(d.replicas)))
		s.QueueMean = queued / float64(now)
	}
	if busy > 0 {
		s.BatchMean = area / busy
	}
	return s
}
