package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestUnread: each command reads the sections it runs on, and Unread says
// why it never reads the others; a field of a section answers as its
// section does.
func TestUnread(t *testing.T) {
	const (
		run, train = scenarios.SweepRun, scenarios.SweepTrain
		trace      = scenarios.TraceCommand
		graph      = scenarios.GraphCommand
	)
	tests := []struct {
		command, path string
		want          string // a part of the reason; "" when the command may read the field
	}{
		{run, "train.lr", "an evaluation never trains"},
		{trace, "train", "an evaluation never trains"},
		{graph, "train.lr", "(not train)"},
		{train, "train.lr", ""},
		{train, "policy.organization", "training never reads the policy section"},
		{graph, "policy", "(not policy)"},
		{run, "policy.organization", ""},
		{trace, "policy.file", ""},
		{trace, "reward.task", "it never reads the reward section"},
		{graph, "reward", "(not reward)"},
		{run, "reward.task", ""},
		{train, "reward.latency", ""},
		{train, "episodes", "training never reads episodes"},
		{trace, "episodes", "not the scenario's episodes"},
		{graph, "episodes", "(not episodes)"},
		{run, "episodes", ""},
		{trace, "figures", "a trace draws no charts"},
		{graph, "figures", "(not figures)"},
		{run, "figures", ""},
		{train, "figures", ""},
		{graph, "collective.agents", "(not collective)"},
		{graph, "collective", "(not collective)"},
		{trace, "collective.agents", ""},
		{graph, "task.width", ""},
		{graph, "task", ""},
		{graph, "task.nodes[0].work", ""},
		{graph, "seed", ""},
		{graph, "name", ""},
		{train, "seed", ""},
		{trace, "seed", ""},
	}
	for _, tc := range tests {
		got := scenarios.Unread(tc.command, tc.path)
		if tc.want == "" {
			assert.Empty(t, got, "%s %s", tc.command, tc.path)
			continue
		}
		assert.Contains(t, got, tc.want, "%s %s", tc.command, tc.path)
	}
}
