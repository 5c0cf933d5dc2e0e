package serving

import "github.com/swarmsim/swarmsim/sim"

// ends holds the calls scheduled at the API and not ended as a binary
// heap, the first to end on top, of calls that end together the first
// admitted.
type ends []endItem

// endItem names the call by its id rather than a pointer, so that moving
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

// pop removes the first call to end and returns its call's id.
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

// remove takes the call of that id out of the heap.
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
