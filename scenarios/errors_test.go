package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrListCounts: an errList counts every problem added, the dropped
// ones too (a sweep stops at its first problem by that count), and its
// error says how many it left out.
func TestErrListCounts(t *testing.T) {
	for _, tc := range []struct {
		added    int
		wantLast string // the last line of err(); "" for no error
	}{
		{0, ""},
		{1, "f.yaml: problem 0"},
		{maxErrors, fmt.Sprintf("f.yaml: problem %d", maxErrors-1)},
		{maxErrors + 1, "f.yaml: and 1 more problem"},
		{2*maxErrors + 5, fmt.Sprintf("f.yaml: and %d more problems", maxErrors+5)},
	} {
		t.Run(fmt.Sprint(tc.added), func(t *testing.T) {
			var l errList
			for i := range tc.added {
				l.add(&Error{Source: "f.yaml", Msg: fmt.Sprintf("problem %d", i)})
			}
			assert.Equal(t, tc.added, l.len())
			var merged errList
			merged.merge(&l)
			assert.Equal(t, tc.added, merged.len(), "merge keeps the count")
			err := l.err()
			if tc.wantLast == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			lines := strings.Split(err.Error(), "\n")
			assert.Equal(t, tc.wantLast, lines[len(lines)-1])
			assert.LessOrEqual(t, len(lines), maxErrors+1)
		})
	}
}

// TestErrorAtAPlace: an error is placed at a token only when the token
// has a line; one without (line 0, or no position) has no place, so it
// prints no line and column and shows no snippet.
func TestErrorAtAPlace(t *testing.T) {
	for _, tc := range []struct {
		name         string
		tok          *token.Token
		line, column int
		text         string
	}{
		{"no token", nil, 0, 0, "f.yaml: a.b: bad"},
		{"no position", &token.Token{Origin: "a: 1\n"}, 0, 0, "f.yaml: a.b: bad"},
		{"line 0", &token.Token{Origin: "a: 1\n", Position: &token.Position{Line: 0, Column: 4}}, 0, 0, "f.yaml: a.b: bad"},
		{"line 1", &token.Token{Origin: "a: 1\n", Position: &token.Position{Line: 1, Column: 4}}, 1, 4, "f.yaml:1:4: a.b: bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newError("f.yaml", []byte("a: 1\n"), tc.tok, "a.b", "bad")
			assert.Equal(t, [2]int{tc.line, tc.column}, [2]int{e.Line, e.Column})
			assert.Equal(t, tc.text, e.Error())
			assert.Equal(t, tc.line > 0, e.Snippet(false) != "", "a snippet only for a placed error")
		})
	}
}

// TestSnippetAtTheEnds: a snippet shows the last line of a text without
// a final newline, and the empty line after a final newline only where
// the error is on it (a key without a value at the end of a file).
func TestSnippetAtTheEnds(t *testing.T) {
	at := func(line, column int) *token.Token {
		return &token.Token{Position: &token.Position{Line: line, Column: column}}
	}
	for _, tc := range []struct {
		name, text string
		tok        *token.Token
		want       string
	}{
		{"last line, no final newline", "a\nb", at(2, 1), "  1 | a\n> 2 | b\n      ^\n"},
		{"last line, a final newline", "a\nb\n", at(2, 1), "  1 | a\n> 2 | b\n      ^\n"},
		{"after the final newline", "a\nb\n", at(3, 1), "  1 | a\n  2 | b\n> 3 | \n      ^\n"},
		{"past the text", "a\nb\n", at(5, 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, newError("f.yaml", []byte(tc.text), tc.tok, "a", "bad").Snippet(false))
		})
	}
}
