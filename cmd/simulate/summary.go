package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/scenarios"
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

// noUtilisation returns the variants of sc whose server utilisation is not
// defined: those that call a hosted API without a concurrency cap, over
// which utilisation (calls in flight over the cap) is taken. summary.csv
// keeps their 0; the terminal says n/a, which no one reads as an idle
// server.
func noUtilisation(sc *scenarios.Scenario) map[string]bool {
	none := map[string]bool{}
	for _, v := range sc.Variants {
		api := v.Spec.Collective.API
		if api != (serving.API{}) && api.Concurrency == 0 {
			none[v.Name] = true
		}
	}
	return none
}

// printSummary prints the variants as an aligned table: the success rate
// with its 95% Wilson interval, then means with their 95% bootstrap
// intervals, then the shared metrics that screenShared picks and, with
// handoff set, the hand-off metrics of summary.csv. The server
// utilisation of the variants in noUtil reads n/a.
func printSummary(w io.Writer, rows []experiment.Row, sums []experiment.Summary, handoff bool, noUtil map[string]bool) error {
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
			if m.Name == "server_utilisation" && noUtil[s.Variant] {
				fmt.Fprint(tw, "\tn/a")
				continue
			}
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
