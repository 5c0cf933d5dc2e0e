package sweep

import (
	"math"
	"slices"
	"strconv"
)

// PointSummary is the mean of each metric over the seeds of one variant at
// one grid point and random sample.
type PointSummary struct {
	Variant string
	Params  []string // values, in ParamNames order
	N       int      // trials with a record
	Means   []float64
}

// Summarize averages the records over seeds: one PointSummary per variant,
// grid point and sample, in plan order, for those with at least one
// record. Means skip non-finite values (NaN when none is finite).
func Summarize(plan *Plan, recs map[string]*Record) []PointSummary {
	var out []PointSummary
	at := map[string]int{}
	sums := [][]float64{}
	counts := [][]int{}
	for _, t := range plan.Trials {
		r, ok := recs[t.ID]
		if !ok {
			continue
		}
		vals := make([]string, len(t.Params))
		for i, p := range t.Params {
			vals[i] = p.Value
		}
		key := t.Variant + "\x00" + strconv.Itoa(t.Sample) + "\x00" + intsKey(t.Point)
		i, seen := at[key]
		if !seen {
			i = len(out)
			at[key] = i
			out = append(out, PointSummary{Variant: t.Variant, Params: vals, Means: make([]float64, len(plan.Metrics))})
			sums = append(sums, make([]float64, len(plan.Metrics)))
			counts = append(counts, make([]int, len(plan.Metrics)))
		}
		out[i].N++
		for k, m := range plan.Metrics {
			if v := float64(r.Metrics[m]); !math.IsNaN(v) && !math.IsInf(v, 0) {
				sums[i][k] += v
				counts[i][k]++
			}
		}
	}
	for i := range out {
		for k := range out[i].Means {
			out[i].Means[k] = math.NaN()
			if counts[i][k] > 0 {
				out[i].Means[k] = sums[i][k] / float64(counts[i][k])
			}
		}
	}
	return slices.Clip(out)
}

func intsKey(xs []int) string {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, ',')
	}
	return string(b)
}
