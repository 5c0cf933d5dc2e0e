package main

import (
	"math"
	"testing"

	"github.com/swarmsim/swarmsim/stats"
)

// TestWithCISig checks that a cell of the sweep, train-comparison and
// compare tables uses one format for its value and bounds: plain decimals
// for numbers a person reads as plain, scientific only for the truly tiny
// or huge, never the two mixed (issue 26, item 7).
func TestWithCISig(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		iv   stats.Interval
		want string
	}{
		{stats.Interval{Value: 8494, Lo: 4107, Hi: 10287}, "8494 [4107, 10287]"},
		{stats.Interval{Value: 757310, Lo: 522883, Hi: 1015221}, "757310 [522883, 1015221]"},
		{stats.Interval{Value: 0.17, Lo: 0.12, Hi: 0.2}, "0.170 [0.120, 0.200]"},
		{stats.Interval{Value: 8.6, Lo: -120.25, Hi: 130}, "9 [-120, 130]"},
		{stats.Interval{Value: 0, Lo: 0, Hi: 0}, "0 [0, 0]"},
		{stats.Interval{Value: 3e-5, Lo: 1e-5, Hi: 5e-5}, "3.00e-05 [1.00e-05, 5.00e-05]"},
		{stats.Interval{Value: 2e12, Lo: 1.5e12, Hi: 2.5e12}, "2.00e+12 [1.50e+12, 2.50e+12]"},
		{stats.Interval{Value: 42.5, Lo: nan, Hi: nan}, "42.5"},
		{stats.Interval{Value: nan}, "–"},
	} {
		if got := withCISig(tc.iv); got != tc.want {
			t.Errorf("withCISig(%v, %v, %v) = %q, want %q", tc.iv.Value, tc.iv.Lo, tc.iv.Hi, got, tc.want)
		}
	}
}
