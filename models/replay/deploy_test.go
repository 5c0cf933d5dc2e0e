package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// TestDeploy checks which server each model's calls go to: the variant
// named after it, else the first; replicas take every call.
func TestDeploy(t *testing.T) {
	fast := serving.API{TTFT: sim.Const(0.1), OutputRate: 100}
	slow := serving.API{TTFT: sim.Const(2), OutputRate: 10}
	one := serving.DefaultDeployment()
	one.Replicas = 1
	d, err := replay.Deploy([]replay.Server{{Name: "a", API: fast}, {Name: "b", API: slow}}, map[string]string{"m/a": "a", "m/b": "b", "m/c": "c"})
	require.NoError(t, err)
	require.Equal(t, []serving.API{fast, slow}, d.APIs)
	require.Equal(t, map[string]int{"m/a": 0, "m/b": 1}, d.Route, "m/c has no variant: the first serves it")

	d, err = replay.Deploy([]replay.Server{{Name: "a", Serving: one}, {Name: "b", Serving: one}}, map[string]string{"m/a": "a", "m/b": "b"})
	require.NoError(t, err)
	require.Equal(t, replay.Deployment{Serving: one}, d)

	two := one
	two.Replicas = 2
	cases := []struct {
		name    string
		servers []replay.Server
		want    string
	}{
		{"none", nil, "no variant"},
		{"unused", []replay.Server{{Name: "a", API: fast}, {Name: "z", API: slow}}, `variant "z" is named after no model`},
		{"no server", []replay.Server{{Name: "a"}}, "neither collective.serving.replicas nor collective.api"},
		{"two deployments", []replay.Server{{Name: "a", Serving: one}, {Name: "b", Serving: two}}, "different collective.serving"},
		{"replicas after an API", []replay.Server{{Name: "a", API: fast}, {Name: "b", Serving: one}}, "the first variant \"a\" has none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := replay.Deploy(c.servers, map[string]string{"m/a": "a", "m/b": "b"})
			require.ErrorContains(t, err, c.want)
		})
	}
}
