package otel

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/swarmsim/swarmsim/internal/jsonpos"
)

// Format names the JSON form a span was read from.
type Format string

// The forms Read understands.
const (
	OTLP   Format = "otlp"   // OTLP/JSON (resourceSpans)
	Python Format = "python" // the OpenTelemetry Python SDK's span JSON
)

// Span is one span, whatever form it came from.
type Span struct {
	// TraceID and SpanID are lower-case hex (32 and 16 digits); ParentID
	// is the parent's SpanID, empty for a root.
	TraceID, SpanID, ParentID string
	Name                      string
	// Start and End are Unix nanoseconds, not negative; End is
	// meaningful only when HasEnd.
	Start, End int64
	HasEnd     bool
	// Attrs holds the span's attributes: string, int64, float64, bool or
	// []any of those. It is empty (possibly nil) for a span without any.
	Attrs map[string]any
	// Format is the form the span was read from.
	Format Format
	// Line is the line of its file the span's JSON object starts on
	// (1 for the first), for errors and reports that point at it; 0 for
	// a span not read from a file.
	Line int
}

// Duration returns End - Start in seconds, and false when the span has
// no end or ends before it starts.
func (s *Span) Duration() (float64, bool) {
	if !s.HasEnd || s.End < s.Start {
		return 0, false
	}
	return float64(s.End-s.Start) / 1e9, true
}

// Int returns the integer attribute key (an int64, or a float64 or string
// holding a whole number, as some exporters write counts) and whether it
// is there.
func (s *Span) Int(key string) (int64, bool) {
	switch v := s.Attrs[key].(type) {
	case int64:
		return v, true
	case float64:
		if v == float64(int64(v)) {
			return int64(v), true
		}
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// String returns the string attribute key, or "" when it is absent or not
// a string.
func (s *Span) String(key string) string {
	v, _ := s.Attrs[key].(string)
	return v
}

// Bool returns the boolean attribute key (a bool, or the strings "true"
// and "false") and whether it is there.
func (s *Span) Bool(key string) (value, ok bool) {
	switch v := s.Attrs[key].(type) {
	case bool:
		return v, true
	case string:
		b, err := strconv.ParseBool(v)
		return b, err == nil
	}
	return false, false
}

// ErrNotSpans is wrapped by the error of a document in neither form.
var ErrNotSpans = errors.New("not OpenTelemetry span JSON")

// Read reads every span of the JSON document (or sequence of documents,
// one per line as the Collector writes them) in r, past a UTF-8
// byte-order mark at its start, which some editors and Windows tools
// write and encoding/json does not read; UTF-16 text is an error that
// says to save it as UTF-8. name names the source in errors.
func Read(r io.Reader, name string) ([]Span, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if utf16(data) {
		return nil, fmt.Errorf("%s: the file looks like UTF-16 text (it starts with a UTF-16 byte-order mark or a zero byte): save it as UTF-8, which JSON must be", name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var spans []Span
	// seen maps each trace and span ID read to the span and where it was
	// read: a span ID twice in one trace would merge two spans (or two
	// runs, of exports concatenated, whose IDs restart) into one tree.
	// The same span twice in one document is a recorder's repeat, read
	// as it is.
	seen := map[[2]string]spanPlace{}
	newlines := lineStarts(data)
	for doc := 1; ; doc++ {
		start := dec.InputOffset()
		start += int64(len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n")))
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			if doc == 1 {
				return nil, fmt.Errorf("%s: empty file: %w", name, ErrNotSpans)
			}
			return spans, nil
		}
		if err != nil {
			return nil, syntaxError(name, data, err)
		}
		where := name
		if doc > 1 {
			where = fmt.Sprintf("%s: document %d", name, doc)
		}
		// The document is read again, valid now, for the line each
		// object starts on, which Decode does not keep.
		v, lines := decodeLines(data, start, dec.InputOffset(), newlines)
		got, err := readDoc(v, lines)
		if err != nil {
			var le *lineError
			if errors.As(err, &le) {
				return nil, fmt.Errorf("%s:%d: %w", name, le.line, err)
			}
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for _, s := range got {
			key := [2]string{s.TraceID, s.SpanID}
			first, dup := seen[key]
			if dup && first.doc == doc && sameSpan(*first.span, s) {
				// any-agent's OpenAI recorder writes some tool spans twice
				// over in one file, identical: one span, recorded twice,
				// read as before.
				continue
			}
			if dup {
				at := fmt.Sprintf("on line %d", first.span.Line)
				if first.doc != doc {
					at += fmt.Sprintf(" (document %d)", first.doc)
				}
				return nil, fmt.Errorf("%s:%d: span %q: span ID %s of trace %s is that of span %q %s: a trace holds each span once (are two exports, whose IDs restart, concatenated, or a line repeated?)",
					name, s.Line, s.Name, s.SpanID, cmp.Or(s.TraceID, "(none)"), first.span.Name, at)
			}
			seen[key] = spanPlace{doc, &s}
		}
		spans = append(spans, got...)
	}
}

// sameSpan reports whether a and b are one span written twice over: equal
// but for the lines they start on.
func sameSpan(a, b Span) bool {
	a.Line = b.Line
	return reflect.DeepEqual(a, b)
}

// lineError is the error of a span, whose object starts on line: Read
// names the file and that line before it.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// atLine returns err as the error of the object m, which starts on the
// line lines gives for it (none, when lines knows no line).
func atLine(lines objectLines, m map[string]any, err error) error {
	if l := lines.of(m); l > 0 {
		return &lineError{l, err}
	}
	return err
}

// objectLines maps each object of a decoded document, by its map, to the
// line it starts on.
type objectLines map[unsafe.Pointer]int

// of returns the line the object m starts on, or 0 when unknown.
func (l objectLines) of(m map[string]any) int { return l[reflect.ValueOf(m).UnsafePointer()] }

// lineStarts returns the offsets of the newlines in data, in order.
func lineStarts(data []byte) []int64 {
	var out []int64
	for i, b := range data {
		if b == '\n' {
			out = append(out, int64(i))
		}
	}
	return out
}

// decodeLines decodes data[start:end], one JSON value that Decode has
// read without error, as Decode with UseNumber does, and returns it with
// the line each object in it starts on; newlines are data's
// (lineStarts).
func decodeLines(data []byte, start, end int64, newlines []int64) (any, objectLines) {
	dec := json.NewDecoder(bytes.NewReader(data[start:end]))
	dec.UseNumber()
	lines := objectLines{}
	var value func() any
	value = func() any {
		tok, err := dec.Token()
		if err != nil {
			return nil // not reached: Decode read the value
		}
		switch tok {
		case json.Delim('{'):
			off := start + dec.InputOffset() - 1
			m := map[string]any{}
			for dec.More() {
				k, _ := dec.Token()
				key, _ := k.(string)
				m[key] = value()
			}
			dec.Token() // }
			// The newlines before off end the lines before its own.
			before, _ := slices.BinarySearch(newlines, off)
			lines[reflect.ValueOf(m).UnsafePointer()] = 1 + before
			return m
		case json.Delim('['):
			arr := []any{}
			for dec.More() {
				arr = append(arr, value())
			}
			dec.Token() // ]
			return arr
		}
		return tok
	}
	return value(), lines
}

// utf16 reports whether data starts as UTF-16 text does: with the
// byte-order mark FF FE or FE FF (what Windows tools write, PowerShell's
// > among them), or with a zero byte in its first two, the other half of
// an ASCII character. Decoded as UTF-8 it would fail on "invalid
// character 'ÿ'", which says nothing of the cause.
func utf16(data []byte) bool {
	return bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) ||
		len(data) >= 2 && (data[0] == 0 || data[1] == 0)
}

// spanPlace is a span read and the document it was read from.
type spanPlace struct {
	doc  int
	span *Span
}

// syntaxError turns a JSON decoding error of the file name into
// "NAME:LINE:COL: invalid JSON: ...", the place as editors and compilers
// write it.
func syntaxError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the bad one included: the bad
		// byte is the one before it.
		off = max(se.Offset-1, 0)
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		// The decoder says no more than "unexpected EOF": the place is the
		// end of the file, which was cut short.
		line, col := jsonpos.LineCol(data, int64(len(data)))
		return fmt.Errorf("%s:%d:%d: invalid JSON: the file ends inside a value (cut short?)", name, line, col)
	}
	if off < 0 || off > int64(len(data)) {
		return fmt.Errorf("%s: invalid JSON: %v", name, err)
	}
	line, col := jsonpos.LineCol(data, off)
	return fmt.Errorf("%s:%d:%d: invalid JSON: %v", name, line, col, err)
}

// readDoc reads one top-level JSON value of either form; lines gives the
// line each object in it starts on, which its spans keep and their
// errors name.
func readDoc(v any, lines objectLines) ([]Span, error) {
	switch d := v.(type) {
	case map[string]any:
		if rs, ok := d["resourceSpans"]; ok {
			return readOTLP(rs, lines)
		}
		if ss, ok := d["spans"]; ok {
			return readPythonList(ss, "spans", lines)
		}
		if _, ok := d["context"]; ok {
			s, err := readPython(d)
			if err != nil {
				return nil, atLine(lines, d, err)
			}
			s.Line = lines.of(d)
			return []Span{s}, nil
		}
	case []any:
		if len(d) == 0 {
			return nil, nil
		}
		if first, ok := d[0].(map[string]any); ok {
			if _, ok := first["context"]; ok {
				return readPythonList(d, "", lines)
			}
			if _, ok := first["resourceSpans"]; ok {
				var out []Span
				for i, e := range d {
					m, ok := e.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("element %d: want an object, got %s", i, kind(e))
					}
					got, err := readOTLP(m["resourceSpans"], lines)
					if err != nil {
						return nil, fmt.Errorf("element %d: %w", i, err)
					}
					out = append(out, got...)
				}
				return out, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: want an OTLP/JSON object with \"resourceSpans\", or OpenTelemetry Python SDK span JSON (a span with \"context\", an array of spans, or an object with \"spans\"); got %s", ErrNotSpans, describe(v))
}

// describe says what a top-level value is, for the error of a file in
// neither form.
func describe(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return kind(v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(k))
	}
	slices.Sort(keys)
	if len(keys) > 5 {
		keys = append(keys[:5], "...")
	}
	return fmt.Sprintf("an object with keys %v", keys)
}

// kind names a decoded JSON value's type.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
