package serving

import "github.com/swarmsim/swarmsim/sim"

// fifo is a first-in first-out queue; it allocates only when it grows
// beyond its largest size so far. Its ring's length is a power of two, so
// that positions wrap with a mask.
type fifo[T any] struct {
	buf     []T
	head, n int
}

func (q *fifo[T]) push(x T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(8, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.at(i)
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = x
	q.n++
}

// at returns the i-th item from the head.
func (q *fifo[T]) at(i int) T { return q.buf[(q.head+i)&(len(q.buf)-1)] }

// reset empties the queue and returns it, keeping its memory.
func (q fifo[T]) reset() fifo[T] {
	clear(q.buf)
	return fifo[T]{buf: q.buf}
}

func (q *fifo[T]) pop() T {
	x := q.buf[q.head]
	var zero T
	q.buf[q.head] = zero
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return x
}

// arrivals holds the calls on their way to a server, in order of arrival,
// calls that arrive together in the order they were sent. A call usually
// arrives after those sent before it, so insertion is usually an append.
// The times are kept beside the calls, so that ordering and planning do
// not read every call.
type arrivals struct {
	calls []arrival
	head  int
}

type arrival struct {
	at sim.Time
	c  *Call
}

func (q *arrivals) len() int { return len(q.calls) - q.head }

// at returns the i-th call to arrive, and when.
func (q *arrivals) at(i int) (*Call, sim.Time) {
	a := &q.calls[q.head+i]
	return a.c, a.at
}

// insert adds the call c, which arrives at c.Arrive, and returns its place
// among the calls on their way (len()-1 when it arrives last).
func (q *arrivals) insert(c *Call) int {
	if q.head > 0 && len(q.calls) == cap(q.calls) {
		n := copy(q.calls, q.calls[q.head:])
		clear(q.calls[n:])
		q.calls, q.head = q.calls[:n], 0
	}
	t := c.Arrive
	i := len(q.calls)
	if i == q.head || q.calls[i-1].at <= t {
		q.calls = append(q.calls, arrival{at: t, c: c})
		return i - q.head
	}
	for i > q.head && q.calls[i-1].at > t {
		i--
	}
	q.calls = append(q.calls, arrival{at: t, c: c})
	if i < len(q.calls)-1 {
		copy(q.calls[i+1:], q.calls[i:])
		q.calls[i] = arrival{at: t, c: c}
	}
	return i - q.head
}

func (q *arrivals) pop() *Call {
	c := q.calls[q.head].c
	q.calls[q.head] = arrival{}
	q.head++
	if q.head == len(q.calls) {
		q.calls, q.head = q.calls[:0], 0
	}
	return c
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
