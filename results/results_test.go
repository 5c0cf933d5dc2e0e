package results_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// runDir writes a run directory whose variant v has the given finish
// times, one per episode (the other metrics constant), and opens it.
func runDir(t *testing.T, seed uint64, finish []float64) *rundir.Run {
	t.Helper()
	return runDirOf(t, seed, episodes{"v", finish})
}

// episodeHeader is the header of episodes.csv as the tests write it.
var episodeHeader = []string{"variant", "episode", "finish_time", "acceptable", "reward", "model_calls", "tokens", "agent_time", "messages", "parallelism_mean", "critical_steps", "speedup"}

// episodes are the finish times of a variant's episodes 0, 1, ...
type episodes struct {
	variant string
	finish  []float64
}

// runDirOf writes a run directory of the variants' episodes, one after
// the other (the other metrics constant), and opens it.
func runDirOf(t *testing.T, seed uint64, variants ...episodes) *rundir.Run {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	var rows [][]string
	for _, v := range variants {
		for i, f := range v.finish {
			rows = append(rows, []string{v.variant, strconv.Itoa(i), fmt.Sprint(f), "true", "1", "3", "100", "60", "2", "1.5", "4", "1"})
		}
	}
	require.NoError(t, d.Write("episodes.csv", rundir.CSV(episodeHeader, rows)))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "s", Seed: seed, Episodes: len(variants[0].finish)}))
	r, err := rundir.Open(path)
	require.NoError(t, err)
	return r
}

func find(t *testing.T, rows []results.Comparison, metric string) results.Comparison {
	t.Helper()
	for _, c := range rows {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no row for %s", metric)
	return results.Comparison{}
}

func TestCompareRuns(t *testing.T) {
	a := runDir(t, 1, []float64{10, 20, 30, 40})
	for _, tc := range []struct {
		name   string
		seed   uint64
		paired bool
		// B beats A when it finishes sooner: episode by episode only in
		// episode 1 (19 < 20); over all 16 pairs 3 + 3 + 1 + 0 times.
		prob float64
	}{
		{"same seed: paired", 1, true, 1.0 / 4},
		{"other seed: independent", 2, false, 7.0 / 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := runDir(t, tc.seed, []float64{12, 19, 35, 44})
			rows, err := results.Compare(a, b)
			require.NoError(t, err)
			c := find(t, rows, "finish_time")
			assert.Equal(t, "v", c.Variant)
			assert.Equal(t, 25.0, c.A)
			assert.Equal(t, 27.5, c.B)
			assert.InDelta(t, 2.5, c.Diff.Value, 1e-12)
			assert.True(t, c.Diff.Lo <= c.Diff.Value && c.Diff.Value <= c.Diff.Hi)
			assert.Equal(t, tc.paired, c.Paired)
			assert.Equal(t, metric.Lower, c.Better)
			assert.InDelta(t, tc.prob, c.Prob, 1e-12)
			assert.Equal(t, 4, c.NA)
			if tc.paired {
				// The per-episode differences are 2, -1, 5, 4: the paired
				// interval lies between them.
				assert.True(t, -1 <= c.Diff.Lo && c.Diff.Hi <= 5, "%+v", c.Diff)
			}
			same := find(t, rows, "reward")
			assert.Equal(t, 0.0, same.Diff.Value)
			assert.Equal(t, 0.5, same.Prob, "ties count a half")
			// Every metric of the episodes has a row, the critical steps
			// that compare's terminal shows among the main metrics too.
			var names []string
			for _, r := range rows {
				names = append(names, r.Metric)
			}
			assert.ElementsMatch(t, episodeHeader[2:], names)
		})
	}
}

// TestCompareVariants: two variants of one run compare episode by
// episode, paired on their shared draws, as the same variant of two runs
// of one seed does (TestCompareRuns); a metric that never moves is
// constant. Names that are not two variants of a run are errors that
// list the variants.
func TestCompareVariants(t *testing.T) {
	r := runDirOf(t, 1, episodes{"team", []float64{10, 20, 30, 40}}, episodes{"single", []float64{12, 19, 35, 44}}, episodes{"split", []float64{1, 2, 3, 4}})
	rows, err := results.CompareVariants(r, "team", "single")
	require.NoError(t, err)
	c := find(t, rows, "finish_time")
	assert.Equal(t, "team vs single", c.Variant)
	assert.Equal(t, 25.0, c.A)
	assert.Equal(t, 27.5, c.B)
	assert.InDelta(t, 2.5, c.Diff.Value, 1e-12)
	assert.True(t, c.Paired)
	assert.InDelta(t, 1.0/4, c.Prob, 1e-12, "single finished sooner in episode 1 alone")
	assert.True(t, -1 <= c.Diff.Lo && c.Diff.Hi <= 5, "between the differences 2, -1, 5, 4: %+v", c.Diff)
	assert.False(t, c.Constant)
	assert.True(t, find(t, rows, "reward").Constant, "reward is 1 in every episode of both")

	swapped, err := results.CompareVariants(r, "single", "team")
	require.NoError(t, err)
	assert.InDelta(t, -2.5, find(t, swapped, "finish_time").Diff.Value, 1e-12)

	for _, tc := range []struct {
		r    *rundir.Run
		a, b string
		want string
	}{
		{r, "team", "singel", r.Path + ` has no variant "singel" (its variants: team, single, split); did you mean "single"?`},
		{r, "team", "team", "variant team is named twice"},
		{trainDir(t, []float64{1}), "v", "w", "is a train directory: variants are compared episode by episode within a run directory"},
		{runDirOf(t, 1, episodes{"a", []float64{1, 2}}, episodes{"b", []float64{1}}), "a", "b", "variant b has 1 episodes and the manifest says 2"},
		{badEpisode(t), "v", "w", `episodes.csv:3: column episode: "one" is not an episode number`},
	} {
		_, err := results.CompareVariants(tc.r, tc.a, tc.b)
		assert.ErrorContains(t, err, tc.want, "%s, %s", tc.a, tc.b)
	}
}

// badEpisode writes a run directory whose second episode's number is
// not a number, and opens it.
func badEpisode(t *testing.T) *rundir.Run {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	rows := [][]string{{"v", "0", "1", "true", "1", "3", "100", "60", "2", "1.5", "4", "1"}, {"v", "one", "1", "true", "1", "3", "100", "60", "2", "1.5", "4", "1"}}
	require.NoError(t, d.Write("episodes.csv", rundir.CSV(episodeHeader, rows)))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "s", Seed: 1}))
	r, err := rundir.Open(path)
	require.NoError(t, err)
	return r
}

// TestConstant: a row is constant when every value of both sides is one
// number, and only then.
func TestConstant(t *testing.T) {
	rows, err := results.Compare(trainDir(t, []float64{0.1, 0.1}), trainDir(t, []float64{0.1, 0.1}))
	require.NoError(t, err)
	assert.True(t, rows[0].Constant, "%+v", rows[0])
	rows, err = results.Compare(trainDir(t, []float64{0.1, 0.1}), trainDir(t, []float64{0.1, 0.2}))
	require.NoError(t, err)
	assert.False(t, rows[0].Constant, "%+v", rows[0])
	rows, err = results.Compare(runDir(t, 1, []float64{5, 5}), runDir(t, 2, []float64{5, 5}))
	require.NoError(t, err)
	assert.True(t, find(t, rows, "finish_time").Constant)
}

// trainDir writes a training of variant v over len(final) seeds, twenty
// iterations each, whose reward_mean averages final[k] over seed k's last
// two iterations (the last tenth: final[k] ∓ 0.05) and is 0 before;
// value_ev is undefined.
func trainDir(t *testing.T, final []float64) *rundir.Run {
	t.Helper()
	return trainDirOf(t, "reward_mean", final)
}

// trainDirOf is trainDir with the metric name in place of reward_mean.
func trainDirOf(t *testing.T, name string, final []float64) *rundir.Run {
	t.Helper()
	return trainDirAs(t, "v", name, final)
}

// trainDirAs is trainDirOf of a variant of the given name.
func trainDirAs(t *testing.T, variant, name string, final []float64) *rundir.Run {
	t.Helper()
	path := filepath.Join(t.TempDir(), "train")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	var rows [][]string
	for k, f := range final {
		for it := range 20 {
			r := "0"
			switch it {
			case 18:
				r = fmt.Sprint(f - 0.05)
			case 19:
				r = fmt.Sprint(f + 0.05)
			}
			rows = append(rows, []string{variant, strconv.Itoa(k + 1), strconv.Itoa(it), r, "NaN"})
		}
	}
	require.NoError(t, d.Write("iterations.csv", rundir.CSV([]string{"variant", "seed", "iteration", name, "value_ev"}, rows)))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain, Scenario: "s"}))
	r, err := rundir.Open(path)
	require.NoError(t, err)
	return r
}

// TestCompareRunsCutShort: an episodes.csv with fewer or more rows for a
// variant than the manifest's episodes is an error naming the file, not
// an unpaired comparison of what is left; a manifest without a count
// (0) has nothing to check against.
func TestCompareRunsCutShort(t *testing.T) {
	a := runDir(t, 1, []float64{10, 20, 30})
	for _, tc := range []struct {
		name string
		rows int
		ok   bool
	}{{"a row less", 2, false}, {"a row more", 4, false}, {"no count", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := runDir(t, 1, []float64{10, 20, 30})
			b.Manifest.Episodes = tc.rows
			rows, err := results.Compare(a, b)
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, 3, find(t, rows, "finish_time").NB)
				return
			}
			assert.EqualError(t, err, fmt.Sprintf("%s: variant v has 3 episodes and the manifest says %d: the file was cut short or edited", b.Join("episodes.csv"), tc.rows))
		})
	}
}

func TestCompareTrainings(t *testing.T) {
	rows, err := results.Compare(trainDir(t, []float64{0.1, 0.2, 0.3}), trainDir(t, []float64{0.6, 0.4, 0.5}))
	require.NoError(t, err)
	require.Len(t, rows, 1, "value_ev is undefined on both sides: no row")
	c := rows[0]
	// IQM of three: weights 1/4, 1, 1/4 over 1.5.
	assert.InDelta(t, 0.2, c.A, 1e-12)
	assert.InDelta(t, 0.5, c.B, 1e-12)
	assert.InDelta(t, 0.3, c.Diff.Value, 1e-12)
	assert.Equal(t, 1.0, c.Prob, "every seed of B beats every seed of A")
	assert.False(t, c.Paired)
	// Resampled IQMs stay within each side's range: B − A in [0.1, 0.5].
	assert.True(t, 0.1-1e-12 <= c.Diff.Lo && c.Diff.Hi <= 0.5+1e-12, "%+v", c.Diff)

	table, err := rundir.ParseTable("compare.csv", results.Table(rows))
	require.NoError(t, err)
	assert.Equal(t, []string{"variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "prob_improvement", "unit", "better", "n_a", "n_b", "paired"}, table.Header)
	assert.Equal(t, []string{"v", "reward_mean"}, table.Rows[0][:2])
	// The table holds each figure exactly: it reads back to the same float.
	for j, want := range []float64{c.A, c.B, c.Diff.Value, c.Diff.Lo, c.Diff.Hi, c.Prob} {
		got, err := table.Float(0, 2+j)
		require.NoError(t, err)
		assert.Equal(t, want, got, table.Header[2+j])
	}

	_, err = results.Compare(trainDir(t, []float64{1}), runDir(t, 1, []float64{1}))
	assert.ErrorContains(t, err, "compare two of the same kind")
}

// TestCompareDirections: compare takes which way is better from the
// table of metrics, and the probability of improvement with it: B is
// larger than A on every seed, which is an improvement only where higher
// is better, and P(B > A) where neither is (issue 26: critical steps and
// decision counts were taken as higher-is-better). Counts of decisions
// have no direction: a collapsed policy decides little.
func TestCompareDirections(t *testing.T) {
	tests := []struct {
		metric string
		better metric.Better
		prob   float64
		unit   string
	}{
		{"reward_mean", metric.Higher, 1, "1"},
		{"success_rate", metric.Higher, 1, "fraction"},
		{"latency_mean", metric.Lower, 0, "s"},
		{"critical_steps_mean", metric.Lower, 0, "1"},
		{"decisions", metric.None, 1, "1"},
		{"decisions_acceptable", metric.None, 1, "1"},
		{"decisions_failed", metric.None, 1, "1"},
		{"handoff_misses_mean", metric.Lower, 0, "1"},
		{"replays", metric.None, 1, "1"},
		{"policy_steps", metric.None, 1, "1"},
		{"value_steps", metric.None, 1, "1"},
		{"prob_share", metric.None, 1, "fraction"},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			rows, err := results.Compare(trainDirOf(t, tt.metric, []float64{0.1, 0.2, 0.3}), trainDirOf(t, tt.metric, []float64{0.6, 0.4, 0.5}))
			require.NoError(t, err)
			require.Len(t, rows, 1)
			assert.Equal(t, tt.better, rows[0].Better)
			assert.Equal(t, tt.prob, rows[0].Prob)
			table, err := rundir.ParseTable("compare.csv", results.Table(rows))
			require.NoError(t, err)
			assert.Equal(t, []string{tt.unit, string(tt.better)}, table.Rows[0][8:10], "unit, better")
		})
	}
}

// TestTableWritesNoNegativeZero: compare.csv, read by people, writes a
// negative zero (a difference of equal figures, B − A of -0 and 0) as 0,
// which it equals.
func TestTableWritesNoNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	rows := []results.Comparison{{Variant: "v", Metric: "reward_mean", A: negZero, B: 0,
		Diff: stats.Interval{Value: negZero, Lo: -0.5, Hi: negZero}, Prob: 0.5, Better: metric.Higher, NA: 2, NB: 2}}
	table, err := rundir.ParseTable("compare.csv", results.Table(rows))
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "0", "0", "-0.5", "0", "0.5"}, table.Rows[0][2:8], "a, b, diff, diff_lo, diff_hi, prob_improvement")
}

// TestLastTenthsCutShort: a seed with fewer iterations than the
// variant's others (a file cut at a row's end) is an error naming the
// file, while variants may train for different iterations.
func TestLastTenthsCutShort(t *testing.T) {
	header := "variant,seed,iteration,reward_mean\n"
	for _, tc := range []struct{ name, rows, want string }{
		{"last seed cut", "v,1,0,1\nv,1,1,1\nv,2,0,1\n", "it.csv: variant v has 2 iterations of seed 1 and 1 of seed 2: the file was cut short or edited"},
		{"variants differ", "v,1,0,1\nv,1,1,1\nw,1,0,1\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := rundir.ParseTable("it.csv", []byte(header+tc.rows))
			require.NoError(t, err)
			_, err = results.LastTenths(tab)
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.want)
			}
		})
	}
}

// TestLastTenthsOfUndefinedIterations: a metric that some iterations of
// a seed's last tenth leave undefined (NaN: decisions per failed rollout
// in an iteration without a failure) is that seed's mean over the others;
// a seed none of whose last tenth has a value has none.
func TestLastTenthsOfUndefinedIterations(t *testing.T) {
	var b strings.Builder
	b.WriteString("variant,seed,iteration,decisions_failed\n")
	// 20 iterations: the last tenth is iterations 18 and 19.
	for seed, last := range map[int][2]string{1: {"NaN", "6"}, 2: {"4", "2"}, 3: {"NaN", "NaN"}} {
		for i := range 20 {
			v := "100" // outside the last tenth
			if i >= 18 {
				v = last[i-18]
			}
			fmt.Fprintf(&b, "v,%d,%d,%s\n", seed, i, v)
		}
	}
	tab, err := rundir.ParseTable("iterations.csv", []byte(b.String()))
	require.NoError(t, err)
	sv, err := results.LastTenths(tab)
	require.NoError(t, err)
	got := map[uint64]float64{}
	for i, seed := range sv.Seeds["v"] {
		got[seed] = sv.Values["v"]["decisions_failed"][i]
	}
	assert.Equal(t, 6.0, got[1], "the one iteration with a value")
	assert.Equal(t, 3.0, got[2])
	assert.True(t, math.IsNaN(got[3]), "no iteration with a value: %v", got[3])
}

func TestLastTenthsAndSummary(t *testing.T) {
	r := trainDir(t, []float64{0.1, 0.2, 0.3})
	tab, err := r.Table("iterations.csv")
	require.NoError(t, err)
	sv, err := results.LastTenths(tab)
	require.NoError(t, err)
	assert.Equal(t, []string{"v"}, sv.Variants)
	assert.Equal(t, []uint64{1, 2, 3}, sv.Seeds["v"])
	assert.InDeltaSlice(t, []float64{0.1, 0.2, 0.3}, sv.Values["v"]["reward_mean"], 1e-12)

	sum, err := rundir.ParseTable("summary.csv", results.TrainSummary(sv, nil))
	require.NoError(t, err)
	require.Len(t, sum.Rows, 2)
	assert.Equal(t, []string{"v", "reward_mean", "1", "3"}, sum.Rows[0][:4])
	for c := 4; c <= 6; c++ { // mean, median, IQM of 0.1, 0.2, 0.3
		v, err := sum.Float(0, c)
		require.NoError(t, err)
		assert.InDelta(t, 0.2, v, 1e-12, sum.Header[c])
	}
	assert.Equal(t, []string{"v", "value_ev", "1", "0", "NaN"}, sum.Rows[1][:5], "no finite value: no seeds, no aggregate")

	for _, tc := range []struct{ csv, want string }{
		{"variant,seed\n", `column 3 is "", want "iteration"`},
		{"variant,iteration,seed\n", `column 2 is "iteration", want "seed"`},
		{"variant,seed,iteration,x\nv,one,0,1\n", `:2: column seed: "one" is not a seed`},
		{"variant,seed,iteration,x\nv,1,0,big\n", `:2: column x: "big" is not a number`},
		{"variant,seed,iteration,variant\n", `iterations.csv:1: column 4 is "variant", as column 1 is: want each column once`},
	} {
		tab, err := rundir.ParseTable("iterations.csv", []byte(tc.csv))
		require.NoError(t, err)
		_, err = results.LastTenths(tab)
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestUnmatched: the variants that only one of two run or train
// directories holds, which Compare leaves out, in each one's order.
func TestUnmatched(t *testing.T) {
	a := runDirOf(t, 1, episodes{"split", []float64{1, 2}}, episodes{"team", []float64{1, 2}}, episodes{"solo", []float64{3, 4}})
	b := runDirOf(t, 1, episodes{"team", []float64{1, 2}}, episodes{"mesh", []float64{1, 2}})
	onlyA, onlyB, err := results.Unmatched(a, b)
	require.NoError(t, err)
	assert.Equal(t, []string{"split", "solo"}, onlyA)
	assert.Equal(t, []string{"mesh"}, onlyB)
	onlyA, onlyB, err = results.Unmatched(trainDir(t, []float64{0.1, 0.2}), trainDir(t, []float64{0.3, 0.4}))
	require.NoError(t, err)
	assert.Empty(t, onlyA, "one variant each, the same")
	assert.Empty(t, onlyB)
	onlyA, onlyB, err = results.Unmatched(trainDir(t, []float64{0.1, 0.2}), trainDirAs(t, "w", "reward_mean", []float64{0.3, 0.4}))
	require.NoError(t, err)
	assert.Equal(t, []string{"v"}, onlyA)
	assert.Equal(t, []string{"w"}, onlyB)
}
