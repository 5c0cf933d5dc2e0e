package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// referenceSweep is a run sweep over organizations and team sizes whose
// reference is the sequential agent alone.
const referenceSweep = `sweep:
  command: run
  grid:
    policy.organization: [sequential, split]
    collective.agents: [1, 3]
  reference: {collective.agents: 1, policy.organization: sequential}
  metrics: [success_rate, turns_mean, error_amplification, efficiency]
`

// TestSweepReference: the reference is kept in file order with the
// axes' canonical values, the relative metrics apart from the recorded
// ones, and the resolved scenario holds both.
func TestSweepReference(t *testing.T) {
	sc, err := parseSweep(t, referenceSweep)
	require.NoError(t, err)
	sw := sc.Sweep
	assert.Equal(t, []scenarios.Param{{Path: "collective.agents", Value: "1"}, {Path: "policy.organization", Value: "sequential"}}, sw.Reference)
	assert.Equal(t, []string{"success_rate", "turns_mean"}, sw.Metrics)
	assert.Equal(t, []string{"error_amplification", "efficiency"}, sw.Relative)
	assert.Contains(t, string(sc.Resolved), "  reference:\n    collective.agents: 1\n    policy.organization: sequential\n")
	again, err := scenarios.Parse(sc.Resolved, "resolved.yaml", nil)
	require.NoError(t, err, "the resolved scenario parses")
	assert.Equal(t, sw.Reference, again.Sweep.Reference)
	assert.Equal(t, sw.Relative, again.Sweep.Relative)
	assert.Equal(t, sc.Hash, again.Hash, "and resolves to itself")

	moved, err := parseSweep(t, referenceSweep, "sweep.reference={collective.agents: 3}")
	require.NoError(t, err, "a --set replaces the reference")
	assert.Equal(t, []scenarios.Param{{Path: "collective.agents", Value: "3"}}, moved.Sweep.Reference)
	_, err = parseSweep(t, referenceSweep, "sweep.reference={collective.agents: 2}")
	assert.ErrorContains(t, err, "--set sweep.reference={collective.agents: 2}: sweep.reference: collective.agents: 2 is not one of the axis's values", "and its errors name the flag")

	// More relative metrics than recorded ones: all four come from two.
	all, err := parseSweep(t, strings.Replace(referenceSweep, "error_amplification, efficiency", "error_amplification, coordination_overhead, efficiency, success_gain", 1))
	require.NoError(t, err)
	assert.Equal(t, scenarios.RelativeMetrics(), all.Sweep.Relative)
	assert.Contains(t, string(all.Resolved), "  metrics:\n    - success_rate\n    - turns_mean\n    - error_amplification\n    - coordination_overhead\n    - efficiency\n    - success_gain\n")

	plain, err := parseSweep(t, "sweep:\n  command: run\n  grid:\n    collective.agents: [1, 3]\n")
	require.NoError(t, err)
	assert.Nil(t, plain.Sweep.Reference)
	assert.NotContains(t, string(plain.Resolved), "reference", "a sweep without one resolves as before")
}

// TestSweepReferenceErrors: each misuse of sweep.reference is an error
// that names the field and what is allowed.
func TestSweepReferenceErrors(t *testing.T) {
	grid := "sweep:\n  command: run\n  grid:\n    policy.organization: [sequential, split]\n    collective.agents: [1, 3]\n"
	tests := []struct {
		sweep string
		want  string
	}{
		{grid + "  reference: {collective.agents: 1}\n  metrics: [success_rate, turns_mean]\n",
			"sweep.reference: given without a relative metric in sweep.metrics, so it would do nothing"},
		{grid + "  metrics: [success_rate, error_amplification]\n",
			"sweep.reference: missing: the metrics error_amplification are relative to a reference trial"},
		{grid + "  reference: {collective.agents: 2}\n  metrics: [success_rate, error_amplification]\n",
			"sweep.reference: collective.agents: 2 is not one of the axis's values (1, 3), so no trial is the reference"},
		{grid + "  reference: {task.coupling: 0}\n  metrics: [success_rate, error_amplification]\n",
			"sweep.reference: task.coupling is not a grid axis (the reference is a value of each of some grid axes: policy.organization, collective.agents)"},
		{grid + "  reference: {collective.agents: one}\n  metrics: [success_rate, error_amplification]\n",
			`collective.agents: got "one", want an integer`},
		{grid + "  reference: {collective.agents: 1}\n  metrics: [turns_mean, efficiency]\n",
			"sweep.metrics: efficiency is computed from success_rate and turns_mean: list success_rate too"},
		{grid + "  reference: {collective.agents: 1}\n  metrics: [success_rate, coordination_overhead]\n",
			"sweep.metrics: coordination_overhead is computed from turns_mean: list turns_mean too"},
		{"sweep:\n  command: train\n  grid:\n    task.coupling: [0, 1]\n  metrics: [success_rate, error_amplification]\n",
			`sweep.metrics[1]: "error_amplification" is not a metric of train trials`},
		{"sweep:\n  command: train\n  grid:\n    task.coupling: [0, 1]\n  reference: {task.coupling: 0}\n",
			"sweep.reference: given for train trials: a reference is for run sweeps (command: run)"},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := parseSweep(t, tc.sweep)
			require.Error(t, err, "%s", tc.sweep)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
