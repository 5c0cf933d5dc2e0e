package task

// IDQueue is a binary min-heap of node IDs: nodes taken in ID order, which
// Topo uses and the collective uses for its ready subtasks. The zero value
// is an empty queue.
type IDQueue []ID

// Len returns the number of IDs queued.
func (q IDQueue) Len() int { return len(q) }

// Min returns the smallest ID without removing it. The queue must not be
// empty.
func (q IDQueue) Min() ID { return q[0] }

// Push adds v in O(log n).
func (q *IDQueue) Push(v ID) {
	*q = append(*q, v)
	s := *q
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

// Pop removes and returns the smallest ID in O(log n). The queue must not
// be empty.
func (q *IDQueue) Pop() ID {
	s := *q
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(s) && s[l] < s[m] {
			m = l
		}
		if r < len(s) && s[r] < s[m] {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*q = s
	return top
}
