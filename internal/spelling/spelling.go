package spelling

import (
	"fmt"
	"math"
	"strings"
)

// Nearest returns the allowed word closest to s by edit distance, the
// first of those tied, if it is close enough to be a likely typo: within
// a third of s's length, and at least 1. A word that differs from s only
// in case and surrounding spaces (" Main" for "main") is the closest of
// all, however short. Otherwise it returns "".
func Nearest(s string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(s), a) {
			return a
		}
	}
	best, bestD := "", math.MaxInt
	for _, a := range allowed {
		if d := distance(s, a); d < bestD {
			best, bestD = a, d
		}
	}
	if bestD <= max(1, len(s)/3) {
		return best
	}
	return ""
}

// DidYouMean returns `; did you mean "WORD"?` for the allowed word
// Nearest finds for s, or "" if none is close: the end of an error that
// names s and lists what is allowed.
func DidYouMean(s string, allowed []string) string {
	if near := Nearest(s, allowed); near != "" {
		return fmt.Sprintf("; did you mean %q?", near)
	}
	return ""
}

// distance counts the edits that turn a into b: a letter inserted,
// deleted or replaced, or two neighbours swapped ("trian" for "train"),
// each letter edited at most once (the optimal string alignment
// distance). A word longer than 64 bytes is never a typo of a short one
// and would cost a table of its length: its distance is math.MaxInt.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	// Three rows of the table: i-2, i-1 and i.
	before := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(b)]
}
