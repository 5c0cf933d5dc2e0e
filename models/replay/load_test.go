package replay_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// oneCallRuns returns n runs of one model call each, of no prompt and
// 1 + Exp(mean 199) output tokens: at a replica that batches one call at
// a time and prefills for free, a call's service is its output tokens
// times the step, a general distribution.
func oneCallRuns(n int, seed uint64) []replay.Run {
	r := rand.New(rand.NewPCG(seed, 0))
	runs := make([]replay.Run, n)
	for i := range runs {
		out := 1 + int64(r.ExpFloat64()*199)
		runs[i] = replay.Run{ID: "one", Root: replay.Agent{Steps: []replay.Step{{Kind: replay.ModelCall, Name: "m", Output: out, HasTokens: true}}}}
	}
	return runs
}

// TestReplicaIsMG1 replays single-call runs arriving at a Poisson rate
// on one replica with a batch of one: an M/G/1 queue, whose mean wait is
// Pollaczek–Khinchine's λE[S²]/(2(1−ρ)), with E[S] and E[S²] of the
// calls' services (output tokens × step). As the engine's M/M/1 tests in
// sim/queueing_test.go, the check is that the analytic value lies in the
// replay's 99% confidence interval by batch means (30 batches of 8,000
// calls after 2,000 of warm-up), and that the interval is narrower than
// ±5% of it, so that a wide interval cannot pass a broken replay. Seed 3
// was used to write the test; seeds 1, 2 and 4 pass too. Every run is
// another call (242,000 runs): replaying a thousand in turn makes the
// services a periodic sequence, not independent draws, and the mean wait
// 3% higher than the formula's.
func TestReplicaIsMG1(t *testing.T) {
	const (
		rho     = 0.5
		warmup  = 2_000
		batches = 30
		batch   = 8_000
	)
	dep := serving.DefaultDeployment()
	dep.Replicas, dep.MaxBatch, dep.PrefillToken = 1, 1, 0
	runs := oneCallRuns(warmup+batches*batch, 7)
	var m1, m2 float64
	for _, r := range runs {
		s := (sim.Time(r.Root.Steps[0].Output) * dep.Step).Seconds()
		m1 += s / float64(len(runs))
		m2 += s * s / float64(len(runs))
	}
	lambda := rho / m1
	want := lambda * m2 / (2 * (1 - rho))
	res, err := replay.Replay(runs, replay.Config{Deployment: replay.Deployment{Serving: dep},
		Load: replay.Load{Mode: replay.Poisson, Rate: lambda, Runs: warmup + batches*batch}, Seed: 3})
	require.NoError(t, err)
	means := make([]float64, batches)
	for b := range means {
		for _, r := range res[warmup+b*batch : warmup+(b+1)*batch] {
			require.Equal(t, 1, r.Calls)
			means[b] += r.Delay.Seconds() / batch
		}
	}
	got, half := meanCI(means, 0.99)
	t.Logf("M/G/1 at ρ %.2f: mean wait %.4f ± %.4f s (99%% CI), Pollaczek–Khinchine %.4f s", rho, got, half, want)
	require.Less(t, half, 0.05*want, "CI too wide to be a test")
	require.InDelta(t, want, got, half, "Pollaczek–Khinchine's wait outside the 99%% CI")
}

// meanCI returns the mean of independent observations and the half-width
// of its Student-t confidence interval at level.
func meanCI(obs []float64, level float64) (mean, half float64) {
	n := float64(len(obs))
	for _, x := range obs {
		mean += x / n
	}
	ss := 0.0
	for _, x := range obs {
		ss += (x - mean) * (x - mean)
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	return mean, tq * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// TestRecordedStarts replays two runs recorded 10 s apart at twice their
// pace: the second starts 5 s after the first, whatever the order they
// are given in.
func TestRecordedStarts(t *testing.T) {
	a, b := handRun(), handRun()
	a.ID, b.ID = "a", "b"
	a.Start, b.Start = 1_000_000_000_000, 1_000_000_000_000+10e9
	res, err := replay.Replay([]replay.Run{b, a}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Mode: replay.Recorded, Speedup: 2}})
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, 1, res[0].Run, "a, recorded first, starts first")
	require.Equal(t, sim.Time(0), res[0].Start)
	require.Equal(t, 5*sim.Second, res[1].Start)
	require.Equal(t, res[0].Replayed(), res[1].Replayed(), "they do not overlap at an unlimited API")
}

// TestPoissonStarts replays 4,000 runs arriving at 2 a second: the mean
// gap between starts must be within 4 standard errors of half a second
// (the exponential gaps' standard error is their mean over √n).
func TestPoissonStarts(t *testing.T) {
	const n = 4000
	res, err := replay.Replay([]replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Mode: replay.Poisson, Rate: 2, Runs: n}, Seed: 5})
	require.NoError(t, err)
	require.Len(t, res, n)
	mean := (res[n-1].Start - res[0].Start).Seconds() / (n - 1)
	require.InDelta(t, 0.5, mean, 4*0.5/math.Sqrt(n-1))
	for i := range res {
		require.Equal(t, -1, res[i].Session)
		require.Equal(t, 5460*ms, res[i].Replayed(), "run %d: an unlimited API keeps runs apart", i)
	}
}

// TestClosedLoopSessions replays with three sessions, seven runs: each
// session starts its next run when its last ends, so the sessions'
// runs follow one another without gaps, and they replay seven in all.
func TestClosedLoopSessions(t *testing.T) {
	res, err := replay.Replay([]replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 3, Runs: 7}})
	require.NoError(t, err)
	require.Len(t, res, 7)
	last := map[int]sim.Time{}
	count := map[int]int{}
	for _, r := range res {
		require.Equal(t, last[r.Session], r.Start, "session %d starts its next run as its last ends", r.Session)
		last[r.Session] = r.End
		count[r.Session]++
	}
	require.Equal(t, map[int]int{0: 3, 1: 2, 2: 2}, count)

	// More sessions than runs would leave some idle under the load's name.
	_, err = replay.Replay([]replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 8, Runs: 7}})
	require.ErrorContains(t, err, "replay: 8 sessions for 7 runs: 1 would never start a run")

	// Without Runs, each session replays every run: 65,536 sessions of
	// two runs would keep 131,072 results.
	two := []replay.Run{handRun(), handRun()}
	_, err = replay.Replay(two, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: replay.MaxSessions}})
	require.ErrorContains(t, err, "replay: 65536 sessions replaying each of the 2 recorded runs once per session make 131072 runs, more than 65536 (each keeps its result); give Runs")
}

// TestReplayDeterministic replays the same runs twice with a seed, and
// once with another: the same seed gives the same results.
func TestReplayDeterministic(t *testing.T) {
	cfg := replay.Config{Deployment: replay.Deployment{APIs: []serving.API{{TTFT: sim.LogNormal(1, 1), OutputRate: 50, Concurrency: 2}}},
		Load: replay.Load{Mode: replay.Poisson, Rate: 1, Runs: 50}, Pairing: replay.Independent, Seed: 9}
	a, err := replay.Replay([]replay.Run{handRun()}, cfg)
	require.NoError(t, err)
	b, err := replay.Replay([]replay.Run{handRun()}, cfg)
	require.NoError(t, err)
	require.Equal(t, a, b)
	cfg.Seed = 10
	c, err := replay.Replay([]replay.Run{handRun()}, cfg)
	require.NoError(t, err)
	require.NotEqual(t, a, c)
}
