package scenarios_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/scenarios"
)

// TestReplaySection reads a replay section, sweeps it, and places the
// traces relative to the scenario's folder.
func TestReplaySection(t *testing.T) {
	src := filepath.Join("some", "dir", "s.yaml")
	sc, err := scenarios.Parse([]byte(sweepBase+`replay:
  traces: [traces, /abs/more.json]
  rate: 0.5
  runs: 200
  pairing: independent
sweep:
  command: replay
  grid:
    replay.rate: [0.5, 1]
    collective.serving.replicas: [0, 2]
`), src, nil)
	require.NoError(t, err)
	r := sc.Base.Replay
	assert.Equal(t, []string{filepath.Join("some", "dir", "traces"), "/abs/more.json"}, r.Traces)
	assert.Equal(t, replay.Load{Mode: replay.Poisson, Rate: 0.5, Runs: 200}, r.Load())
	assert.Equal(t, replay.Independent, r.Pairing)
	assert.Equal(t, []string{"duration_ratio", "call_latency", "serving_delay", "replayed_duration"}, sc.Sweep.Metrics, "the default metrics")
	trials, err := sc.Trials(1, "")
	require.NoError(t, err)
	require.Len(t, trials, 4)
	assert.Equal(t, 1.0, trials[2].Variant.Spec.Replay.Rate)
	assert.Equal(t, 2, trials[3].Variant.Spec.Collective.Serving.Replicas)
	assert.Equal(t, r.Traces, trials[3].Variant.Spec.Replay.Traces, "trials place the traces too")

	// The resolved scenario loads again to the same settings.
	again, err := scenarios.Parse(sc.Resolved, "again.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, sc.Hash, again.Hash)

	// A scenario without the section resolves without it.
	plain, err := scenarios.Parse([]byte(sweepBase), "s.yaml", nil)
	require.NoError(t, err)
	assert.True(t, plain.Base.Replay.IsZero())
	assert.NotContains(t, string(plain.Resolved), "replay")
}

// TestReplayDrawsAccepted checks that the pairing and the sweep's seeds
// are accepted wherever some trial draws: at a hosted API, or under a
// Poisson load.
func TestReplayDrawsAccepted(t *testing.T) {
	for _, text := range []string{
		// Some trials are at the hosted API (no replicas).
		"replay:\n  traces: [t]\n  pairing: independent\nsweep:\n  command: replay\n  seeds: 3\n  grid:\n    collective.serving.replicas: [0, 2]\n",
		// Replicas under a Poisson load draw arrivals.
		"replay:\n  traces: [t]\nsweep:\n  command: replay\n  seeds: 3\n  grid:\n    replay.rate: [0.5, 1]\n    collective.serving.replicas: [1, 2]\n",
		// One seed, and rank pairing (the default) at replicas.
		"replay:\n  traces: [t]\n  pairing: rank\nsweep:\n  command: replay\n  grid:\n    collective.serving.replicas: [1, 2]\n",
		"replay:\n  sessions: 3\n  runs: 3\n",
		// Without a sweep: simulate replay fits a hosted API where there
		// are no replicas, and a variant may give one.
		"replay:\n  pairing: independent\n",
		"replay:\n  pairing: independent\nvariants:\n  - {name: replicas, set: {collective.serving.replicas: 1}}\n  - {name: api, set: {collective.api: {output_rate: 50}}}\n",
	} {
		_, err := scenarios.Parse([]byte(sweepBase+text), "s.yaml", nil)
		assert.NoError(t, err, "%s", text)
	}
}

func TestReplaySectionErrors(t *testing.T) {
	// The section given starts at line 12 of the file.
	replicas := []string{"collective.serving.replicas=2"}
	tests := []struct {
		text string
		sets []string
		want string
	}{
		{"replay:\n  sessions: 4\n  rate: 1\n", nil, "s.yaml:14:3: replay.rate: given with sessions: a replay has one kind of load"},
		{"replay:\n  rate: 1\n  speedup: 2\n", nil, "s.yaml:14:3: replay.speedup: given with sessions or rate"},
		{"replay:\n  speedup: 2\n  runs: 10\n", nil, "s.yaml:14:3: replay.runs: given with speedup: each recorded run starts once"},
		{"replay:\n  sessions: -1\n", nil, "s.yaml:13:3: replay.sessions: -1 is out of range"},
		{"replay:\n  sessions: 99999999999\n", nil, "s.yaml:13:3: replay.sessions: 99999999999 is out of range (1 to 65536, or leave it out)"},
		{"replay:\n  rate: -0.5\n", nil, "s.yaml:13:3: replay.rate: -0.5 is out of range"},
		{"replay:\n  rate: 1\n  runs: 200000\n", nil, "s.yaml:14:3: replay.runs: 200000 is out of range (1 to 65536, or 0 for each run once)"},
		{"replay:\n  pairing: best\n", nil, `s.yaml:13:3: replay.pairing: "best" is not allowed (allowed: rank, independent)`},
		{"replay:\n  session: 4\n", nil, `s.yaml:13:3: replay.session: unknown key`},
		{"", []string{"replay.sessions=4", "replay.rate=2"}, "--set replay.rate=2: replay.rate: given with sessions"},
		{"variants:\n  - name: a\n    set: {replay.sessions: 4}\n", nil, "shared by all variants"},
		{"sweep:\n  command: replay\n", nil, "s.yaml:13:3: sweep.command: replay needs the recorded runs to replay: set replay.traces"},
		{"replay:\n  traces: [t]\nsweep:\n  command: replay\n  grid:\n    task.work: [1m, 2m]\n", nil,
			"sweep.grid: task.work: a replay replays recorded runs through collective.serving or collective.api"},
		{"replay:\n  traces: [t]\nsweep:\n  command: replay\n  grid:\n    collective.agents: [1, 2]\n", nil, "sweep.grid: collective.agents: a replay replays"},
		{"sweep:\n  command: run\n  grid:\n    replay.sessions: [1, 2]\n", nil,
			"sweep.grid: replay.sessions: only a replay (simulate replay, sweeps of command replay) reads the replay section"},
		{"replay:\n  traces: [t]\nsweep:\n  command: replay\n  grid:\n    replay.sessions: [1, 4]\n    replay.rate: [1]\n", nil,
			"sweep: trial replay.sessions=1, replay.rate=1: replay.rate: given with sessions"},
		{"replay:\n  sessions: 8\n  runs: 3\n", nil, "s.yaml:13:3: replay.sessions: 8 sessions for 3 runs: 5 would never start a run"},
		{"replay:\n  traces: [t]\nsweep:\n  command: replay\n  grid:\n    replay.sessions: [1, 4]\n    replay.runs: [2]\n", nil,
			"sweep: trial replay.sessions=4, replay.runs=2: replay.sessions: 4 sessions for 2 runs"},
		// At replicas a replay draws nothing but a Poisson load's arrivals.
		{"replay:\n  traces: [t]\n  pairing: independent\nsweep:\n  command: replay\n  grid:\n    replay.sessions: [1, 4]\n", replicas,
			"--set collective.serving.replicas=2: replay.pairing: every trial replays at replicas (collective.serving)"},
		{"replay:\n  traces: [t]\nsweep:\n  command: replay\n  seeds: 3\n  grid:\n    replay.sessions: [1, 4]\n", replicas,
			"--set collective.serving.replicas=2: sweep.seeds: 3 seeds would replay alike"},
		{"replay:\n  traces: [t]\n  speedup: 2\nsweep:\n  command: replay\n  seeds: 3\n  grid:\n    collective.serving.replicas: [1, 2]\n", nil,
			"s.yaml:17:3: sweep.seeds: 3 seeds would replay alike"},
		// simulate replay of a scenario whose every variant is at
		// replicas never reads the pairing either.
		{"replay:\n  pairing: independent\n", replicas,
			"--set collective.serving.replicas=2: replay.pairing: every variant replays at replicas (collective.serving)"},
		{"variants:\n  - {name: a, set: {collective.serving.replicas: 1}}\nreplay:\n  pairing: independent\n", nil,
			"s.yaml:15:3: replay.pairing: every variant replays at replicas (collective.serving)"},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := scenarios.Parse([]byte(sweepBase+tc.text), "s.yaml", tc.sets)
			require.Error(t, err, "%s", tc.text)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
