package serving

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/sim"
)

// Hosted is a hosted API: a concurrency cap and request and token rate
// limits (token buckets holding a minute's worth) in front of calls that
// take a time to first token plus their output at a fixed rate. Calls wait
// in one FIFO queue for all three.
//
// Everything that decides when a call is admitted is known when it is
// sent: when it arrives, its time there (Call.Service, worked out by the
// client then: a time to first token drawn from the API's TTFT and its
// output at the API's OutputRate), and the calls ahead of it in the queue,
// whose admissions and ends are known the same way. In a FIFO queue the admission of a call
// is max(its arrival, the admission before it, the first end of the calls
// holding the cap's places, the time the buckets hold its tokens), so the
// API schedules each call when it is sent (schedule), and its timer is set
// for the first end of a scheduled call: arrivals and admissions cost no
// event, each end one. A call sent later that arrives before calls already
// scheduled goes ahead of them in the queue: they are unscheduled, the last
// first, which restores the state before them, and scheduled again behind
// it. At the timer the API takes the admissions up to now in (their waits
// and places in flight, at their times) and ends the calls due.
//
// The zero Hosted is ready for Reset.
type Hosted struct {
	env    *sim.Env
	client Client
	cfg    *API
	cap    int // cfg.Concurrency
	room   int // the most calls in flight: cap, or no limit
	// As of the last call scheduled: its buckets (nil for no limit), when
	// each of the cap's places is free (with a cap), and its admission.
	rpm, tpm           *TokenBucket
	slots              slots
	last               sim.Time
	scheduled          uint64       // calls scheduled, to order ends that tie
	rpmSpare, tpmSpare *TokenBucket // the buckets' memory, kept for the next episode
	// In real time: the calls scheduled and not admitted yet, in order of
	// arrival, those admitted (booked) so far and those in flight.
	waiting  arrivals
	booked   uint64
	inFlight int
	ends     ends // the calls scheduled and not ended, by end
	// vacant: the top of ends is the call wake is ending, for the next
	// call scheduled to replace (a client usually sends its next call as
	// its last one ends): a heap's replace costs one sift, a pop and a
	// push two.
	vacant bool
	// ∫ queue length dt and ∫ calls in flight dt, in nanoseconds: from
	// the calls' waits and times in flight, as they are admitted.
	queueArea, flightArea sim.Time
	timer                 sim.Timer
	wakeFn                func()
	waking                bool
}

// apiSchedule is a call's schedule at a hosted API, worked out when it is
// sent, and what working it out changed, to undo it.
type apiSchedule struct {
	admit, last sim.Time // its admission; the API's last admission before it
	slot        sim.Time // the place in flight it took, when took
	took        bool
	rpm, tpm    BucketMark // the buckets before it
}

// Reset makes h the empty API of cfg on env, telling client of its calls,
// on the memory it had. cfg's rates must be at most 150 million a minute
// and its output rate positive, and cfg must outlive the episode.
func (h *Hosted) Reset(env *sim.Env, cfg *API, client Client) error {
	if h.wakeFn == nil {
		h.wakeFn = h.wake
	}
	*h = Hosted{env: env, client: client, cfg: cfg, wakeFn: h.wakeFn,
		slots: h.slots[:0], waiting: h.waiting.reset(), ends: h.ends[:0],
		rpmSpare: h.rpmSpare, tpmSpare: h.tpmSpare}
	h.cap, h.room = cfg.Concurrency, cfg.Concurrency
	if h.cap == 0 {
		h.room = math.MaxInt
	}
	h.timer.Init(env, h.wakeFn)
	if err := resetBucket(&h.rpm, &h.rpmSpare, cfg.RPM); err != nil {
		return fmt.Errorf("api.rpm: %w", err)
	}
	if err := resetBucket(&h.tpm, &h.tpmSpare, cfg.TPM); err != nil {
		return fmt.Errorf("api.tpm: %w", err)
	}
	return nil
}

// resetBucket makes *b a full bucket of perMinute tokens a minute, or nil
// for no limit, on the memory of the bucket it held.
func resetBucket(b **TokenBucket, spare **TokenBucket, perMinute int64) error {
	if perMinute == 0 {
		*b = nil
		return nil
	}
	if *spare == nil {
		*spare = &TokenBucket{}
	}
	*b = *spare
	return (*b).Reset(perMinute, sim.Minute, perMinute)
}

// Submit sends the call c, which reaches the API after delay and takes
// c.Service there once admitted; the API tells its client when c is
// admitted and when it is done. c must stay in flight until then. It
// returns an error for a call of more tokens than the token bucket holds,
// which could never be admitted.
func (h *Hosted) Submit(c *Call, delay sim.Time) error {
	c.Arrive = h.env.Now() + delay
	// Outside wake, which sets it when done, the timer is set for the
	// first end: a call appended moves it only if it ends first.
	if i, n := h.waiting.insert(c), h.waiting.len(); i == n-1 {
		if err := h.schedule(c); err != nil {
			return err
		}
		if !h.waking && h.ends[0].id == c.ID {
			h.setTimer()
		}
		return nil
	} else if err := h.reschedule(i, n); err != nil {
		return err
	}
	if !h.waking {
		h.setTimer()
	}
	return nil
}

// reschedule schedules the calls on their way from the i-th, a call sent
// now that arrives before those after it: they queue behind it, so they
// are undone, the last first, and scheduled again. They arrive later than
// now, so none is admitted yet.
func (h *Hosted) reschedule(i, n int) error {
	h.settle()
	for j := n - 1; j > i; j-- {
		c, _ := h.waiting.at(j)
		h.unschedule(c)
	}
	for j := i; j < n; j++ {
		c, _ := h.waiting.at(j)
		if err := h.schedule(c); err != nil {
			return err
		}
	}
	return nil
}

// schedule works out when the call is admitted, behind the calls scheduled
// before it, and when it ends.
func (h *Hosted) schedule(c *Call) error {
	s := &c.api
	t := max(c.Arrive, h.last)
	s.took = h.cap > 0 && len(h.slots) == h.cap
	if s.took { // it takes the place free first
		s.slot = h.slots[0]
		t = max(t, s.slot)
	}
	// The buckets are asked from t; the call is admitted when both hold
	// its tokens, and takes them then. Each takes them at t if it can, and
	// is put back and takes them later if the other one is short.
	admit, tokens := t, c.Prompt+c.Output
	tpmAt, tpmTook := t, false
	if h.tpm != nil {
		if !h.tpm.Holds(tokens) {
			_, err := h.tpm.Ready(t, tokens)
			return fmt.Errorf("api.tpm: a call of %d tokens can never be admitted: %w", tokens, err)
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
	end := admit + c.Service
	switch {
	case s.took:
		h.slots.replaceFirst(end)
	case h.cap > 0:
		h.slots.push(end)
	}
	h.scheduled++
	if it := (endItem{at: end, seq: h.scheduled, id: c.ID}); h.vacant {
		h.ends[0], h.vacant = it, false
		h.ends.down(0)
	} else {
		h.ends.push(it)
	}
	return nil
}

// unschedule undoes the schedule of the call, the last scheduled.
func (h *Hosted) unschedule(c *Call) {
	s := &c.api
	h.ends.remove(c.ID)
	h.scheduled--
	switch end := s.admit + c.Service; {
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

// Len returns the number of calls at the API: sent and not done.
func (h *Hosted) Len() int {
	if h.vacant {
		return len(h.ends) - 1
	}
	return len(h.ends)
}

// admit takes in the admissions up to t, in order, each once a place in
// flight is free: at an instant, the ends of calls free their places one
// by one.
func (h *Hosted) admit(t sim.Time) {
	if h.inFlight < h.room && h.waiting.head < len(h.waiting.calls) { // the API is often full: no call then
		h.admitFirst(t)
	}
}

// admitFirst is admit past its test: there is room and a call waits.
func (h *Hosted) admitFirst(t sim.Time) {
	q := &h.waiting
	for {
		c := q.calls[q.head].c
		at := c.api.admit
		if at > t {
			return
		}
		q.pop()
		h.booked++
		h.inFlight++
		h.queueArea += at - c.Arrive
		h.flightArea += c.Service
		h.client.Admitted(c.ID, at)
		if h.inFlight >= h.room || q.head >= len(q.calls) {
			return
		}
	}
}

// settle pops the top of ends if it is still vacant.
func (h *Hosted) settle() {
	if h.vacant {
		h.vacant = false
		h.ends.pop()
	}
}

// setTimer sets the timer for the first end of a scheduled call.
func (h *Hosted) setTimer() {
	first := h.ends.first()
	moveTimer(&h.timer, h.env.Now(), first, first == sim.MaxTime, h.client)
}

// wake is the timer's: it takes in the admissions up to now and ends the
// calls due now that were admitted, each freeing its place for the queue
// before its client goes on; a call sent meanwhile that arrives and ends
// now ends at the next wake, at this instant.
func (h *Hosted) wake() {
	now := h.env.Now()
	h.waking = true
	h.admit(now)
	for len(h.ends) > 0 && h.ends[0].at <= now && h.ends[0].seq <= h.booked {
		id := h.ends[0].id
		h.vacant = true
		h.inFlight--
		h.admit(now)
		h.client.Done(id)
		h.settle()
	}
	h.waking = false
	// The timer has fired, so it is set anew (setTimer's test of whether
	// it keeps its place is for a pending one).
	if first := h.ends.first(); first != sim.MaxTime {
		if err := h.timer.Set(first - now); err != nil {
			h.client.Fail(err)
		}
	}
}

// Finish takes in the admissions before now, the end of the episode, and
// returns the API's figures up to now.
func (h *Hosted) Finish(now sim.Time) Stats {
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
	var s Stats
	if now <= 0 {
		return s
	}
	s.QueueMean = float64(queue) / float64(now)
	inFlight := float64(flight) / float64(now)
	if h.cap > 0 {
		s.Utilisation = inFlight / float64(h.cap)
	}
	s.BatchMean = inFlight
	return s
}
