package results

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// SeedValues holds, for each variant and metric of a training's
// iterations.csv, one value per seed: the mean over the seed's last tenth
// of iterations (at least one), the figure a training is judged by; over
// those of its iterations with a value, for a metric that some leave
// undefined (stats.MeanDefined).
type SeedValues struct {
	Variants []string // in table order
	Metrics  []string // the numeric columns after variant, seed, iteration
	Seeds    map[string][]uint64
	Values   map[string]map[string][]float64 // variant, metric -> per seed
}

// LastTenths reads a training's iterations.csv (variant, seed,
// iteration, metrics...) into SeedValues. Errors name the file, line and
// column.
func LastTenths(t *rundir.Table) (*SeedValues, error) {
	for i, want := range []string{"variant", "seed", "iteration"} {
		if len(t.Header) <= i || t.Header[i] != want {
			return nil, fmt.Errorf("%s: column %d is %q, want %q", t.Path, i+1, colName(t.Header, i), want)
		}
	}
	// A metric named twice would give each seed two values of it, read
	// as twice the seeds.
	for j := 3; j < len(t.Header); j++ {
		if k := slices.Index(t.Header[:j], t.Header[j]); k >= 0 {
			return nil, fmt.Errorf("%s:1: column %d is %q, as column %d is: want each column once", t.Path, j+1, t.Header[j], k+1)
		}
	}
	sv := &SeedValues{Metrics: t.Header[3:], Seeds: map[string][]uint64{}, Values: map[string]map[string][]float64{}}
	type key struct {
		variant string
		seed    uint64
	}
	var order []key
	rows := map[key][]int{}
	for i, r := range t.Rows {
		seed, err := strconv.ParseUint(r[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: column seed: %q is not a seed", t.Path, t.Line(i), r[1])
		}
		k := key{r[0], seed}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
			if !slices.Contains(sv.Variants, k.variant) {
				sv.Variants = append(sv.Variants, k.variant)
				sv.Values[k.variant] = map[string][]float64{}
			}
			sv.Seeds[k.variant] = append(sv.Seeds[k.variant], seed)
		}
		rows[k] = append(rows[k], i)
	}
	// Every seed of a variant trains for the same iterations: a seed with
	// fewer is what a file cut at a row's end leaves, and its last tenth
	// would be another stretch of training.
	first := map[string]key{}
	for _, k := range order {
		f, ok := first[k.variant]
		if !ok {
			first[k.variant] = k
		} else if len(rows[k]) != len(rows[f]) {
			return nil, fmt.Errorf("%s: variant %s has %d iterations of seed %d and %d of seed %d: the file was cut short or edited", t.Path, k.variant, len(rows[f]), f.seed, len(rows[k]), k.seed)
		}
	}
	for _, k := range order {
		last := stats.LastTenth(rows[k])
		values := make([]float64, len(last))
		for c, m := range sv.Metrics {
			for j, i := range last {
				v, err := t.Float(i, c+3)
				if err != nil {
					return nil, err
				}
				values[j] = v
			}
			sv.Values[k.variant][m] = append(sv.Values[k.variant][m], stats.MeanDefined(values))
		}
	}
	return sv, nil
}

func colName(h []string, i int) string {
	if i < len(h) {
		return h[i]
	}
	return ""
}

// IntervalNote says how the intervals of the aggregates are computed.
var IntervalNote = fmt.Sprintf("95%% percentile bootstrap over seeds, %d resamples", stats.DefaultResamples)

// TrainSummary renders summary.csv of a training: one row per variant,
// policy and metric (tidy) with the aggregates of the seeds' last-tenth
// values: variant, metric, unit, n_seeds, mean, median, iqm, iqm_lo,
// iqm_hi, mean_lo, mean_hi, median_lo, median_hi, interval, policy. The
// rows of learned say "learned"; those of fixed, when not nil, say
// "fixed": each variant's own policy section scored on the same episodes
// (a baseline). fixed then holds every variant, in the order the rows
// follow, with its learned rows (if it has any) first.
func TrainSummary(learned, fixed *SeedValues) []byte {
	header := []string{"variant", "metric", "unit", "n_seeds", "mean", "median", "iqm", "iqm_lo", "iqm_hi",
		"mean_lo", "mean_hi", "median_lo", "median_hi", "interval", "policy"}
	var rows [][]string
	add := func(sv *SeedValues, v, policy string) {
		for _, m := range sv.Metrics {
			a := stats.Default.Aggregate(sv.Values[v][m])
			row := []string{v, m, metric.Of(m).Unit, strconv.Itoa(a.N)}
			for _, x := range []float64{a.Mean.Value, a.Median.Value, a.IQM.Value, a.IQM.Lo, a.IQM.Hi,
				a.Mean.Lo, a.Mean.Hi, a.Median.Lo, a.Median.Hi} {
				row = append(row, numtext.Shortest(x))
			}
			rows = append(rows, append(row, IntervalNote, policy))
		}
	}
	for _, v := range TrainVariants(learned, fixed) {
		if slices.Contains(learned.Variants, v) {
			add(learned, v, "learned")
		}
		if fixed != nil && slices.Contains(fixed.Variants, v) {
			add(fixed, v, "fixed")
		}
	}
	return rundir.CSV(header, rows)
}

// TrainVariants is the order of a training's rows, in summary.csv and on
// the screen: every variant, when the baselines (fixed) scored each one,
// else the variants trained, as variants alike but for their policy
// section train once.
func TrainVariants(learned, fixed *SeedValues) []string {
	if fixed != nil {
		return fixed.Variants
	}
	return learned.Variants
}
