package experiment

import (
	"errors"
	"fmt"
	"slices"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
)

// CompareCharts returns the charts of a comparison (results.Compare,
// results.CompareVariants) of A, named a, and B, named b: for each charted
// metric (results.Charted) that a variant has a value of, diff_<metric>,
// each variant's difference B – A with its interval, marked as a chart of
// differences (0 labelled, with a reference line), its values labelled
// with the metric's label and unit and "b – a", its statistic saying what
// the difference is of (diffStat): overSeeds is set for the per-seed
// values of trainings and sweeps, unset for a run's episodes.
func CompareCharts(rows []results.Comparison, a, b string, overSeeds bool) []Chart {
	var charts []Chart
	for _, m := range results.Charted {
		var bars []plots.Bar
		var left []string
		var drawn []results.Comparison
		for _, c := range rows {
			if c.Metric != m {
				continue
			}
			if bar, ok := CIBar(c.Variant, c.Diff); ok {
				bars = append(bars, bar)
				drawn = append(drawn, c)
			} else {
				left = append(left, c.Variant)
			}
		}
		if len(bars) == 0 {
			continue
		}
		// An en dash: the PDF fonts have no minus sign.
		ylabel := fmt.Sprintf("%s, %s – %s", metric.Of(m).Label, b, a)
		spec := plots.Spec{Name: "diff_" + m, Kind: "bars", YLabel: ylabel, Stat: diffStat(drawn, overSeeds),
			Interval: BootInterval, Note: LeftOut(left, "no values"), Difference: true}
		charts = append(charts, Chart{spec.Name, func(cw *ChartWriter) error {
			// The points of a sweep make many bars with long labels:
			// the chart takes the smallest size they fit.
			var err error
			for _, size := range []string{"column", "page", "tall"} {
				spec.Size = size
				if err = cw.Draw(spec, plots.BarsTable("diff", bars)); !errors.Is(err, plots.ErrNoFit) {
					break
				}
			}
			return err
		}})
	}
	return charts
}

// diffStat says what the differences of rows are: of IQMs over seeds
// (trainings and sweeps, as results.Compare computes them), or of a run's
// means over episodes, paired episode by episode where every row is. A
// bare "difference" left a reader of a training's chart to take the IQMs'
// difference for one of means, which the final-value charts beside it
// are not either.
func diffStat(rows []results.Comparison, overSeeds bool) string {
	switch {
	case overSeeds:
		return "IQM difference over seeds"
	case !slices.ContainsFunc(rows, func(c results.Comparison) bool { return !c.Paired }):
		return "mean difference, paired by episode"
	}
	return "difference of means over episodes"
}
