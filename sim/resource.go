package sim

import (
	"errors"
	"fmt"
)

// Discipline is the order in which a Resource serves waiting requests.
type Discipline uint8

const (
	// FIFO serves requests in the order they were made; priorities are
	// ignored.
	FIFO Discipline = iota
	// ByPriority serves the lowest priority number first, and requests of
	// equal priority in the order they were made. A holder is never
	// preempted.
	ByPriority
)

func (d Discipline) String() string {
	switch d {
	case FIFO:
		return "fifo"
	case ByPriority:
		return "priority"
	}
	return fmt.Sprintf("Discipline(%d)", uint8(d))
}

// Errors reported by Resource. Each is wrapped with details; test with
// errors.Is.
var (
	ErrNotHeld    = errors.New("sim: resource released but not held")
	ErrNotRequest = errors.New("sim: not an outstanding request of this resource")
)

// Resource is a pool of identical units, such as servers, machines or
// seats, that processes hold for a while: Acquire waits for a unit, Release
// gives it back. Requests that cannot be served at once wait in a queue
// ordered by the resource's Discipline.
//
// A Release hands its unit straight to the first waiter, whose wait ends at
// the same virtual time when the scheduler reaches the grant; a newcomer
// cannot take the unit in between. Resource uses only the public event API:
// every grant that ends a wait is an Event.
//
// Resource also keeps time-weighted statistics (see Stats).
type Resource struct {
	env      *Env
	capacity int
	disc     Discipline
	inUse    int // units granted, including grants not yet processed
	waiting  reqHeap
	seq      uint64
	byEvent  map[*Event]*request // waiting requests made with Request
	stats    resourceStats
}

type reqState uint8

const (
	reqWaiting reqState = iota
	reqGranted
	reqCancelled
)

// request is one waiting or granted request. A granted request's event has
// the request as its value, so that Cancel can recognise it.
type request struct {
	r      *Resource
	ev     *Event
	prio   int
	seq    uint64
	since  Time
	index  int // position in the waiting heap while waiting
	state  reqState
	public bool // made with Request, so listed in byEvent while waiting
}

// NewResource returns a resource with capacity units, all free. A capacity
// below 1 or an unknown discipline is an error.
func NewResource(env *Env, capacity int, discipline Discipline) (*Resource, error) {
	if env == nil {
		return nil, errors.New("sim: NewResource needs an Env")
	}
	if capacity < 1 {
		return nil, fmt.Errorf("sim: resource capacity %d, want at least 1", capacity)
	}
	if discipline > ByPriority {
		return nil, fmt.Errorf("sim: unknown resource discipline %v", discipline)
	}
	r := &Resource{env: env, capacity: capacity, disc: discipline}
	r.stats.start, r.stats.last = env.Now(), env.Now()
	return r, nil
}

// Capacity returns the number of units.
func (r *Resource) Capacity() int { return r.capacity }

// Discipline returns the queueing discipline.
func (r *Resource) Discipline() Discipline { return r.disc }

// InUse returns the number of units held, counting units granted to
// waiters whose wait has not yet ended.
func (r *Resource) InUse() int { return r.inUse }

// QueueLen returns the number of requests waiting for a unit.
func (r *Resource) QueueLen() int { return len(r.waiting) }

// Acquire waits until p holds one unit, then returns nil; the unit must be
// given back with Release. priority orders waiters under ByPriority (lower
// first) and is ignored under FIFO. If a unit is free, Acquire takes it
// without suspending p, and nothing is allocated.
//
// If p is interrupted while it waits, its request is withdrawn and the
// *Interrupt is returned; p then holds nothing, even if a unit was granted
// to it at the instant of the interrupt (that unit passes to the next
// waiter). Other errors (ErrClosed, a call from outside p) also leave p
// holding nothing. Cost: O(log n) in the number of waiters.
func (r *Resource) Acquire(p *Proc, priority int) error {
	if p == nil {
		return errors.New("sim: Acquire needs a process")
	}
	if p.Env() != r.env {
		return fmt.Errorf("sim: process %q acquires a resource of another environment", p.Name())
	}
	// Checked before the free unit is taken: a unit taken from outside p,
	// or on a closed Env, would be held by nobody.
	if err := p.enter(); err != nil {
		return err
	}
	if r.inUse < r.capacity {
		r.touch()
		r.inUse++
		r.stats.grants++
		return nil
	}
	rq := r.enqueue(priority, false)
	if _, err := p.Await(rq.ev); err != nil {
		r.withdraw(rq)
		return err
	}
	return nil
}

// Release gives back one unit. If requests are waiting, the unit goes to
// the first of them. Releasing when no unit is held is an error. Release
// may be called from callbacks as well as processes. Cost: O(log n).
func (r *Resource) Release() error {
	if r.inUse == 0 {
		return fmt.Errorf("%w: all %d units free at %v", ErrNotHeld, r.capacity, r.env.Now())
	}
	r.touch()
	if len(r.waiting) > 0 {
		r.grant(r.waiting.pop()) // the unit passes on; InUse is unchanged
		return nil
	}
	r.inUse--
	return nil
}

// Request asks for one unit and returns an event that succeeds when the
// unit is granted, for use with AnyOf and AllOf (to give up after a
// timeout, say). The event's value is opaque. A granted request holds a
// unit until Release, or Cancel, gives it back.
//
// Whoever waits for the event must Cancel the request when they stop
// waiting for it without having it granted (a timeout won, the process was
// interrupted); otherwise the unit is granted to nobody and leaks.
func (r *Resource) Request(priority int) *Event {
	if r.inUse < r.capacity {
		r.touch()
		r.inUse++
		rq := &request{r: r, ev: r.env.NewEvent("grant"), prio: priority, since: r.env.Now(), index: -1}
		r.grant(rq)
		return rq.ev
	}
	return r.enqueue(priority, true).ev
}

// Cancel gives up a request made with Request, whatever its state: a
// waiting request is withdrawn; a granted one gives its unit back, like
// Release. After Cancel the request holds nothing: do not also Release it.
// Nor the other way round: Release does not know which request it ends,
// so Cancel after a Release of the request's unit gives back a unit that
// another holder has. Either one ends a granted request, never both;
// "defer r.Cancel(req)" before awaiting req ends it whichever way the
// wait goes, like SimPy's "with r.request() as req".
// Cancelling an event that is not an outstanding request of r (or was
// cancelled already) returns ErrNotRequest. Cost: O(log n).
func (r *Resource) Cancel(ev *Event) error {
	if rq, ok := r.byEvent[ev]; ok {
		r.withdraw(rq)
		return nil
	}
	if ev != nil {
		if rq, ok := ev.Value().(*request); ok && rq.r == r && rq.state == reqGranted {
			r.withdraw(rq)
			return nil
		}
	}
	name := "<nil>"
	if ev != nil {
		name = ev.Name()
	}
	return fmt.Errorf("%w: event %q", ErrNotRequest, name)
}

// enqueue adds a waiting request.
func (r *Resource) enqueue(priority int, public bool) *request {
	if r.disc == FIFO {
		priority = 0
	}
	r.touch()
	r.seq++
	rq := &request{r: r, ev: r.env.NewEvent("grant"), prio: priority, seq: r.seq, since: r.env.Now(), public: public}
	r.waiting.push(rq)
	if public {
		if r.byEvent == nil {
			r.byEvent = make(map[*Event]*request)
		}
		r.byEvent[rq.ev] = rq
	}
	return rq
}

// grant gives a unit, already counted in inUse, to rq and schedules the
// end of its wait.
func (r *Resource) grant(rq *request) {
	rq.state = reqGranted
	if rq.public {
		delete(r.byEvent, rq.ev)
	}
	r.stats.grants++
	r.stats.waitSum += float64(r.env.Now() - rq.since)
	// Succeed can only fail on a closed Env, where nothing runs any more.
	_ = rq.ev.Succeed(rq)
}

// withdraw makes rq hold nothing: a waiting request leaves the queue, a
// granted one gives its unit back.
func (r *Resource) withdraw(rq *request) {
	switch rq.state {
	case reqWaiting:
		r.touch()
		r.waiting.remove(rq.index)
		if rq.public {
			delete(r.byEvent, rq.ev)
		}
	case reqGranted:
		_ = r.Release() // inUse counts rq's unit, so this cannot fail
	}
	rq.state = reqCancelled
}

// ResourceStats summarises a resource over a window of virtual time: from
// its creation, or the last ResetStats, to now.
type ResourceStats struct {
	Start   Time // start of the window
	Elapsed Time // length of the window
	// Grants counts units granted in the window, at once or after a wait.
	Grants uint64
	// MeanWait is the mean time from request to grant over those grants,
	// counting immediate grants as zero waits.
	MeanWait Time
	// MeanInUse, Utilization and MeanQueueLen are time averages over the
	// window of InUse, InUse/Capacity and QueueLen. For an empty window
	// they are the current values.
	MeanInUse    float64
	Utilization  float64
	MeanQueueLen float64
}

type resourceStats struct {
	start, last Time
	busyArea    float64 // ∫ inUse dt, in units·ns
	queueArea   float64 // ∫ queue length dt
	grants      uint64
	waitSum     float64 // ns
}

// touch brings the time integrals up to now; call it before every change
// of inUse or of the queue.
func (r *Resource) touch() {
	now := r.env.Now()
	if dt := float64(now - r.stats.last); dt > 0 {
		r.stats.busyArea += float64(float64(r.inUse) * dt)
		r.stats.queueArea += float64(float64(len(r.waiting)) * dt)
	}
	r.stats.last = now
}

// Stats returns the statistics of the current window.
func (r *Resource) Stats() ResourceStats {
	r.touch()
	s := ResourceStats{Start: r.stats.start, Elapsed: r.stats.last - r.stats.start, Grants: r.stats.grants}
	if s.Grants > 0 {
		s.MeanWait = Time(r.stats.waitSum/float64(s.Grants) + 0.5)
	}
	if s.Elapsed > 0 {
		s.MeanInUse = r.stats.busyArea / float64(s.Elapsed)
		s.MeanQueueLen = r.stats.queueArea / float64(s.Elapsed)
	} else {
		s.MeanInUse, s.MeanQueueLen = float64(r.inUse), float64(len(r.waiting))
	}
	s.Utilization = s.MeanInUse / float64(r.capacity)
	return s
}

// ResetStats starts a new statistics window now, for example at the end of
// a warm-up period. Requests already waiting count their whole wait when
// they are granted.
func (r *Resource) ResetStats() {
	now := r.env.Now()
	r.stats = resourceStats{start: now, last: now}
}

// reqHeap is a binary min-heap of waiting requests ordered by (prio, seq),
// with each request's index kept up to date for O(log n) removal.
type reqHeap []*request

func (h reqHeap) less(i, j int) bool {
	a, b := h[i], h[j]
	return a.prio < b.prio || (a.prio == b.prio && a.seq < b.seq)
}

func (h reqHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *reqHeap) push(rq *request) {
	rq.index = len(*h)
	*h = append(*h, rq)
	h.up(rq.index)
}

func (h *reqHeap) pop() *request {
	return h.remove(0)
}

// remove takes out the request at index i and returns it.
func (h *reqHeap) remove(i int) *request {
	old := *h
	n := len(old) - 1
	rq := old[i]
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	rq.index = -1
	return rq
}

func (h reqHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sifts i towards the leaves and reports whether it moved.
func (h reqHeap) down(i int) bool {
	start, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}
