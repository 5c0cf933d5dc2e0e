package scenarios

import (
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLookupNode: a path is found in the file's syntax tree, or not, with
// the deepest key that was found; an index past the file's list is not
// found.
func TestLookupNode(t *testing.T) {
	f, err := parser.ParseBytes([]byte("task:\n  components:\n    - weight: 1\n"), 0)
	require.NoError(t, err)
	d := newDecoder("f.yaml", nil, map[string]ast.Node{})
	for _, tc := range []struct {
		path         string
		line, column int // of the deepest key found; 0 for none
		found        bool
	}{
		{"task.components[0].weight", 3, 7, true},
		{"task.components[1].weight", 2, 3, false},
		{"task.components[0].width", 3, 7, false},
		{"task.work", 1, 1, false},
		{"collective", 0, 0, false},
		{"task..work", 0, 0, false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			tok, found := d.lookupNode(f.Docs[0].Body, tc.path)
			assert.Equal(t, tc.found, found)
			line, column := 0, 0
			if tok != nil {
				line, column = tok.Position.Line, tok.Position.Column
			}
			assert.Equal(t, [2]int{tc.line, tc.column}, [2]int{line, column})
		})
	}
}

// TestSetPath: an override's path is named as the scenario reads it, so
// that the commands that route a --set by its path see every spelling the
// scenario accepts; a path it refuses stays as written, for its error.
func TestSetPath(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"train.lr=0.1", "train.lr"},
		{" train . lr =0.1", "train.lr"},
		{"figures[01]=x", "figures[1]"},
		{"figures[ 1 ]=x", "figures[ 1 ]"}, // refused: spaces inside the brackets
		{"policy.file", "policy.file"},
		{"seed=1=2", "seed"},
		{" a..b =1", "a..b"},
	} {
		assert.Equal(t, tc.want, SetPath(tc.set), "%q", tc.set)
	}
}

// TestCanonicalPath: commands route a --set by its canonical path, so
// every spelling the loader accepts maps to one path, and a path the
// loader refuses is refused here too rather than routed as text.
func TestCanonicalPath(t *testing.T) {
	for in, want := range map[string]string{
		"collective.agents":              "collective.agents",
		" policy . file ":                "policy.file",
		"task.components[007].weight":    "task.components[7].weight",
		"task . components[0] . weight ": "task.components[0].weight",
	} {
		got, err := CanonicalPath(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "collective..agents", "task.components[-1]", "1task"} {
		got, err := CanonicalPath(in)
		assert.Error(t, err, in)
		assert.Empty(t, got, in)
	}
}
