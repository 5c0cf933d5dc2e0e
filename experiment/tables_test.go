package experiment_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// TestOptionalColumns: a table has the shared columns when any of its
// episodes made a call at a shared server or API or a tool call, and the
// budget columns when any drew tokens from a budget or found it
// exhausted, and the stall's when any stalled; one such episode among
// plain ones is enough, and tables of plain episodes keep no group. Both tables, episodes.csv and
// summary.csv, follow the same rule.
func TestOptionalColumns(t *testing.T) {
	for _, tc := range []struct {
		name           string
		last           collective.Metrics // of the third of three episodes; the first two are plain
		shared, budget bool
	}{
		{"plain", collective.Metrics{}, false, false},
		{"one served call", collective.Metrics{ServedCalls: 1}, true, false},
		{"one tool call", collective.Metrics{ToolCalls: 1}, true, false},
		{"one budget token", collective.Metrics{BudgetUsed: 1}, false, true},
		{"budget exhausted at the first call", collective.Metrics{BudgetExhausted: true}, false, true},
		{"both", collective.Metrics{ToolCalls: 2, BudgetUsed: 5}, true, true},
		{"one stall", collective.Metrics{Stalled: true}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := []experiment.Row{{Variant: "a", Episode: 0}, {Variant: "a", Episode: 1}, {Variant: "a", Episode: 2, Metrics: tc.last}}
			assert.Equal(t, tc.shared, experiment.UsesShared(rows), "UsesShared")
			assert.Equal(t, tc.budget, experiment.UsesBudget(rows), "UsesBudget")

			b, err := experiment.EpisodesCSV(rows, false)
			require.NoError(t, err)
			episodes := header(t, b)
			assert.Equal(t, tc.shared, slices.Contains(episodes, "served_calls"), "episodes.csv: %v", episodes)
			assert.Equal(t, tc.shared, slices.Contains(episodes, "tool_calls"), "episodes.csv: %v", episodes)
			assert.Equal(t, tc.budget, slices.Contains(episodes, "budget_used"), "episodes.csv: %v", episodes)
			stall := tc.last.Stalled
			assert.Equal(t, stall, experiment.UsesStall(rows), "UsesStall")
			assert.Equal(t, stall, slices.Contains(episodes, "stalled"), "episodes.csv: %v", episodes)

			b, err = experiment.SummaryCSV(rows, experiment.Summarize(rows), false)
			require.NoError(t, err)
			summary := header(t, b)
			assert.Equal(t, tc.shared, slices.Contains(summary, "call_latency_mean"), "summary.csv: %v", summary)
			assert.Equal(t, tc.budget, slices.Contains(summary, "budget_used_mean"), "summary.csv: %v", summary)
			assert.Equal(t, tc.budget, slices.Contains(summary, "budget_used_lo"), "summary.csv: %v", summary)
			assert.Equal(t, tc.budget, slices.Contains(summary, "budget_exhausted_hi"), "summary.csv: %v", summary)
			assert.Equal(t, stall, slices.Contains(summary, "stalled_mean"), "summary.csv: %v", summary)
		})
	}
}

// TestBudgetExhaustedIsARate: budget_exhausted's interval in summary.csv
// is the Wilson interval of a rate, not a bootstrap of 0/1 values, which
// gives [0, 0] where no episode of n ran out.
func TestBudgetExhaustedIsARate(t *testing.T) {
	for _, k := range []int{0, 1, 4} {
		var rows []experiment.Row
		for i := range 4 {
			rows = append(rows, experiment.Row{Variant: "a", Episode: i, Metrics: collective.Metrics{BudgetUsed: 10, BudgetExhausted: i < k}})
		}
		b, err := experiment.SummaryCSV(rows, experiment.Summarize(rows), false)
		require.NoError(t, err)
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		require.NoError(t, err)
		got := map[string]string{}
		for i, h := range recs[0] {
			got[h] = recs[1][i]
		}
		want := stats.Wilson(k, 4)
		assert.Equal(t, numtext.Shortest(want.Value), got["budget_exhausted_mean"], "%d of 4", k)
		assert.Equal(t, numtext.Shortest(want.Lo), got["budget_exhausted_lo"], "%d of 4", k)
		assert.Equal(t, numtext.Shortest(want.Hi), got["budget_exhausted_hi"], "%d of 4", k)
	}
}

// TestUsesHandoff: the hand-off columns come with any spec that sets a
// handoff section, whichever of the specs it is, and with none otherwise.
func TestUsesHandoff(t *testing.T) {
	plain, handoff := &scenarios.Spec{}, &scenarios.Spec{}
	handoff.Collective.Handoff.Miss = 0.2
	assert.False(t, experiment.UsesHandoff())
	assert.False(t, experiment.UsesHandoff(plain, plain))
	assert.True(t, experiment.UsesHandoff(handoff))
	assert.True(t, experiment.UsesHandoff(plain, handoff))
	assert.True(t, experiment.UsesHandoff(handoff, plain))
}

// TestVariantRows: a variant's rows are those with its name, in their
// order, pointing into the table (not copies); an unknown name has none.
func TestVariantRows(t *testing.T) {
	rows := []experiment.Row{{Variant: "a", Episode: 0}, {Variant: "b", Episode: 0}, {Variant: "a", Episode: 1}, {Variant: "b", Episode: 1}}
	got := experiment.VariantRows(rows, "b")
	require.Len(t, got, 2)
	assert.Same(t, &rows[1], got[0])
	assert.Same(t, &rows[3], got[1])
	assert.Empty(t, experiment.VariantRows(rows, "c"))
}

// header returns the first record of a CSV table.
func header(t *testing.T, b []byte) []string {
	t.Helper()
	rec, err := csv.NewReader(strings.NewReader(string(b))).Read()
	require.NoError(t, err)
	return rec
}
