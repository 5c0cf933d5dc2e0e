package experiment

import (
	"slices"
	"strconv"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

// integer writes a count's cell of a table.
func integer[T ~int | ~int64](v T) string { return strconv.FormatInt(int64(v), 10) }

// A column of episodes.csv: a stable name and how to read it from a row.
type column struct {
	name  string
	value func(r *Row) cell
}

// A cell of episodes.csv holds a number, written as its kind says, or
// text (the variant's name). The number is what an environment reports
// of the episode (EpisodeMetric) and the text is written from it, so the
// two cannot disagree: every form here reads back as the same number (a
// negative zero as 0, which equals it).
type cell struct {
	kind cellKind
	v    float64
	text string
}

type cellKind uint8

const (
	realCell cellKind = iota // shortest exact form (numtext.Shortest)
	intCell                  // a count, exact: counts stay far below 2^53
	boolCell                 // true (1) or false (0)
	textCell
)

// The cells of each kind; times are in virtual seconds.
func number(v float64) cell           { return cell{v: v} }
func seconds(t sim.Time) cell         { return cell{v: t.Seconds()} }
func count[T ~int | ~int64](v T) cell { return cell{kind: intCell, v: float64(v)} }
func text(s string) cell              { return cell{kind: textCell, text: s} }
func flag(b bool) cell {
	if b {
		return cell{kind: boolCell, v: 1}
	}
	return cell{kind: boolCell}
}

// String returns the cell as episodes.csv writes it.
func (c cell) String() string {
	switch c.kind {
	case intCell:
		return strconv.FormatInt(int64(c.v), 10)
	case boolCell:
		return strconv.FormatBool(c.v != 0)
	case textCell:
		return c.text
	}
	return numtext.Shortest(c.v)
}

// episodeColumns are the columns of episodes.csv, in order. Names are
// stable: scripts read them.
var episodeColumns = func() []column {
	m := func(f func(m *collective.Metrics) cell) func(r *Row) cell {
		return func(r *Row) cell { return f(&r.Metrics) }
	}
	cols := []column{
		{"variant", func(r *Row) cell { return text(r.Variant) }},
		{"episode", func(r *Row) cell { return count(r.Episode) }},
		{"finish_time", m(func(m *collective.Metrics) cell { return seconds(m.Finish) })},
		{"acceptable", m(func(m *collective.Metrics) cell { return flag(m.Acceptable) })},
		{"timed_out", m(func(m *collective.Metrics) cell { return flag(m.TimedOut) })},
		{"reward", func(r *Row) cell { return number(r.Reward) }},
		{"model_calls", m(func(m *collective.Metrics) cell { return count(m.ModelCalls) })},
		{"prompt_tokens", m(func(m *collective.Metrics) cell { return count(m.PromptTokens) })},
		{"output_tokens", m(func(m *collective.Metrics) cell { return count(m.OutputTokens) })},
		{"tokens", m(func(m *collective.Metrics) cell { return count(m.Tokens()) })},
		{"agent_time", m(func(m *collective.Metrics) cell { return seconds(m.AgentTime) })},
		{"messages", m(func(m *collective.Metrics) cell { return count(m.Messages) })},
		{"message_tokens", m(func(m *collective.Metrics) cell { return count(m.MessageTokens) })},
		{"message_bytes", m(func(m *collective.Metrics) cell { return count(m.MessageBytes()) })},
		{"spawned", m(func(m *collective.Metrics) cell { return count(m.Spawned) })},
		{"attempts", m(func(m *collective.Metrics) cell { return count(m.Attempts) })},
		{"checks", m(func(m *collective.Metrics) cell { return count(m.Checks) })},
		{"retries", m(func(m *collective.Metrics) cell { return count(m.Retries) })},
		{"conflicts", m(func(m *collective.Metrics) cell { return count(m.Conflicts) })},
		{"subagent_tasks", m(func(m *collective.Metrics) cell { return count(m.SubagentTasks) })},
		{"subagent_done", m(func(m *collective.Metrics) cell { return count(m.SubagentDone) })},
		{"spawn_finish_rate", m(func(m *collective.Metrics) cell { return number(m.SpawnFinishRate()) })},
		{"parallelism_mean", m(func(m *collective.Metrics) cell { return number(m.ParallelismMean) })},
		{"parallelism_peak", m(func(m *collective.Metrics) cell { return count(m.ParallelismPeak) })},
		{"critical_steps", m(func(m *collective.Metrics) cell { return count(m.CriticalSteps) })},
		{"critical_path", m(func(m *collective.Metrics) cell { return seconds(m.CriticalPath) })},
		{"serial_work", m(func(m *collective.Metrics) cell { return seconds(m.SerialWork) })},
		{"speedup", m(func(m *collective.Metrics) cell { return number(m.Speedup()) })},
		{"stretch", m(func(m *collective.Metrics) cell { return number(m.Stretch()) })},
		{"comm_changed_outcome", func(r *Row) cell { return flag(r.CommChanged) }},
	}
	for a := range collective.Action(collective.NumActions) {
		cols = append(cols, column{"actions_" + a.String(), m(func(m *collective.Metrics) cell { return count(m.Actions[a]) })})
	}
	return cols
}()

// sharedColumns follow episodeColumns in the tables of episodes that used a
// shared server, an API or tools.
var sharedColumns = func() []column {
	m := func(f func(m *collective.Metrics) cell) func(r *Row) cell {
		return func(r *Row) cell { return f(&r.Metrics) }
	}
	return []column{
		{"served_calls", m(func(m *collective.Metrics) cell { return count(m.ServedCalls) })},
		{"call_latency", m(func(m *collective.Metrics) cell { return number(m.CallLatency()) })},
		{"serving_wait", m(func(m *collective.Metrics) cell { return seconds(m.ServingWait) })},
		{"serving_queue_mean", m(func(m *collective.Metrics) cell { return number(m.ServingQueueMean) })},
		{"server_utilisation", m(func(m *collective.Metrics) cell { return number(m.ServerUtilisation) })},
		{"batch_mean", m(func(m *collective.Metrics) cell { return number(m.BatchMean) })},
		{"output_rate", m(func(m *collective.Metrics) cell { return number(m.OutputRate()) })},
		{"tool_calls", m(func(m *collective.Metrics) cell { return count(m.ToolCalls) })},
		{"tool_wait", m(func(m *collective.Metrics) cell { return seconds(m.ToolWait) })},
	}
}()

// handoffColumns follow in the tables of scenarios with a handoff section
// (see UsesHandoff).
var handoffColumns = []column{
	{"handoff_misses", func(r *Row) cell { return count(r.Metrics.HandoffMisses) }},
	{"duplicates", func(r *Row) cell { return count(r.Metrics.Duplicates) }},
}

// budgetColumns follow in the tables of episodes run under a token
// budget (see UsesBudget).
var budgetColumns = []column{
	{"budget_used", func(r *Row) cell { return count(r.Metrics.BudgetUsed) }},
	{"budget_exhausted", func(r *Row) cell { return flag(r.Metrics.BudgetExhausted) }},
}

// stallColumns follow in the tables of episodes of which one stalled
// (see UsesStall).
var stallColumns = []column{
	{"stalled", func(r *Row) cell { return flag(r.Metrics.Stalled) }},
}

// UsesStall reports whether any episode stalled, stopping with nothing
// left to happen before a submission: then the tables say which, as its
// finish time (the stop) is not what its reward scored (the time limit),
// and the tables of episodes that never stall keep their columns.
func UsesStall(rows []Row) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Metrics.Stalled })
}

// UsesBudget reports whether any episode ran under a token budget
// (collective.token_budget): then the tables have the budget columns, and
// the tables of other scenarios keep theirs. An episode under a budget
// drew tokens from it, or found its first call too dear.
func UsesBudget(rows []Row) bool {
	for i := range rows {
		if m := &rows[i].Metrics; m.BudgetUsed > 0 || m.BudgetExhausted {
			return true
		}
	}
	return false
}

// Redundancy returns the episode's redundancy (metric.Redundancy): the
// share of the work given to other agents that repeated another's.
func Redundancy(m *collective.Metrics) float64 {
	return metric.Redundancy(m.Attempts, m.Duplicates, m.SubagentTasks)
}

// scalingColumns follow in the tables of scenarios whose sweep names a
// reference trial (see UsesReference): the per-episode coordination
// metrics of Kim et al. 2025 that the sweep's relative metrics build on.
var scalingColumns = []column{
	{"turns", func(r *Row) cell { return number(metric.Turns(r.Metrics.ModelCalls)) }},
	{"message_density", func(r *Row) cell {
		return number(metric.MessageDensity(float64(r.Metrics.Messages), metric.Turns(r.Metrics.ModelCalls)))
	}},
	{"redundancy", func(r *Row) cell { return number(Redundancy(&r.Metrics)) }},
}

// UsesReference reports whether sc's sweep names a reference trial
// (sweep.reference): then episodes.csv has the scaling columns, and the
// tables of other scenarios keep theirs.
func UsesReference(sc *scenarios.Scenario) bool {
	return sc.Sweep != nil && len(sc.Sweep.Reference) > 0
}

// Columns says which optional column groups episodes.csv and
// summary.csv have beyond those the rows decide (the shared ones).
type Columns struct {
	// Handoff adds the hand-off columns (UsesHandoff).
	Handoff bool
	// Scaling adds the per-episode coordination metrics to episodes.csv
	// (UsesReference).
	Scaling bool
}

// UsesHandoff reports whether any of the specs sets collective.handoff:
// then the tables count hand-off misses and duplicates, even where an
// episode had none, and the tables of other scenarios keep their columns.
func UsesHandoff(specs ...*scenarios.Spec) bool {
	for _, s := range specs {
		if s.Collective.Handoff != (collective.Handoff{}) {
			return true
		}
	}
	return false
}

// VariantSpecs returns the specs of sc's variants.
func VariantSpecs(sc *scenarios.Scenario) []*scenarios.Spec {
	specs := make([]*scenarios.Spec, len(sc.Variants))
	for i := range sc.Variants {
		specs[i] = &sc.Variants[i].Spec
	}
	return specs
}

// UsesShared reports whether any episode used a shared server, an API or
// tools: then the tables have the shared columns too, and the tables of
// other scenarios keep theirs.
func UsesShared(rows []Row) bool {
	for i := range rows {
		if m := &rows[i].Metrics; m.ServedCalls > 0 || m.ToolCalls > 0 {
			return true
		}
	}
	return false
}

// EpisodesCSV renders rows as episodes.csv, with the hand-off columns if
// handoff is set, and the budget columns if the episodes ran under a
// token budget: EpisodesTable without the scaling columns.
func EpisodesCSV(rows []Row, handoff bool) ([]byte, error) {
	return EpisodesTable(rows, Columns{Handoff: handoff})
}

// EpisodesTable renders rows as episodes.csv: the episode columns, the
// shared ones if an episode used a shared server, an API or tools, then
// the groups that with asks for.
func EpisodesTable(rows []Row, with Columns) ([]byte, error) {
	cols := episodeColumns
	if UsesShared(rows) {
		cols = append(cols[:len(cols):len(cols)], sharedColumns...)
	}
	if with.Handoff {
		cols = append(cols[:len(cols):len(cols)], handoffColumns...)
	}
	if UsesBudget(rows) {
		cols = append(cols[:len(cols):len(cols)], budgetColumns...)
	}
	if UsesStall(rows) {
		cols = append(cols[:len(cols):len(cols)], stallColumns...)
	}
	if with.Scaling {
		cols = append(cols[:len(cols):len(cols)], scalingColumns...)
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	cells := make([][]string, len(rows))
	for i := range rows {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = c.value(&rows[i]).String()
		}
	}
	return rundir.CSV(header, cells), nil
}

// SummaryCSV renders the per-variant summaries as summary.csv: the
// episodes, the acceptable ones and the success rate with its Wilson
// interval, then each metric's mean with its 95% percentile bootstrap
// interval (stats.Default; Wilson for budget_exhausted, a rate)
// (<metric>_mean, <metric>_lo, <metric>_hi; NaN where undefined), the
// episodes in which communication changed the outcome, and the agent time
// per acceptable result. Times are in seconds. Episodes that used a shared
// server, an API or tools add SharedMetrics, with handoff set,
// HandoffMetrics follow, episodes under a token budget add BudgetMetrics,
// and episodes of which one stalled StallMetrics.
func SummaryCSV(rows []Row, sums []Summary, handoff bool) ([]byte, error) {
	header := []string{"variant", "n", "acceptable", "success_rate", "success_lo", "success_hi"}
	metrics := summaryMetrics
	if UsesShared(rows) {
		metrics = append(metrics[:len(metrics):len(metrics)], SharedMetrics...)
	}
	if handoff {
		metrics = append(metrics[:len(metrics):len(metrics)], HandoffMetrics...)
	}
	if UsesBudget(rows) {
		metrics = append(metrics[:len(metrics):len(metrics)], BudgetMetrics...)
	}
	if UsesStall(rows) {
		metrics = append(metrics[:len(metrics):len(metrics)], StallMetrics...)
	}
	for _, m := range metrics {
		header = append(header, m.Name+"_mean", m.Name+"_lo", m.Name+"_hi")
	}
	header = append(header, "comm_changed_outcome", "cost_per_acceptable")
	var cells [][]string
	for i := range sums {
		s := &sums[i]
		mine := VariantRows(rows, s.Variant)
		row := []string{s.Variant, integer(s.N), integer(s.Acceptable), numtext.Shortest(s.Success.Value), numtext.Shortest(s.Success.Lo), numtext.Shortest(s.Success.Hi)}
		for _, m := range metrics {
			iv := m.Value(s, mine)
			row = append(row, numtext.Shortest(iv.Value), numtext.Shortest(iv.Lo), numtext.Shortest(iv.Hi))
		}
		row = append(row, integer(s.CommChanged), numtext.Shortest(s.CostPerAcceptable))
		cells = append(cells, row)
	}
	return rundir.CSV(header, cells), nil
}

// A SummaryMetric is a column group of summary.csv: a mean with its
// interval, from the variant's summary or, for metrics the summary does
// not hold, from its rows.
type SummaryMetric struct {
	Name  string
	Value func(s *Summary, rows []*Row) stats.Interval
}

// fromSummary reads an interval of the summary.
func fromSummary(f func(s *Summary) stats.Interval) func(*Summary, []*Row) stats.Interval {
	return func(s *Summary, _ []*Row) stats.Interval { return f(s) }
}

// fromRows averages a metric over the rows.
func fromRows(f func(m *collective.Metrics) float64) func(*Summary, []*Row) stats.Interval {
	return func(_ *Summary, rows []*Row) stats.Interval {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = f(&r.Metrics)
		}
		return stats.Default.CI(xs, stats.Mean)
	}
}

// summaryMetrics are the metric columns of summary.csv, in order.
var summaryMetrics = []SummaryMetric{
	{"finish_time", fromSummary(func(s *Summary) stats.Interval { return s.Finish })},
	{"finish_time_acceptable", fromSummary(func(s *Summary) stats.Interval { return s.FinishAcceptable })},
	{"reward", fromSummary(func(s *Summary) stats.Interval { return s.Reward })},
	{"model_calls", fromSummary(func(s *Summary) stats.Interval { return s.ModelCalls })},
	{"tokens", fromSummary(func(s *Summary) stats.Interval { return s.Tokens })},
	{"agent_time", fromSummary(func(s *Summary) stats.Interval { return s.AgentTime })},
	{"messages", fromSummary(func(s *Summary) stats.Interval { return s.Messages })},
	{"message_bytes", fromRows(func(m *collective.Metrics) float64 { return float64(m.MessageBytes()) })},
	// Not "parallelism_mean": its columns would read parallelism_mean_mean.
	{"parallelism", fromSummary(func(s *Summary) stats.Interval { return s.Parallelism })},
	{"parallelism_peak", fromRows(func(m *collective.Metrics) float64 { return float64(m.ParallelismPeak) })},
	{"critical_steps", fromSummary(func(s *Summary) stats.Interval { return s.CriticalSteps })},
	{"speedup", fromRows(func(m *collective.Metrics) float64 { return m.Speedup() })},
}

// SharedMetrics follow summaryMetrics in the summaries of episodes that
// used a shared server, an API or tools (see UsesShared).
var SharedMetrics = []SummaryMetric{
	{"call_latency", fromSummary(func(s *Summary) stats.Interval { return s.CallLatency })},
	{"serving_wait", fromSummary(func(s *Summary) stats.Interval { return s.ServingWait })},
	{"server_utilisation", fromRows(func(m *collective.Metrics) float64 { return m.ServerUtilisation })},
	{"output_rate", fromRows(func(m *collective.Metrics) float64 { return m.OutputRate() })},
	{"tool_wait", fromRows(func(m *collective.Metrics) float64 { return m.ToolWait.Seconds() })},
}

// HandoffMetrics follow in the summaries of scenarios with a handoff
// section (see UsesHandoff).
var HandoffMetrics = []SummaryMetric{
	{"handoff_misses", fromRows(func(m *collective.Metrics) float64 { return float64(m.HandoffMisses) })},
	{"duplicates", fromRows(func(m *collective.Metrics) float64 { return float64(m.Duplicates) })},
}

// BudgetMetrics follow in the summaries of episodes run under a token
// budget (see UsesBudget).
var BudgetMetrics = []SummaryMetric{
	{"budget_used", fromRows(func(m *collective.Metrics) float64 { return float64(m.BudgetUsed) })},
	{"budget_exhausted", rateOfRows(func(m *collective.Metrics) bool { return m.BudgetExhausted })},
}

// StallMetrics follow in the summaries of episodes of which one stalled
// (see UsesStall).
var StallMetrics = []SummaryMetric{
	{"stalled", rateOfRows(func(m *collective.Metrics) bool { return m.Stalled })},
}

// rateOfRows is the share of the rows for which f holds, with its Wilson
// interval, as the success rate's: a bootstrap of 0/1 values gives [0, 0]
// at 0 of n.
func rateOfRows(f func(m *collective.Metrics) bool) func(*Summary, []*Row) stats.Interval {
	return func(_ *Summary, rows []*Row) stats.Interval {
		k := 0
		for _, r := range rows {
			if f(&r.Metrics) {
				k++
			}
		}
		return stats.Wilson(k, len(rows))
	}
}

// VariantRows returns the rows of the variant.
func VariantRows(rows []Row, variant string) []*Row {
	var mine []*Row
	for j := range rows {
		if rows[j].Variant == variant {
			mine = append(mine, &rows[j])
		}
	}
	return mine
}

// WriteTables writes episodes.csv and summary.csv with the column groups
// of with.
func WriteTables(dir *rundir.Dir, rows []Row, sums []Summary, with Columns) error {
	b, err := EpisodesTable(rows, with)
	if err != nil {
		return err
	}
	if err := dir.Write("episodes.csv", b); err != nil {
		return err
	}
	if b, err = SummaryCSV(rows, sums, with.Handoff); err != nil {
		return err
	}
	return dir.Write("summary.csv", b)
}

// RunColumnNames returns the names of every column a run's tables can
// have: those of episodes.csv, then the metrics of summary.csv (each
// written as <name>_mean, _lo and _hi), so that a help text can name them
// all.
func RunColumnNames() []string {
	var names []string
	for _, cs := range [][]column{episodeColumns, sharedColumns, handoffColumns, budgetColumns, stallColumns, scalingColumns} {
		for _, c := range cs {
			names = append(names, c.name)
		}
	}
	for _, ms := range [][]SummaryMetric{summaryMetrics, SharedMetrics, HandoffMetrics, BudgetMetrics, StallMetrics} {
		for _, m := range ms {
			names = append(names, m.Name)
		}
	}
	return names
}
