package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// seedValues holds, for each variant and metric of a training's
// iterations.csv, one value per seed: the mean over the seed's last tenth
// of iterations (at least one), the figure a training is judged by.
type seedValues struct {
	variants []string // in table order
	metrics  []string // the numeric columns after variant, seed, iteration
	seeds    map[string][]uint64
	values   map[string]map[string][]float64 // variant, metric -> per seed
}

// lastTenths reads iterations.csv (variant, seed, iteration, metrics...)
// into seedValues.
func lastTenths(t *rundir.Table) (*seedValues, error) {
	for i, want := range []string{"variant", "seed", "iteration"} {
		if len(t.Header) <= i || t.Header[i] != want {
			return nil, fmt.Errorf("%s: column %d is %q, want %q", t.Path, i+1, colName(t.Header, i), want)
		}
	}
	sv := &seedValues{metrics: t.Header[3:], seeds: map[string][]uint64{}, values: map[string]map[string][]float64{}}
	type key struct {
		variant string
		seed    uint64
	}
	var order []key
	rows := map[key][]int{}
	for i, r := range t.Rows {
		seed, err := strconv.ParseUint(r[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: column seed: %q is not a seed", t.Path, i+2, r[1])
		}
		k := key{r[0], seed}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
			if !slices.Contains(sv.variants, k.variant) {
				sv.variants = append(sv.variants, k.variant)
				sv.values[k.variant] = map[string][]float64{}
			}
			sv.seeds[k.variant] = append(sv.seeds[k.variant], seed)
		}
		rows[k] = append(rows[k], i)
	}
	for _, k := range order {
		idx := rows[k]
		last := idx[len(idx)-max(1, len(idx)/10):]
		for c, m := range sv.metrics {
			sum := 0.0
			for _, i := range last {
				v, err := t.Float(i, c+3)
				if err != nil {
					return nil, err
				}
				sum += v
			}
			sv.values[k.variant][m] = append(sv.values[k.variant][m], sum/float64(len(last)))
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

// intervalNote says how the intervals of the aggregates are computed.
var intervalNote = fmt.Sprintf("95%% percentile bootstrap over seeds, %d resamples", stats.DefaultResamples)

// trainSummaryCSV renders summary.csv of a training: one row per variant
// and metric with the aggregates of the seeds' last-tenth values.
func trainSummaryCSV(sv *seedValues) []byte {
	header := []string{"variant", "metric", "unit", "n_seeds", "mean", "median", "iqm", "iqm_lo", "iqm_hi",
		"mean_lo", "mean_hi", "median_lo", "median_hi", "interval"}
	var rows [][]string
	for _, v := range sv.variants {
		for _, m := range sv.metrics {
			a := stats.Default.Aggregate(sv.values[v][m])
			rows = append(rows, []string{v, m, rundir.Unit(m), integer(a.N),
				num(a.Mean.Value), num(a.Median.Value), num(a.IQM.Value), num(a.IQM.Lo), num(a.IQM.Hi),
				num(a.Mean.Lo), num(a.Mean.Hi), num(a.Median.Lo), num(a.Median.Hi), intervalNote})
		}
	}
	return rundir.CSV(header, rows)
}

// iqmCI formats an interval as "IQM [lo, hi]" with prec decimals; "–"
// for an undefined value, the value alone without an interval.
func withCI(iv stats.Interval, prec int) string {
	if math.IsNaN(iv.Value) {
		return "–"
	}
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return fmt.Sprintf("%.*f", prec, iv.Value)
	}
	return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, iv.Value, prec, iv.Lo, prec, iv.Hi)
}
