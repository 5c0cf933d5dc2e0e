package main

import (
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// FuzzSetPath: the checks that route a --set by its path (refuseReplaced,
// refuseUnread, a replay's draws) see the field that the scenario sets,
// however the --set spells a path that the scenario accepts. A --set the
// scenario applies changes the resolved scenario in the section that
// setSection names; one that changes the seed or the policy file is
// refused beside --seed or --policy; and graph, which reads only task,
// seed and name, refuses one that changes any other section.
func FuzzSetPath(f *testing.F) {
	data, ok := scenarios.Embedded("tiny")
	require.True(f, ok)
	base, err := scenarios.Parse(data, "tiny.yaml", nil)
	require.NoError(f, err)
	sections := func(t require.TestingT, resolved []byte) map[string]string {
		var doc yaml.MapSlice
		require.NoError(t, yaml.Unmarshal(resolved, &doc))
		out := map[string]string{}
		for _, item := range doc {
			b, err := yaml.Marshal(item.Value)
			require.NoError(t, err)
			out[item.Key.(string)] = string(b)
		}
		return out
	}
	was := sections(f, base.Resolved)
	for _, s := range []string{"seed=3", "policy.file=p.json", "policy.organization=team", "task.work=exp(1m)",
		" collective.agents = 4", "task.components[0].weight=1", "name=x", "collective.time_limit=1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := scenarios.Parse(data, "tiny.yaml", []string{s})
		if err != nil {
			return
		}
		now := sections(t, sc.Resolved)
		var changed []string
		for k, v := range now {
			if was[k] != v {
				changed = append(changed, k)
			}
		}
		for k := range was {
			if _, ok := now[k]; !ok {
				changed = append(changed, k)
			}
		}
		if len(changed) == 0 {
			return
		}
		require.Contains(t, changed, setSection(s), "--set %q changes %v", s, changed)
		if sc.Seed != base.Seed {
			require.Error(t, refuseReplaced([]string{s}, stand{"--seed", "seed", true}), "--set %q changes the seed", s)
		}
		if sc.Base.Policy.File != base.Base.Policy.File {
			require.Error(t, refuseReplaced([]string{s}, (&policyFlag{"p.json"}).stand()), "--set %q changes the policy file", s)
		}
		for _, k := range changed {
			if k != "task" && k != "seed" && k != "name" {
				require.Error(t, refuseUnread([]string{s}, scenarios.GraphCommand, false), "--set %q changes %s", s, k)
			}
		}
	})
}
