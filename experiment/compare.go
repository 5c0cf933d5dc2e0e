package experiment

import (
	"errors"
	"fmt"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
)

// CompareCharts returns the charts of a comparison (results.Compare): for
// each charted metric (results.Charted) that a variant has a value of,
// diff_<metric>, each variant's difference B − A with its interval.
func CompareCharts(rows []results.Comparison) []Chart {
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
		unit := metric.Of(m).Unit
		if unit == "1" {
			unit = ""
		} else {
			unit = " (" + unit + ")"
		}
		spec := plots.Spec{Name: "diff_" + m, Kind: "bars", YLabel: fmt.Sprintf("%s, B - A%s", m, unit), Stat: "difference",
			Interval: BootInterval, Note: LeftOut(left, "no values")}
		charts = append(charts, Chart{spec.Name, func(cw *ChartWriter) error {
			// The points of a sweep make many bars with long labels:
			// the chart takes the smallest size they fit.
			var err error
			for _, size := range []string{"column", "page", "tall"} {
				spec.Size = size
				if err = cw.Draw(spec, plots.BarsTable(bars)); !errors.Is(err, plots.ErrNoFit) {
					break
				}
			}
			return err
		}})
	}
	return charts
}
