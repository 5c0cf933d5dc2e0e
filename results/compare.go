package results

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// SameKind returns an error naming both directories' kinds where they
// differ: what Compare refuses first, and what a caller checks before
// anything that would make no sense across kinds.
func SameKind(a, b *rundir.Run) error {
	if a.Manifest.Kind != b.Manifest.Kind {
		return fmt.Errorf("%s is a %s directory and %s a %s directory: compare two of the same kind", a.Path, a.Manifest.Kind, b.Path, b.Manifest.Kind)
	}
	return nil
}

// Compare compares two complete directories of the same kind: run
// directories per episode (paired when both used the same seed and
// episodes), train and sweep directories per seed (IQMs, the stratified
// bootstrap and rliable's probability of improvement). It does not check
// that they hold the same scenario; the caller decides.
func Compare(a, b *rundir.Run) ([]Comparison, error) {
	if err := SameKind(a, b); err != nil {
		return nil, err
	}
	switch a.Manifest.Kind {
	case rundir.KindRun:
		return compareRuns(a, b)
	case rundir.KindTrain:
		return compareTrainings(a, b)
	case rundir.KindSweep:
		return compareSweeps(a, b)
	}
	return nil, fmt.Errorf("%s: a %s directory cannot be compared", a.Path, a.Manifest.Kind)
}

// Unmatched returns what Compare leaves out of the directories a and b
// of one kind: the variants (a sweep's "VARIANT @ PARAMS" points) that
// only a holds, and those that only b holds, each in its directory's
// order.
func Unmatched(a, b *rundir.Run) (onlyA, onlyB []string, err error) {
	var keys [2][]string
	for i, r := range []*rundir.Run{a, b} {
		if keys[i], err = compared(r); err != nil {
			return nil, nil, err
		}
	}
	apart := func(x, y []string) []string {
		return slices.DeleteFunc(slices.Clone(x), func(k string) bool { return slices.Contains(y, k) })
	}
	return apart(keys[0], keys[1]), apart(keys[1], keys[0]), nil
}

// compared returns the keys that Compare matches the rows of r by, in
// r's order.
func compared(r *rundir.Run) ([]string, error) {
	switch r.Manifest.Kind {
	case rundir.KindRun:
		v, err := episodeValues(r)
		if err != nil {
			return nil, err
		}
		return v.order, nil
	case rundir.KindTrain:
		t, err := r.Table("iterations.csv")
		if err != nil {
			return nil, err
		}
		sv, err := LastTenths(t)
		if err != nil {
			return nil, err
		}
		return sv.Variants, nil
	case rundir.KindSweep:
		order, _, _, err := sweepValues(r)
		return order, err
	}
	return nil, fmt.Errorf("%s: a %s directory cannot be compared", r.Path, r.Manifest.Kind)
}

// A Comparison is one row of compare.csv: one variant's metric in A and
// in B.
type Comparison struct {
	Variant, Metric string
	// A and B are the directories' figures: means over episodes for runs,
	// IQMs over seeds for trainings and sweeps.
	A, B float64
	// Diff is B − A with its 95% bootstrap interval, paired or stratified.
	Diff stats.Interval
	// Prob is the probability that B does better than A.
	Prob float64
	// Better says which way is better, from the table of metrics.
	Better metric.Better
	NA, NB int // episodes or seeds
	Paired bool
	// Constant reports that every value of A and B, episode or seed, is
	// one number: a setting or a count that neither changed nor moved.
	// compare.csv does not hold it; the terminal table leaves such rows
	// out by default.
	Constant bool
}

// oriented returns the values of a and b oriented so that larger is
// better, for the probability of improvement.
func oriented(name string, a, b []float64) ([]float64, []float64) {
	if metric.Of(name).Better == metric.Lower {
		return negated(a), negated(b)
	}
	return a, b
}

// runMetrics are the columns of episodes.csv that compare reports: the
// main metrics of an episode (metric.Main's, whose critical steps the
// terminal shows), tokens and the speedup.
var runMetrics = []string{"acceptable", "finish_time", "reward", "model_calls", "tokens", "agent_time", "messages", "parallelism_mean", "critical_steps", "speedup"}

// runValues are the metrics of a run's episodes, per variant.
type runValues struct {
	path  string // of episodes.csv, for errors
	order []string
	// episodes are each variant's episode numbers, in the file's order.
	episodes map[string][]int
	values   map[string]map[string][]float64
}

// episodeValues reads the metrics of each variant's episodes, in the
// file's (episode) order.
func episodeValues(r *rundir.Run) (*runValues, error) {
	t, err := r.Table("episodes.csv")
	if err != nil {
		return nil, err
	}
	vc, err := t.Col("variant")
	if err != nil {
		return nil, err
	}
	ec, err := t.Col("episode")
	if err != nil {
		return nil, err
	}
	rv := &runValues{path: t.Path, episodes: map[string][]int{}, values: map[string]map[string][]float64{}}
	for i, row := range t.Rows {
		v := row[vc]
		if rv.values[v] == nil {
			rv.values[v] = map[string][]float64{}
			rv.order = append(rv.order, v)
		}
		k, err := strconv.Atoi(row[ec])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: column episode: %q is not an episode number", t.Path, t.Line(i), row[ec])
		}
		rv.episodes[v] = append(rv.episodes[v], k)
	}
	for _, m := range runMetrics {
		c, err := t.Col(m)
		if err != nil {
			return nil, err
		}
		for i, row := range t.Rows {
			var x float64
			if m == "acceptable" {
				ok, err := t.Bool(i, c)
				if err != nil {
					return nil, err
				}
				x = b2f(ok)
			} else if x, err = t.Float(i, c); err != nil {
				return nil, err
			}
			rv.values[row[vc]][m] = append(rv.values[row[vc]][m], x)
		}
	}
	// A file cut short at a row's end still parses; the manifest says
	// how many episodes each variant ran.
	if n := r.Manifest.Episodes; n > 0 {
		for _, v := range rv.order {
			if got := len(rv.episodes[v]); got != n {
				return nil, fmt.Errorf("%s: variant %s has %d episodes and the manifest says %d: the file was cut short or edited", t.Path, v, got, n)
			}
		}
	}
	return rv, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func compareRuns(a, b *rundir.Run) ([]Comparison, error) {
	va, err := episodeValues(a)
	if err != nil {
		return nil, err
	}
	vb, err := episodeValues(b)
	if err != nil {
		return nil, err
	}
	// Episode k of both ran on the same task draw and streams when both
	// used one seed.
	sameSeed := a.Manifest.Seed == b.Manifest.Seed
	var rows []Comparison
	for _, v := range va.order {
		if vb.values[v] == nil {
			continue
		}
		paired := sameSeed && slices.Equal(va.episodes[v], vb.episodes[v])
		rows = append(rows, episodeComparisons(v, va.values[v], vb.values[v], paired)...)
	}
	return rows, nil
}

// CompareVariants compares two variants, a (as A) and b (as B), of one
// run directory, episode by episode: episode k of every variant of a run
// worked on the same task draw under the same random streams (common
// random numbers, experiment.Evaluate), so the differences are paired.
// The rows' variant reads "a vs b".
func CompareVariants(r *rundir.Run, a, b string) ([]Comparison, error) {
	if r.Manifest.Kind != rundir.KindRun {
		return nil, fmt.Errorf("%s is a %s directory: variants are compared episode by episode within a run directory", r.Path, r.Manifest.Kind)
	}
	if a == b {
		return nil, fmt.Errorf("variant %s is named twice: name two variants of %s", a, r.Path)
	}
	rv, err := episodeValues(r)
	if err != nil {
		return nil, err
	}
	for _, v := range []string{a, b} {
		if rv.values[v] == nil {
			return nil, fmt.Errorf("%s has no variant %q (its variants: %s)%s", r.Path, v, strings.Join(rv.order, ", "), spelling.DidYouMean(v, rv.order))
		}
	}
	if !slices.Equal(rv.episodes[a], rv.episodes[b]) {
		return nil, fmt.Errorf("%s: variants %s and %s list different episodes, which cannot be paired: the file was edited", rv.path, a, b)
	}
	return episodeComparisons(a+" vs "+b, rv.values[a], rv.values[b], true), nil
}

// episodeComparisons compares every run metric of two sets of episodes
// under the label variant: paired episode by episode (the bootstrap of
// the differences, and the fraction of episodes in which B did better)
// or as independent samples.
func episodeComparisons(variant string, va, vb map[string][]float64, paired bool) []Comparison {
	var rows []Comparison
	for _, m := range runMetrics {
		xa, xb := va[m], vb[m]
		c := Comparison{Variant: variant, Metric: m, A: stats.Mean(slices.Clone(xa)), B: stats.Mean(slices.Clone(xb)),
			NA: len(xa), NB: len(xb), Paired: paired && len(xa) == len(xb), Better: metric.Of(m).Better, Constant: constant(xa, xb)}
		sa, sb := oriented(m, xa, xb)
		if c.Paired {
			c.Diff = stats.Default.PairedDiff(xa, xb)
			c.Prob = stats.PairedProbImprovement(sa, sb)
		} else {
			c.Diff = stats.Default.Diff(xa, xb, stats.Mean)
			c.Prob = stats.ProbImprovement(sa, sb)
		}
		rows = append(rows, c)
	}
	return rows
}

// constant reports whether every value of a and b is one number.
func constant(a, b []float64) bool {
	all := slices.Concat(a, b)
	for _, x := range all {
		if x != all[0] {
			return false
		}
	}
	return true
}

func negated(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

// seedComparison compares per-seed values: IQMs, their stratified
// bootstrap difference and P(a seed of B beats a seed of A).
func seedComparison(variant, name string, xa, xb []float64) Comparison {
	xa, xb = stats.Finite(xa), stats.Finite(xb)
	c := Comparison{Variant: variant, Metric: name, A: stats.IQM(slices.Clone(xa)), B: stats.IQM(slices.Clone(xb)),
		NA: len(xa), NB: len(xb), Better: metric.Of(name).Better, Diff: stats.Default.Diff(xa, xb, stats.IQM), Constant: constant(xa, xb)}
	c.Prob = stats.ProbImprovement(oriented(name, xa, xb))
	return c
}

// appendDefined appends c unless a side has no finite value (a metric an
// estimator does not define, such as value_ev without a learned value).
func appendDefined(rows []Comparison, c Comparison) []Comparison {
	if c.NA == 0 || c.NB == 0 {
		return rows
	}
	return append(rows, c)
}

func compareTrainings(a, b *rundir.Run) ([]Comparison, error) {
	var sv [2]*SeedValues
	for i, r := range []*rundir.Run{a, b} {
		t, err := r.Table("iterations.csv")
		if err != nil {
			return nil, err
		}
		if sv[i], err = LastTenths(t); err != nil {
			return nil, err
		}
	}
	var rows []Comparison
	for _, v := range sv[0].Variants {
		if sv[1].Values[v] == nil {
			continue
		}
		for _, m := range sv[0].Metrics {
			if xb, ok := sv[1].Values[v][m]; ok {
				rows = appendDefined(rows, seedComparison(v, m, sv[0].Values[v][m], xb))
			}
		}
	}
	return rows, nil
}

// sweepValues groups a sweep's trials by variant and point: the values of
// each metric over the point's seeds.
func sweepValues(r *rundir.Run) ([]string, []string, map[string]map[string][]float64, error) {
	if !r.Manifest.Has(PlanFile) {
		return nil, nil, nil, fmt.Errorf("%s is one shard's table, without the sweep's %s: compare the directory 'simulate merge' writes from the shards", r.Path, PlanFile)
	}
	plan, err := ReadPlan(r.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := r.Table("trials.csv")
	if err != nil {
		return nil, nil, nil, err
	}
	// The manifest lists the record of every trial the table holds, also
	// of a partial merge; a file cut at a row's end still parses.
	records := trialRecords(r.Manifest)
	if records != len(t.Rows) {
		return nil, nil, nil, fmt.Errorf("%s: %d trials, and the manifest lists %d trial records: the file was cut short or edited", t.Path, len(t.Rows), records)
	}
	params := plan.ParamNames()
	// trials.csv writes the relative metrics after the recorded ones.
	metrics := slices.Concat(plan.Metrics, plan.Relative)
	first := 3 // trial, variant, seed
	var order []string
	out := map[string]map[string][]float64{}
	for i, row := range t.Rows {
		var at []string
		for k, p := range params {
			at = append(at, p+"="+row[first+k])
		}
		key := row[1]
		if len(at) > 0 {
			key += " @ " + strings.Join(at, " ")
		}
		if out[key] == nil {
			out[key] = map[string][]float64{}
			order = append(order, key)
		}
		for k, m := range metrics {
			x, err := t.Float(i, first+len(params)+k)
			if err != nil {
				return nil, nil, nil, err
			}
			out[key][m] = append(out[key][m], x)
		}
	}
	return order, metrics, out, nil
}

func compareSweeps(a, b *rundir.Run) ([]Comparison, error) {
	order, metrics, va, err := sweepValues(a)
	if err != nil {
		return nil, err
	}
	_, _, vb, err := sweepValues(b)
	if err != nil {
		return nil, err
	}
	var rows []Comparison
	for _, key := range order {
		if vb[key] == nil {
			continue
		}
		for _, m := range metrics {
			if xb, ok := vb[key][m]; ok {
				rows = appendDefined(rows, seedComparison(key, m, va[key][m], xb))
			}
		}
	}
	return rows, nil
}

// Table renders compare.csv: variant, metric, a, b, diff, diff_lo,
// diff_hi, prob_improvement, unit, better, n_a, n_b, paired.
func Table(rows []Comparison) []byte {
	header := []string{"variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "prob_improvement", "unit", "better", "n_a", "n_b", "paired"}
	var cells [][]string
	for _, c := range rows {
		row := []string{c.Variant, c.Metric}
		for _, x := range []float64{c.A, c.B, c.Diff.Value, c.Diff.Lo, c.Diff.Hi, c.Prob} {
			row = append(row, numtext.Shortest(x))
		}
		cells = append(cells, append(row, metric.Of(c.Metric).Unit, string(c.Better),
			strconv.Itoa(c.NA), strconv.Itoa(c.NB), strconv.FormatBool(c.Paired)))
	}
	return rundir.CSV(header, cells)
}

// Charted are the metrics compare draws, when the directories
// hold them: the figures a reader judges a variant by. Each kind's finish
// time is one: a run's finish_time, a training's latency_mean and a run
// sweep's finish_mean.
var Charted = []string{
	"acceptable", "success_rate", "reward", "reward_mean", "finish_time", "latency_mean", "finish_mean", "latency_p90",
	"agent_time", "agent_time_mean", "parallelism_mean", "messages", "messages_mean",
}

// trialRecords counts the trial records that a sweep's manifest lists:
// one per trial its tables hold.
func trialRecords(m *rundir.Manifest) int {
	n := 0
	for _, f := range m.Files {
		if path.Dir(f) == TrialsDir && path.Ext(f) == ".json" {
			n++
		}
	}
	return n
}

// MissingTrials returns how many trials of its sweep the tables of the
// sweep directory r lack (a shard's, a partial merge's): as its manifest
// counts them, or, for a manifest written before it did, from its plan
// and the records it lists (none where the plan is gone: a directory
// trimmed to its tables).
func MissingTrials(r *rundir.Run) (int, error) {
	if r.Manifest.MissingTrials > 0 || !r.Manifest.Has(PlanFile) {
		return r.Manifest.MissingTrials, nil
	}
	plan, err := ReadPlan(r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return len(plan.Trials) - trialRecords(r.Manifest), nil
}
