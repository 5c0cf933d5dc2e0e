package main

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/replay"
)

// FuzzReplayLoads: --sessions, --rate and --speedup read any list into
// loads of their kind, in increasing order, none given twice, each a
// positive finite value named by its flag as the tables and charts show
// it; or refuse it with a usage error that names the flag. flag picks
// which flag v goes to.
func FuzzReplayLoads(f *testing.F) {
	for _, s := range []string{"1", "1,2,4", " 8 , 2", "0.5,2e1", "1,1.0", "0", "-1", "NaN", "Inf", "1e-300",
		"0x1p-2", "1,,2", "65", "9999999999999999999", ""} {
		for flag := range 3 {
			f.Add(uint8(flag), s, 0)
		}
	}
	f.Add(uint8(1), "2", 5)
	f.Add(uint8(2), "2", 5)
	f.Fuzz(func(t *testing.T, flag uint8, v string, runs int) {
		names := []string{"sessions", "rate", "speedup"}
		flag %= 3
		var o replayOptions
		*[]*string{&o.sessions, &o.rates, &o.speedups}[flag] = v
		loads, err := o.loads(runs)
		if err != nil {
			var u *usageError
			require.ErrorAs(t, err, &u)
			require.Contains(t, err.Error(), names[flag], "the error does not name the flag")
			return
		}
		if v == "" {
			require.Empty(t, loads)
			return
		}
		require.NotEmpty(t, loads)
		for i, l := range loads {
			require.True(t, l.value > 0 && !math.IsInf(l.value, 0), "%q read as %v", v, l.value)
			require.True(t, strings.HasPrefix(l.name, names[flag]+"="), "load %q of --%s", l.name, names[flag])
			require.NotContains(t, l.name, ",")
			if i > 0 {
				require.Greater(t, l.value, loads[i-1].value, "loads not in increasing order, or one given twice")
			}
			switch l.load.Mode {
			case replay.Closed:
				require.Equal(t, float64(l.load.Sessions), l.value)
				require.LessOrEqual(t, l.load.Sessions, replay.MaxSessions)
			case replay.Poisson:
				require.Equal(t, l.load.Rate, l.value)
			case replay.Recorded:
				require.Equal(t, l.load.Speedup, l.value)
				require.Zero(t, runs, "--speedup with runs")
			}
			require.Equal(t, names[flag], names[l.load.Mode], "load %q has mode %v", l.name, l.load.Mode)
		}
	})
}
