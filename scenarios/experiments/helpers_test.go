package experiments

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/sweep"
	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// testSeed is the first seed of every test but TestStrength (2001),
// TestPARL (5001) and TestCredit (7001), whose comments say why: the
// scenarios were designed, and docs/experiments.md reports them, from
// their own seed 1.
const testSeed = 1001

// alpha is the significance level of every claim.
const alpha = 0.01

// seeds returns the number of seeds a claim is tested on: n, or 1 under
// the race detector.
func seeds(n int) int {
	if race.Enabled {
		return 1
	}
	return n
}

// load loads a library scenario with overrides; under the race detector
// training is cut to a few iterations.
func load(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	if race.Enabled {
		// The cut replaces a caller's own value of these, which a later
		// --set of the same path may not (it would change nothing).
		cut := []string{"train.iterations=2", "train.batch=2", "train.group=2"}
		sets = slices.DeleteFunc(slices.Clone(sets), func(s string) bool {
			return slices.ContainsFunc(cut, func(c string) bool {
				path, _, _ := strings.Cut(c, "=")
				return strings.HasPrefix(s, path+"=")
			})
		})
		sets = append(sets, cut...)
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
		out, err := sweep.RunTrial(context.Background(), sc, tr, 0)
		require.NoError(t, err, "trial %d", tr.Index)
		trials = append(trials, *tr)
		metrics = append(metrics, out.Metrics)
	}
	return trials, metrics
}

// trainRows trains variant v of sc from seed on one worker and returns
// its iterations.
func trainRows(t *testing.T, sc *scenarios.Scenario, v string, seed uint64) []rlcr.Iteration {
	t.Helper()
	var variant *scenarios.Variant
	for i := range sc.Variants {
		if sc.Variants[i].Name == v {
			variant = &sc.Variants[i]
		}
	}
	require.NotNil(t, variant, "variant %s", v)
	var rows []rlcr.Iteration
	_, err := rlcr.Train(context.Background(), rlcr.Run{Problem: variant.Problem(), Config: variant.Spec.Train, Seed: seed, Workers: 1, Emit: func(it rlcr.Iteration) error {
		rows = append(rows, it)
		return nil
	}})
	require.NoError(t, err)
	return rows
}

// mean returns the mean of value over rows, leaving out NaN values (an
// iteration without a failed rollout has no failed length); NaN when
// none is left.
func mean(rows []rlcr.Iteration, value func(*rlcr.Iteration) float64) float64 {
	values := make([]float64, len(rows))
	for i := range rows {
		values[i] = value(&rows[i])
	}
	return stats.MeanDefined(values)
}

// lastTenth trains variant v of sc from seed and returns the mean of
// value over the last tenth of its iterations.
func lastTenth(t *testing.T, sc *scenarios.Scenario, v string, seed uint64, value func(*rlcr.Iteration) float64) float64 {
	t.Helper()
	return mean(stats.LastTenth(trainRows(t, sc, v, seed)), value)
}

// claim fails the test unless p is below alpha, and logs the test.
func claim(t *testing.T, what string, p float64) {
	t.Helper()
	t.Logf("%s: one-sided p = %.4g (α = %g)", what, p, alpha)
	if race.Enabled {
		return // one seed cannot carry a claim; the plain run checks it
	}
	if p >= alpha {
		t.Errorf("%s: not significant (p = %.4g ≥ α = %g)", what, p, alpha)
	}
}
