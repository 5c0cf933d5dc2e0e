package calibrate

import (
	"cmp"
	"io"
	"maps"
	"slices"
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
	// N counts the replays the statistic is over, Runs the recorded runs
	// they replay, which its interval resamples.
	N, Runs int
}

// Within is how close a replayed run's duration must be to its recorded
// one to count as reproduced in the summary's within_25pct: 25%.
const Within = 0.25

// ReplaySummary returns per load: the IQM of replayed and of recorded
// durations, the median of their ratios, the mean time per model call and
// serving delay per run, and the share of runs whose replayed duration is
// within 25% of the recorded one, each with its 95% interval. runs are
// the recorded runs the results index.
//
// A load may replay each recorded run many times (a session replays every
// run), and its replays of one run share that run's calls: they are not
// independent data. The intervals are therefore a cluster bootstrap
// (stats.Default.Units) over the recorded runs, each drawn run bringing
// all its replays, so that more replays of the same runs do not narrow
// them. Where each run is replayed once this is the ordinary bootstrap
// over runs. The share takes the Wilson interval of the recorded runs
// (stats.WilsonShare): a run's share of its replays counts as one
// outcome. The runs are
// resampled in the order of their IDs, not of the trace arguments, so
// that naming the traces in another order gives the same bounds.
func ReplaySummary(runs []replay.Run, loads []Replayed) []ReplayStat {
	var out []ReplayStat
	for _, l := range loads {
		// Each metric's values per recorded run, runs in ID order.
		var replayed, recorded, ratio, within, latency, delay clusters
		byRun := map[int][]int{}
		for i := range l.Results {
			byRun[l.Results[i].Run] = append(byRun[l.Results[i].Run], i)
		}
		order := slices.Collect(maps.Keys(byRun))
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(runs[a].ID, runs[b].ID) })
		for _, run := range order {
			var rep, rec, rat, win, lat, del []float64
			for _, i := range byRun[run] {
				r := &l.Results[i]
				rep = append(rep, r.Replayed().Seconds())
				rec = append(rec, r.Recorded.Seconds())
				del = append(del, r.Delay.Seconds())
				if r.Recorded > 0 {
					x := float64(r.Replayed()) / float64(r.Recorded)
					rat = append(rat, x)
					in := 0.0
					if x >= 1-Within && x <= 1+Within {
						in = 1
					}
					win = append(win, in)
				}
				if r.Calls > 0 {
					lat = append(lat, r.ModelTime.Seconds()/float64(r.Calls))
				}
			}
			replayed.add(rep)
			recorded.add(rec)
			ratio.add(rat)
			within.add(win)
			latency.add(lat)
			delay.add(del)
		}
		add := func(metric, statistic string, iv stats.Interval, c *clusters) {
			out = append(out, ReplayStat{l.Load, metric, statistic, iv, c.n, len(c.runs)})
		}
		add("replayed_duration", "iqm", replayed.ci(stats.IQM), &replayed)
		add("recorded_duration", "iqm", recorded.ci(stats.IQM), &recorded)
		add("duration_ratio", "median", ratio.ci(stats.Median), &ratio)
		// A share's bootstrap collapses where every run drawn agrees (all
		// within 25%, or none): Wilson's interval over the recorded runs
		// does not, and is the usual one where each run is replayed once.
		add("within_25pct", "fraction", stats.WilsonShare(within.runsMean(), len(within.runs)), &within)
		add("call_latency", "mean", latency.ci(stats.Mean), &latency)
		add("serving_delay", "mean", delay.ci(stats.Mean), &delay)
	}
	return out
}

// clusters holds one metric's values grouped by recorded run: the runs
// without a value of it (a ratio of a run recorded as lasting 0) are left
// out, as the ordinary bootstrap over runs would leave them out.
type clusters struct {
	runs [][]float64
	n    int // values in all
}

func (c *clusters) add(xs []float64) {
	if len(xs) > 0 {
		c.runs = append(c.runs, xs)
		c.n += len(xs)
	}
}

// runsMean returns the mean over runs of each run's mean: every recorded
// run weighs alike however often it was replayed, as WilsonShare's
// interval over the runs counts each once.
func (c *clusters) runsMean() float64 {
	means := make([]float64, len(c.runs))
	for i, xs := range c.runs {
		means[i] = stats.Mean(xs)
	}
	return stats.Mean(means)
}

// ci returns stat of all the values with its cluster bootstrap interval:
// each resample draws runs with replacement and takes every value of each
// run drawn.
func (c *clusters) ci(stat stats.Statistic) stats.Interval {
	buf := make([]float64, 0, c.n)
	return stats.Default.Units(len(c.runs), func(idx []int) float64 {
		buf = buf[:0]
		for _, i := range idx {
			buf = append(buf, c.runs[i]...)
		}
		return stat(buf)
	})
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
