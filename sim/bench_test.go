package sim_test

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/swarmsim/swarmsim/sim"
)

// The hold model: N entities, each repeatedly waiting an Exp(1) virtual
// time. b.N counts events, so ns/op is nanoseconds per event.

func expTime(r *rand.Rand) sim.Time { return sim.Time(r.ExpFloat64() * float64(sim.Second)) }

func BenchmarkHold(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			env := sim.New(sim.Limits{})
			defer env.Close()
			r := rand.New(rand.NewPCG(1, 2))
			for i := range n {
				env.Process(fmt.Sprint("p", i), func(p *sim.Proc) error {
					for {
						if err := p.Wait(expTime(r)); err != nil {
							return err
						}
					}
				})
			}
			for range 2 * n { // start everyone: steady state from here
				env.Step()
			}
			b.ReportAllocs()
			for b.Loop() {
				env.Step()
			}
		})
	}
}

func BenchmarkHoldCallback(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000, 1000000} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			env := sim.New(sim.Limits{})
			r := rand.New(rand.NewPCG(1, 2))
			var hold func()
			hold = func() { env.Call(expTime(r), hold) }
			for range n {
				hold()
			}
			b.ReportAllocs()
			for b.Loop() {
				env.Step()
			}
		})
	}
}

// The floors below are written bare on purpose: they are what the engine is
// measured against, so they share none of its code.

type floorItem struct {
	at  sim.Time
	seq uint64
	id  int32
}

type floorHeap []floorItem

func (h floorHeap) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *floorHeap) push(x floorItem) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *floorHeap) pop() floorItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		best := i
		for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
			if s.less(c, best) {
				best = c
			}
		}
		if best == i {
			return top
		}
		s[i], s[best] = s[best], s[i]
		i = best
	}
}

func BenchmarkHeapFloor(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000, 1000000} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			h := make(floorHeap, 0, n)
			var seq uint64
			for range n {
				seq++
				h.push(floorItem{at: expTime(r), seq: seq})
			}
			b.ReportAllocs()
			for b.Loop() {
				it := h.pop()
				seq++
				h.push(floorItem{at: it.at + expTime(r), seq: seq})
			}
		})
	}
}

func BenchmarkHoldFloor(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var now sim.Time
			var seq uint64
			h := make(floorHeap, 0, n)
			nexts := make([]func() (struct{}, bool), n)
			for i := range n {
				id := int32(i)
				next, stop := iter.Pull(func(yield func(struct{}) bool) {
					for {
						seq++
						h.push(floorItem{at: now + expTime(r), seq: seq, id: id})
						if !yield(struct{}{}) {
							return
						}
					}
				})
				defer stop()
				nexts[i] = next
				nexts[i]()
			}
			b.ReportAllocs()
			for b.Loop() {
				it := h.pop()
				now = it.at
				nexts[it.id]()
			}
		})
	}
}
