package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPICallLatencyFormula: docs/scenarios.md's worked example. With
// parts that are whole spans of work and checks that are small, the mean
// call latency at a hosted API is ttft + span × calls.output_rate /
// api.output_rate: 0.6 + 4.4 × 170 / 80 = 9.95 s.
func TestAPICallLatencyFormula(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "5", "--charts=false", "--out", out,
		"--set", "collective.api.rpm=60", "--set", "collective.api.ttft=0.6s", "--set", "collective.api.output_rate=80",
		"--set", "collective.calls.span=4.4s", "--set", "collective.check.cost=0.01", "--set", "task.work=10m")
	rows := readCSV(t, filepath.Join(out, "summary.csv"))
	c := slices.Index(rows[0], "call_latency_mean")
	require.GreaterOrEqual(t, c, 0)
	want := 0.6 + 4.4*170/80.0
	for _, r := range rows[1:] {
		// A part of 600 s is 136 calls of 4.4 s and one of 1.6 s; its check
		// one of 6 s: the mean stays within 0.05 s of a full span's.
		assert.InDelta(t, want, parse(t, r[c]), 0.05, "variant %s", r[0])
	}
}
