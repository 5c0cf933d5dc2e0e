package serving

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/sim"
)

// Sharing is a processor-sharing server whose speed depends on how many
// jobs share it: with n jobs in service, every one of them receives one
// unit of work per Unit + PerJob·(n−1) of time. A continuously batching
// inference server is one: every sequence in the batch gets one token per
// decode step, and a step is longer the larger the batch. A job may also
// bring a setup time (a prompt to prefill) during which the whole server
// makes no progress.
//
// Sharing is plain state, not tied to an Env: its owner adds jobs, asks
// when the next one finishes, schedules its own wake-up and pops finished
// jobs. That costs O(log n) per arrival and per departure, however much
// work the jobs have: the server's speed is constant between arrivals and
// departures, so every job's remaining work falls linearly in between and
// the next departure is known exactly, with no event per unit of work.
//
// Work is tracked as attained service per job, V(t): the service every
// job in service has received since the server started, in nanoseconds of
// a lone job's time (a unit of work is Unit of it). A job that joins at V0
// with w units finishes when V reaches V0 + w·Unit (its tag), whatever
// joins or leaves meanwhile, so jobs finish in the order of their tags and
// only the smallest needs a timer. Departure times are rounded up to the
// nanosecond. They are exact when PerJob is 0 (V then advances by whole
// nanoseconds) and for jobs that start together with whole units of work;
// otherwise they are within a nanosecond of the exact fluid model.
type Sharing struct {
	c    clock
	jobs []shareJob
	due  sim.Time // when the first job finishes (0 when idle): worked out at every change, since the speed is constant between changes

	busy, area float64 // ∫[n>0] dt and ∫n dt, in nanoseconds
}

// clock is a server's speed and attained service, the part of its state
// that decides when jobs finish; Sharing and Lookahead share its arithmetic,
// so that a lookahead's plan is bit for bit what the server will compute.
type clock struct {
	unit, perJob sim.Time
	fUnit, fPer  float64  // unit and perJob as float64, converted once (the same values as converting each time)
	v            float64  // attained service per job, in nanoseconds at one job's speed
	at           sim.Time // when v was last brought up to date
	paused       sim.Time // no progress before this (setups)
}

type shareJob struct {
	tag float64
	id  int
}

// NewSharing returns an idle server that gives each job one unit of work
// per unit + perJob·(n−1) with n jobs in service. unit must be positive
// and perJob non-negative.
func NewSharing(unit, perJob sim.Time) (*Sharing, error) {
	s := &Sharing{}
	if err := s.Reset(unit, perJob); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset empties s and gives it the speed of NewSharing(unit, perJob),
// keeping its memory; on error s is unchanged.
func (s *Sharing) Reset(unit, perJob sim.Time) error {
	if unit <= 0 || perJob < 0 {
		return fmt.Errorf("serving: sharing server: unit %v must be positive and per-job %v not negative", unit, perJob)
	}
	*s = Sharing{c: clock{unit: unit, perJob: perJob, fUnit: float64(unit), fPer: float64(perJob)}, jobs: s.jobs[:0]}
	return nil
}

// Len returns the number of jobs in service.
func (s *Sharing) Len() int { return len(s.jobs) }

// step is the time one unit of work takes for each of n jobs.
func (c *clock) step(n int) float64 {
	return c.fUnit + float64(c.fPer*float64(n-1))
}

// advance brings the attained service of n jobs up to now.
func (c *clock) advance(now sim.Time, n int) {
	if now <= c.at {
		return
	}
	if n > 0 {
		c.serve(now, n)
	}
	c.at = now
}

// serve adds the service that n > 0 jobs receive from c.at, or the end of
// a setup after it, to now > c.at: advance's arithmetic, which
// Sharing.advance shares.
func (c *clock) serve(now sim.Time, n int) {
	if from := max(c.at, c.paused); now > from {
		if c.perJob == 0 {
			c.v += float64(now - from)
		} else {
			c.v += float64(now-from) * c.fUnit / c.step(n)
		}
	}
}

// join starts a job of work units with a setup at now and returns its tag.
func (c *clock) join(now sim.Time, work float64, setup sim.Time) float64 {
	c.paused = max(c.paused, now) + setup
	return c.v + float64(work*c.fUnit)
}

// departure returns when the job with the given tag finishes among n.
func (c *clock) departure(tag float64, n int) sim.Time {
	from := max(c.at, c.paused)
	left := tag - c.v
	if left <= 0 {
		return from
	}
	d := left // one job's speed: no rounding at all
	if c.perJob != 0 {
		// In units of work first: whole units give whole steps exactly.
		d = math.Ceil(left / c.fUnit * c.step(n))
	}
	if d >= float64(sim.MaxTime-from) {
		return sim.MaxTime
	}
	return from + sim.Time(d)
}

// advance brings the attained service and the integrals up to now.
// It is clock.advance with the integrals, testing once what both test.
func (s *Sharing) advance(now sim.Time) {
	if now <= s.c.at {
		return
	}
	if n := len(s.jobs); n > 0 {
		dt := float64(now - s.c.at)
		s.busy += dt
		s.area += float64(dt * float64(n))
		s.c.serve(now, n)
	}
	s.c.at = now
}

// Add puts job id in service at time now with work units to do, after a
// setup during which the server makes no progress (setups of jobs added
// together run one after the other). It costs O(log n). Times must not go
// backwards.
func (s *Sharing) Add(now sim.Time, id int, work float64, setup sim.Time) {
	s.advance(now)
	s.jobs = append(s.jobs, shareJob{tag: s.c.join(now, work, setup), id: id})
	s.up(len(s.jobs) - 1)
	s.due = s.c.departure(s.jobs[0].tag, len(s.jobs))
}

// Next returns when the first job will finish if nothing joins or leaves,
// and false if the server is idle. It costs O(1).
func (s *Sharing) Next() (sim.Time, bool) {
	return s.due, len(s.jobs) > 0
}

// Pop removes and returns a job that has finished by now, if any; call it
// until it reports false. A job whose departure time (from Next) has come
// is finished, even where rounding left its attained service a hair short.
func (s *Sharing) Pop(now sim.Time) (id int, ok bool) {
	if len(s.jobs) == 0 || s.due > now {
		return 0, false
	}
	s.advance(now)
	j := s.jobs[0]
	s.c.v = max(s.c.v, j.tag)
	last := len(s.jobs) - 1
	s.jobs[0] = s.jobs[last]
	s.jobs = s.jobs[:last]
	s.due = 0
	if last > 0 {
		s.down(0)
		s.due = s.c.departure(s.jobs[0].tag, last)
	}
	return j.id, true
}

// Replace is Pop and then, if it popped a job, Add(now, id, work, setup):
// a finished job's place goes to a new one at once (a queued job let into
// the freed place), with one update of the server and one sift of its
// heap. The server is then as Pop and Add would leave it.
func (s *Sharing) Replace(now sim.Time, id int, work float64, setup sim.Time) (done int, ok bool) {
	if len(s.jobs) == 0 || s.due > now {
		return 0, false
	}
	s.advance(now)
	j := s.jobs[0]
	s.c.v = max(s.c.v, j.tag)
	s.jobs[0] = shareJob{tag: s.c.join(now, work, setup), id: id}
	s.down(0)
	s.due = s.c.departure(s.jobs[0].tag, len(s.jobs))
	return j.id, true
}

// Lookahead is a what-if copy of a Sharing server's progress, to find when
// its first job would finish if given jobs joined at given times: a
// server's owner that knows of arrivals before they happen plans its
// wake-up with it, with no event per arrival. Add and Next do what the
// server's Add and Next would, with the server's arithmetic, so that after
// the same Adds at the same times its Next is bit for bit the server's;
// the server itself is not changed. It keeps only the first job to finish,
// not the jobs, so that it costs O(1) to make and allocates nothing.
type Lookahead struct {
	c     clock
	n     int
	first float64  // the smallest tag
	due   sim.Time // when the job of that tag finishes
}

// Reset makes l a copy of s's progress as it is now.
func (l *Lookahead) Reset(s *Sharing) {
	l.c, l.n, l.due, l.first = s.c, len(s.jobs), s.due, 0
	if l.n > 0 {
		l.first = s.jobs[0].tag
	}
}

// Len returns the number of jobs the server would have in service.
func (l *Lookahead) Len() int { return l.n }

// Add is Sharing.Add on the copy. Times must not go backwards.
func (l *Lookahead) Add(now sim.Time, work float64, setup sim.Time) {
	l.c.advance(now, l.n)
	tag := l.c.join(now, work, setup)
	if l.n == 0 || tag < l.first {
		l.first = tag
	}
	l.n++
	l.due = l.c.departure(l.first, l.n)
}

// Next is Sharing.Next on the copy: when the first job would finish if
// nothing else joined, and false if the server would be idle. It costs
// O(1).
func (l *Lookahead) Next() (sim.Time, bool) { return l.due, l.n > 0 }

// Busy returns the time the server has had at least one job, up to now.
func (s *Sharing) Busy(now sim.Time) sim.Time {
	s.advance(now)
	return sim.Time(s.busy)
}

// Area returns ∫ n dt up to now, the integral of the number of jobs in
// service over time, in nanoseconds: divided by the elapsed time, the mean
// number in service.
func (s *Sharing) Area(now sim.Time) float64 {
	s.advance(now)
	return s.area
}

// less orders jobs by tag, then by id, so that jobs that finish together
// leave in a fixed order.
func (s *Sharing) less(i, j int) bool {
	a, b := &s.jobs[i], &s.jobs[j]
	return a.tag < b.tag || a.tag == b.tag && a.id < b.id
}

func (s *Sharing) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s.jobs[i], s.jobs[p] = s.jobs[p], s.jobs[i]
		i = p
	}
}

func (s *Sharing) down(i int) {
	n := len(s.jobs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			return
		}
		s.jobs[i], s.jobs[m] = s.jobs[m], s.jobs[i]
		i = m
	}
}
