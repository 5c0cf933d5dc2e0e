package serving

// Pool is a pool of places that calls hold one at a time, such as tool
// sandboxes (code runners, browsers): at most its size at once, the others
// waiting in a FIFO queue. The zero Pool is unlimited.
type Pool struct {
	size, inUse int
	queue       fifo[int]
}

// Reset empties p and gives it size places (0 for unlimited), keeping its
// memory.
func (p *Pool) Reset(size int) {
	*p = Pool{size: size, queue: p.queue.reset()}
}

// Acquire takes a place for the call named id and reports true, or queues
// the call for the next place free and reports false.
func (p *Pool) Acquire(id int) bool {
	if p.size > 0 && p.inUse >= p.size {
		p.queue.push(id)
		return false
	}
	p.inUse++
	return true
}

// Release frees a place. When a call waits for one, the first takes it, and
// Release returns its id and true.
func (p *Pool) Release() (int, bool) {
	if p.queue.n > 0 {
		return p.queue.pop(), true
	}
	p.inUse--
	return 0, false
}
