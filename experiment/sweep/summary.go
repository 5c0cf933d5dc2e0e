package sweep

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/stats"
)

// PointSummary aggregates each metric over the seeds of one variant at
// one grid point and random sample.
type PointSummary struct {
	Variant string
	Params  []string // values, in ParamNames order
	N       int      // trials with a record
	// Aggregates holds each metric's mean, median and IQM over the seeds
	// with their 95% bootstrap intervals (stats.Default), in
	// results.Plan.Metrics order. Non-finite values are left out of them.
	Aggregates []stats.Aggregate
}

// Summarize aggregates the records over seeds: one PointSummary per
// variant, grid point and sample, in plan order, for those with at least
// one record.
func Summarize(plan *results.Plan, recs map[string]*Record) []PointSummary {
	var out []PointSummary
	at := map[string]int{}
	var values [][][]float64 // point, metric -> the seeds' values
	for _, t := range plan.Trials {
		r, ok := recs[t.ID]
		if !ok {
			continue
		}
		key := t.Variant + "\x00" + strconv.Itoa(t.Sample) + "\x00" + intsKey(t.Point)
		i, seen := at[key]
		if !seen {
			i = len(out)
			at[key] = i
			vals := make([]string, len(t.Params))
			for k, p := range t.Params {
				vals[k] = p.Value
			}
			out = append(out, PointSummary{Variant: t.Variant, Params: vals})
			values = append(values, make([][]float64, len(plan.Metrics)))
		}
		out[i].N++
		for k, m := range plan.Metrics {
			values[i][k] = append(values[i][k], float64(r.Metrics[m]))
		}
	}
	for i := range out {
		out[i].Aggregates = make([]stats.Aggregate, len(plan.Metrics))
		for k := range plan.Metrics {
			out[i].Aggregates[k] = stats.Default.Aggregate(values[i][k])
		}
	}
	return slices.Clip(out)
}

// SummaryTable returns summary.csv of a sweep: one row per variant, point
// and metric (tidy), with the swept values as columns: variant, the
// parameters, metric, unit, n_seeds, mean, median, iqm, iqm_lo, iqm_hi,
// mean_lo, mean_hi, median_lo, median_hi.
func SummaryTable(plan *results.Plan, sums []PointSummary) []byte {
	header := append([]string{"variant"}, plan.ParamNames()...)
	header = append(header, "metric", "unit", "n_seeds", "mean", "median", "iqm", "iqm_lo", "iqm_hi", "mean_lo", "mean_hi", "median_lo", "median_hi")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	for _, ps := range sums {
		for k, m := range plan.Metrics {
			a := ps.Aggregates[k]
			row := append([]string{ps.Variant}, ps.Params...)
			row = append(row, m, metric.Of(m).Unit, strconv.Itoa(a.N))
			for _, v := range []float64{a.Mean.Value, a.Median.Value, a.IQM.Value, a.IQM.Lo, a.IQM.Hi, a.Mean.Lo, a.Mean.Hi, a.Median.Lo, a.Median.Hi} {
				row = append(row, numtext.Shortest(v))
			}
			w.Write(row)
		}
	}
	w.Flush()
	return b.Bytes()
}

func intsKey(xs []int) string {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, ',')
	}
	return string(b)
}
