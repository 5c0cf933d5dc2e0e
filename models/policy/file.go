package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/jsonpos"
	c "github.com/swarmsim/swarmsim/models/collective"
)

// FileFormat identifies policy files.
const FileFormat = "swarmsim-policy/1"

// policyFile is the JSON form of a policy file.
type policyFile struct {
	Format   string     `json:"format"`
	Kind     string     `json:"kind"`
	Features []string   `json:"features"`
	Actions  []string   `json:"actions"`
	Hidden   *int       `json:"hidden"`
	Params   []*float64 `json:"params"`
}

// Save writes p as a JSON policy file:
//
//	{"format": "swarmsim-policy/1", "kind": "linear", "features": [...],
//	 "actions": [...], "hidden": 0, "params": [...]}
//
// with one line of params per row of each weight matrix. Parameters are
// written in the shortest form that reads back to the same float64, so
// Save then Load gives the identical policy. A policy with no weight on a
// task kind's features (one trained on tasks without kinds, where their
// gradient is 0) is written without them: its features and rows end
// before the kinds, as files did before the kinds existed, and Load reads
// the missing weights as 0. Non-finite parameters and policies other than
// *Linear and *MLP are errors.
func Save(w io.Writer, p Softmax) error {
	params := p.Params()
	for i, v := range params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("save policy: params[%d] is %v", i, v)
		}
	}
	l, err := layoutOf(p)
	if err != nil {
		return fmt.Errorf("save policy: %w", err)
	}
	width := NumFeatures
	if !l.usesKinds(params) {
		width = numBase
	}
	rows := l.rows(params, width)

	var b bytes.Buffer
	field := func(name string, v any) {
		s, _ := json.Marshal(v) // strings, string slices and ints cannot fail
		fmt.Fprintf(&b, "  %q: %s,\n", name, s)
	}
	b.WriteString("{\n")
	field("format", FileFormat)
	field("kind", p.Kind())
	field("features", featureNames[:width])
	field("actions", actionNames())
	field("hidden", l.hidden)
	b.WriteString("  \"params\": [")
	var buf []byte
	for r, row := range rows {
		b.WriteString("\n    ")
		for k, v := range row {
			if k > 0 {
				b.WriteString(", ")
			}
			buf = strconv.AppendFloat(buf[:0], v, 'g', -1, 64)
			b.Write(buf)
		}
		if r < len(rows)-1 {
			b.WriteByte(',')
		}
	}
	b.WriteString("\n  ]\n}\n")
	_, err = w.Write(b.Bytes())
	return err
}

// layout is the shape of a policy's parameters: featureRows rows of
// NumFeatures weights on the features (the linear policy's W, the MLP's
// W1) come first, then rows of the given lengths (the MLP's W2 and b2).
type layout struct {
	hidden      int
	featureRows int
	rest        []int
}

func layoutOf(p Softmax) (layout, error) {
	switch p := p.(type) {
	case *Linear:
		return layout{featureRows: c.NumActions}, nil
	case *MLP:
		return layout{hidden: p.hidden, featureRows: p.hidden, rest: append(repeat(p.hidden, c.NumActions), c.NumActions)}, nil
	}
	return layout{}, fmt.Errorf("unsupported policy type %T", p)
}

// usesKinds reports whether any weight on a kind feature is not zero.
func (l layout) usesKinds(params []float64) bool {
	for r := range l.featureRows {
		for _, v := range params[r*NumFeatures+numBase : (r+1)*NumFeatures] {
			if v != 0 {
				return true
			}
		}
	}
	return false
}

// rows splits params into the rows of a file whose feature rows hold the
// first width features.
func (l layout) rows(params []float64, width int) [][]float64 {
	rows := make([][]float64, 0, l.featureRows+len(l.rest))
	for r := range l.featureRows {
		rows = append(rows, params[r*NumFeatures:r*NumFeatures+width])
	}
	i := l.featureRows * NumFeatures
	for _, n := range l.rest {
		rows = append(rows, params[i:i+n])
		i += n
	}
	return rows
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// decodeError says where in data, the policy file name, err of its
// decoding lies, "policy NAME:LINE:COL: ...", and what was wanted, in the
// words of JSON rather than of Go's types.
func decodeError(name string, data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("policy %s: empty file", name)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := jsonpos.LineCol(data, int64(len(data)))
		return fmt.Errorf("policy %s:%d:%d: truncated JSON: the file ends inside a value (cut short?)", name, line, col)
	case errors.As(err, &syntax):
		// Offset counts the bytes read, the bad one included.
		line, col := jsonpos.LineCol(data, syntax.Offset-1)
		return fmt.Errorf("policy %s:%d:%d: invalid JSON: %w", name, line, col, err)
	case errors.As(err, &typ):
		line, col := jsonpos.LineCol(data, typ.Offset-1) // the value's last byte
		if typ.Field == "" {
			return fmt.Errorf("policy %s:%d:%d: want a JSON object {\"format\": %q, \"kind\", \"features\", \"actions\", \"hidden\", \"params\"}, found %s", name, line, col, FileFormat, typ.Value)
		}
		return fmt.Errorf("policy %s:%d:%d: field %q: want %s, found %s", name, line, col, typ.Field, jsonpos.Kind(typ.Type), typ.Value)
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		// Decode gives no place: the key's first appearance is its own.
		where := name
		if unq, err := strconv.Unquote(key); err == nil {
			if i := bytes.Index(data, []byte(strconv.Quote(unq))); i >= 0 {
				line, col := jsonpos.LineCol(data, int64(i))
				where = fmt.Sprintf("%s:%d:%d", name, line, col)
			}
		}
		return fmt.Errorf("policy %s: unknown field %s (allowed: format, kind, features, actions, hidden, params)", where, key)
	}
	return fmt.Errorf("policy %s: %w", name, err)
}

// Load reads a policy file written by Save. name (usually the file's path)
// is used in error messages. Loading is strict: an unknown format or kind,
// unknown or missing fields, features or actions that differ (in name,
// order or count) from this build's, a hidden width that does not fit the
// kind, params of the wrong length, and null or non-finite params are all
// errors naming the file and the field; JSON that does not decode, or a
// value of the wrong type, names the line and column too (decodeError).
// The features may end before the kind features (see Save); their
// weights are then 0.
func Load(r io.Reader, name string) (Softmax, error) {
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("policy %s: field %q: %s", name, field, fmt.Sprintf(format, args...))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	var f policyFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(name, data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("policy %s: data after the JSON object", name)
	}
	if f.Format != FileFormat {
		return nil, fail("format", "%q, want %q", f.Format, FileFormat)
	}
	if f.Kind != "linear" && f.Kind != "mlp" {
		return nil, fail("kind", "unknown %q (allowed: linear, mlp)", f.Kind)
	}
	width := NumFeatures
	if len(f.Features) == numBase {
		width = numBase // a file without the kind features
	}
	if err := sameNames(f.Features, featureNames[:width]); err != "" {
		return nil, fail("features", "%s", err)
	}
	if err := sameNames(f.Actions, actionNames()); err != "" {
		return nil, fail("actions", "%s", err)
	}
	if f.Hidden == nil {
		return nil, fail("hidden", "missing")
	}
	var p Softmax
	switch hidden := *f.Hidden; {
	case f.Kind == "linear" && hidden != 0:
		return nil, fail("hidden", "%d, want 0 for a linear policy", hidden)
	case f.Kind == "linear":
		p = NewLinear()
	case hidden < 1 || hidden > MaxHidden:
		return nil, fail("hidden", "%d, want 1 to %d for an mlp policy", hidden, MaxHidden)
	default:
		p = newMLP(hidden)
	}
	l, _ := layoutOf(p) // p is *Linear or *MLP
	params := p.Params()
	if want := len(params) - l.featureRows*(NumFeatures-width); len(f.Params) != want {
		return nil, fail("params", "%d values, want %d for this %s policy with %d features", len(f.Params), want, f.Kind, width)
	}
	i := 0
	for _, row := range l.rows(params, width) {
		for k := range row {
			v := f.Params[i]
			switch {
			case v == nil:
				return nil, fail("params", "[%d] is null", i)
			case math.IsNaN(*v) || math.IsInf(*v, 0):
				return nil, fail("params", "[%d] is %v", i, *v)
			}
			row[k] = *v
			i++
		}
	}
	return p, nil
}

// actionNames returns the names of the actions, in order.
func actionNames() []string {
	names := make([]string, c.NumActions)
	for a := range c.Action(c.NumActions) {
		names[a] = a.String()
	}
	return names
}

// sameNames describes how got differs from want, or returns "".
func sameNames(got, want []string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d names, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("[%d] is %q, want %q", i, got[i], want[i])
		}
	}
	return ""
}
