package experiments

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/scenarios/sweep"
)

// testSeed is the first seed of every test: the scenarios were designed,
// and docs/experiments.md reports them, from their own seed 1.
const testSeed = 1001

// alpha is the significance level of every claim.
const alpha = 0.01

// seeds returns the number of seeds a claim is tested on: n, or 1 under
// the race detector.
func seeds(n int) int {
	if raceEnabled {
		return 1
	}
	return n
}

// load loads a library scenario with overrides; under the race detector
// training is cut to a few iterations.
func load(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	if raceEnabled {
		sets = append(sets, "train.iterations=2", "train.batch=2", "train.group=2")
	}
	sc, err := scenarios.Load(name, sets)
	require.NoError(t, err)
	return sc
}

// param returns the value of a trial's swept path.
func param(tr *scenarios.Trial, path string) string {
	for _, p := range tr.Params {
		if p.Path == path {
			return p.Value
		}
	}
	return ""
}

// sweepTrials runs the trials of sc's sweep with the first n seeds from
// testSeed (seeds(n) of them) that keep selects, and returns them with
// their metrics, in enumeration order.
func sweepTrials(t *testing.T, sc *scenarios.Scenario, n int, keep func(*scenarios.Trial) bool) ([]scenarios.Trial, []map[string]float64) {
	t.Helper()
	all, err := sc.Trials(testSeed, "")
	require.NoError(t, err)
	var trials []scenarios.Trial
	var metrics []map[string]float64
	for i := range all {
		tr := &all[i]
		if tr.Seed >= testSeed+uint64(seeds(n)) || !keep(tr) {
			continue
		}
		out, err := sweep.RunTrial(context.Background(), sc, tr)
		require.NoError(t, err, "trial %d", tr.Index)
		trials = append(trials, *tr)
		metrics = append(metrics, out.Metrics)
	}
	return trials, metrics
}

// lastTenth trains variant v of sc from seed and returns the mean of
// value over the last tenth of its iterations (as sweeps and the train
// table report them).
func lastTenth(t *testing.T, sc *scenarios.Scenario, v string, seed uint64, value func(*rlcr.Iteration) float64) float64 {
	t.Helper()
	return trainTail(t, sc, v, seed, []func(*rlcr.Iteration) float64{value})[0]
}

// trainTail trains variant v of sc from seed and returns the last-tenth
// mean of each value.
func trainTail(t *testing.T, sc *scenarios.Scenario, v string, seed uint64, values []func(*rlcr.Iteration) float64) []float64 {
	t.Helper()
	var variant *scenarios.Variant
	for i := range sc.Variants {
		if sc.Variants[i].Name == v {
			variant = &sc.Variants[i]
		}
	}
	require.NotNil(t, variant, "variant %s", v)
	var rows []rlcr.Iteration
	_, err := rlcr.Train(context.Background(), variant.Problem(), variant.Spec.Train, seed, 1, func(it rlcr.Iteration) error {
		rows = append(rows, it)
		return nil
	})
	require.NoError(t, err)
	n := max(1, len(rows)/10)
	out := make([]float64, len(values))
	for k, value := range values {
		for i := len(rows) - n; i < len(rows); i++ {
			out[k] += value(&rows[i]) / float64(n)
		}
	}
	return out
}

// claim fails the test unless p is below alpha, and logs the test.
func claim(t *testing.T, what string, p float64) {
	t.Helper()
	t.Logf("%s: one-sided p = %.4g (α = %g)", what, p, alpha)
	if raceEnabled {
		return // one seed cannot carry a claim; the plain run checks it
	}
	if p >= alpha {
		t.Errorf("%s: not significant (p = %.4g ≥ α = %g)", what, p, alpha)
	}
}
