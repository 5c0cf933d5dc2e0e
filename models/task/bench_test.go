package task

import (
	"bytes"
	"testing"

	"github.com/swarmsim/swarmsim/sim"
)

// layered100k draws 100,000 nodes: 1,000 layers of 100, about 500,000 edges.
var layered100k = Family{
	Shape: ShapeLayered, Width: 100, Depth: 1000, EdgeProb: 0.05,
	Work: sim.Exponential(60), Difficulty: sim.Uniform(0, 0.5), OutputTokens: sim.Exponential(400),
	Coupling: sim.Uniform(0, 1),
}

func BenchmarkDrawLayered(b *testing.B) {
	r := newRand(1)
	b.ReportAllocs()
	for b.Loop() {
		g, err := layered100k.Draw(r)
		if err != nil || g.Len() != 100_000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkCriticalPath(b *testing.B) {
	g, err := layered100k.Draw(newRand(1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if l, _ := g.CriticalPath(); l <= 0 {
			b.Fatal("no critical path")
		}
	}
}

func BenchmarkReadDOT(b *testing.B) {
	g, err := Family{Shape: ShapeLayered, Width: 100, Depth: 100, EdgeProb: 0.05, Work: sim.Exponential(60)}.Draw(newRand(1))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteDOT(&buf, g); err != nil {
		b.Fatal(err)
	}
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadDOT(bytes.NewReader(src), "bench.dot"); err != nil {
			b.Fatal(err)
		}
	}
}
