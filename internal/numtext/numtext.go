// Package numtext writes the numbers that people read: the cells of
// tables and CSVs, on the screen and in files. It is the one place that
// decides their form, so that every table writes the same number the
// same way.
//
// A zero is always written without a sign. Negative zero compares equal
// to zero, so "-0" tells a reader nothing true; what it suggests, a small
// negative number rounded away, is false. Likewise a number that rounds
// to zero at the digits shown ("-0.00") is written as zero ("0.00").
package numtext

import (
	"strconv"
	"strings"
)

// Shortest returns v in the shortest form that reads back as v ('g', -1),
// with NaN, +Inf and -Inf for the others, and negative zero as "0". The
// same number always gives the same bytes.
func Shortest(v float64) string { return string(AppendShortest(nil, v)) }

// AppendShortest appends Shortest(v) to b.
func AppendShortest(b []byte, v float64) []byte {
	if v == 0 { // true of -0 too, whose sign would be written
		return append(b, '0')
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// Fixed returns v with decimals digits after the point ('f'), and a value
// that rounds to zero at those digits as an unsigned zero ("0.00", not
// "-0.00").
func Fixed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if z, err := strconv.ParseFloat(s, 64); err == nil && z == 0 {
		return strings.TrimPrefix(s, "-")
	}
	return s
}
