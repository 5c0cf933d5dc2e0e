package scenarios

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeLimits: the decoder takes exactly maxDepth levels and its
// budget of values, and refuses one more.
func TestDecodeLimits(t *testing.T) {
	f, err := parser.ParseBytes([]byte("[1, 2]"), 0)
	require.NoError(t, err)
	for _, tc := range []struct {
		name          string
		budget, depth int // the list's; its values are one deeper
		want          string
	}{
		{"within", 3, maxDepth - 1, ""},
		{"one value too many", 2, maxDepth - 1, "the document is too large"},
		{"one level too deep", 3, maxDepth, "nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDecoder("f.yaml", nil, map[string]ast.Node{})
			d.budget = tc.budget
			v := reflect.New(reflect.TypeFor[[]int]()).Elem()
			d.decode(f.Docs[0].Body, v, "x", nil, tc.depth)
			if tc.want == "" {
				require.NoError(t, d.errs.err())
				assert.Equal(t, []int{1, 2}, v.Interface())
				return
			}
			assert.ErrorContains(t, d.errs.err(), tc.want)
		})
	}
}

// TestLongPathShortened: a field path of more than 160 characters (runes,
// not bytes) is shortened in messages to its first 80 and last 60.
func TestLongPathShortened(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		want string
	}{
		{"160", strings.Repeat("é", 160), strings.Repeat("é", 160)},
		{"161", strings.Repeat("a", 80) + strings.Repeat("é", 21) + strings.Repeat("z", 60), strings.Repeat("a", 80) + "…" + strings.Repeat("z", 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDecoder("f.yaml", nil, nil)
			d.fail(nil, tc.path, "bad")
			require.Len(t, d.errs.list, 1)
			assert.Equal(t, tc.want, d.errs.list[0].Path)
		})
	}
}

// TestFieldsOf: the keys of a struct are its fields' yaml names (or their
// names in lower case), with inlined and untagged embedded structs
// flattened, and "-" and unexported fields left out.
func TestFieldsOf(t *testing.T) {
	type inner struct {
		A int `yaml:"a"`
	}
	type outer struct {
		inner
		Tagged inner `yaml:",inline"`
		Named  inner `yaml:"named"`
		Plain  int
		Skip   int `yaml:"-"`
		hidden int
	}
	assert.Equal(t, []string{"a", "a", "named", "plain"}, fieldNames(fieldsOf(reflect.TypeFor[outer]())))
}
