// Package jsonpos places what encoding/json reports in the text it read,
// for errors that name a file's line and column: the position of a byte
// offset (a SyntaxError's or an UnmarshalTypeError's), and the JSON form
// of the Go type a value failed to decode into.
package jsonpos
