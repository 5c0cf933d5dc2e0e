package scenarios

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/sim"
)

// mergeKeyMsg refuses a merge key. A merge is a second way of giving a key,
// which the strict decoder would have to place and check apart; an alias
// of a whole value needs neither, so the message points to it.
const mergeKeyMsg = "merge keys (<<) are not supported: write the keys out (an alias such as *NAME may stand for a whole value)"

// The decoder binds a YAML syntax tree to Go values through their yaml
// struct tags, strictly: unknown keys, wrong types and non-finite numbers
// are errors that name the position, the field path and what is allowed.
// It is used instead of a generic decoder so that every message can say
// what is allowed, and so that overrides (`set:` and --set) go through
// exactly the same rules as the file.

// Limits that keep hostile input (deep nesting, alias bombs) cheap.
const (
	maxDepth = 64
	maxNodes = 100_000
)

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType            = reflect.TypeFor[sim.Time]()
	distType            = reflect.TypeFor[sim.Dist]()
	setListType         = reflect.TypeFor[setList]()
	gridListType        = reflect.TypeFor[gridList]()
	randomListType      = reflect.TypeFor[randomList]()
)

type decoder struct {
	source  string
	text    []byte // source's, for the snippets of errors (nil for a --set)
	anchors map[string]ast.Node
	// noPos drops positions: the syntax tree of a --set value has none
	// worth reporting.
	noPos   bool
	budget  int
	blown   bool
	errs    errList
	variant string // set on errors, when decoding a variant's override
	// rebaseTo, when set, is the scenario's folder: file paths given on
	// the command line are rewritten relative to it (see isFilePath).
	rebaseTo string
}

func newDecoder(source string, text []byte, anchors map[string]ast.Node) *decoder {
	return &decoder{source: source, text: text, anchors: anchors, budget: maxNodes}
}

func (d *decoder) fail(tk *token.Token, path, format string, args ...any) {
	if d.noPos {
		tk = nil
	}
	if r := []rune(path); len(r) > 160 {
		path = string(r[:80]) + "…" + string(r[len(r)-60:])
	}
	e := newError(d.source, d.text, tk, path, format, args...)
	e.Variant = d.variant
	d.errs.add(e)
}

// collectAnchors maps every anchor name in n to its value.
func collectAnchors(n ast.Node, into map[string]ast.Node) {
	if n == nil {
		return
	}
	ast.Walk(visitFunc(func(n ast.Node) bool {
		if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
			into[a.Name.GetToken().Value] = a.Value
		}
		return true
	}), n)
}

type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if n == nil || !f(n) {
		return nil
	}
	return f
}

// resolve looks through anchors, aliases and tags to the node that holds
// the value. An alias to an unknown anchor is returned as is.
func (d *decoder) resolve(n ast.Node) ast.Node {
	for range maxDepth {
		switch t := n.(type) {
		case *ast.AnchorNode:
			n = t.Value
		case *ast.AliasNode:
			if t.Value == nil {
				return n
			}
			target, ok := d.anchors[t.Value.GetToken().Value]
			if !ok || target == nil {
				return n
			}
			n = target
		case *ast.TagNode:
			if t.Value == nil {
				return ast.Null(t.GetToken())
			}
			n = t.Value
		default:
			return n
		}
	}
	return n
}

// posTok is the token that best places node n: the first key of a mapping,
// the start of anything else.
func posTok(n ast.Node) *token.Token {
	switch t := n.(type) {
	case nil:
		return nil
	case *ast.MappingNode:
		if len(t.Values) > 0 && t.Values[0].Key != nil {
			return t.Values[0].Key.GetToken()
		}
		return t.Start
	case *ast.MappingValueNode:
		if t.Key != nil {
			return t.Key.GetToken()
		}
	case *ast.SequenceNode:
		return t.Start
	case *ast.AnchorNode:
		return t.Start
	case *ast.AliasNode:
		return t.Start
	case *ast.TagNode:
		return t.Start
	}
	return n.GetToken()
}

// mappingValues returns the entries of a mapping node, or ok = false.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch t := n.(type) {
	case *ast.MappingNode:
		return t.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{t}, true
	}
	return nil, false
}

// keyText returns the text of a mapping key.
func keyText(k ast.MapKeyNode) string {
	switch t := k.(type) {
	case nil:
		return ""
	case *ast.StringNode:
		return t.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// setsNothingMsg refuses an override that names no key (setsNothing).
const setsNothingMsg = "sets nothing: a mapping sets only the keys it names, and this one names none; give the keys to set, such as collective.check={cost: 0.5}, or remove it"

// setsNothing returns why n, an override's value for a field of type t
// (a --set value or a variant's set: entry), would change nothing, or "":
// null or an empty mapping for a keyed field, merged into it; null for a
// list, which keeps the list there is (an empty list, [], leaves the
// field out); and null or an empty mapping for the axes of a sweep
// (sweep.grid, sweep.random), which it would replace: null kept the axes
// there were, and an empty mapping dropped them all.
func (d *decoder) setsNothing(n ast.Node, t reflect.Type) string {
	n = d.resolve(n)
	m, isMap := n.(*ast.MappingNode)
	none := isNull(n) || isMap && len(m.Values) == 0
	switch {
	case keyed(t) && none:
		return setsNothingMsg
	case (t == gridListType || t == randomListType) && none:
		return "sets no axis: a --set of it replaces the whole list of axes, and this one names none; give the axes to sweep, such as sweep.grid={reward.latency: [0, 1]}, or remove it"
	case t.Kind() == reflect.Slice && t != setListType && isNull(n):
		return "sets nothing: null keeps the list there is; give a list, or [] to leave the field out"
	}
	return ""
}

// nothingSet returns the path and setsNothing's reason of the first value
// in n, an override's value for a field of type t at path, that would
// change nothing: n itself, or a value of a key it names, at any depth
// ('collective={check: null}' as 'collective.check=null'); "" for none.
func (d *decoder) nothingSet(n ast.Node, t reflect.Type, path string) (at, msg string) {
	if msg := d.setsNothing(n, t); msg != "" {
		return path, msg
	}
	values, ok := mappingValues(d.resolve(n))
	if !keyed(t) || !ok {
		return "", ""
	}
	for _, mv := range values {
		f, ok := lookupField(fieldsOf(t), keyText(mv.Key))
		if !ok {
			continue // decode reports the key
		}
		if at, msg := d.nothingSet(mv.Value, t.FieldByIndex(f.index).Type, joinPath(path, f.name)); msg != "" {
			return at, msg
		}
	}
	return "", ""
}

func isNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// field is one settable struct field, reached through inlined structs.
type field struct {
	name  string
	index []int
}

// fieldCache holds fieldsOf's lists by struct type: a parse looks the same
// few types up for every mapping it decodes, every inert rule and every
// --set path, and reflecting on a struct's tags each time cost a
// one-iteration training's process a fifth of its instructions.
var fieldCache sync.Map // reflect.Type → []field

// fieldsOf lists the yaml fields of struct type t, in declaration order,
// flattening inlined and embedded structs. The list is shared: callers
// must not change it.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	fs, _ := fieldCache.LoadOrStore(t, structFields(t))
	return fs.([]field)
}

// structFields is fieldsOf without the cache.
func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if (f.Anonymous && name == "") || hasOpt(opts, "inline") {
			if f.Type.Kind() == reflect.Struct {
				for _, sub := range fieldsOf(f.Type) {
					out = append(out, field{sub.name, append([]int{i}, sub.index...)})
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{name, []int{i}})
	}
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// omitEmpty reports whether the field at index of struct type t has the
// omitempty option.
func omitEmpty(t reflect.Type, index []int) bool {
	f := t.FieldByIndex(index)
	_, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return hasOpt(opts, "omitempty")
}

func lookupField(fields []field, name string) (field, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

func fieldNames(fields []field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// distHint suggests, for a distribution of an unknown name, the nearest
// known one; "" for any other error.
func distHint(err error) string {
	var u *sim.UnknownDistError
	if !errors.As(err, &u) {
		return ""
	}
	return spelling.DidYouMean(u.Name, sim.DistNames())
}

// unknownKey phrases the error for a key that is not among allowed.
func unknownKey(key string, allowed []string) string {
	return fmt.Sprintf("unknown key (allowed: %s)%s", strings.Join(allowed, ", "), spelling.DidYouMean(key, allowed))
}

// nestedFields returns the paths, relative to struct type t, of the
// fields named key in the structs that t's fields hold, up to depth
// levels down.
func nestedFields(t reflect.Type, key string, depth int) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		ft := t.FieldByIndex(f.index).Type
		if ft.Kind() != reflect.Struct || depth == 0 {
			continue
		}
		if _, ok := lookupField(fieldsOf(ft), key); ok {
			out = append(out, f.name+"."+key)
		}
		for _, p := range nestedFields(ft, key, depth-1) {
			if !slices.Contains(out, f.name+"."+p) {
				out = append(out, f.name+"."+p)
			}
		}
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describe says in words what a value of type t looks like.
func describe(t reflect.Type) string {
	switch t {
	case timeType:
		return "a duration such as 90s, 12m or 1h30m"
	case distType:
		return "a distribution such as 0.3, 5m, exp(5m), uniform(0.2, 0.6) or lognormal(mean=10m, cv=0.5)"
	case setListType:
		return "a mapping of field paths to values, such as {collective.agents: 8}"
	case gridListType:
		return "a mapping of field paths to lists of values, such as {reward.latency: [0, 0.5, 1]}"
	case randomListType:
		return "a mapping of field paths to distributions, such as {train.lr: uniform(0.02, 0.2)}"
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Struct:
		return "a mapping (allowed keys: " + strings.Join(fieldNames(fieldsOf(t)), ", ") + ")"
	case reflect.Slice:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// nodeKind says in words what node n holds.
func nodeKind(n ast.Node) string {
	switch t := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.IntegerNode:
		return "the integer " + t.GetToken().Value
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "the number " + t.GetToken().Value
	case *ast.BoolNode:
		return "the boolean " + t.GetToken().Value
	case *ast.StringNode:
		// A file that is not YAML reads as one long string: the error
		// quotes its start, not the whole file.
		if r := []rune(t.Value); len(r) > 80 {
			return strconv.Quote(string(r[:60])+"…") + fmt.Sprintf(" (text of %d characters)", len(r))
		}
		return strconv.Quote(t.Value)
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.AliasNode:
		return "an alias to an unknown anchor"
	}
	return "a " + n.Type().YAMLName()
}

// scalarText returns the text of a scalar node as written (for numbers)
// or as decoded (for strings).
func scalarText(n ast.Node) (string, bool) {
	switch t := n.(type) {
	case *ast.StringNode:
		return t.Value, true
	case *ast.LiteralNode:
		if t.Value == nil {
			return "", true
		}
		return t.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return t.GetToken().Value, true
	}
	return "", false
}

// quotedHint says, for a quoted string whose text without the quotes is
// a value of kind t ("true", "4", "0.5"), that the quotes make it a
// string; "" otherwise.
func quotedHint(n ast.Node, t reflect.Type) string {
	s, ok := n.(*ast.StringNode)
	if !ok || isPlain(s) {
		return ""
	}
	var err error
	switch t.Kind() {
	case reflect.Bool:
		_, err = strconv.ParseBool(s.Value)
		if s.Value != "true" && s.Value != "false" {
			return "" // ParseBool takes 1, T and others that YAML does not
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// Only a whole number written as one: "0.5" or "1e3" unquoted
		// would be refused again, as no integer.
		if !intForm.MatchString(s.Value) {
			return ""
		}
	case reflect.Float32, reflect.Float64:
		// Only a finite number in decimal: ParseFloat also reads "inf",
		// "NaN", hex and underscores, which this field refuses unquoted.
		var f float64
		f, err = strconv.ParseFloat(s.Value, 64)
		if !decimalForm.MatchString(s.Value) || math.IsInf(f, 0) {
			return ""
		}
	default:
		return ""
	}
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (the quotes make it a string: write %s without them)", s.Value)
}

// decimalForm is a number in decimal, with a fraction or an exponent or
// neither.
var decimalForm = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// intForm is a whole number in decimal, the form of a plain string that
// the YAML reader leaves unread as an integer when it is too large.
var intForm = regexp.MustCompile(`^[-+]?[0-9]+$`)

// outOfRange says, for a plain whole number too large (or small) for an
// integer of kind t, what the range is; "" otherwise.
func outOfRange(n ast.Node, t reflect.Type) string {
	s, ok := n.(*ast.StringNode)
	if !ok || !isPlain(s) || !intForm.MatchString(s.Value) {
		return ""
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return intRange(s.Value, t)
	}
	return ""
}

// intRange says that the whole number text is out of the range of an
// integer of kind t, and what that range is.
func intRange(text string, t reflect.Type) string {
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
		return fmt.Sprintf("%s is out of range for a non-negative integer (0 to %d)", text, uint64(math.MaxUint64)>>(64-t.Bits()))
	}
	top := int64(math.MaxInt64) >> (64 - t.Bits())
	return fmt.Sprintf("%s is out of range for an integer (%d to %d)", text, -top-1, top)
}

// isPlain reports whether a string node was written without quotes.
func isPlain(n *ast.StringNode) bool {
	tk := n.GetToken()
	return tk == nil || tk.Type == token.StringType
}

// leadingZero reports whether an integer literal is written with a
// leading zero, as in 010. YAML 1.1 reads that as octal and YAML 1.2 as
// decimal; the reader here does the former, so a seed or an episode count
// copied with padding would silently be another number.
func leadingZero(lit string) bool {
	lit = strings.TrimLeft(lit, "+-")
	return len(lit) > 1 && lit[0] == '0' && '0' <= lit[1] && lit[1] <= '9'
}

// decode stores the value of node n into v, which must be settable. path
// names the field in messages and at is where errors are placed (the key
// of the field, so that errors point at the line that names it).
func (d *decoder) decode(n ast.Node, v reflect.Value, path string, at *token.Token, depth int) {
	if d.budget--; d.budget < 0 {
		if !d.blown {
			d.blown = true
			d.fail(at, path, "the document is too large (more than %d values after expanding aliases)", maxNodes)
		}
		return
	}
	if depth > maxDepth {
		d.fail(at, path, "nested too deeply (more than %d levels)", maxDepth)
		return
	}
	n = d.resolve(n)
	if at == nil {
		at = posTok(n)
	}
	t := v.Type()
	if a, ok := n.(*ast.AliasNode); ok {
		name := ""
		if a.Value != nil {
			name = a.Value.GetToken().Value
		}
		d.fail(at, path, "alias *%s refers to no anchor", name)
		return
	}
	if _, ok := n.(*ast.MergeKeyNode); ok {
		d.fail(at, path, mergeKeyMsg)
		return
	}
	if i, ok := n.(*ast.IntegerNode); ok {
		if lit := i.GetToken().Value; leadingZero(lit) {
			digits := strings.TrimLeft(strings.TrimLeft(lit, "+-"), "0")
			if digits == "" {
				digits = "0"
			}
			d.fail(at, path, "%s has a leading zero, which this YAML reader takes for octal (%v); write %s for decimal, or 0o%s for octal", lit, i.Value, digits, digits)
			return
		}
	}
	switch {
	case t == setListType || t == gridListType || t == randomListType:
		d.decodeSet(n, v, path, at)
		return
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		d.decodeText(n, v, path, at)
		return
	}
	if isNull(n) {
		switch t.Kind() {
		case reflect.Struct, reflect.Slice:
			return // an empty section keeps what is there
		}
		d.fail(at, path, "missing value (want %s)", describe(t))
		return
	}
	wrong := func() {
		if msg := outOfRange(n, t); msg != "" {
			d.fail(at, path, "%s", msg)
			return
		}
		d.fail(at, path, "got %s, want %s%s", nodeKind(n), describe(t), quotedHint(n, t))
	}
	switch t.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path, at, depth)
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			wrong()
			return
		}
		s := reflect.MakeSlice(t, 0, len(seq.Values))
		for i, e := range seq.Values {
			elem := reflect.New(t.Elem()).Elem()
			d.decode(e, elem, fmt.Sprintf("%s[%d]", path, i), posTok(d.resolve(e)), depth+1)
			s = reflect.Append(s, elem)
		}
		if s.Len() == 0 {
			s = reflect.Zero(t) // an empty list is the same as none
		}
		v.Set(s)
	case reflect.String:
		s, ok := scalarText(n)
		switch n.(type) {
		case *ast.StringNode, *ast.LiteralNode:
			v.SetString(d.filePath(path, s))
		default:
			if ok {
				d.fail(at, path, "got %s, want a string (quote it: %q)", nodeKind(n), s)
			} else {
				wrong()
			}
		}
	case reflect.Bool:
		b, ok := n.(*ast.BoolNode)
		if !ok {
			wrong()
			return
		}
		v.SetBool(b.Value)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := n.(*ast.IntegerNode)
		if !ok {
			wrong()
			return
		}
		var x int64
		switch val := i.Value.(type) {
		case int64:
			x = val
		case uint64:
			if val > math.MaxInt64 {
				d.fail(at, path, "%s", intRange(i.GetToken().Value, t))
				return
			}
			x = int64(val)
		default:
			wrong()
			return
		}
		if v.OverflowInt(x) {
			d.fail(at, path, "%s", intRange(i.GetToken().Value, t))
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, ok := n.(*ast.IntegerNode)
		if !ok {
			wrong()
			return
		}
		var x uint64
		switch val := i.Value.(type) {
		case int64:
			if val < 0 {
				d.fail(at, path, "%d is negative (want %s)", val, describe(t))
				return
			}
			x = uint64(val)
		case uint64:
			x = val
		default:
			wrong()
			return
		}
		if v.OverflowUint(x) {
			d.fail(at, path, "%s", intRange(i.GetToken().Value, t))
			return
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		var x float64
		switch num := n.(type) {
		case *ast.IntegerNode:
			switch val := num.Value.(type) {
			case int64:
				x = float64(val)
			case uint64:
				x = float64(val)
			}
		case *ast.FloatNode:
			x = num.Value
		case *ast.StringNode:
			// The YAML lexer reads some numbers (1e-7, 1e+21) as plain
			// strings; accept those, not quoted ones.
			f, err := strconv.ParseFloat(num.Value, 64)
			if !isPlain(num) || err != nil {
				wrong()
				return
			}
			x = f
		case *ast.InfinityNode, *ast.NanNode:
			x = math.NaN()
		default:
			wrong()
			return
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || v.OverflowFloat(x) {
			d.fail(at, path, "%s is not a finite number", n.GetToken().Value)
			return
		}
		v.SetFloat(x)
	default:
		d.fail(at, path, "cannot decode a field of type %s", t)
	}
}

// filePath returns s, rebased onto the scenario's folder when the decoder
// reads command-line values and path names a file.
func (d *decoder) filePath(path, s string) string {
	if d.rebaseTo != "" && isFilePath(path) {
		return rebase(d.rebaseTo, s)
	}
	return s
}

// decodeText decodes a scalar through the type's UnmarshalText.
func (d *decoder) decodeText(n ast.Node, v reflect.Value, path string, at *token.Token) {
	t := v.Type()
	if isNull(n) {
		d.fail(at, path, "missing value (want %s)", describe(t))
		return
	}
	s, ok := scalarText(n)
	if !ok {
		d.fail(at, path, "got %s, want %s", nodeKind(n), describe(t))
		return
	}
	// Decode into a fresh value, so that a failure leaves v unchanged.
	nv := reflect.New(t)
	if err := nv.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		d.fail(at, path, "%v%s", err, distHint(err))
		return
	}
	v.Set(nv.Elem())
}

// decodeStruct decodes a mapping into struct v, key by key: keys that are
// absent keep their current value.
func (d *decoder) decodeStruct(n ast.Node, v reflect.Value, path string, at *token.Token, depth int) {
	entries, ok := mappingValues(n)
	if !ok {
		d.fail(at, path, "got %s, want %s", nodeKind(n), describe(v.Type()))
		return
	}
	fields := fieldsOf(v.Type())
	for _, kv := range entries {
		if kv.Key == nil {
			continue
		}
		ktok := kv.Key.GetToken()
		if kv.Key.IsMergeKey() {
			d.fail(ktok, path, mergeKeyMsg)
			continue
		}
		key := keyText(kv.Key)
		f, ok := lookupField(fields, key)
		if !ok {
			// A key indented one level too little (coupling beside task
			// instead of in it) is a field of a section here.
			d.fail(ktok, joinPath(path, key), "%s", unknownKey(key, fieldNames(fields))+missingSection(v.Type(), fields, path, key, "a key indented too little?"))
			continue
		}
		d.decode(kv.Value, v.FieldByIndex(f.index), joinPath(path, key), ktok, depth+1)
	}
}

// setEntry is one override: a field path and the YAML value to store
// there.
type setEntry struct {
	Path  string
	Value ast.Node
	key   *token.Token
}

// setList is the `set:` mapping of a variant, in file order.
type setList []setEntry

func (d *decoder) decodeSet(n ast.Node, v reflect.Value, path string, at *token.Token) {
	if isNull(n) {
		return
	}
	entries, ok := mappingValues(n)
	if !ok {
		d.fail(at, path, "got %s, want %s", nodeKind(n), describe(v.Type()))
		return
	}
	list := make(setList, 0, len(entries))
	for _, kv := range entries {
		if kv.Key == nil {
			continue
		}
		if kv.Key.IsMergeKey() {
			d.fail(kv.Key.GetToken(), path, mergeKeyMsg)
			continue
		}
		list = append(list, setEntry{Path: keyText(kv.Key), Value: kv.Value, key: kv.Key.GetToken()})
	}
	v.Set(reflect.ValueOf(list).Convert(v.Type()))
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
