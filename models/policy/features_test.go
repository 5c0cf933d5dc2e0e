package policy_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
)

func feature(t *testing.T, x *[policy.NumFeatures]float64, name string) float64 {
	t.Helper()
	for i, n := range policy.FeatureNames() {
		if n == name {
			return x[i]
		}
	}
	t.Fatalf("no feature %q", name)
	return 0
}

func TestFeatureNames(t *testing.T) {
	names := policy.FeatureNames()
	require.Len(t, names, policy.NumFeatures)
	seen := map[string]bool{}
	for _, n := range names {
		require.NotEmpty(t, n)
		require.False(t, seen[n], "duplicate feature %q", n)
		seen[n] = true
	}
	names[0] = "changed"
	assert.Equal(t, "bias", policy.FeatureNames()[0], "FeatureNames must return a copy")
}

func TestFeatures(t *testing.T) {
	tests := []struct {
		name string
		obs  c.Observation
		want map[string]float64
	}{
		{"zero", c.Observation{}, map[string]float64{"bias": 1, "main": 0, "ready_frac": 0, "log_ready": 0, "has_ready": 0}},
		{"main at start", c.Observation{Main: true}, map[string]float64{"main": 1, "main_x_start": 1}},
		{"main later", c.Observation{Main: true, Elapsed: 60}, map[string]float64{"main_x_start": 0, "log_elapsed": math.Log(2) / 5}},
		{"fan-out possible", c.Observation{Ready: 3, Free: 1, TimeUsed: 0.5},
			map[string]float64{"has_ready": 1, "ready2_x_helper": 1, "ready2_x_time_used": 0.5, "ready_frac": 3.0 / 8, "log_ready": math.Log(4) / 3}},
		{"fan-out to idle helper", c.Observation{Ready: 2, Idle: 1}, map[string]float64{"ready2_x_helper": 1}},
		{"no helper", c.Observation{Ready: 5}, map[string]float64{"ready2_x_helper": 0, "has_ready": 1}},
		{"one ready", c.Observation{Ready: 1, Free: 3, TimeUsed: 0.9}, map[string]float64{"ready2_x_helper": 0, "ready2_x_time_used": 0}},
		{"many ready", c.Observation{Ready: 100}, map[string]float64{"ready_frac": 1}},
		{"unchecked coupled", c.Observation{Unchecked: true, Coupling: 0.8, TimeUsed: 0.4},
			map[string]float64{"unchecked": 1, "unchecked_x_coupling": 0.8, "unchecked_x_time_used": 0.4, "unshared_x_coupling": 0}},
		{"unshared coupled", c.Observation{Unshared: true, Coupling: 0.6}, map[string]float64{"unshared_x_coupling": 0.6}},
		{"complete", c.Observation{Complete: true}, map[string]float64{"complete": 1, "complete_x_no_pending": 1}},
		{"complete, pending", c.Observation{Complete: true, Pending: 2}, map[string]float64{"complete_x_no_pending": 0, "log_pending": math.Log(3) / 3}},
		{"unread", c.Observation{Unread: 4}, map[string]float64{"unread": 1}},
		{"no kind", c.Observation{}, map[string]float64{"kind_decomposable": 0, "kind_navigation": 0, "kind_sequential": 0, "kind_tool_heavy": 0}},
		{"decomposable", c.Observation{Kind: 1}, map[string]float64{"kind_decomposable": 1, "kind_navigation": 0, "kind_sequential": 0, "kind_tool_heavy": 0}},
		{"tool-heavy", c.Observation{Kind: 4}, map[string]float64{"kind_decomposable": 0, "kind_navigation": 0, "kind_sequential": 0, "kind_tool_heavy": 1}},
		{"unknown kind", c.Observation{Kind: 5}, map[string]float64{"kind_decomposable": 0, "kind_tool_heavy": 0}},
		{"clamped", c.Observation{TimeUsed: 7, Coupling: -1, Progress: 2, NextWork: math.Inf(1), Elapsed: math.NaN(), Ready: -3},
			map[string]float64{"time_used": 2, "coupling": 0, "progress": 1, "log_next_work": 4, "log_elapsed": 0, "log_ready": 0, "ready_frac": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x [policy.NumFeatures]float64
			for i := range x {
				x[i] = math.NaN() // every feature must be written
			}
			policy.Features(&tt.obs, &x)
			for name, want := range tt.want {
				assert.InDelta(t, want, feature(t, &x, name), 1e-12, name)
			}
			for i, v := range x {
				assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "feature %s = %v", policy.FeatureNames()[i], v)
			}
		})
	}
}

func TestFeaturesBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for range 1000 {
		var x [policy.NumFeatures]float64
		policy.Features(randObservation(r), &x)
		for i, v := range x {
			require.True(t, v >= 0 && v <= 4, "feature %s = %v", policy.FeatureNames()[i], v)
		}
	}
}

// Log-count features equal log1p(n)/3 for every count, those read from
// the table of small counts and those beyond it.
func TestLogCountFeatures(t *testing.T) {
	names := policy.FeatureNames()
	at := -1
	for i, n := range names {
		if n == "log_ready" {
			at = i
		}
	}
	require.GreaterOrEqual(t, at, 0)
	for n := range 1000 {
		var x [policy.NumFeatures]float64
		policy.Features(&c.Observation{Ready: n}, &x)
		assert.InDelta(t, math.Log1p(float64(n))/3, x[at], 1e-15, "ready %d", n)
	}
}

// The kind features follow task.Kinds: one per kind, named after it, in
// its order, so that Observation.Kind (1 + the kind's index) lights the
// kind's own feature.
func TestKindFeaturesFollowTaskKinds(t *testing.T) {
	names := policy.FeatureNames()
	n := 0
	for _, name := range names {
		if strings.HasPrefix(name, "kind_") {
			n++
		}
	}
	require.Equal(t, len(task.Kinds), n)
	for i, k := range task.Kinds {
		var x [policy.NumFeatures]float64
		policy.Features(&c.Observation{Kind: i + 1}, &x)
		for _, other := range task.Kinds {
			want := 0.0
			if other == k {
				want = 1
			}
			assert.Equal(t, want, feature(t, &x, "kind_"+strings.ReplaceAll(other, "-", "_")), "kind %s", k)
		}
	}
}
