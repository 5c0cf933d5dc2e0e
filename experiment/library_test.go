package experiment_test

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/stats"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
)

// The calibration tests run the library scenarios with their own seeds and
// check the claims their files make. Tolerances come from the sample:
// means are compared through their 95% intervals, paired differences
// (variants share task draws and random streams) through the interval of
// the mean difference, and success rates through a two-proportion bound.
// With -short they run fewer episodes and widen the bands by the sampling
// error.

// runLibrary evaluates a library scenario and returns its rows by variant
// and its summaries by variant.
func runLibrary(t *testing.T, name string, shortEpisodes int) (map[string][]experiment.Row, map[string]experiment.Summary) {
	t.Helper()
	sc, err := scenarios.Load(name, nil)
	require.NoError(t, err)
	opt := experiment.EvalOptions{Workers: 4}
	if testing.Short() {
		opt.Episodes = shortEpisodes
	}
	rows := evaluate(t, sc, opt)
	byVariant := map[string][]experiment.Row{}
	for _, r := range rows {
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	sums := map[string]experiment.Summary{}
	for _, s := range experiment.Summarize(rows) {
		sums[s.Variant] = s
		t.Logf("%-12s n=%d success=%.3f [%.3f, %.3f]  finish(acceptable)=%.1f min [%.1f, %.1f]  finish(all)=%.1f min  agent time=%.1f min  comm changed=%d",
			s.Variant, s.N, s.Success.Value, s.Success.Lo, s.Success.Hi,
			s.FinishAcceptable.Value/60, s.FinishAcceptable.Lo/60, s.FinishAcceptable.Hi/60,
			s.Finish.Value/60, s.AgentTime.Value/60, s.CommChanged)
	}
	return byVariant, sums
}

// pairedFinish returns the mean of b's finish time minus a's, episode by
// episode, in minutes, with its interval.
func pairedFinish(a, b []experiment.Row) stats.Interval {
	d := make([]float64, len(a))
	for k := range a {
		d[k] = (b[k].Metrics.Finish - a[k].Metrics.Finish).Minutes()
	}
	return stats.Default.CI(d, stats.Mean)
}

// successGapLo is a 95% lower bound on the success rate of a minus that
// of b (Wald interval of a difference of two proportions).
func successGapLo(a, b experiment.Summary) float64 {
	pa, pb := a.Success.Value, b.Success.Value
	se := math.Sqrt(pa*(1-pa)/float64(a.N) + pb*(1-pb)/float64(b.N))
	return pa - pb - 1.959963984540054*se
}

func TestLibraryOrganizations(t *testing.T) {
	_, s := runLibrary(t, "organizations", 300)
	targets := map[string]float64{"sequential": 100, "independent": 28, "team": 46} // minutes
	for name, target := range targets {
		v := s[name]
		require.GreaterOrEqual(t, v.Acceptable, 30, "%s: too few acceptable episodes for a mean", name)
		mean := v.FinishAcceptable.Value / 60
		tol := 0.15 * target
		if testing.Short() {
			tol += (v.FinishAcceptable.Hi - v.FinishAcceptable.Lo) / 2 / 60
		}
		assert.InDelta(t, target, mean, tol, "%s: mean finish time of acceptable episodes (minutes)", name)
	}
	// The order is clear beyond sampling error.
	assert.Greater(t, s["sequential"].FinishAcceptable.Lo, s["team"].FinishAcceptable.Hi)
	assert.Greater(t, s["team"].FinishAcceptable.Lo, s["independent"].FinishAcceptable.Hi)
}

func TestLibraryCoupledWork(t *testing.T) {
	rows, s := runLibrary(t, "coupled-work", 300)
	split, team, indep := s["split"], s["team"], s["independent"]

	gap := team.Success.Value - split.Success.Value
	assert.GreaterOrEqual(t, gap, 0.2, "team succeeds at least 0.2 more often than split")
	if !testing.Short() {
		assert.GreaterOrEqual(t, successGapLo(team, split), 0.2, "... beyond sampling error")
	}

	assert.Less(t, team.FinishAcceptable.Hi, indep.FinishAcceptable.Lo, "team finishes its acceptable episodes sooner than independent attempts")
	all := pairedFinish(rows["team"], rows["independent"])
	assert.Positive(t, all.Lo, "independent minus team finish time over all episodes, paired: %+v min", all)

	// Communication is what makes the team's split work.
	assert.Positive(t, team.CommChanged)
	for _, r := range rows["team"] {
		if r.Metrics.Acceptable {
			assert.Positive(t, r.Metrics.Actions[collective.Share], "episode %d", r.Episode)
		}
	}
}

func TestLibraryDivisibleWork(t *testing.T) {
	rows, s := runLibrary(t, "divisible-work", 300)
	split, team := s["split"], s["team"]
	assert.InDelta(t, split.Success.Value, team.Success.Value, 0.05, "success rates within 0.05")

	diff := pairedFinish(rows["split"], rows["team"])
	assert.GreaterOrEqual(t, diff.Value, 0.0, "split is never slower than team on divisible work")

	t.Run("split-faster", func(t *testing.T) {
		shared := 0
		for _, r := range rows["team"] {
			shared += r.Metrics.Actions[collective.Share]
		}
		require.Positive(t, shared, "the team shares findings even where there is nothing to reconcile")
		assert.Positive(t, diff.Lo, "team minus split finish time, paired: %+v min", diff)
	})
}

// TestLibraryLatencyPressure trains the flagship's none and high variants
// for ten seeds and checks the two claims its description makes, on each
// seed's mean over the last tenth of training: high pressure learns at
// least 1.5× the parallelism of none, and finishes in at most 0.75× its
// time. Each claim is a one-sided exact Wilcoxon signed-rank test over the
// seeds, paired by seed (the variants of a seed share task draws), at
// α = 0.01. Written and checked on seeds 500–509. On the unseen seeds
// 4000–4009 the parallelism claim failed (p = 0.032: one none seed stayed
// at 4.1) before the scenario was retuned (std_norm, on seeds 500–509);
// the seeds below, 6000–6009, were first run after the retuning.
// docs/rlcr.md reports the 20-seed figures of all four variants.
func TestLibraryLatencyPressure(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 20 runs of 150 iterations")
	}
	sc, err := scenarios.Load("latency-pressure", nil)
	require.NoError(t, err)
	const first, seeds = 6000, 10
	type outcome struct{ parallelism, latency []float64 }
	train := func(name string) outcome {
		var v *scenarios.Variant
		for i := range sc.Variants {
			if sc.Variants[i].Name == name {
				v = &sc.Variants[i]
			}
		}
		require.NotNil(t, v, name)
		var o outcome
		for seed := uint64(first); seed < first+seeds; seed++ {
			var rows []rlcr.Iteration
			_, err := rlcr.Train(context.Background(), rlcr.Run{Problem: v.Problem(), Config: v.Spec.Train, Seed: seed, Workers: 2, Emit: func(it rlcr.Iteration) error {
				rows = append(rows, it)
				return nil
			}})
			require.NoError(t, err)
			tenth := stats.LastTenth(rows)
			var par, lat float64
			for _, r := range tenth {
				par += r.ParallelismMean / float64(len(tenth))
				lat += r.LatencyMean / float64(len(tenth))
			}
			o.parallelism = append(o.parallelism, par)
			o.latency = append(o.latency, lat)
		}
		t.Logf("%-5s parallelism %.2f, latency %.0f s (per seed)", name, o.parallelism, o.latency)
		return o
	}
	none, high := train("none"), train("high")
	moreParallel := make([]float64, seeds)
	faster := make([]float64, seeds)
	for i := range seeds {
		moreParallel[i] = high.parallelism[i] - 1.5*none.parallelism[i]
		faster[i] = 0.75*none.latency[i] - high.latency[i]
	}
	const alpha = 0.01
	p := signedRankP(moreParallel)
	assert.LessOrEqual(t, p, alpha, "high pressure learns at least 1.5× the parallelism of none (signed-rank p = %.4f)", p)
	p = signedRankP(faster)
	assert.LessOrEqual(t, p, alpha, "high pressure finishes in at most 0.75× none's time (signed-rank p = %.4f)", p)
}

// signedRankP is the exact one-sided p-value of the Wilcoxon signed-rank
// test of "the differences d are centred above 0": the probability, under
// random signs, of a sum of negative ranks no larger than the one seen.
// Differences are continuous, so ties and zeros are left to chance.
func signedRankP(d []float64) float64 {
	n := len(d)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(d[a]), math.Abs(d[b])) })
	negative := 0
	for rank, i := range idx {
		if d[i] < 0 {
			negative += rank + 1
		}
	}
	// ways[s] counts the sign patterns whose negative ranks sum to s.
	ways := make([]float64, n*(n+1)/2+1)
	ways[0] = 1
	for r := 1; r <= n; r++ {
		for s := len(ways) - 1; s >= r; s-- {
			ways[s] += ways[s-r]
		}
	}
	atMost := 0.0
	for s := 0; s <= negative; s++ {
		atMost += ways[s]
	}
	return atMost / math.Exp2(float64(n))
}

// TestSignedRankP checks the exact test against values worked by hand:
// with ten differences all positive p = 1/1024; one negative at the
// smallest rank, 2/1024; at the largest rank, the sets of distinct ranks
// summing to at most 10 (1+1+1+2+2+3+4+5+6+8+10 = 43 for sums 0 to 10),
// 43/1024.
func TestSignedRankP(t *testing.T) {
	d := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	assert.InDelta(t, 1.0/1024, signedRankP(d), 1e-15)
	d[0] = -1
	assert.InDelta(t, 2.0/1024, signedRankP(d), 1e-15)
	d[0], d[9] = 1, -10
	assert.InDelta(t, 43.0/1024, signedRankP(d), 1e-15)
	assert.InDelta(t, 1.0, signedRankP([]float64{-1, -2, -3}), 1e-15)
}

// TestEveryPenaltyActsOnTheFlagship: with default settings otherwise,
// every penalty form trains a different policy under a latency weight of 5
// than under 0 (the flagship's none variant takes the flag's weight), and
// a weight on penalty none is refused, naming the field. A few iterations
// suffice: a penalty that cannot act leaves the parameters bit-identical.
func TestEveryPenaltyActsOnTheFlagship(t *testing.T) {
	final := func(sets ...string) ([]float64, error) {
		sc, err := scenarios.Load("latency-pressure", append(sets, "train.iterations=3", "train.batch=4"))
		if err != nil {
			return nil, err
		}
		v := sc.Variants[0]
		require.Equal(t, "none", v.Name)
		pol, err := rlcr.Train(context.Background(), rlcr.Run{Problem: v.Problem(), Config: v.Spec.Train, Seed: sc.Seed, Workers: 2})
		require.NoError(t, err)
		return pol.Params(), nil
	}
	for _, p := range rlcr.Penalties {
		t.Run(string(p), func(t *testing.T) {
			on, err := final("reward.penalty="+string(p), "reward.latency=5")
			if p == rlcr.PenaltyNone {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "--set reward.latency=5: reward.latency: 5 has no effect with penalty none")
				return
			}
			require.NoError(t, err)
			off, err := final("reward.penalty="+string(p), "reward.latency=0")
			require.NoError(t, err)
			assert.NotEqual(t, off, on, "the latency weight changes what is learned")
		})
	}
}

// TestLibraryContention checks the claims of the contention scenario on its
// own seed: on one shared server the fastest team is neither the smallest
// nor the largest, each beyond sampling error (95% intervals of the paired
// differences of finish time, the variants sharing task draws); and with
// the step independent of the batch and room for everyone, a larger team
// is never slower on average (the paired difference of each doubling has
// its interval's upper end at or below 0).
func TestLibraryContention(t *testing.T) {
	if testing.Short() {
		t.Skip("a statistical claim over the scenario's 40 episodes; runs without -short")
	}
	teams := []string{"agents-1", "agents-2", "agents-4", "agents-8", "agents-16", "agents-32"}
	run := func(sets ...string) map[string][]experiment.Row {
		sc, err := scenarios.Load("contention", sets)
		require.NoError(t, err)
		byVariant := map[string][]experiment.Row{}
		for _, r := range evaluate(t, sc, experiment.EvalOptions{Workers: 4}) {
			byVariant[r.Variant] = append(byVariant[r.Variant], r)
		}
		return byVariant
	}
	mean := func(rows []experiment.Row) float64 {
		s := 0.0
		for _, r := range rows {
			s += r.Metrics.Finish.Minutes()
		}
		return s / float64(len(rows))
	}

	shared := run()
	fastest := teams[0]
	for _, v := range teams {
		t.Logf("%-10s finish %.1f min, serving wait %.1f min per episode", v, mean(shared[v]), shared[v][0].Metrics.ServingWait.Minutes())
		if mean(shared[v]) < mean(shared[fastest]) {
			fastest = v
		}
	}
	require.NotEqual(t, teams[0], fastest)
	require.NotEqual(t, teams[len(teams)-1], fastest)
	for _, v := range []string{teams[0], teams[len(teams)-1]} {
		d := pairedFinish(shared[fastest], shared[v])
		assert.Positive(t, d.Lo, "%s minus %s, paired: %+v min", v, fastest, d)
	}

	own := run("collective.serving.step_per_seq=0s", "collective.serving.max_batch=100000")
	for i := 1; i < len(teams); i++ {
		d := pairedFinish(own[teams[i-1]], own[teams[i]])
		t.Logf("no contention: %s minus %s %+.1f min [%.1f, %.1f]", teams[i], teams[i-1], d.Value, d.Lo, d.Hi)
		assert.LessOrEqual(t, d.Hi, 0.0, "%s is not slower than %s without contention", teams[i], teams[i-1])
	}
}

// TestLoadNotAScenario: a name that is neither an embedded scenario nor a
// file, a directory, a device, a FIFO and a file too large to be a
// scenario are each said to be what they are, without waiting or reading
// them whole.
func TestLoadNotAScenario(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("# a comment\n"), 2<<20), 0o600))
	for _, tc := range []struct{ arg, want string }{
		{dir, dir + " is a directory, not a scenario: want a YAML file or the name of an embedded scenario (simulate list)"},
		{"no-such", `no scenario "no-such": not an embedded scenario (embedded: ` + strings.Join(scenarios.Names(), ", ") + ") and no such file"},
		// Read to its end, a device never ends and a FIFO waits for a writer.
		{"/dev/zero", "/dev/zero is not a regular file (Dc---------): want a YAML file or the name of an embedded scenario (simulate list)"},
		{fifo, fifo + " is not a regular file (p---------): want a YAML file or the name of an embedded scenario (simulate list)"},
		{big, big + ": larger than 16 MiB: not a scenario file"},
	} {
		_, err := scenarios.Load(tc.arg, nil)
		assert.EqualError(t, err, tc.want, tc.arg)
	}
}
