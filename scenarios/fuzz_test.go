package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that no input makes Parse panic (or hit an internal
// error), and that a scenario that loads resolves to YAML that loads again
// to an equal scenario with the same bytes.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"library", "testdata/good", "testdata/bad"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(f, err)
			f.Add(data, "")
		}
	}
	f.Add([]byte("task: {shape: chain, length: 2}\npolicy: {organization: team}\n"), "collective.agents=3")
	f.Add([]byte("task: &a {shape: chain, length: 2}\ncollective: *a\n"), "task.work=exp(1m)")
	f.Add([]byte("a: &a [*a]\n"), "")
	f.Add([]byte("task: {kind: navigation, loop: 2}\npolicy: {organization: team}\nsweep: {command: run, grid: {task.kind: [navigation, tool-heavy]}}\n"), "task.kind=sequential")
	f.Add([]byte("task: {shape: chain, length: 1, work: 1m}\npolicy: {organization: team}\nreplay: {traces: [t], rate: 0.5, pairing: independent}\nsweep: {command: replay, grid: {replay.rate: [0.5, 1]}}\n"), "replay.runs=10")
	f.Add([]byte("task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: sequential}\nsweep: {command: run, grid: {policy.organization: [sequential, team], collective.agents: [1, 3]}, reference: {policy.organization: sequential, collective.agents: 1}, metrics: [success_rate, turns_mean, efficiency]}\n"), "sweep.reference.collective.agents=3")
	// The rules of values that never act: a penalty a variant weighs, a
	// reconcile setting a sweep's coupling reads, a coupling of one agent.
	f.Add([]byte("task: {shape: fork-join, width: 3, stages: 1, work: 5m}\npolicy: {organization: split}\nreward: {penalty: quadratic, scale: 1h}\nvariants:\n  - {name: none}\n  - {name: high, set: {reward.latency: 1}}\n"), "reward.latency=0")
	f.Add([]byte("task: {shape: fork-join, width: 3, stages: 1, work: 5m}\ncollective: {reconcile: {mode: rework, rework: 0.3}}\npolicy: {organization: team}\nsweep: {command: train, grid: {task.coupling: [0, 0.5]}}\n"), "collective.agents=1")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		sc, err := Parse(data, "fuzz.yaml", sets)
		if err != nil {
			if errors.Is(err, errInternal) {
				t.Fatalf("internal error: %v", err)
			}
			return
		}
		again, err := Parse(sc.Resolved, "resolved.yaml", nil)
		if err != nil {
			t.Fatalf("resolved YAML does not load: %v\n%s", err, sc.Resolved)
		}
		require.Equal(t, sc.Name, again.Name)
		require.Equal(t, sc.Description, again.Description)
		require.Equal(t, sc.Seed, again.Seed)
		require.Equal(t, sc.Episodes, again.Episodes)
		require.Equal(t, sc.Base, again.Base)
		require.Equal(t, sc.Variants, again.Variants)
		require.Equal(t, string(sc.Resolved), string(again.Resolved))
		if sc.Sweep != nil {
			require.Equal(t, sc.Sweep.Reference, again.Sweep.Reference)
			require.Equal(t, sc.Sweep.Relative, again.Sweep.Relative)
		}
	})
}
