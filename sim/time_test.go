package sim_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

func TestParseTimeAndString(t *testing.T) {
	tests := []struct {
		in   string
		want sim.Time
		str  string // canonical String form
	}{
		{"0", 0, "0s"},
		{"0s", 0, "0s"},
		{"90s", 90 * sim.Second, "1m30s"},
		{"12m", 12 * sim.Minute, "12m0s"},
		{"1h30m", 90 * sim.Minute, "1h30m0s"},
		{"250ms", 250 * sim.Millisecond, "250ms"},
		{"1.5s", 1500 * sim.Millisecond, "1.5s"},
		{"3us", 3 * sim.Microsecond, "3µs"},
		{"7ns", 7, "7ns"},
		{" 2m ", 2 * sim.Minute, "2m0s"},
		{"-5s", -5 * sim.Second, "-5s"},
		{"2562047h47m16.854775807s", sim.MaxTime, "never"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := sim.ParseTime(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.str, got.String())
		})
	}
}

func TestTimeStringRoundTrip(t *testing.T) {
	for _, v := range []sim.Time{
		0, 1, 999, sim.Microsecond, 1234567 * sim.Microsecond, 90 * sim.Second,
		3*sim.Hour + 7*sim.Second + 5, -42 * sim.Millisecond, sim.MaxTime - 1,
	} {
		back, err := sim.ParseTime(v.String())
		require.NoError(t, err, "%d", int64(v))
		require.Equal(t, v, back)
	}
}

func TestParseTimeErrors(t *testing.T) {
	for _, in := range []string{"", "90", "1.5", "abc", "5 s", "10d", "3000000h", "1h-5m"} {
		_, err := sim.ParseTime(in)
		require.ErrorIs(t, err, sim.ErrBadTime, "%q", in)
	}
	// A duration written right but too long says so, not what form to use.
	for _, in := range []string{"3000000h", "2562048h", "-2562048h", "1000000000000000000000ns"} {
		_, err := sim.ParseTime(in)
		require.ErrorContains(t, err, fmt.Sprintf("%q is out of range (at most 2562047h47m16.854775807s either way, about 292 years)", in))
	}
	_, err := sim.ParseTime("2562047h")
	require.NoError(t, err)
}

func TestTimeTextRoundTrip(t *testing.T) {
	// MaxTime, "never", is what a scenario writes for "no deadline": it must
	// read back as it was written.
	for _, v := range []sim.Time{0, 90 * sim.Second, 25 * sim.Hour, -sim.Nanosecond, sim.MaxTime} {
		text, err := v.MarshalText()
		require.NoError(t, err)
		var back sim.Time
		require.NoError(t, back.UnmarshalText(text), "%s", text)
		require.Equal(t, v, back, "%s", text)
	}
}

func TestUnmarshalText(t *testing.T) {
	var v sim.Time
	require.NoError(t, v.UnmarshalText([]byte("1h30m")))
	require.Equal(t, 90*sim.Minute, v)

	before := v
	err := v.UnmarshalText([]byte("90"))
	require.ErrorIs(t, err, sim.ErrBadTime)
	require.ErrorContains(t, err, "unit")
	require.Equal(t, before, v, "a failed unmarshal leaves the value unchanged")
}

func TestFromSeconds(t *testing.T) {
	tests := []struct {
		s    float64
		want sim.Time
	}{
		{0, 0},
		{1, sim.Second},
		{0.25, 250 * sim.Millisecond},
		{90, 90 * sim.Second},
		{1e-9, 1},
		{0.4e-9, 0},
		{0.6e-9, 1},
		{1.5e-9, 2},   // halves round away from zero
		{-2.5e-9, -3}, // on both sides
		{-1.25, -1250 * sim.Millisecond},
		{0.1, 100 * sim.Millisecond},
		{9e9, 9e9 * sim.Second},
	}
	for _, tt := range tests {
		got, err := sim.FromSeconds(tt.s)
		require.NoError(t, err, "%v", tt.s)
		require.Equal(t, tt.want, got, "%v", tt.s)
	}
}

// TestFromSecondsIsMathRound checks FromSeconds's own rounding against
// math.Round, on the values where rounding is delicate (just under and at
// halves, around 2^52 where fractions end, the ends of the range) and on
// random values of every magnitude.
func TestFromSecondsIsMathRound(t *testing.T) {
	var ns []float64
	for _, v := range []float64{0, 0.5, 1.5, 2.5, 1 << 52, 1<<52 + 1, 1 << 53, 1<<53 + 2, 4503599627370495.5, 9.2e18} {
		for _, x := range []float64{v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)), math.Nextafter(math.Nextafter(v, 0), 0)} {
			ns = append(ns, x, -x)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		// Uniform in the exponent (1e-3 to 1e19 ns), and some halves.
		x := math.Pow(10, -3+22*r.Float64())
		ns = append(ns, x, -x, math.Floor(x)+0.5)
	}
	for _, x := range ns {
		if math.Abs(x) >= 9.2e18 {
			continue // beyond ±2^63 is an error, tested below
		}
		got, err := sim.FromSeconds(x / 1e9)
		require.NoError(t, err, "%v ns", x)
		// The division and FromSeconds's multiplication may move x by an ulp:
		// round what FromSeconds multiplied back.
		require.Equal(t, sim.Time(math.Round(x/1e9*1e9)), got, "%v ns", x)
	}
}

func TestFromSecondsErrors(t *testing.T) {
	for _, s := range []float64{
		math.NaN(), math.Inf(1), math.Inf(-1),
		9.3e9, -9.3e9, // beyond ±292 years
		math.MaxFloat64, -math.MaxFloat64,
		float64(math.MaxInt64) / 1e9,
	} {
		_, err := sim.FromSeconds(s)
		require.ErrorIs(t, err, sim.ErrBadTime, "%v", s)
	}
}

func TestSecondsMinutes(t *testing.T) {
	require.Equal(t, 90.0, (90 * sim.Second).Seconds())
	require.Equal(t, 1.5, (90 * sim.Second).Minutes())
	require.Equal(t, 1e-9, sim.Time(1).Seconds())
}

// FuzzFromSeconds checks FromSeconds's own rounding against math.Round of
// the same product, and its range check against the range of Time, on any
// float64 the fuzzer finds (negatives, halves, subnormals, huge values).
func FuzzFromSeconds(f *testing.F) {
	for _, s := range []float64{0, math.Copysign(0, -1), 0.5e-9, -0.5e-9, 1.5e-9, -2.5e-9, 4503599.6273704955, -4503599.6273704955,
		9.223372036854775e9, -9.223372036854775e9, 9.223372036854776e9, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(1), math.NaN()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s float64) {
		got, err := sim.FromSeconds(s)
		ns := s * float64(sim.Second)
		if math.IsNaN(ns) || math.Abs(ns) >= 1<<63 {
			require.ErrorIs(t, err, sim.ErrBadTime, "%v s", s)
			return
		}
		require.NoError(t, err, "%v s", s)
		require.Equal(t, sim.Time(math.Round(ns)), got, "%v s", s)
	})
}

// FuzzParseTime reads any string as a time. What ParseTime accepts reads
// back from its String form unchanged (scenarios are written back with
// MarshalText and read again), and UnmarshalText accepts exactly the same.
// A number without a unit is accepted only as zero, which means the same
// in every unit (so a signed zero is harmless), lest "90" mean 90 ns. A
// rejected string leaves the value as it was and gets an error that wraps
// ErrBadTime and quotes it, so that a user sees which value was wrong.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "+0", "00", "0.0", "90", "1.5", "-7", "0s", "90s", "12m", "1h30m", "250ms", "1.5s", "3us", "3µs",
		"7ns", " 2m ", "-5s", ".5s", "1.s", "never", " never", "Never", "2562047h47m16.854775807s",
		"-2562047h47m16.854775808s", "2562047h47m16.854775808s", "9223372036854775807ns", "1.0000000001ns",
		"", "abc", "5 s", "10d", "3000000h", "1h-5m", "\xff", "1h\x00",
	} {
		f.Add(s)
	}
	const sentinel = sim.Time(-12345)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := sim.ParseTime(s)
		v := sentinel
		uerr := v.UnmarshalText([]byte(s))
		if err != nil {
			require.ErrorIs(t, err, sim.ErrBadTime, "%q", s)
			require.ErrorContains(t, err, strconv.Quote(strings.TrimSpace(s)))
			require.Error(t, uerr, "%q: UnmarshalText accepts what ParseTime rejects", s)
			require.Equal(t, sentinel, v, "%q: a failed UnmarshalText changed the value", s)
			return
		}
		require.NoError(t, uerr, "%q: UnmarshalText rejects what ParseTime accepts", s)
		require.Equal(t, got, v, "%q", s)

		if trimmed := strings.TrimSpace(s); trimmed != "" && strings.Trim(trimmed, "+-.0123456789") == "" {
			require.Contains(t, []string{"0", "+0", "-0"}, trimmed, "the unitless %q is accepted as %v", s, got)
		}

		back, err := sim.ParseTime(got.String())
		require.NoError(t, err, "%q → %q", s, got.String())
		require.Equal(t, got, back, "%q → %q", s, got.String())
	})
}

// FuzzTimeText writes any Time as text and reads it back: MarshalText
// writes the String form, and both UnmarshalText and ParseTime give the
// same Time back, at the ends of the range and for MaxTime ("never") too.
func FuzzTimeText(f *testing.F) {
	for _, v := range []int64{0, 1, -1, 999, 1e9, 90e9, -42e6, 1<<53 + 1, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		v := sim.Time(n)
		text, err := v.MarshalText()
		require.NoError(t, err, "%d", n)
		require.Equal(t, v.String(), string(text), "%d", n)

		var back sim.Time
		require.NoError(t, back.UnmarshalText(text), "%d → %q", n, text)
		require.Equal(t, v, back, "%d → %q", n, text)
		parsed, err := sim.ParseTime(string(text))
		require.NoError(t, err, "%d → %q", n, text)
		require.Equal(t, v, parsed, "%d → %q", n, text)
	})
}
