package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUtilisationUndefined checks run's table at a hosted API: without a
// concurrency cap, server utilisation (calls in flight over the cap) is
// not defined and reads n/a, not 0.00 (issue 26, item 7); with a cap it
// is a number.
func TestUtilisationUndefined(t *testing.T) {
	api := []string{"--set", "collective.api.rpm=60", "--set", "collective.api.output_rate=50"}
	for _, tc := range []struct {
		name    string
		sets    []string
		defined bool
	}{
		{"no cap", api, false},
		{"cap", append(api, "--set", "collective.api.concurrency=2"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", testScenario, "--seed", "1", "--episodes", "2", "--charts=false", "--out", filepath.Join(t.TempDir(), "o")}, tc.sets...)
			table, _, ok := strings.Cut(mustSimulate(t, args...), "\nwrote ")
			require.True(t, ok)
			lines := strings.Split(strings.TrimSpace(table), "\n")
			require.True(t, strings.HasSuffix(lines[0], "server utilisation"), "utilisation is the last column:\n%s", table)
			for _, l := range lines[1:] {
				assert.Equal(t, !tc.defined, strings.HasSuffix(l, "  n/a"), "%q", l)
			}
		})
	}
}

// TestRunTableReward checks run's table: a reward column where the
// scenario sets a reward other than the default (issue 26, item 3), the
// mean of the episodes' rewards that summary.csv holds, and none where
// the reward would repeat the success rate; the finish time's head says
// that it covers the acceptable episodes only.
func TestRunTableReward(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sets   []string
		reward bool
	}{
		{"default reward", nil, false},
		{"latency weight", []string{"--set", "reward.latency=0.5", "--set", "reward.penalty=linear"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o")
			args := append([]string{"run", testScenario, "--episodes", testEpisodes, "--charts=false", "--out", out}, tc.sets...)
			table, _, ok := strings.Cut(mustSimulate(t, args...), "\nwrote ")
			require.True(t, ok)
			cells := regexp.MustCompile(`\s{2,}`)
			lines := strings.Split(strings.TrimSpace(table), "\n")
			header := cells.Split(lines[0], -1)
			assert.Contains(t, header, "finish ok (s)")
			assert.NotContains(t, header, "finish (s)")
			col := slices.Index(header, "reward")
			assert.Equal(t, tc.reward, col >= 0, "reward column in %v", header)
			if col < 0 {
				return
			}
			sum := readCSV(t, filepath.Join(out, "summary.csv"))
			mean := slices.Index(sum[0], "reward_mean")
			require.Len(t, lines, len(sum))
			for i, l := range lines[1:] {
				row := cells.Split(l, -1)
				require.Equal(t, sum[i+1][0], row[0])
				assert.True(t, strings.HasPrefix(row[col], fmt.Sprintf("%.2f [", parse(t, sum[i+1][mean]))), "%s: %q, summary.csv %s", row[0], row[col], sum[i+1][mean])
			}
			// Not the success rate again: a latency weight takes from it.
			assert.NotEqual(t, cells.Split(lines[2], -1)[col], cells.Split(lines[2], -1)[col+1])
		})
	}
}
