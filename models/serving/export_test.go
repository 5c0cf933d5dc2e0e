package serving

import (
	"cmp"
	"slices"
)

// SharingState returns a copy of s with its jobs in the order they leave
// in, for tests that compare the whole state of two servers whatever the
// layout of their heaps.
func SharingState(s *Sharing) Sharing {
	c := *s
	c.jobs = slices.SortedFunc(slices.Values(s.jobs), func(a, b shareJob) int {
		return cmp.Or(cmp.Compare(a.tag, b.tag), cmp.Compare(a.id, b.id))
	})
	return c
}
