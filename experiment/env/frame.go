package env

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Protocol names the wire protocol Serve speaks; a client names it in its
// make request, and a change that an old client could misread changes it.
const Protocol = "swarmsim-env/2"

// The bounds of a message: a longer header, or payloads beyond
// MaxPayload in all, are a framing error.
const (
	MaxHeader  = 16 << 20
	MaxPayload = 1 << 30
)

// An Array describes one binary array of a message: its name, its dtype
// (u1, i4, f4 or f8, little-endian) and its shape, in C order.
type Array struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
	Shape []int  `json:"shape"`
}

// itemSizes are the bytes of an item of each dtype.
var itemSizes = map[string]int{"u1": 1, "i4": 4, "f4": 4, "f8": 8}

// size returns the bytes of the array's payload, or an error if its dtype
// or shape is not one the protocol has; i is its place in the header's
// arrays, which the error names, as the client's other errors name a field.
func (a *Array) size(i int) (int, error) {
	item, ok := itemSizes[a.Dtype]
	if !ok && a.Dtype == "" {
		return 0, fmt.Errorf("arrays[%d].dtype: missing (allowed: u1, i4, f4, f8)", i)
	}
	if !ok {
		hint := ""
		if a.Dtype == "i8" {
			hint = "; numpy's integers are i8 by default: send them as int32, as .astype(\"<i4\") makes them"
		}
		return 0, fmt.Errorf("arrays[%d].dtype: %q has dtype %q (allowed: u1, i4, f4, f8)%s", i, a.Name, a.Dtype, hint)
	}
	n := item
	for _, d := range a.Shape {
		if d < 0 || d > 0 && n > MaxPayload/d {
			return 0, fmt.Errorf("arrays[%d].shape: %q has shape %v (allowed: dimensions from 0, at most %d bytes in all)", i, a.Name, a.Shape, MaxPayload)
		}
		n *= d
	}
	return n, nil
}

// A Message is one frame: its JSON header and the payloads of the arrays
// the header lists, in order.
type Message struct {
	Header   json.RawMessage
	Arrays   []Array
	Payloads [][]byte
}

// FramingError is a message that cannot be read, so that the next one
// cannot be found: the server answers it and ends the session.
type FramingError struct{ Err error }

func (e *FramingError) Error() string { return "framing: " + e.Err.Error() }
func (e *FramingError) Unwrap() error { return e.Err }

// Reader reads messages from a stream, reusing its memory: a message is
// valid until the next Read.
type Reader struct {
	r       *bufio.Reader
	header  []byte
	payload []byte
	msg     Message
	// The last header parsed and its arrays: a client repeats one step
	// header at every step, which then costs no parsing.
	parsed       []byte
	parsedArrays []Array
}

// NewReader returns a Reader of r's messages.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Read returns the next message. At the end of the stream between
// messages it returns io.EOF; a message that breaks the framing, or that
// the stream ends inside (a client that died while writing it, or wrote
// fewer bytes than its lengths say), is a *FramingError.
func (r *Reader) Read() (*Message, error) {
	var n [4]byte
	if k, err := io.ReadFull(r.r, n[:]); err != nil {
		if k == 0 {
			return nil, err
		}
		return nil, truncated(err, k, "the 4 bytes of its length")
	}
	h := binary.LittleEndian.Uint32(n[:])
	if h > MaxHeader {
		size := fmt.Sprintf("a header of %d bytes (allowed: at most %d)", h, MaxHeader)
		if hint := textHint(n); hint != "" {
			size = hint + "; read as a length, its first 4 bytes ask for " + size
		}
		return nil, &FramingError{errors.New(size)}
	}
	r.header = grow(r.header, int(h))
	if k, err := io.ReadFull(r.r, r.header); err != nil {
		return nil, truncated(err, k, fmt.Sprintf("the %d bytes of its header", h))
	}
	m := &r.msg
	*m = Message{Header: r.header, Arrays: m.Arrays[:0], Payloads: m.Payloads[:0]}
	if r.parsed != nil && bytes.Equal(r.header, r.parsed) {
		m.Arrays = append(m.Arrays, r.parsedArrays...)
	} else {
		if err := parseArrays(r.header, &m.Arrays); err != nil {
			return nil, &FramingError{err}
		}
		r.parsed = append(r.parsed[:0], r.header...)
		r.parsedArrays = append(r.parsedArrays[:0], m.Arrays...)
	}
	total := 0
	for i := range m.Arrays {
		size, err := m.Arrays[i].size(i)
		if err != nil {
			return nil, &FramingError{err}
		}
		if total += size; total > MaxPayload {
			return nil, &FramingError{fmt.Errorf("arrays of more than %d bytes in all", MaxPayload)}
		}
	}
	r.payload = grow(r.payload, total)
	if k, err := io.ReadFull(r.r, r.payload); err != nil {
		return nil, truncated(err, k, fmt.Sprintf("the %d bytes of its arrays", total))
	}
	at := 0
	for i := range m.Arrays {
		size, _ := m.Arrays[i].size(i)
		m.Payloads = append(m.Payloads, r.payload[at:at+size])
		at += size
	}
	return m, nil
}

// parseArrays checks that header is a JSON object and reads the arrays it
// lists.
func parseArrays(header []byte, arrays *[]Array) error {
	var h struct {
		Arrays []Array `json:"arrays"`
	}
	if s := strings.TrimSpace(string(header)); !strings.HasPrefix(s, "{") {
		return errors.New("the header is not a JSON object")
	}
	err := json.Unmarshal(header, &h)
	// A shape left out or null decodes as nil, as a scalar's [] does not,
	// and encoding/json takes "Shape" or "ARRAYS" for its fields, so that
	// the payloads' length would be one that a client's own JSON reader
	// does not see. The second reading, for the message, only where one
	// of these may be: it costs several microseconds, and steps sent in
	// halves change their header at every call.
	if err != nil || slices.ContainsFunc(h.Arrays, func(a Array) bool { return a.Shape == nil }) || mayFold(header) || mayRepeat(header, len(h.Arrays)) {
		if serr := checkArrays(header); serr != nil {
			return serr
		}
	}
	if err != nil {
		return fmt.Errorf("the header is not a JSON object with a list of arrays: %w", err)
	}
	*arrays = append(*arrays, h.Arrays...)
	return nil
}

// mayFold reports whether header has a byte with which encoding/json's
// case folding could match a key to a field in another case: an ASCII
// capital, a byte of a multi-byte character (ſ folds to s and the
// Kelvin sign to k), or a backslash, which may escape either ("\u0053hape").
func mayFold(header []byte) bool {
	return slices.ContainsFunc(header, func(c byte) bool { return 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf || c == '\\' })
}

// mayRepeat reports whether header may give arrays, or a key of its n
// entries, twice: encoding/json keeps the last, where a client's reader
// may keep the first and find the payloads elsewhere. The words may
// also be in a value, which only costs the second reading.
func mayRepeat(header []byte, n int) bool {
	return bytes.Count(header, []byte(`"arrays"`)) > 1 || bytes.Count(header, []byte(`"shape"`)) > n ||
		bytes.Count(header, []byte(`"dtype"`)) > n || bytes.Count(header, []byte(`"name"`)) > n
}

// checkArrays finds the entry of the header's arrays that is at fault,
// for an error that names it, as arrays[0].shape: encoding/json's own
// names Go's types (Array.arrays.shape of type int), not the client's
// field. A shape missing or null is one, as it would be read as a
// scalar's, so that the payload's other bytes would be taken for the
// next message. A header that is not a JSON object is left to the caller.
func checkArrays(header []byte) error {
	var h map[string]json.RawMessage
	if json.Unmarshal(header, &h) != nil {
		return nil
	}
	if repeated(header, "arrays") {
		return errors.New("arrays: given twice (give it once)")
	}
	for _, key := range slices.Sorted(maps.Keys(h)) {
		if key != "arrays" && strings.EqualFold(key, "arrays") {
			return fmt.Errorf("%s: not a field of a message (names are case-sensitive: arrays)", key)
		}
	}
	raw, ok := h["arrays"]
	if !ok || isNull(raw) {
		return nil
	}
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return fmt.Errorf("arrays: want a list of {name, dtype, shape} (got %s)", shorten(raw))
	}
	for i, e := range entries {
		var a map[string]json.RawMessage
		if isNull(e) || json.Unmarshal(e, &a) != nil {
			return fmt.Errorf("arrays[%d]: want an object {name, dtype, shape} (got %s)", i, shorten(e))
		}
		for _, key := range slices.Sorted(maps.Keys(a)) {
			for _, field := range []string{"name", "dtype", "shape"} {
				if key != field && strings.EqualFold(key, field) {
					return fmt.Errorf("arrays[%d].%s: not a field of an array (names are case-sensitive: name, dtype, shape)", i, key)
				}
			}
		}
		for _, key := range []string{"name", "dtype", "shape"} {
			if repeated(e, key) {
				return fmt.Errorf("arrays[%d].%s: given twice (give it once)", i, key)
			}
		}
		for _, key := range []string{"name", "dtype"} {
			var s string
			if v, ok := a[key]; ok && json.Unmarshal(v, &s) != nil {
				return fmt.Errorf("arrays[%d].%s: want a string (got %s)", i, key, shorten(v))
			}
		}
		shape, ok := a["shape"]
		if !ok {
			return fmt.Errorf("arrays[%d].shape: missing (want a list of dimensions, [] for a scalar)", i)
		}
		var dims []json.RawMessage
		if isNull(shape) || json.Unmarshal(shape, &dims) != nil {
			return fmt.Errorf("arrays[%d].shape: want a list of dimensions, [] for a scalar (got %s)", i, shorten(shape))
		}
		for j, d := range dims {
			var n int
			if json.Unmarshal(d, &n) != nil {
				return fmt.Errorf("arrays[%d].shape[%d]: want an integer from 0 (got %s)", i, j, shorten(d))
			}
		}
	}
	return nil
}

// repeated reports whether the JSON object obj has key more than once.
func repeated(obj []byte, key string) bool {
	keys, err := headerKeys(obj)
	i := slices.Index(keys, key)
	return err == nil && i >= 0 && slices.Contains(keys[i+1:], key)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// shorten returns a JSON value's text, cut short if it is long.
func shorten(raw []byte) string {
	const most = 40
	s := []rune(string(bytes.TrimSpace(raw)))
	if len(s) > most {
		return string(s[:most]) + "..."
	}
	return string(s)
}

// truncated is the error of a read of a message's part that ended after got
// bytes: a *FramingError if the stream ended there, which a client should
// hear of (its lengths may be wrong), else the read's own error.
func truncated(err error, got int, part string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FramingError{fmt.Errorf("the input ended inside a message, after %d of %s: %w", got, part, io.ErrUnexpectedEOF)}
	}
	return err
}

// grow returns b resized to n bytes, reusing its memory.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// appendFrame appends a message's length prefix and header to buf; the
// payloads follow. The header is a JSON object.
func appendFrame(buf, header []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(header)))
	return append(buf, header...)
}

// The payloads of a reply, little-endian. On a little-endian machine (amd64,
// arm64) an array's memory is its payload, copied at once; elsewhere each
// number is written in the protocol's order.
func appendF4(buf []byte, xs []float32) []byte {
	if littleEndian {
		return appendMemory(buf, xs)
	}
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf
}

func appendF8(buf []byte, xs []float64) []byte {
	if littleEndian {
		return appendMemory(buf, xs)
	}
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	}
	return buf
}

func appendI4(buf []byte, xs []int32) []byte {
	if littleEndian {
		return appendMemory(buf, xs)
	}
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
	}
	return buf
}

// littleEndian says this machine stores numbers in the protocol's byte
// order.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendMemory appends the bytes of xs's memory to buf.
func appendMemory[T float32 | float64 | int32](buf []byte, xs []T) []byte {
	if len(xs) == 0 {
		return buf
	}
	return append(buf, unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(xs[0])))...)
}

// textHint explains a message that starts with text, as one typed or
// piped in by hand does (its first four bytes read as a length are
// gigabytes), or returns "" for one that does not.
func textHint(first [4]byte) string {
	for _, b := range first {
		if b < ' ' && b != '\t' && b != '\n' && b != '\r' || b > '~' {
			return ""
		}
	}
	return fmt.Sprintf("the message starts with the text %q: a message is its header's length in 4 bytes, little-endian, then the JSON header and the arrays (docs/environment.md, Framing)", first[:])
}
