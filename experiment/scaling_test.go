package experiment_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/scenarios"
)

// TestScalingColumns: with Scaling, episodes.csv ends with the episode's
// turns, message density and redundancy, worked here by hand; without,
// it has none of them.
func TestScalingColumns(t *testing.T) {
	rows := []experiment.Row{
		{Variant: "a", Episode: 0, Metrics: collective.Metrics{ModelCalls: 8, Messages: 2, Attempts: 3, SubagentTasks: 3}},
		{Variant: "a", Episode: 1, Metrics: collective.Metrics{ModelCalls: 5, Messages: 5, Duplicates: 1, SubagentTasks: 4}},
		{Variant: "a", Episode: 2},
	}
	b, err := experiment.EpisodesTable(rows, experiment.Columns{Scaling: true})
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	require.NoError(t, err)
	n := len(recs[0])
	assert.Equal(t, []string{"turns", "message_density", "redundancy"}, recs[0][n-3:])
	tests := []struct {
		row  int
		want []string
	}{
		{1, []string{"8", "0.25", "0.6666666666666666"}}, // 2 of 3 attempts repeat the first
		{2, []string{"5", "1", "0.25"}},                  // 1 duplicate of 4 delegations
		{3, []string{"0", "NaN", "0"}},                   // no turns, no work given away
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, recs[tt.row][n-3:], "episode %d", tt.row-1)
	}

	plain, err := experiment.EpisodesCSV(rows, false)
	require.NoError(t, err)
	assert.NotContains(t, string(plain), "turns")
	assert.NotContains(t, string(plain), "redundancy")
}

// TestUsesReference: only a sweep that names a reference adds the
// scaling columns.
func TestUsesReference(t *testing.T) {
	base := "name: s\ntask: {shape: chain, length: 2, work: 5m}\npolicy: {organization: sequential}\n"
	for _, tt := range []struct {
		sweep string
		want  bool
	}{
		{"", false},
		{"sweep: {command: run, grid: {collective.agents: [1, 2]}}\n", false},
		{"sweep: {command: run, grid: {collective.agents: [1, 2]}, reference: {collective.agents: 1}, metrics: [success_rate, error_amplification]}\n", true},
	} {
		sc, err := scenarios.Parse([]byte(base+tt.sweep), "s.yaml", nil)
		require.NoError(t, err, tt.sweep)
		assert.Equal(t, tt.want, experiment.UsesReference(sc), tt.sweep)
	}
}
