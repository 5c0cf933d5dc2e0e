package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// summaryCSV renders the per-variant summaries as summary.csv: the
// episodes, the acceptable ones and the success rate with its Wilson
// interval, then each metric's mean with its 95% percentile bootstrap
// interval (stats.Default)
// (<metric>_mean, <metric>_lo, <metric>_hi; NaN where undefined), the
// episodes in which communication changed the outcome, and the agent time
// per acceptable result. Times are in seconds. Episodes that used a shared
// server, an API or tools add sharedMetrics, and with handoff set,
// handoffMetrics follow.
func summaryCSV(rows []experiment.Row, sums []experiment.Summary, handoff bool) ([]byte, error) {
	header := []string{"variant", "n", "acceptable", "success_rate", "success_lo", "success_hi"}
	metrics := summaryMetrics
	if usesShared(rows) {
		metrics = append(metrics[:len(metrics):len(metrics)], sharedMetrics...)
	}
	if handoff {
		metrics = append(metrics[:len(metrics):len(metrics)], handoffMetrics...)
	}
	for _, m := range metrics {
		header = append(header, m.name+"_mean", m.name+"_lo", m.name+"_hi")
	}
	header = append(header, "comm_changed_outcome", "cost_per_acceptable")
	var cells [][]string
	for i := range sums {
		s := &sums[i]
		mine := variantRows(rows, s.Variant)
		row := []string{s.Variant, integer(s.N), integer(s.Acceptable), num(s.Success.Value), num(s.Success.Lo), num(s.Success.Hi)}
		for _, m := range metrics {
			iv := m.value(s, mine)
			row = append(row, num(iv.Value), num(iv.Lo), num(iv.Hi))
		}
		row = append(row, integer(s.CommChanged), num(s.CostPerAcceptable))
		cells = append(cells, row)
	}
	return rundir.CSV(header, cells), nil
}

// A summaryMetric is a column group of summary.csv: a mean with its
// interval, from the variant's summary or, for metrics the summary does
// not hold, from its rows.
type summaryMetric struct {
	name  string
	value func(s *experiment.Summary, rows []*experiment.Row) stats.Interval
}

// fromSummary reads an interval of the summary.
func fromSummary(f func(s *experiment.Summary) stats.Interval) func(*experiment.Summary, []*experiment.Row) stats.Interval {
	return func(s *experiment.Summary, _ []*experiment.Row) stats.Interval { return f(s) }
}

// fromRows averages a metric over the rows.
func fromRows(f func(m *collective.Metrics) float64) func(*experiment.Summary, []*experiment.Row) stats.Interval {
	return func(_ *experiment.Summary, rows []*experiment.Row) stats.Interval {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = f(&r.Metrics)
		}
		return stats.Default.CI(xs, stats.Mean)
	}
}

// summaryMetrics are the metric columns of summary.csv, in order.
var summaryMetrics = []summaryMetric{
	{"finish_time", fromSummary(func(s *experiment.Summary) stats.Interval { return s.Finish })},
	{"finish_time_acceptable", fromSummary(func(s *experiment.Summary) stats.Interval { return s.FinishAcceptable })},
	{"reward", fromSummary(func(s *experiment.Summary) stats.Interval { return s.Reward })},
	{"model_calls", fromSummary(func(s *experiment.Summary) stats.Interval { return s.ModelCalls })},
	{"tokens", fromSummary(func(s *experiment.Summary) stats.Interval { return s.Tokens })},
	{"agent_time", fromSummary(func(s *experiment.Summary) stats.Interval { return s.AgentTime })},
	{"messages", fromSummary(func(s *experiment.Summary) stats.Interval { return s.Messages })},
	{"message_bytes", fromRows(func(m *collective.Metrics) float64 { return float64(m.MessageBytes()) })},
	// Not "parallelism_mean": its columns would read parallelism_mean_mean.
	{"parallelism", fromSummary(func(s *experiment.Summary) stats.Interval { return s.Parallelism })},
	{"parallelism_peak", fromRows(func(m *collective.Metrics) float64 { return float64(m.ParallelismPeak) })},
	{"critical_steps", fromSummary(func(s *experiment.Summary) stats.Interval { return s.CriticalSteps })},
	{"speedup", fromRows(func(m *collective.Metrics) float64 { return m.Speedup() })},
}

// sharedMetrics follow summaryMetrics in the summaries of episodes that
// used a shared server, an API or tools (see usesShared).
var sharedMetrics = []summaryMetric{
	{"call_latency", fromSummary(func(s *experiment.Summary) stats.Interval { return s.CallLatency })},
	{"serving_wait", fromSummary(func(s *experiment.Summary) stats.Interval { return s.ServingWait })},
	{"server_utilisation", fromRows(func(m *collective.Metrics) float64 { return m.ServerUtilisation })},
	{"output_rate", fromRows(func(m *collective.Metrics) float64 { return m.OutputRate() })},
	{"tool_wait", fromRows(func(m *collective.Metrics) float64 { return m.ToolWait.Seconds() })},
}

// handoffMetrics follow in the summaries of scenarios with a handoff
// section (see usesHandoff).
var handoffMetrics = []summaryMetric{
	{"handoff_misses", fromRows(func(m *collective.Metrics) float64 { return float64(m.HandoffMisses) })},
	{"duplicates", fromRows(func(m *collective.Metrics) float64 { return float64(m.Duplicates) })},
}

// variantRows returns the rows of the variant.
func variantRows(rows []experiment.Row, variant string) []*experiment.Row {
	var mine []*experiment.Row
	for j := range rows {
		if rows[j].Variant == variant {
			mine = append(mine, &rows[j])
		}
	}
	return mine
}

// screenUnits are the units a table on the terminal writes after a
// metric's name; summary.csv's columns are in seconds without saying so.
var screenUnits = map[string]string{"call_latency": "s", "serving_wait": "s", "tool_wait": "s"}

// screenName is a column's name as a table on the terminal heads it:
// handoff_misses_mean is "handoff misses".
func screenName(column string) string {
	return strings.ReplaceAll(strings.TrimSuffix(column, "_mean"), "_", " ")
}

// screenShared returns the shared metrics of summary.csv that the table
// on the terminal shows: the server's where calls went to a shared server
// or an API, the tools' where tools were called. Output rates stay in the
// file, to keep the table narrow.
func screenShared(rows []experiment.Row) []summaryMetric {
	var served, tools bool
	for i := range rows {
		served = served || rows[i].Metrics.ServedCalls > 0
		tools = tools || rows[i].Metrics.ToolCalls > 0
	}
	var shown []summaryMetric
	for _, m := range sharedMetrics {
		switch m.name {
		case "call_latency", "serving_wait", "server_utilisation":
			if served {
				shown = append(shown, m)
			}
		case "tool_wait":
			if tools {
				shown = append(shown, m)
			}
		}
	}
	return shown
}

// printSummary prints the variants as an aligned table: the success rate
// with its 95% Wilson interval, then means with their 95% bootstrap
// intervals, then the shared metrics that screenShared picks and, with
// handoff set, the hand-off metrics of summary.csv.
func printSummary(w io.Writer, rows []experiment.Row, sums []experiment.Summary, handoff bool) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tsuccess [95%% Wilson]\tfinish (s)\tcalls\ttokens\tparallelism\tmessages")
	extra := screenShared(rows)
	if handoff {
		extra = append(extra, handoffMetrics...)
	}
	for _, m := range extra {
		head := screenName(m.name)
		if unit := screenUnits[m.name]; unit != "" {
			head += " (" + unit + ")"
		}
		fmt.Fprintf(tw, "\t%s", head)
	}
	fmt.Fprintln(tw)
	for i := range sums {
		s := &sums[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s",
			s.Variant,
			withCI(s.Success, 2),
			withCI(s.FinishAcceptable, 0),
			withCI(s.ModelCalls, 1),
			withCI(s.Tokens, 0),
			withCI(s.Parallelism, 2),
			withCI(s.Messages, 1),
		)
		mine := variantRows(rows, s.Variant)
		for _, m := range extra {
			fmt.Fprintf(tw, "\t%s", withCI(m.value(s, mine), 2))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// writeTables writes episodes.csv and summary.csv, with the hand-off
// columns if handoff is set.
func writeTables(dir *rundir.Dir, rows []experiment.Row, sums []experiment.Summary, handoff bool) error {
	b, err := episodesCSV(rows, handoff)
	if err != nil {
		return err
	}
	if err := dir.Write("episodes.csv", b); err != nil {
		return err
	}
	if b, err = summaryCSV(rows, sums, handoff); err != nil {
		return err
	}
	return dir.Write("summary.csv", b)
}

// withCI formats an interval as "value [lo, hi]" with prec decimals;
// "–" for an undefined value, the value alone without an interval.
func withCI(iv stats.Interval, prec int) string {
	if math.IsNaN(iv.Value) {
		return "–"
	}
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return fmt.Sprintf("%.*f", prec, iv.Value)
	}
	return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, iv.Value, prec, iv.Lo, prec, iv.Hi)
}
