package sim

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// Time is a point or a span of virtual time, counted in integer nanoseconds.
//
// Integer ticks make ties exact: two events scheduled for the same instant
// compare equal, whatever arithmetic produced them, so runs are reproducible
// to the byte. The range (about ±292 years) is ample for any simulated
// episode. Time prints and parses as a Go duration ("90s", "12m", "1h30m").
type Time int64

// Units of virtual time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
	Hour             = 60 * Minute
)

// MaxTime is the latest representable instant, which prints as "never"
// and is what Peek returns with nothing scheduled. An event scheduled at
// it is still an event: Run fires it once nothing earlier is left, moving
// the clock there (and a resource's time-weighted statistics with it). To
// wait forever, wait on an Event that nothing triggers.
const MaxTime Time = math.MaxInt64

// String formats t like a time.Duration ("1m30s", "250ms", "0s").
func (t Time) String() string {
	if t == MaxTime {
		return "never"
	}
	return time.Duration(t).String()
}

// Seconds returns t as a floating-point number of seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Minutes returns t as a floating-point number of minutes.
func (t Time) Minutes() float64 { return float64(t) / float64(Minute) }

// ErrBadTime is wrapped by the errors of ParseTime and FromSeconds.
var ErrBadTime = errors.New("invalid virtual time")

// FromSeconds converts a number of seconds to Time, rounding to the nearest
// nanosecond. NaN, infinities and values beyond the range of Time are errors.
func FromSeconds(s float64) (Time, error) {
	// Rounded by the conversion, so that ns − t below is not fused with
	// the product into one multiply-add where Go fuses them (arm64):
	// every machine rounds at the same nanosecond.
	ns := float64(s * float64(Second))
	if !(ns < math.MaxInt64 && ns > math.MinInt64) { // NaN, infinite or beyond the range
		return 0, fmt.Errorf("%w: %v seconds", ErrBadTime, s)
	}
	// math.Round, a few times cheaper (it is not an instruction on amd64):
	// ns − t is exact, so the comparison with a half is too. Beyond 2^52
	// ns is whole and t is ns; below, t and ns are within a factor of two
	// of each other (or t is 0), and their difference is representable.
	t := Time(ns)
	switch f := ns - float64(t); {
	case f >= 0.5:
		t++
	case f <= -0.5:
		t--
	}
	return t, nil
}

// ParseTime parses a duration such as "90s", "12m", "1h30m" or "250ms".
// A bare "0" (signed or not) is accepted; other unitless numbers are
// not, so that "90" cannot silently mean 90 nanoseconds. "never" is
// MaxTime, as String prints it.
func ParseTime(s string) (Time, error) {
	s = strings.TrimSpace(s)
	if s == "never" {
		return MaxTime, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if durationForm.MatchString(s) {
			// Written right, but past what int64 nanoseconds hold.
			return 0, fmt.Errorf("%w: %q is out of range (at most %v either way, about 292 years)", ErrBadTime, s, time.Duration(math.MaxInt64))
		}
		return 0, fmt.Errorf("%w: %q (want a number with a unit, such as 90s, 12m or 1h30m)", ErrBadTime, s)
	}
	return Time(d), nil
}

// durationForm matches what time.ParseDuration reads, whatever its size.
var durationForm = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// MarshalText formats t as its String form.
func (t Time) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses a duration written as by ParseTime.
func (t *Time) UnmarshalText(b []byte) error {
	v, err := ParseTime(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
