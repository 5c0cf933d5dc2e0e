package otel

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// readOTLP reads the resourceSpans array of an OTLP/JSON export; lines
// gives the line each span's object starts on.
func readOTLP(v any, lines objectLines) ([]Span, error) {
	rss, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("resourceSpans: want an array, got %s", kind(v))
	}
	var out []Span
	for i, rs := range rss {
		rm, ok := rs.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("resourceSpans[%d]: want an object, got %s", i, kind(rs))
		}
		// Exporters before OTLP 0.15 wrote instrumentationLibrarySpans.
		scopes, key := rm["scopeSpans"], "scopeSpans"
		if scopes == nil {
			scopes, key = rm["instrumentationLibrarySpans"], "instrumentationLibrarySpans"
		}
		if scopes == nil {
			continue
		}
		sl, ok := scopes.([]any)
		if !ok {
			return nil, fmt.Errorf("resourceSpans[%d].%s: want an array, got %s", i, key, kind(scopes))
		}
		for j, sc := range sl {
			sm, ok := sc.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("resourceSpans[%d].%s[%d]: want an object, got %s", i, key, j, kind(sc))
			}
			spans, ok := sm["spans"].([]any)
			if !ok && sm["spans"] != nil {
				return nil, fmt.Errorf("resourceSpans[%d].%s[%d].spans: want an array, got %s", i, key, j, kind(sm["spans"]))
			}
			for k, sp := range spans {
				m, ok := sp.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("resourceSpans[%d].%s[%d].spans[%d]: want an object, got %s", i, key, j, k, kind(sp))
				}
				s, err := readOTLPSpan(m)
				if err != nil {
					return nil, atLine(lines, m, fmt.Errorf("resourceSpans[%d].%s[%d].spans[%d]: %w", i, key, j, k, err))
				}
				s.Line = lines.of(m)
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func readOTLPSpan(m map[string]any) (Span, error) {
	s := Span{Format: OTLP}
	var err error
	if s.Name, err = optString(m, "name"); err != nil {
		return s, err
	}
	for _, id := range []struct {
		key   string
		width int
		dst   *string
	}{{"traceId", 32, &s.TraceID}, {"spanId", 16, &s.SpanID}, {"parentSpanId", 16, &s.ParentID}} {
		if *id.dst, err = otlpID(m[id.key], id.width); err != nil {
			return s, spanErr(s.Name, id.key, "%v", err)
		}
	}
	if s.SpanID == "" {
		return s, spanErr(s.Name, "spanId", "missing")
	}
	var hasStart bool
	if s.Start, hasStart, err = otlpTime(m["startTimeUnixNano"]); err != nil {
		return s, spanErr(s.Name, "startTimeUnixNano", "%v", err)
	}
	if s.End, s.HasEnd, err = otlpTime(m["endTimeUnixNano"]); err != nil {
		return s, spanErr(s.Name, "endTimeUnixNano", "%v", err)
	}
	// A span that was never ended is exported with an end of 0.
	s.HasEnd = s.HasEnd && hasStart && s.End != 0
	if s.Attrs, err = otlpAttrs(m["attributes"]); err != nil {
		return s, spanErr(s.Name, "attributes", "%v", err)
	}
	return s, nil
}

// otlpID reads an ID in hex (the OTLP/JSON rule) or base64 (what generic
// protojson writes); absent or empty is "".
func otlpID(v any, width int) (string, error) {
	str, ok := v.(string)
	if v == nil || (ok && str == "") {
		return "", nil
	}
	if !ok {
		return "", fmt.Errorf("want a hex string, got %s", kind(v))
	}
	b, err := hex.DecodeString(str)
	if err != nil || len(b) != width/2 {
		b, err = base64.StdEncoding.DecodeString(str)
		if err != nil || len(b) != width/2 {
			return "", fmt.Errorf("%q is not %d hex digits (nor base64 of %d bytes)", str, width, width/2)
		}
	}
	h := hex.EncodeToString(b)
	if strings.Trim(h, "0") == "" {
		return "", nil
	}
	return h, nil
}

// otlpTime reads Unix nanoseconds written as a string of digits (the
// OTLP/JSON rule for 64-bit integers) or as a number.
func otlpTime(v any) (ns int64, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case string:
		ns, err = nanos(x)
	case json.Number:
		ns, err = nanos(string(x))
	default:
		return 0, false, fmt.Errorf("want a string of Unix nanoseconds, got %s", kind(v))
	}
	return ns, err == nil, err
}

// nanos parses a non-negative whole number of nanoseconds.
func nanos(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a whole, non-negative number of nanoseconds", s)
	}
	return n, nil
}

// otlpAttrs reads a list of OTLP key/value attributes.
func otlpAttrs(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of {key, value}, got %s", kind(v))
	}
	out := make(map[string]any, len(list))
	for i, e := range list {
		kv, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("[%d]: want an object {key, value}, got %s", i, kind(e))
		}
		key, ok := kv["key"].(string)
		if !ok {
			return nil, fmt.Errorf("[%d].key: want a string, got %s", i, kind(kv["key"]))
		}
		val, err := anyValue(kv["value"])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out[key] = val
	}
	return out, nil
}

// anyValue reads an OTLP AnyValue.
func anyValue(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an AnyValue object, got %s", kind(v))
	}
	if x, ok := m["stringValue"]; ok {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("stringValue: want a string, got %s", kind(x))
		}
		return s, nil
	}
	if x, ok := m["boolValue"]; ok {
		b, ok := x.(bool)
		if !ok {
			return nil, fmt.Errorf("boolValue: want a boolean, got %s", kind(x))
		}
		return b, nil
	}
	if x, ok := m["intValue"]; ok {
		var s string
		switch y := x.(type) {
		case string:
			s = y
		case json.Number:
			s = string(y)
		default:
			return nil, fmt.Errorf("intValue: want a string of digits, got %s", kind(x))
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("intValue: %q is not a 64-bit integer", s)
		}
		return n, nil
	}
	if x, ok := m["doubleValue"]; ok {
		switch y := x.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(y), 64)
			if err != nil {
				return nil, fmt.Errorf("doubleValue: %v", err)
			}
			return f, nil
		case string: // protojson writes NaN and the infinities as strings
			f, err := strconv.ParseFloat(y, 64)
			if err != nil {
				return nil, fmt.Errorf("doubleValue: %q is not a number", y)
			}
			return f, nil
		default:
			return nil, fmt.Errorf("doubleValue: want a number, got %s", kind(x))
		}
	}
	if x, ok := m["arrayValue"]; ok {
		am, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("arrayValue: want an object {values}, got %s", kind(x))
		}
		vals, ok := am["values"].([]any)
		if !ok && am["values"] != nil {
			return nil, fmt.Errorf("arrayValue.values: want an array, got %s", kind(am["values"]))
		}
		out := make([]any, len(vals))
		for i, e := range vals {
			var err error
			if out[i], err = anyValue(e); err != nil {
				return nil, fmt.Errorf("arrayValue.values[%d]: %w", i, err)
			}
		}
		return out, nil
	}
	// kvlistValue and bytesValue carry nothing the GenAI conventions put
	// in numbers or names; they are kept as absent.
	return nil, nil
}

// number converts a JSON number to int64 when it is a whole number that
// fits, else to float64.
func number(n json.Number) any {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return string(n)
	}
	return f
}
