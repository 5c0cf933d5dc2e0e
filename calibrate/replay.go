package calibrate

import (
	"io"
	"strconv"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/stats"
)

// Replayed is a replay of recorded runs under one load.
type Replayed struct {
	// Load names the load: "sessions=4", "rate=0.5", "speedup=2".
	Load    string
	Results []replay.Result
}

// ReplayRows returns replay.csv: one row per replayed run of each load,
// times in seconds. runs are the recorded runs the results index.
func ReplayRows(runs []replay.Run, loads []Replayed) (header []string, rows [][]string) {
	header = []string{"load", "run", "session", "replay_start", "recorded_duration", "replayed_duration", "model_time", "tool_time", "serving_delay", "model_calls", "tool_calls"}
	for _, l := range loads {
		for i := range l.Results {
			r := &l.Results[i]
			session := ""
			if r.Session >= 0 {
				session = strconv.Itoa(r.Session)
			}
			rows = append(rows, []string{l.Load, runs[r.Run].ID, session, num(r.Start.Seconds()), num(r.Recorded.Seconds()),
				num(r.Replayed().Seconds()), num(r.ModelTime.Seconds()), num(r.ToolTime.Seconds()), num(r.Delay.Seconds()),
				strconv.Itoa(r.Calls), strconv.Itoa(r.Tools)})
		}
	}
	return header, rows
}

// ReplayStat is one row of a replay's summary: a statistic of a metric
// over a load's replayed runs, with its 95% interval.
type ReplayStat struct {
	Load, Metric, Statistic string
	stats.Interval
	N int
}

// Within is how close a replayed run's duration must be to its recorded
// one to count as reproduced in the summary's within_25pct: 25%.
const Within = 0.25

// ReplaySummary returns per load: the IQM of replayed and of recorded
// durations, the median of their ratios, the mean time per model call and
// serving delay per run, with bootstrap intervals (stats.Default), and the
// share of runs whose replayed duration is within 25% of the recorded
// one, with its Wilson interval.
func ReplaySummary(loads []Replayed) []ReplayStat {
	var out []ReplayStat
	for _, l := range loads {
		var replayed, recorded, ratio, latency, delay []float64
		within := 0
		for i := range l.Results {
			r := &l.Results[i]
			replayed = append(replayed, r.Replayed().Seconds())
			recorded = append(recorded, r.Recorded.Seconds())
			delay = append(delay, r.Delay.Seconds())
			if r.Recorded > 0 {
				x := float64(r.Replayed()) / float64(r.Recorded)
				ratio = append(ratio, x)
				if x >= 1-Within && x <= 1+Within {
					within++
				}
			}
			if r.Calls > 0 {
				latency = append(latency, r.ModelTime.Seconds()/float64(r.Calls))
			}
		}
		add := func(metric, statistic string, iv stats.Interval, n int) {
			out = append(out, ReplayStat{l.Load, metric, statistic, iv, n})
		}
		add("replayed_duration", "iqm", stats.Default.CI(replayed, stats.IQM), len(replayed))
		add("recorded_duration", "iqm", stats.Default.CI(recorded, stats.IQM), len(recorded))
		add("duration_ratio", "median", stats.Default.CI(ratio, stats.Median), len(ratio))
		add("within_25pct", "fraction", stats.Wilson(within, len(ratio)), len(ratio))
		add("call_latency", "mean", stats.Default.CI(latency, stats.Mean), len(latency))
		add("serving_delay", "mean", stats.Default.CI(delay, stats.Mean), len(delay))
	}
	return out
}

// ReplaySummaryRows returns summary.csv of a replay.
func ReplaySummaryRows(s []ReplayStat) (header []string, rows [][]string) {
	header = []string{"load", "metric", "statistic", "value", "lo", "hi", "n"}
	for _, r := range s {
		rows = append(rows, []string{r.Load, r.Metric, r.Statistic, num(r.Value), num(r.Lo), num(r.Hi), strconv.Itoa(r.N)})
	}
	return header, rows
}

// WriteReplayOTLP writes the replayed run r as WriteOTLP writes a
// simulated episode: one OTLP/JSON document, an invoke_agent span per
// agent under the agent that started it, a chat span per model call with
// its tokens and an execute_tool span per tool call, times from the run's
// start. id is the trace's number; model names the chat spans' model.
func WriteReplayOTLP(w io.Writer, r *replay.Result, id uint64, model string, acceptable bool) error {
	tr := &collective.Trace{}
	for _, s := range r.Spans {
		kind := "work"
		if s.Kind == replay.ToolCall {
			kind = "tool"
		}
		tr.Spans = append(tr.Spans, collective.Span{Agent: s.Agent, Start: s.Start - r.Start, End: s.End - r.Start, Kind: kind, Prompt: s.Prompt, Output: s.Output})
	}
	for i, a := range r.Agents {
		if i > 0 {
			at := a.Start - r.Start
			tr.Flows = append(tr.Flows, collective.Flow{From: a.Parent, To: i, Send: at, Arrive: at, Kind: "handoff"})
			// An agent's span is its calls' extent in the export: a
			// zero-length mark at its start keeps the framework time
			// before its first call.
			tr.Spans = append(tr.Spans, collective.Span{Agent: i, Start: at, End: at, Kind: "spawn"})
			tr.Spans = append(tr.Spans, collective.Span{Agent: i, Start: a.End - r.Start, End: a.End - r.Start, Kind: "spawn"})
		}
	}
	return WriteOTLP(w, Episode{Trace: tr, Finish: int64(r.Replayed()), Model: model, ID: id, Acceptable: acceptable})
}

// FirstModel returns the model of a run's first model call, or
// "unknown".
func FirstModel(run *replay.Run) string {
	name := ""
	var find func(a *replay.Agent) bool
	find = func(a *replay.Agent) bool {
		for i := range a.Steps {
			s := &a.Steps[i]
			switch {
			case s.Kind == replay.ModelCall:
				name = s.Name
				return true
			case s.Kind == replay.SubAgent && find(s.Agent):
				return true
			}
		}
		return false
	}
	if find(&run.Root) {
		return name
	}
	return "unknown"
}
