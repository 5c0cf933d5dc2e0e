package otel

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
)

// readPythonList reads an array of Python SDK spans; field names the key
// it sits under, for errors, and lines gives the line each span's object
// starts on.
func readPythonList(v any, field string, lines objectLines) ([]Span, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of spans, got %s", field, kind(v))
	}
	out := make([]Span, 0, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("span %d: want an object, got %s", i, kind(e))
		}
		s, err := readPython(m)
		if err != nil {
			return nil, atLine(lines, m, fmt.Errorf("span %d: %w", i, err))
		}
		s.Line = lines.of(m)
		out = append(out, s)
	}
	return out, nil
}

// readPython reads one span as ReadableSpan.to_json writes it, or as
// any-agent records it (integer IDs and times, a "parent" context).
func readPython(m map[string]any) (Span, error) {
	s := Span{Format: Python}
	name, err := optString(m, "name")
	if err != nil {
		return s, err
	}
	s.Name = name
	ctx, ok := m["context"].(map[string]any)
	if !ok {
		return s, spanErr(name, "context", "want an object with trace_id and span_id, got %s", kind(m["context"]))
	}
	if s.TraceID, err = pyID(ctx["trace_id"], 32); err != nil {
		return s, spanErr(name, "context.trace_id", "%v", err)
	}
	if s.SpanID, err = pyID(ctx["span_id"], 16); err != nil {
		return s, spanErr(name, "context.span_id", "%v", err)
	}
	if s.SpanID == "" {
		return s, spanErr(name, "context.span_id", "missing")
	}
	switch p := m["parent"].(type) {
	case nil:
		if s.ParentID, err = pyID(m["parent_id"], 16); err != nil {
			return s, spanErr(name, "parent_id", "%v", err)
		}
	case map[string]any:
		if s.ParentID, err = pyID(p["span_id"], 16); err != nil {
			return s, spanErr(name, "parent.span_id", "%v", err)
		}
	default:
		return s, spanErr(name, "parent", "want an object or null, got %s", kind(p))
	}
	if s.Start, _, err = pyTime(m["start_time"]); err != nil {
		return s, spanErr(name, "start_time", "%v", err)
	}
	if s.End, s.HasEnd, err = pyTime(m["end_time"]); err != nil {
		return s, spanErr(name, "end_time", "%v", err)
	}
	switch a := m["attributes"].(type) {
	case nil:
	case map[string]any:
		s.Attrs = make(map[string]any, len(a))
		for k, v := range a {
			if s.Attrs[k], err = plainValue(v); err != nil {
				return s, spanErr(name, "attributes."+k, "%v", err)
			}
		}
	default:
		return s, spanErr(name, "attributes", "want an object, got %s", kind(a))
	}
	return s, nil
}

// spanErr is the error of one field of the span called name.
func spanErr(name, field, format string, args ...any) error {
	return fmt.Errorf("span %q: %s: %s", name, field, fmt.Sprintf(format, args...))
}

// optString returns m[key] when it is a string or absent.
func optString(m map[string]any, key string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("%s: want a string, got %s", key, kind(v))
	}
}

// pyID reads an ID written as "0x"-prefixed hex or as an integer, and
// returns it as hex of width digits; null or absent is "".
func pyID(v any, width int) (string, error) {
	var n big.Int
	switch x := v.(type) {
	case nil:
		return "", nil
	case json.Number:
		if _, ok := n.SetString(string(x), 10); !ok {
			return "", fmt.Errorf("%s is not a whole number", x)
		}
	case string:
		h := strings.TrimPrefix(strings.TrimPrefix(x, "0x"), "0X")
		if _, ok := n.SetString(h, 16); !ok || h == "" {
			return "", fmt.Errorf("%q is not hex", x)
		}
	default:
		return "", fmt.Errorf("want hex or an integer, got %s", kind(v))
	}
	if n.Sign() < 0 || n.BitLen() > 4*width {
		return "", fmt.Errorf("%s does not fit %d bits", n.String(), 4*width)
	}
	if n.Sign() == 0 {
		return "", nil // the SDK writes an invalid (all-zero) ID for "none"
	}
	return fmt.Sprintf("%0*x", width, &n), nil
}

// pyTime reads a time written as Unix nanoseconds (a number, or digits in
// a string) or as an RFC 3339 string; null or absent is no time.
func pyTime(v any) (ns int64, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case json.Number:
		ns, err = nanos(string(x))
		return ns, err == nil, err
	case string:
		if ns, err = nanos(x); err == nil {
			return ns, true, nil
		}
		t, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return 0, false, fmt.Errorf("%q is neither Unix nanoseconds nor an RFC 3339 time", x)
		}
		// UnixNano is undefined past 2262, and a time before 1970 would
		// be negative, which Unix nanoseconds as a number are not (and
		// differences of times could overflow).
		if t.Before(time.Unix(0, 0)) || t.After(time.Unix(0, math.MaxInt64)) {
			return 0, false, fmt.Errorf("%q is outside the times Unix nanoseconds hold (1970 to 2262)", x)
		}
		return t.UnixNano(), true, nil
	default:
		return 0, false, fmt.Errorf("want Unix nanoseconds or an RFC 3339 time, got %s", kind(v))
	}
}

// plainValue converts a decoded JSON attribute value to the types Span.Attrs
// holds.
func plainValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return x, nil
	case json.Number:
		return number(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = plainValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("want a string, number, boolean or array, got %s", kind(v))
	}
}
