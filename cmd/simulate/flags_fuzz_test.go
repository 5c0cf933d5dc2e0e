package main

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzFlagValues: each number flag reads a value it accepts as what its
// String writes back (the help's defaults and the notes that quote a
// bound print it), and refuses any other with a message that says what
// it wants. A --max-memory read is a whole number of bytes that the
// runtime can take as its limit, and reads back from its String within
// the rounding to a tenth of its unit, never changing between a bound
// and none.
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"0", "1", "010", "512MiB", "1.5KiB", " 3 MB ", "7e2", "16GiB", "1T", "-0",
		"18446744073709551615", "9223372036854775807", "-1", "NaN", "1KiBB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b byteSize
		if err := b.Set(s); err != nil {
			require.ErrorContains(t, err, "want a size such as")
			require.Zero(t, b)
		} else {
			v := float64(b)
			require.True(t, v >= 0 && v < 1<<63 && v == math.Trunc(v), "%q read as %v bytes", s, v)
			var back byteSize
			require.NoError(t, back.Set(b.String()), "%q read as %v bytes, written %q", s, v, b.String())
			require.Equal(t, v == 0, back == 0, "%q read as %v bytes, written %q", s, v, b.String())
			require.InEpsilon(t, v+1, float64(back)+1, 0.05, "%q read as %v bytes, written %q", s, v, b.String())
		}

		var seed seedFlag
		if err := seed.Set(s); err != nil {
			require.ErrorContains(t, err, "want a whole number")
			require.False(t, seed.set)
		} else {
			var back seedFlag
			require.NoError(t, back.Set(seed.String()))
			require.Equal(t, seed, back)
		}

		var c countFlag
		if err := c.Set(s); err != nil {
			require.ErrorContains(t, err, "want a whole number of 1 or more")
			require.Zero(t, c)
		} else {
			require.GreaterOrEqual(t, int(c), 1)
			var back countFlag
			require.NoError(t, back.Set(c.String()))
			require.Equal(t, c, back)
		}

		n := -7
		if err := (intFlag{&n}).Set(s); err != nil {
			require.ErrorContains(t, err, "want a whole number")
			require.Equal(t, -7, n)
		} else {
			m := 0
			require.NoError(t, intFlag{&m}.Set(intFlag{&n}.String()))
			require.Equal(t, n, m)
		}

		var sets setsFlag
		if err := sets.Set(s); err != nil {
			require.False(t, strings.Contains(s, "="))
			require.Empty(t, sets)
		} else {
			require.Equal(t, setsFlag{s}, sets)
		}
	})
}
