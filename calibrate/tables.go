package calibrate

import (
	"strconv"

	"github.com/swarmsim/swarmsim/internal/numtext"
)

// num writes a number of the tables as every table does (numtext).
var num = numtext.Shortest

// optInt writes n, or "" when it is not known.
func optInt(n int64, ok bool) string {
	if !ok {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// CallRows returns calls.csv: one row per model call.
func (t *Traces) CallRows() (header []string, rows [][]string) {
	header = []string{"run", "agent", "model", "input_tokens", "output_tokens", "duration_s", "start_s"}
	for _, c := range t.Calls {
		rows = append(rows, []string{c.Run, c.Agent, c.Model, optInt(c.InputTokens, c.HasTokens), optInt(c.OutputTokens, c.HasTokens), num(c.Duration), num(c.Start)})
	}
	return header, rows
}

// ToolRows returns tools.csv: one row per tool call.
func (t *Traces) ToolRows() (header []string, rows [][]string) {
	header = []string{"run", "agent", "tool", "duration_s", "start_s"}
	for _, c := range t.Tools {
		rows = append(rows, []string{c.Run, c.Agent, c.Tool, num(c.Duration), num(c.Start)})
	}
	return header, rows
}

// RunRows returns runs.csv: one row per root invoke_agent span.
func (t *Traces) RunRows() (header []string, rows [][]string) {
	header = []string{"run", "duration_s", "calls", "tool_calls", "nested_agents", "max_parallel", "fanout", "waves", "acceptable"}
	for _, r := range t.Runs {
		acc := ""
		if r.HasOutcome {
			acc = strconv.FormatBool(r.Acceptable)
		}
		rows = append(rows, []string{r.ID, num(r.Duration), strconv.Itoa(r.Calls), strconv.Itoa(r.Tools), strconv.Itoa(r.Agents),
			strconv.Itoa(r.MaxParallel), strconv.Itoa(r.Fanout), strconv.Itoa(r.Waves), acc})
	}
	return header, rows
}

// DelegationRows returns delegations.csv: one row per nested invoke_agent
// span, naming who delegated to whom.
func (t *Traces) DelegationRows() (header []string, rows [][]string) {
	header = []string{"run", "from", "to", "wave", "start_s", "startup_s"}
	for _, d := range t.Delegs {
		rows = append(rows, []string{d.Run, d.From, d.To, strconv.Itoa(d.Wave), num(d.Start), num(d.Startup)})
	}
	return header, rows
}
