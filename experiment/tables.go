package main

import (
	"strconv"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// Cells of the tables. Floats are written in their shortest exact form
// ('g', -1), so that the same results give the same bytes; times are in
// virtual seconds.
func num(v float64) string                { return strconv.FormatFloat(v, 'g', -1, 64) }
func secs(t sim.Time) string              { return num(t.Seconds()) }
func integer[T ~int | ~int64](v T) string { return strconv.FormatInt(int64(v), 10) }
func boolean(b bool) string               { return strconv.FormatBool(b) }

// A column of episodes.csv: a stable name and how to read it from a row.
type column struct {
	name  string
	value func(r *experiment.Row) string
}

// episodeColumns are the columns of episodes.csv, in order. Names are
// stable: scripts read them.
var episodeColumns = func() []column {
	m := func(f func(m *collective.Metrics) string) func(r *experiment.Row) string {
		return func(r *experiment.Row) string { return f(&r.Metrics) }
	}
	cols := []column{
		{"variant", func(r *experiment.Row) string { return r.Variant }},
		{"episode", func(r *experiment.Row) string { return integer(r.Episode) }},
		{"finish_time", m(func(m *collective.Metrics) string { return secs(m.Finish) })},
		{"acceptable", m(func(m *collective.Metrics) string { return boolean(m.Acceptable) })},
		{"timed_out", m(func(m *collective.Metrics) string { return boolean(m.TimedOut) })},
		{"reward", func(r *experiment.Row) string { return num(r.Reward) }},
		{"model_calls", m(func(m *collective.Metrics) string { return integer(m.ModelCalls) })},
		{"prompt_tokens", m(func(m *collective.Metrics) string { return integer(m.PromptTokens) })},
		{"output_tokens", m(func(m *collective.Metrics) string { return integer(m.OutputTokens) })},
		{"tokens", m(func(m *collective.Metrics) string { return integer(m.Tokens()) })},
		{"agent_time", m(func(m *collective.Metrics) string { return secs(m.AgentTime) })},
		{"messages", m(func(m *collective.Metrics) string { return integer(m.Messages) })},
		{"message_tokens", m(func(m *collective.Metrics) string { return integer(m.MessageTokens) })},
		{"message_bytes", m(func(m *collective.Metrics) string { return integer(m.MessageBytes()) })},
		{"spawned", m(func(m *collective.Metrics) string { return integer(m.Spawned) })},
		{"attempts", m(func(m *collective.Metrics) string { return integer(m.Attempts) })},
		{"checks", m(func(m *collective.Metrics) string { return integer(m.Checks) })},
		{"retries", m(func(m *collective.Metrics) string { return integer(m.Retries) })},
		{"conflicts", m(func(m *collective.Metrics) string { return integer(m.Conflicts) })},
		{"subagent_tasks", m(func(m *collective.Metrics) string { return integer(m.SubagentTasks) })},
		{"subagent_done", m(func(m *collective.Metrics) string { return integer(m.SubagentDone) })},
		{"spawn_finish_rate", m(func(m *collective.Metrics) string { return num(m.SpawnFinishRate()) })},
		{"parallelism_mean", m(func(m *collective.Metrics) string { return num(m.ParallelismMean) })},
		{"parallelism_peak", m(func(m *collective.Metrics) string { return integer(m.ParallelismPeak) })},
		{"critical_steps", m(func(m *collective.Metrics) string { return integer(m.CriticalSteps) })},
		{"critical_path", m(func(m *collective.Metrics) string { return secs(m.CriticalPath) })},
		{"serial_work", m(func(m *collective.Metrics) string { return secs(m.SerialWork) })},
		{"speedup", m(func(m *collective.Metrics) string { return num(m.Speedup()) })},
		{"stretch", m(func(m *collective.Metrics) string { return num(m.Stretch()) })},
		{"comm_changed_outcome", func(r *experiment.Row) string { return boolean(r.CommChanged) }},
	}
	for a := range collective.Action(collective.NumActions) {
		cols = append(cols, column{"actions_" + a.String(), m(func(m *collective.Metrics) string { return integer(m.Actions[a]) })})
	}
	return cols
}()

// sharedColumns follow episodeColumns in the tables of episodes that used a
// shared server, an API or tools.
var sharedColumns = func() []column {
	m := func(f func(m *collective.Metrics) string) func(r *experiment.Row) string {
		return func(r *experiment.Row) string { return f(&r.Metrics) }
	}
	return []column{
		{"served_calls", m(func(m *collective.Metrics) string { return integer(m.ServedCalls) })},
		{"call_latency", m(func(m *collective.Metrics) string { return num(m.CallLatency()) })},
		{"serving_wait", m(func(m *collective.Metrics) string { return secs(m.ServingWait) })},
		{"serving_queue_mean", m(func(m *collective.Metrics) string { return num(m.ServingQueueMean) })},
		{"server_utilisation", m(func(m *collective.Metrics) string { return num(m.ServerUtilisation) })},
		{"batch_mean", m(func(m *collective.Metrics) string { return num(m.BatchMean) })},
		{"output_rate", m(func(m *collective.Metrics) string { return num(m.OutputRate()) })},
		{"tool_calls", m(func(m *collective.Metrics) string { return integer(m.ToolCalls) })},
		{"tool_wait", m(func(m *collective.Metrics) string { return secs(m.ToolWait) })},
	}
}()

// handoffColumns follow in the tables of scenarios with a handoff section
// (see usesHandoff).
var handoffColumns = []column{
	{"handoff_misses", func(r *experiment.Row) string { return integer(r.Metrics.HandoffMisses) }},
	{"duplicates", func(r *experiment.Row) string { return integer(r.Metrics.Duplicates) }},
}

// usesHandoff reports whether any of the specs sets collective.handoff:
// then the tables count hand-off misses and duplicates, even where an
// episode had none, and the tables of other scenarios keep their columns.
func usesHandoff(specs ...*scenarios.Spec) bool {
	for _, s := range specs {
		if s.Collective.Handoff != (collective.Handoff{}) {
			return true
		}
	}
	return false
}

// variantSpecs returns the specs of sc's variants.
func variantSpecs(sc *scenarios.Scenario) []*scenarios.Spec {
	specs := make([]*scenarios.Spec, len(sc.Variants))
	for i := range sc.Variants {
		specs[i] = &sc.Variants[i].Spec
	}
	return specs
}

// usesShared reports whether any episode used a shared server, an API or
// tools: then the tables have the shared columns too, and the tables of
// other scenarios keep theirs.
func usesShared(rows []experiment.Row) bool {
	for i := range rows {
		if m := &rows[i].Metrics; m.ServedCalls > 0 || m.ToolCalls > 0 {
			return true
		}
	}
	return false
}

// episodesCSV renders rows as episodes.csv, with the hand-off columns if
// handoff is set.
func episodesCSV(rows []experiment.Row, handoff bool) ([]byte, error) {
	cols := episodeColumns
	if usesShared(rows) {
		cols = append(cols[:len(cols):len(cols)], sharedColumns...)
	}
	if handoff {
		cols = append(cols[:len(cols):len(cols)], handoffColumns...)
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	cells := make([][]string, len(rows))
	for i := range rows {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = c.value(&rows[i])
		}
	}
	return rundir.CSV(header, cells), nil
}
