package jsonpos_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/internal/jsonpos"
)

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	for _, tc := range []struct {
		offset    int64
		line, col int
	}{
		{0, 1, 1},                // {
		{1, 1, 2},                // the first newline
		{2, 2, 1},                // the second line's first byte
		{9, 2, 8},                // 1
		{19, 3, 8},               // x
		{-5, 1, 1},               // before the start: the start
		{int64(len(data)), 4, 2}, // the end
		{1000, 4, 2},             // past the end: the end
	} {
		line, col := jsonpos.LineCol(data, tc.offset)
		assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{line, col}, "offset %d", tc.offset)
	}
}

func TestKind(t *testing.T) {
	var s *string
	for _, tc := range []struct {
		v    any
		want string
	}{
		{1.5, "a number"}, {3, "a number"}, {uint8(1), "a number"}, {"x", "a string"}, {true, "a boolean"},
		{[]int{}, "an array"}, {[2]int{}, "an array"}, {s, "a string"}, {struct{}{}, "an object"}, {map[string]int{}, "an object"},
	} {
		assert.Equal(t, tc.want, jsonpos.Kind(reflect.TypeOf(tc.v)), "%T", tc.v)
	}
}

func ExampleLineCol() {
	data := []byte("{\n  \"a\": x}")
	line, col := jsonpos.LineCol(data, 9) // the x
	fmt.Printf("%d:%d\n", line, col)
	// Output: 2:8
}
