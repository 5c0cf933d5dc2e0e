package jsonpos

import (
	"bytes"
	"reflect"
)

// LineCol returns the line and column, both from 1 and the column in
// bytes, of the byte at offset in data; an offset outside data is taken
// as its nearest end.
func LineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	return 1 + bytes.Count(before, []byte{'\n'}), int(offset) - bytes.LastIndexByte(before, '\n')
}

// Kind names the JSON form of a value of type t, as a message says what
// it wanted: "a number", "a string", "an array" or "an object".
func Kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return Kind(t.Elem())
	}
	return "an object"
}
