package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/rlcr"
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

// setsReward reports whether a variant of sc scores its episodes with a
// reward other than the default, which pays 1 for an acceptable result
// and nothing else and so repeats the success rate: then run's table shows
// the reward.
func setsReward(sc *scenarios.Scenario) bool {
	return slices.ContainsFunc(sc.Variants, func(v scenarios.Variant) bool { return v.Spec.Reward != rlcr.DefaultReward() })
}

// printSummary prints the variants of a run of sc as an aligned table:
// the mean reward where a variant sets one (setsReward), the success rate
// with its 95% Wilson interval, then means with their 95% bootstrap
// intervals, the finish time over acceptable episodes only, then the
// shared metrics that screenShared picks and, with a handoff section, the
// hand-off metrics of summary.csv. The server utilisation of variants
// without a defined one (noUtilisation) reads n/a.
func printSummary(w io.Writer, sc *scenarios.Scenario, rows []experiment.Row, sums []experiment.Summary) error {
	reward := setsReward(sc)
	noUtil := noUtilisation(sc)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprint(tw, "variant")
	if reward {
		fmt.Fprintf(tw, "\t%s", metric.Of("reward").Head)
	}
	fmt.Fprintf(tw, "\tsuccess [95%% Wilson]\t%s\tcalls\ttokens\tparallelism\tmessages", metric.Of("finish_time_acceptable").Head)
	extra := screenShared(rows)
	if experiment.UsesHandoff(experiment.VariantSpecs(sc)...) {
		extra = append(extra, experiment.HandoffMetrics...)
	}
	for _, m := range extra {
		fmt.Fprintf(tw, "\t%s", metric.Of(m.Name).Head)
	}
	fmt.Fprintln(tw)
	for i := range sums {
		s := &sums[i]
		fmt.Fprint(tw, s.Variant)
		if reward {
			fmt.Fprintf(tw, "\t%s", withCI(s.Reward, 2))
		}
		fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\t%s\t%s",
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

// withCI formats an interval as "value [lo, hi]" with prec decimals, a
// number that rounds to zero without a sign (numtext.Fixed); "–" for an
// undefined value, the value alone without an interval.
func withCI(iv stats.Interval, prec int) string {
	if math.IsNaN(iv.Value) {
		return "–"
	}
	f := func(x float64) string { return numtext.Fixed(x, prec) }
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return f(iv.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", f(iv.Value), f(iv.Lo), f(iv.Hi))
}
