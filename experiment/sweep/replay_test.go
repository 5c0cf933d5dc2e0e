package sweep

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestReplayTrialWithoutRuns: a replay trial whose traces cannot be read
// fails saying why, rather than recording a replay of nothing.
func TestReplayTrialWithoutRuns(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	for _, tc := range []struct {
		name, traces, want string
	}{
		{"missing", filepath.Join(dir, "none"), "none"},
		{"no trace files", empty, "no .json or .jsonl file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := firstReplayTrial(t, tc.traces, "1, 2")
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestReplayTrialSessionsBeyondMemory: a trial's sessions, with
// replay.runs left out, replay every recorded run once each; beyond
// replay.MaxRuns in all the trial fails naming the field and its fix
// before it replays anything.
func TestReplayTrialSessionsBeyondMemory(t *testing.T) {
	traces, err := filepath.Abs("../../calibrate/testdata/multiagent.otlp.json")
	require.NoError(t, err)
	err = firstReplayTrial(t, traces, "65536")
	assert.EqualError(t, err, "replay.sessions: 65536 sessions replaying each of the 2 recorded runs once per session make 131072 runs, more than 65536 (each keeps its result); set replay.runs (1 to 65536)")
}

// firstReplayTrial runs the first trial of a replay sweep of traces over
// replay.sessions (a YAML list's items), and returns its error.
func firstReplayTrial(t *testing.T, traces, sessions string) error {
	t.Helper()
	text := `name: r
task: {shape: chain, length: 1, work: 1m}
policy: {organization: independent}
collective:
  serving: {replicas: 1}
replay:
  traces: [` + traces + `]
sweep:
  command: replay
  grid:
    replay.sessions: [` + sessions + `]
  metrics: [serving_delay]
`
	sc, err := scenarios.Parse([]byte(text), filepath.Join(t.TempDir(), "r.yaml"), nil)
	require.NoError(t, err)
	trials, err := sc.Trials(sc.Seed, "")
	require.NoError(t, err)
	_, err = replayTrial(context.Background(), &trials[0], 0)
	return err
}
