package replay

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingsLoad(t *testing.T) {
	tests := []struct {
		s    Settings
		want Load
		name string
	}{
		{Settings{}, Load{Mode: Closed, Sessions: 1}, "sessions=1"},
		{Settings{Sessions: 16, Runs: 100}, Load{Mode: Closed, Sessions: 16, Runs: 100}, "sessions=16"},
		{Settings{Rate: 0.25, Runs: 500}, Load{Mode: Poisson, Rate: 0.25, Runs: 500}, "rate=0.25"},
		{Settings{Speedup: 2}, Load{Mode: Recorded, Speedup: 2}, "speedup=2"},
	}
	for _, tc := range tests {
		require.NoError(t, tc.s.Validate())
		l := tc.s.Load()
		assert.Equal(t, tc.want, l)
		assert.Equal(t, tc.name, l.String())
	}
}

// TestSettingsValidate refuses values out of range and settings that
// would do nothing, naming the field first.
func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		s    Settings
		want string
	}{
		{Settings{Sessions: -1}, "sessions: -1 is out of range"},
		{Settings{Sessions: MaxSessions + 1}, "sessions: 65537 is out of range (1 to 65536, or leave it out)"},
		{Settings{Rate: -1}, "rate: -1 is out of range"},
		{Settings{Speedup: -2}, "speedup: -2 is out of range"},
		{Settings{Runs: -3}, "runs: -3 is out of range"},
		{Settings{Runs: MaxRuns + 1}, "runs: 65537 is out of range (1 to 65536, or 0 for each run once)"},
		{Settings{Sessions: 2, Rate: 1}, "rate: given with sessions"},
		{Settings{Rate: 1, Speedup: 2}, "speedup: given with sessions or rate"},
		{Settings{Sessions: 2, Speedup: 2}, "speedup: given with sessions or rate"},
		{Settings{Speedup: 2, Runs: 5}, "runs: given with speedup"},
		{Settings{Pairing: Independent + 1}, "pairing: Pairing(2) is not allowed"},
		{Settings{Sessions: 4, Runs: 3}, "sessions: 4 sessions for 3 runs: 1 would never start a run (the load would be that of 3 sessions); give at most 3 sessions, or more runs"},
	}
	for _, tc := range tests {
		err := tc.s.Validate()
		require.Error(t, err, "%+v", tc.s)
		assert.Contains(t, err.Error(), tc.want)
	}
	for _, p := range []Pairing{Rank, Independent} {
		s := Settings{Sessions: 1, Pairing: p}
		assert.NoError(t, s.Validate(), "pairing %v", p)
	}
	for _, s := range []Settings{{Sessions: 3, Runs: 3}, {Sessions: 4}, {Sessions: MaxSessions}, {Rate: 1, Runs: 1}, {Rate: 1, Runs: MaxRuns}} {
		assert.NoError(t, s.Validate(), "%+v", s)
	}
}

// TestCheckRuns: with runs left out, a closed loop replays the recorded
// runs once per session, which MaxRuns bounds as it bounds runs given;
// each run once, and runs given, are left alone.
func TestCheckRuns(t *testing.T) {
	tests := []struct {
		name     string
		load     Load
		recorded int
		want     string
	}{
		{"sessions' runs at the bound", Load{Mode: Closed, Sessions: 2}, MaxRuns / 2, ""},
		{"sessions' runs beyond it", Load{Mode: Closed, Sessions: 2}, MaxRuns/2 + 1, "2 sessions replaying each of the 32769 recorded runs once per session make 65538 runs, more than 65536"},
		{"most sessions of two runs", Load{Mode: Closed, Sessions: MaxSessions}, 2, "make 131072 runs, more than 65536"},
		{"one session replays each run once", Load{Mode: Closed, Sessions: 1}, MaxRuns + 1, ""},
		{"runs given", Load{Mode: Closed, Sessions: MaxSessions, Runs: MaxSessions}, 2, ""},
		{"open loop", Load{Mode: Poisson, Rate: 1}, MaxRuns + 1, ""},
		{"open loop with sessions left over", Load{Mode: Poisson, Rate: 1, Sessions: MaxSessions}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.load.CheckRuns(tc.recorded)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestPairingText(t *testing.T) {
	for _, p := range []Pairing{Rank, Independent} {
		b, err := p.MarshalText()
		require.NoError(t, err)
		var back Pairing
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, p, back)
	}
	var p Pairing
	assert.ErrorContains(t, p.UnmarshalText([]byte("best")), `"best" is not allowed (allowed: rank, independent)`)
	// The first value past the last pairing: no name, and no index out of range.
	_, err := (Independent + 1).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "Pairing(2)", (Independent + 1).String())
}

// FuzzPairingText reads any text as a pairing. Every pairing MarshalText
// names reads back as itself, and those names are all UnmarshalText
// accepts, byte for byte: the pairing a scenario names is never another.
// Anything else is rejected with the value left as it was and an error
// that quotes the text and lists every name, so that it says what to write
// instead, even once a pairing is added.
func FuzzPairingText(f *testing.F) {
	var names []string
	for n := range math.MaxUint8 + 1 {
		p := Pairing(n)
		text, err := p.MarshalText()
		if err != nil {
			continue
		}
		var back Pairing
		require.NoError(f, back.UnmarshalText(text), "%d", n)
		require.Equal(f, p, back, "%q", text)
		require.Equal(f, string(text), p.String())
		names = append(names, string(text))
	}
	require.Equal(f, []string{"rank", "independent"}, names)
	for _, s := range []string{"rank", "independent", "Rank", " rank", "rank\n", "best", "", "Pairing(2)", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const sentinel = Pairing(math.MaxUint8)
		p := sentinel
		err := p.UnmarshalText(b)
		if err != nil {
			require.NotContains(t, names, string(b), "a pairing's own name is rejected")
			require.Equal(t, sentinel, p, "%q: a failed UnmarshalText changed the value", b)
			require.ErrorContains(t, err, strconv.Quote(string(b)))
			require.ErrorContains(t, err, "allowed: "+strings.Join(names, ", "))
			return
		}
		text, err := p.MarshalText()
		require.NoError(t, err, "%q read as %v", b, p)
		require.Equal(t, string(b), string(text))
	})
}

func TestSettingsIsZero(t *testing.T) {
	assert.True(t, Settings{}.IsZero())
	for _, s := range []Settings{{Traces: []string{"t"}}, {Sessions: 1}, {Rate: 1}, {Speedup: 1}, {Runs: 1}, {Pairing: Independent}} {
		assert.False(t, s.IsZero(), "%+v", s)
	}
}
