package experiment_test

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// TestEpisodeMetricsReadAsWritten: every metric an environment reports is
// the number episodes.csv writes in its column, read back (true and false
// as 1 and 0), for rows whose cells take every form a number can: NaN and
// infinite ratios, a negative zero (written 0), the largest exact count,
// fractions with seventeen digits, and the columns of a shared server, a
// hand-off, a token budget and a stall.
func TestEpisodeMetricsReadAsWritten(t *testing.T) {
	rows := []experiment.Row{
		{Variant: "a", Episode: 0}, // no calls: NaN latency and rate, 0 everywhere else
		{Variant: "a", Episode: 1, Reward: math.Copysign(0, -1), Metrics: collective.Metrics{
			Finish: sim.Time(1), Acceptable: true, ModelCalls: 3, PromptTokens: 1 << 53, OutputTokens: -7,
			AgentTime: sim.Time(math.MaxInt64), ParallelismMean: math.Nextafter(0.3, 1), ServedCalls: 3,
			ServingWait: 5 * sim.Second, ServerUtilisation: math.Inf(1), HandoffMisses: 2, Duplicates: 1,
			BudgetUsed: 1200, BudgetExhausted: true,
		}},
		{Variant: "b", Episode: 2, Reward: -1.0 / 3, Metrics: collective.Metrics{
			TimedOut: true, Stalled: true, CriticalPath: sim.Time(-3), SerialWork: 7 * sim.Minute, BatchMean: math.NaN(),
			ToolCalls: 1, ToolWait: sim.Time(123456789),
		}},
	}
	b, err := experiment.EpisodesCSV(rows, true)
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for j, name := range recs[0] {
		col[name] = j
	}
	metrics := experiment.EpisodeMetrics()
	require.NotEmpty(t, metrics)
	for i := range rows {
		for _, m := range metrics {
			j, ok := col[m.Name]
			require.True(t, ok, "metric %s is not a column of episodes.csv", m.Name)
			text := recs[i+1][j]
			got := m.Value(&rows[i])
			switch text {
			case "true", "false":
				assert.Equal(t, b2f(text == "true"), got, "row %d, %s = %s", i, m.Name, text)
				continue
			}
			want, err := strconv.ParseFloat(text, 64)
			require.NoError(t, err, "row %d, %s = %q", i, m.Name, text)
			if math.IsNaN(want) {
				assert.True(t, math.IsNaN(got), "row %d, %s = %s, reported %v", i, m.Name, text, got)
				continue
			}
			if got == 0 {
				// A zero is written unsigned, -0 too: a reader would take
				// "-0" for a small negative number.
				assert.Equal(t, "0", text, "row %d, %s, reported %v", i, m.Name, got)
				continue
			}
			// Bits, not ==, so that a cell that read back as a nearby
			// number would differ.
			assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "row %d, %s = %s, reported %v", i, m.Name, text, got)
		}
	}
	// The forms the rows were made to take, as written.
	assert.Equal(t, "9007199254740992", recs[2][col["prompt_tokens"]])
	assert.Equal(t, "0", recs[2][col["reward"]], "-0")
	assert.Equal(t, "0.30000000000000004", recs[2][col["parallelism_mean"]])
	assert.Equal(t, "+Inf", recs[2][col["server_utilisation"]])
	assert.Equal(t, "true", recs[3][col["timed_out"]])
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
