package serving

import (
	"cmp"
	"slices"

	"github.com/swarmsim/swarmsim/sim"
)

// SharingState returns a copy of s with its jobs in the order they leave
// in, for tests that compare the whole state of two servers whatever the
// layout of their heaps.
func SharingState(s *Sharing) Sharing {
	jobs := make([]shareJob, s.jobs.Len())
	for i := range jobs {
		jobs[i] = *s.jobs.At(i)
	}
	slices.SortFunc(jobs, func(a, b shareJob) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Tie, b.Tie))
	})
	c := *s
	c.jobs = sim.Heap[float64, int, struct{}]{}
	for _, j := range jobs {
		c.jobs.Push(j) // in order, each is pushed at the end and stays there
	}
	return c
}
