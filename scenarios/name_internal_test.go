package scenarios

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidNameIsNamePattern: validName accepts exactly what namePattern,
// the rule the JSON Schema states, matches.
func TestValidNameIsNamePattern(t *testing.T) {
	re := regexp.MustCompile(namePattern)
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"a", true},
		{"latency-pressure", true},
		{"w0.25", true},
		{"A_b-C.9", true},
		{"9lives", true},
		// The ends of each range of the rule.
		{"aZz09", true},
		{"Zulu", true},
		{strings.Repeat("x", 128), true},
		{"", false},
		{strings.Repeat("x", 129), false},
		{".hidden", false},
		{"_a", false},
		{"-a", false},
		{"a b", false},
		{"a/b", false},
		{"a\n", false},
		{"é", false},
		{"a:b", false},
	} {
		assert.Equal(t, tc.want, validName(tc.name), "validName(%q)", tc.name)
		assert.Equal(t, tc.want, re.MatchString(tc.name), "namePattern on %q", tc.name)
	}
}

// FuzzValidName checks validName against namePattern on any string.
func FuzzValidName(f *testing.F) {
	re := regexp.MustCompile(namePattern)
	for _, s := range []string{"a", "", ".a", "a.", "a-b_c.d", strings.Repeat("z", 128), strings.Repeat("z", 129), "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validName(s), re.MatchString(s); got != want {
			t.Fatalf("validName(%q) = %v, namePattern says %v", s, got, want)
		}
	})
}
