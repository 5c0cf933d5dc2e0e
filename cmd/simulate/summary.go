package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/stats"
)

// screenShared returns the shared metrics of summary.csv that the table
// on the terminal shows: the server's where calls went to a shared server
// or an API, the tools' where tools were called. Output rates stay in the
// file, to keep the table narrow.
func screenShared(rows []experiment.Row) []experiment.SummaryMetric {
	var served, tools bool
	for i := range rows {
		served = served || rows[i].Metrics.ServedCalls > 0
		tools = tools || rows[i].Metrics.ToolCalls > 0
	}
	var shown []experiment.SummaryMetric
	for _, m := range experiment.SharedMetrics {
		switch m.Name {
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
		extra = append(extra, experiment.HandoffMetrics...)
	}
	for _, m := range extra {
		fmt.Fprintf(tw, "\t%s", metric.Of(m.Name).Head)
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
		mine := experiment.VariantRows(rows, s.Variant)
		for _, m := range extra {
			fmt.Fprintf(tw, "\t%s", withCI(m.Value(s, mine), 2))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
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
