package spelling

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNearest: a typo's suggestion is the allowed word at the smallest
// edit distance, the first of those tied, and only within a third of the
// typo's length (at least 1); a word that differs only in case and
// surrounding spaces comes first.
func TestNearest(t *testing.T) {
	for _, tc := range []struct {
		s       string
		allowed []string
		want    string
	}{
		{"agentz", []string{"speed", "agents"}, "agents"},
		{"ab", []string{"ac", "ad"}, "ac"},
		{"abcdef", []string{"abcdxy"}, "abcdxy"},
		{"abcdef", []string{"abcxyz"}, ""},
		{"a", []string{"b"}, "b"},
		{"ab", []string{"xy"}, ""},
		{"ab", nil, ""},
		{"trian", []string{"run", "train"}, "train"},
		{" Main", []string{"all", "main"}, "main"},
		{"RUN\n", []string{"run", "train"}, "run"},
	} {
		assert.Equal(t, tc.want, Nearest(tc.s, tc.allowed), "%s among %v", tc.s, tc.allowed)
	}
}

// TestDidYouMean: the suggestion as an error's ending, quoted, and
// nothing where no allowed word is close.
func TestDidYouMean(t *testing.T) {
	assert.Equal(t, `; did you mean "train"?`, DidYouMean("trian", []string{"run", "train"}))
	assert.Equal(t, "", DidYouMean("xyz", []string{"run", "train"}))
}

// TestDistance: insertions, deletions, replacements and swaps of
// neighbours, for words of up to 64 bytes (longer ones are never a typo
// of a key).
func TestDistance(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"abc", "", 3},
		{"flaw", "lawn", 2},
		{"trian", "train", 1},
		{"ab", "ba", 1},
		{"abc", "ca", 3}, // each letter edited once: not a swap and then an insertion
		{"latnecy", "latency", 1},
		{long, long, 0},
		{long, long[1:], 1},
		{long + "a", long, math.MaxInt},
		{long, long + "a", math.MaxInt},
	} {
		assert.Equal(t, tc.want, distance(tc.a, tc.b), "%q to %q", tc.a, tc.b)
	}
}
