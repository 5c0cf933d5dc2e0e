// Package fuzzseed cuts JSON files down to seeds for fuzz targets.
//
// The fuzzer minimizes each input that reaches new code, in time
// quadratic in its length. From whole trace files (18 and 26 kB) that
// took all of a 60 s run of the calibrate targets, in which 4 to 16
// inputs ran; cut, the same files seed runs of a hundred thousand.
package fuzzseed

import (
	"bytes"
	"encoding/json"
)

// JSON returns data, one JSON document or several (JSON Lines), with
// every list cut to its first n entries and at most n documents, each
// written compactly on a line of its own. Numbers are kept as written.
func JSON(data []byte, n int) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []byte
	for docs := 0; docs < n && dec.More(); docs++ {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return nil, err
		}
		line, err := json.Marshal(cut(doc, n))
		if err != nil {
			return nil, err
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}

// cut returns v with every list cut to its first n entries.
func cut(v any, n int) any {
	switch x := v.(type) {
	case []any:
		x = x[:min(len(x), n)]
		for i := range x {
			x[i] = cut(x[i], n)
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = cut(x[k], n)
		}
	}
	return v
}
