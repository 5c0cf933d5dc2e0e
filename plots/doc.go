// Package plots draws charts for papers from result tables: learning
// curves with confidence bands, Gantt timelines of agents, heat maps of
// parameter sweeps, and bars comparing means. It reads plain data, never
// the simulator, and builds on gonum/plot.
//
// # Charts
//
// One call builds a chart, one call writes it:
//
//	p, err := plots.Lines(plots.Chart{XLabel: "training iteration", YLabel: "reward (points)"}, series)
//	...
//	err = plots.Save(p, plots.Column, "out/learning", plots.LinesTable(series))
//
// Lines, Bars, Points (values with whiskers over categories), Timeline,
// Heatmap, DiffMap (signed differences) and CDF (observed against fitted
// distribution functions) return a *plot.Plot; Save writes it as
// SVG, PDF and PNG (300 dpi) and writes the data behind it as CSV beside
// it (LinesTable, BarsTable, TimelineTable, GridTable), so that a reader
// can redraw it in a tool of their own.
//
// # What a paper needs
//
//   - Three sizes: Column (3.5 x 2.6 in), Page (7 x 3.5 in) and Tall
//     (7 x 9 in, for a timeline with many rows). Text is
//     sized in points for the chart printed at that size: 7 pt ticks and
//     legends, 8 pt axis labels, in Liberation Sans (embedded in the PDF).
//   - Colour-blind-safe series that also read in greyscale: Okabe–Ito
//     colours, each line with its own dash pattern and marker shape, each
//     kind of span with its own hatch; heat maps in viridis, whose
//     lightness rises monotonically; differences in ColorBrewer's
//     diverging PuOr centred at zero with symmetric limits, the scale's
//     ends naming which side is better and the cells whose interval
//     excludes zero outlined.
//   - Cell labels share one number of decimals, two significant digits of
//     the largest value, so that they fit their cells; cells are named as
//     the data names them ("30000", "2m", "team").
//   - Axis labels: builders refuse a chart without them; write the units
//     in them, "finish time (min)".
//   - Nothing clipped: legends sit in a strip above the data, never over
//     it, and every builder and Save draw the chart once on a measuring
//     canvas, returning an error when a text would cross the edge or
//     overlap another text (shorten labels or use a larger size).
//   - Intervals stated: a band's legend entry reads "name (mean, 95% CI)",
//     a bar chart's "mean, 95% CI"; Chart.Interval names other intervals.
//   - Reproducible files: the same input gives the same SVG, PDF (dates
//     fixed to 1970-01-01) and CSV, byte for byte. Writes are atomic: an
//     interrupted Save leaves no truncated file under a final name.
//
// PDF fonts here are encoded in Windows-1252: text outside it (Greek
// letters, arrows) is refused with an error rather than garbled.
//
// # Plotters
//
// The chart kinds gonum lacks are plot.Plotters of their own, usable in
// any gonum plot: Band (a filled band between two curves), Gantt (spans
// and flows by row), CIBars (bars with interval whiskers) and ColorScale
// (a colour bar beside the data area), CIPoints (points with interval
// whiskers over categories). NewHeatMap adapts a Grid to gonum's
// plotter.HeatMap; Viridis and Diverging are its colour maps.
package plots
