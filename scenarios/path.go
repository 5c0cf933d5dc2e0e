package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
	"github.com/swarmsim/swarmsim/internal/spelling"
)

// A field path names a field of a scenario by its YAML keys separated by
// dots, with list entries selected by index: "collective.check.accuracy",
// "task.components[1].weight". Overrides (`set:` in a variant, --set on the
// command line) and error messages use them.

// pathSeg is one step of a field path: a key, optionally indexed.
type pathSeg struct {
	key   string
	index int // -1 when the key is not indexed
}

var pathSegRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9]{1,9})\])?$`)

// pathPattern is the JSON Schema pattern of a field path.
const pathPattern = `^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*$`

func parsePath(s string) ([]pathSeg, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty field path (want keys separated by dots, such as collective.agents)")
	}
	parts := strings.Split(s, ".")
	segs := make([]pathSeg, len(parts))
	for i, p := range parts {
		m := pathSegRE.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			return nil, fmt.Errorf("malformed field path %q (want keys separated by dots, such as collective.check.accuracy or task.components[0].weight)%s", s, splitHint(s))
		}
		segs[i] = pathSeg{key: m[1], index: -1}
		if m[2] != "" {
			segs[i].index, _ = strconv.Atoi(m[2])
		}
	}
	return segs, nil
}

// CanonicalPath returns the field path s as an override reads it: the
// spaces that may stand around its keys dropped, and its indexes in
// decimal without leading zeros. Commands that route a --set by its path
// compare this with the paths they know, so that no spelling the scenario
// accepts slips past them.
func CanonicalPath(s string) (string, error) {
	segs, err := parsePath(s)
	if err != nil {
		return "", err
	}
	return pathString(segs), nil
}

// SetPath returns the field path that an override "path=value" names, as
// the scenario reads it (CanonicalPath: train.lr for "train . lr=0.1"). A
// path the scenario refuses is returned as written, trimmed, since loading
// the scenario reports it.
func SetPath(set string) string {
	path, _, _ := strings.Cut(set, "=")
	if canon, err := CanonicalPath(path); err == nil {
		return canon
	}
	return strings.TrimSpace(path)
}

// pathGuess is what a path whose key belongs to a section below most
// likely did.
const pathGuess = "a path without its section?"

// splitHint explains a path that is the rest of a value cut at a comma:
// in a YAML flow mapping, {task.coupling: uniform(0,1)} holds the entries
// "task.coupling: uniform(0" and "1)".
func splitHint(s string) string {
	if strings.Count(s, ")") <= strings.Count(s, "(") {
		return ""
	}
	return `; it looks like the rest of a value cut at its comma: in {...} a comma separates entries, so quote a value that holds one, such as {task.coupling: "uniform(0,1)"}`
}

func pathString(segs []pathSeg) string {
	var sb strings.Builder
	for i, s := range segs {
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(s.key)
		if s.index >= 0 {
			fmt.Fprintf(&sb, "[%d]", s.index)
		}
	}
	return sb.String()
}

// related reports whether one of two canonical paths contains the other:
// an override of one may explain an error about the other.
func related(a, b string) bool {
	within := func(long, short string) bool {
		return long == short || strings.HasPrefix(long, short+".") || strings.HasPrefix(long, short+"[")
	}
	return within(a, b) || within(b, a)
}

// keyed reports whether values of type t are written as a map of keys: a
// struct, but not one written as a scalar (sim.Dist).
func keyed(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// findField returns the field that segs name inside root, a struct. forbid,
// if not nil, is asked about each top-level key and returns why it may not
// be set, or "".
func findField(root reflect.Value, segs []pathSeg, forbid func(string) string) (reflect.Value, error) {
	v := root
	at := ""
	for i, s := range segs {
		t := v.Type()
		if !keyed(t) {
			return reflect.Value{}, fmt.Errorf("%s holds %s and has no key %q", at, describe(t), s.key)
		}
		fields := fieldsOf(t)
		if i == 0 && forbid != nil {
			allowed := make([]field, 0, len(fields))
			for _, f := range fields {
				if forbid(f.name) == "" {
					allowed = append(allowed, f)
				}
			}
			if why := forbid(s.key); why != "" {
				if _, ok := lookupField(fields, s.key); ok {
					return reflect.Value{}, fmt.Errorf("%s %s", s.key, why)
				}
			}
			fields = allowed
		}
		f, ok := lookupField(fields, s.key)
		if !ok {
			where := ""
			if at != "" {
				where = " in " + at
			}
			names := fieldNames(fields)
			return reflect.Value{}, fmt.Errorf("unknown key %q%s (allowed: %s)%s", s.key, where, strings.Join(names, ", "), spelling.DidYouMean(s.key, names)+missingSection(t, fields, at, s.key, pathGuess))
		}
		v = v.FieldByIndex(f.index)
		at = joinPath(at, s.key)
		if s.index >= 0 {
			if v.Kind() != reflect.Slice {
				return reflect.Value{}, fmt.Errorf("%s is not a list and cannot be indexed", at)
			}
			if s.index >= v.Len() {
				if v.Len() == 0 {
					return reflect.Value{}, fmt.Errorf("%s has no entries to index", at)
				}
				return reflect.Value{}, fmt.Errorf("%s has %d entries (index 0 to %d), not %d", at, v.Len(), v.Len()-1, s.index+1)
			}
			v = v.Index(s.index)
			at = fmt.Sprintf("%s[%d]", at, s.index)
		}
	}
	return v, nil
}

// lookupNode finds the node a path names in the syntax tree of a file. It
// returns the token of the deepest key found along the path and whether the
// whole path was found.
func (d *decoder) lookupNode(root ast.Node, path string) (*token.Token, bool) {
	segs, err := parsePath(path)
	if err != nil || root == nil {
		return nil, false
	}
	n := d.resolve(root)
	var tok *token.Token
	for _, s := range segs {
		entries, ok := mappingValues(n)
		if !ok {
			return tok, false
		}
		var next ast.Node
		found := false
		for _, kv := range entries {
			if kv.Key != nil && keyText(kv.Key) == s.key {
				tok, next, found = kv.Key.GetToken(), kv.Value, true
			}
		}
		if !found {
			return tok, false
		}
		n = d.resolve(next)
		if s.index >= 0 {
			seq, ok := n.(*ast.SequenceNode)
			if !ok || s.index >= len(seq.Values) {
				return tok, false
			}
			n = d.resolve(seq.Values[s.index])
			tok = posTok(n)
		}
	}
	return tok, true
}

// missingSection names, for an unknown key that is not near an allowed
// one, the fields of that name in the sections below (coupling for
// task.coupling), where the key most likely left its section, followed by
// guess, what the writer most likely did; "" if there are none. fields
// are the allowed keys of t, at is the path so far.
func missingSection(t reflect.Type, fields []field, at, key, guess string) string {
	if spelling.Nearest(key, fieldNames(fields)) != "" {
		return ""
	}
	var paths []string
	for _, p := range nestedFields(t, key, 2) {
		if _, ok := lookupField(fields, strings.SplitN(p, ".", 2)[0]); ok {
			paths = append(paths, joinPath(at, p))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("; the scenario has %s: %s", strings.Join(paths, " and "), guess)
}
