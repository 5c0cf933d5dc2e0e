package main

import (
	"path/filepath"
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
