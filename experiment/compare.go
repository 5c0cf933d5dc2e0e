package experiment

import (
	"errors"
	"fmt"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
)

// CompareCharts returns the charts of a comparison (results.Compare,
// results.CompareVariants) of A, named a, and B, named b: for each charted
// metric (results.Charted) that a variant has a value of, diff_<metric>,
// each variant's difference B – A with its interval, marked as a chart of
// differences (0 labelled, with a reference line), its values labelled
// with the metric's label and unit and "b – a".
func CompareCharts(rows []results.Comparison, a, b string) []Chart {
	var charts []Chart
	for _, m := range results.Charted {
		var bars []plots.Bar
		var left []string
		for _, c := range rows {
			if c.Metric != m {
				continue
			}
			if bar, ok := CIBar(c.Variant, c.Diff); ok {
				bars = append(bars, bar)
			} else {
				left = append(left, c.Variant)
			}
		}
		if len(bars) == 0 {
			continue
		}
		// An en dash: the PDF fonts have no minus sign.
		ylabel := fmt.Sprintf("%s, %s – %s", metric.Of(m).Label, b, a)
		spec := plots.Spec{Name: "diff_" + m, Kind: "bars", YLabel: ylabel, Stat: "difference",
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
