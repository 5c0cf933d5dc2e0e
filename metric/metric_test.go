package metric

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTable: every entry is complete and consistent, and every name is
// declared once.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		assert.False(t, seen[m.Name], "%s is declared twice", m.Name)
		seen[m.Name] = true
		assert.NotEmpty(t, m.Label, m.Name)
		assert.Contains(t, []string{Seconds, Fraction, Plain, TokensPerSecond}, m.Unit, m.Name)
		assert.Contains(t, []Better{Higher, Lower, None}, m.Better, m.Name)
		assert.True(t, strings.HasSuffix(m.Reading, "."), "%s: the reading is a sentence: %q", m.Name, m.Reading)
		// The label names the unit that is not a plain number.
		switch m.Unit {
		case Seconds:
			assert.True(t, strings.HasSuffix(m.Label, "(s)"), "%s: %q", m.Name, m.Label)
		case Fraction:
			assert.True(t, strings.HasSuffix(m.Label, "(fraction)"), "%s: %q", m.Name, m.Label)
		}
		if m.Head != "" && m.Unit == Seconds {
			assert.True(t, strings.HasSuffix(m.Head, "(s)"), "%s: %q", m.Name, m.Head)
			// A time summed over an episode's calls stands beside per-call
			// latencies on the terminal: its head says it is per episode.
			if strings.Contains(m.Label, "per episode") {
				assert.Contains(t, m.Head, "/episode", "%s: %q", m.Name, m.Head)
			}
		}
		if _, param, fam := m.family(); fam {
			assert.Contains(t, m.Label, "<"+param+">", m.Name)
			assert.Contains(t, m.Reading, "<"+param+">", m.Name)
		}
	}
}

// TestLookup: exact names, family members and what is neither.
func TestLookup(t *testing.T) {
	tests := []struct {
		name, want, label string
		unit              string
		better            Better
	}{
		{"finish_time", "finish_time", "finish time (s)", Seconds, Lower},
		{"success_rate", "success_rate", "success rate (fraction)", Fraction, Higher},
		{"critical_steps_mean", "critical_steps_mean", "critical steps per episode", Plain, Lower},
		{"replays", "replays", "replays per iteration", Plain, None},
		{"prob_delegate", "prob_delegate", "probability of delegate (fraction)", Fraction, None},
		{"actions_work", "actions_work", "work decisions per episode", Plain, None},
		{"prob_az", "prob_az", "probability of az (fraction)", Fraction, None}, // a and z are the ends of the letters
		{"prob_", "", "", "", ""},             // a family needs a member
		{"prob_Share", "", "", "", ""},        // an action's name is lower case
		{"prob_<action>", "", "", "", ""},     // the pattern is not a column
		{"latency", "", "", "", ""},           // no substring guesses
		{"reward_mean_mean", "", "", "", ""},  // nor suffix guesses
		{"handoff_misses_lo", "", "", "", ""}, // interval columns are not metrics
		{"", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := Lookup(tt.name)
			require.Equal(t, tt.want != "", ok)
			if !ok {
				assert.Panics(t, func() { Of(tt.name) }, "Of fails loudly in tests")
				return
			}
			assert.Equal(t, tt.want, m.Name)
			assert.Equal(t, tt.label, m.Label)
			assert.Equal(t, tt.unit, m.Unit)
			assert.Equal(t, tt.better, m.Better)
			assert.Equal(t, m, Of(tt.name))
			assert.NotContains(t, m.Reading, "<", "the member's reading names it")
		})
	}
}

// TestAllIsACopy: changing what All returns does not change the table.
func TestAllIsACopy(t *testing.T) {
	all := All()
	all[0].Unit = "furlongs"
	assert.NotEqual(t, "furlongs", All()[0].Unit)
}

// TestMainMetrics: the main metrics are exact names of the table, each once, and
// each has a direction: compare shows them by default and says which of A
// and B does better by them.
func TestMainMetrics(t *testing.T) {
	require.NotEmpty(t, mainMetrics)
	for i, name := range mainMetrics {
		_, exact := byName[name]
		assert.True(t, exact, "%s is a main metric and no exact name of the table", name)
		assert.NotEqual(t, None, Of(name).Better, "%s is a main metric without a direction", name)
		place, ok := Main(name)
		assert.True(t, ok, name)
		assert.Equal(t, i, place, "%s is listed twice or out of place", name)
	}
	for _, name := range []string{"lr", "entropy", "prob_share", "tokens", "unknown"} {
		_, ok := Main(name)
		assert.False(t, ok, name)
	}
}
