package floor

import (
	"slices"
	"testing"
)

// TestTenDecisionsAnEpisode: an episode that finishes makes one decision
// per subtask, ten, as the product's and the SimPy peer's do; one stopped
// by the limit makes no more. Policies from always-work to
// always-delegate, on random tasks.
func TestTenDecisionsAnEpisode(t *testing.T) {
	r := rng{s: 3}
	finished := 0
	for k := range 400 {
		var work [nodes]float64
		for v := range work {
			work[v] = r.exp(meanWork)
		}
		var delta [NF]float64
		delta[xBias] = float64(k%9-4) * 2 // logits −8…8
		delta[xReady2Helper] = float64(k%5 - 2)
		trace, _, ok := TraceEpisode(work, delta, uint64(k))
		switch {
		case ok && len(trace) != nodes:
			t.Fatalf("task %d: finished with %d decisions, want %d", k, len(trace), nodes)
		case !ok && len(trace) > nodes:
			t.Fatalf("task %d: stopped with %d decisions, more than %d", k, len(trace), nodes)
		}
		if ok {
			finished++
		}
	}
	if finished < 390 {
		t.Errorf("%d of 400 episodes finished: the limit of 200 min should stop few", finished)
	}
}

// TestLearnsWhatTheProductLearns trains the floor as `simulate train
// rlcr-peer` trains, on seeds of its own, and finds what the product
// learns (docs/performance.md): at w > 0 a finish time near 50 min (the
// product's median over 24 seeds, 49.9 min), at w = 0 near 58 min (58.4
// min; there only the rare episodes stopped by the limit give a gradient),
// and every episode acceptable at w > 0. The test: the median over eight
// seeds in the band around the product's median; the bands were written
// from the product's figures and the floor checked on seeds 100–163 as
// well (w = 0: median 56.9 min against the product's 57.6 on its own 64
// seeds, Mann–Whitney p = 0.60).
func TestLearnsWhatTheProductLearns(t *testing.T) {
	seeds := 8
	var w0, w5 []float64
	for s := range seeds {
		tr := NewTrainer(uint64(s + 1))
		r0 := tr.Train(0, Iterations)
		r5 := tr.Train(0.5, Iterations)
		if r5.Success != 1 {
			t.Errorf("seed %d, w = 0.5: success %v, want 1", s+1, r5.Success)
		}
		if d := float64(r0.Decisions) / float64(r0.Episodes); d < 9.99 {
			t.Errorf("seed %d: %.3f decisions an episode, want 10", s+1, d)
		}
		w0, w5 = append(w0, r0.Finish), append(w5, r5.Finish)
	}
	m0, m5 := median(w0), median(w5)
	if m5 < 47 || m5 > 53 {
		t.Errorf("w = 0.5: median finish %.1f min over %d seeds, want 47–53 (%.1f)", m5, seeds, w5)
	}
	if m0 < 54 || m0 > 62 {
		t.Errorf("w = 0: median finish %.1f min over %d seeds, want 54–62 (%.1f)", m0, seeds, w0)
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	return (s[(n-1)/2] + s[n/2]) / 2
}

// TestIterationAllocatesNothing: after the trainer is made, an iteration
// (32 episodes, their rewards, the gradient and Adam) allocates nothing.
func TestIterationAllocatesNothing(t *testing.T) {
	tr := NewTrainer(1)
	if n := testing.AllocsPerRun(20, func() { tr.iteration(0.5) }); n != 0 {
		t.Errorf("%v allocations an iteration, want 0", n)
	}
}

// BenchmarkFloor trains the rlcr-peer scenario's four latency weights, 150
// iterations of 32 episodes each (19,200 episodes), per loop, on a fresh
// seed each time, as one worker of `simulate train rlcr-peer` does.
func BenchmarkFloor(b *testing.B) {
	tr := NewTrainer(1)
	var episodes, decisions int
	b.ReportAllocs()
	for b.Loop() {
		tr.r.s++
		for _, r := range tr.TrainAll(Iterations) {
			episodes += r.Episodes
			decisions += r.Decisions
		}
	}
	report(b, episodes, decisions)
}

// BenchmarkFloorIteration is one iteration at w = 0.5 in steady state,
// 32 episodes and the update: models/rlcr's BenchmarkTrainPeer's
// counterpart.
func BenchmarkFloorIteration(b *testing.B) {
	tr := NewTrainer(1)
	for range 10 {
		tr.iteration(0.5)
	}
	var episodes, decisions int
	b.ReportAllocs()
	for b.Loop() {
		n, _, _ := tr.iteration(0.5)
		episodes += rollouts
		decisions += n
	}
	report(b, episodes, decisions)
}

func report(b *testing.B, episodes, decisions int) {
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(episodes)/sec, "episodes/s")
	b.ReportMetric(sec*1e9/float64(decisions), "ns/decision")
}
