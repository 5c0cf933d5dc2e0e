package env

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// An array's memory, copied at once, is the payload the protocol's byte
// order gives number by number.
func TestArraysMemoryIsPayload(t *testing.T) {
	f4 := []float32{0, -1.5, float32(math.NaN()), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, 3e38}
	f8 := []float64{0, -1.5, math.NaN(), math.Inf(1), math.SmallestNonzeroFloat64, math.MaxFloat64}
	i4 := []int32{0, -1, 1, math.MinInt32, math.MaxInt32, 258}
	each := func() []byte {
		b := appendF4([]byte("head"), f4)
		b = appendF8(b, f8)
		b = appendF4(b, nil)
		return appendI4(b, i4)
	}
	was := littleEndian
	t.Cleanup(func() { littleEndian = was })
	littleEndian = false
	want := each()
	assert.Equal(t, []byte{'h', 'e', 'a', 'd', 0, 0, 0, 0, 0, 0, 0xc0, 0xbf}, want[:12], "little-endian numbers after what was there")
	assert.Len(t, want, 4+4*len(f4)+8*len(f8)+4*len(i4))
	if !was {
		t.Skip("a big-endian machine writes every array number by number")
	}
	littleEndian = true
	assert.Equal(t, want, each())
}

// An array may take MaxPayload bytes, and no more, whatever its shape.
func TestArraySizeBounds(t *testing.T) {
	for _, tc := range []struct {
		dtype string
		shape []int
		want  int // -1: refused
	}{
		{"u1", []int{MaxPayload}, MaxPayload},
		{"f8", []int{2, MaxPayload / 16}, MaxPayload},
		{"u1", []int{MaxPayload + 1}, -1},
		{"u1", []int{2, MaxPayload}, -1},
		{"f8", []int{MaxPayload / 8, 2}, -1},
		{"i4", []int{0, MaxPayload}, 0},
		{"i4", []int{3, -1}, -1},
	} {
		n, err := (&Array{Name: "a", Dtype: tc.dtype, Shape: tc.shape}).size(0)
		if tc.want < 0 {
			assert.Error(t, err, "%s %v", tc.dtype, tc.shape)
			continue
		}
		assert.NoError(t, err, "%s %v", tc.dtype, tc.shape)
		assert.Equal(t, tc.want, n, "%s %v", tc.dtype, tc.shape)
	}
}

// A header may take MaxHeader bytes, and no more.
func TestHeaderBound(t *testing.T) {
	for _, n := range []int{MaxHeader, MaxHeader + 1} {
		header := bytes.Repeat([]byte(" "), n)
		copy(header, `{"op":"x"}`)
		raw := append(binary.LittleEndian.AppendUint32(nil, uint32(n)), header...)
		m, err := NewReader(bytes.NewReader(raw)).Read()
		if n > MaxHeader {
			var fe *FramingError
			assert.ErrorAs(t, err, &fe)
			continue
		}
		if assert.NoError(t, err) {
			assert.Len(t, m.Header, n)
		}
	}
}

// TestTextHint: a message whose first four bytes are printable text (or
// tabs and line ends) is explained as text sent without its length; one
// with any other byte is not.
func TestTextHint(t *testing.T) {
	for _, tc := range []struct {
		first string
		hint  bool
	}{
		{`{"op`, true},
		{"\t{\"o", true},
		{"\r\n{\"", true},
		{"\n\n{x", true},
		{" ~ ~", true}, // the first and last printable bytes
		{"{\x1f\"o", false},
		{"{\x7f\"o", false},
		{"\x00\x00\x01\x00", false},
		{"\x0b{\"o", false}, // a vertical tab
	} {
		got := textHint([4]byte([]byte(tc.first)))
		if tc.hint {
			assert.Contains(t, got, fmt.Sprintf("the message starts with the text %q", tc.first))
		} else {
			assert.Empty(t, got, "%q", tc.first)
		}
	}
}

// TestRenderReplyWithinHeaderBound: render's texts travel in the reply's
// header, which a client reads under the same bound as the server's
// (Python's VecEnv refuses more and loses the session): a render whose
// texts would take more is refused, naming rows, and the session goes on.
func TestRenderReplyWithinHeaderBound(t *testing.T) {
	was := maxReplyHeader
	t.Cleanup(func() { maxReplyHeader = was })
	maxReplyHeader = 4000 // a tiny decision's text is about 700 bytes
	replies := serveReplies(t,
		`{"op":"make","protocol":"`+Protocol+`","scenario":"tiny","variant":"team","num_envs":8}`,
		`{"op":"reset"}`,
		`{"op":"render"}`,
		`{"op":"render","rows":[0,1]}`,
	)
	if assert.Len(t, replies, 4) {
		assert.Equal(t, false, replies[2]["ok"], "every row's text at once: %v", replies[2])
		assert.Equal(t, "rows", replies[2]["field"])
		assert.Contains(t, replies[2]["error"], "render fewer rows at a time")
		assert.Equal(t, true, replies[3]["ok"], "two rows' texts fit: %v", replies[3]["error"])
	}
}

// TestRenderOfManyRowsStopsAtTheBound: a render of more rows than a
// reply's header holds is refused once the texts pass the bound, not after
// every row's text is written: a request's header holds a list of 8
// million rows, whose texts took gigabytes (a 400,000 took 2.3 GB).
// The refusal counts the rows whose texts passed the bound.
func TestRenderOfManyRowsStopsAtTheBound(t *testing.T) {
	was := maxReplyHeader
	t.Cleanup(func() { maxReplyHeader = was })
	maxReplyHeader = 4000 // a tiny decision's text is about 700 bytes
	rows := strings.TrimSuffix(strings.Repeat("0,", 100000), ",")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	replies := serveReplies(t,
		`{"op":"make","protocol":"`+Protocol+`","scenario":"tiny","variant":"team","num_envs":8}`,
		`{"op":"reset"}`,
		`{"op":"render","rows":[0]}`,
		`{"op":"render","rows":[`+rows+`]}`,
		`{"op":"render","rows":[0,1,9]}`,
	)
	runtime.ReadMemStats(&after)
	// The texts of every row take 70 MB, and as much again in the reply.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(30<<20), "bytes allocated")
	if assert.Len(t, replies, 5) {
		// The rows are all row 0: the first n whose texts pass the bound.
		text := replies[2]["text"].([]any)[0].(string)
		n := maxReplyHeader/len(text) + 1
		assert.Equal(t, "rows", replies[3]["field"])
		assert.Regexp(t, fmt.Sprintf(`^rows: the texts of the first %d of 100000 rows take more than .* render fewer rows at a time$`, n), replies[3]["error"])
		assert.Equal(t, "rows[2]", replies[4]["field"], "a row out of range is named before any text is written")
	}
}

// TestErrorReplyWithinHeaderBound: an error quotes what the client sent,
// a field's name or a value of megabytes, and its reply is held to the
// header's bound as render's is, so that the session goes on for a client
// that reads under it; the error still names its field, in its start and
// end, and a name whose every byte JSON writes in 6 fits too.
func TestErrorReplyWithinHeaderBound(t *testing.T) {
	was := maxReplyHeader
	t.Cleanup(func() { maxReplyHeader = was })
	maxReplyHeader = 16000
	long := strings.Repeat("é<", 3000) // 9,000 bytes, 24,000 as JSON escapes them
	replies := serveReplies(t,
		`{"op":"close","`+long+`":1}`,
		`{"op":"make","protocol":"`+Protocol+`","scenario":"tiny","variant":"`+long+`"}`,
		`{"op":"make","protocol":"`+Protocol+`","scenario":"tiny","variant":"team"}`,
		// Every byte of this name takes 6 as JSON (\u003c), in the
		// error and in the field both: the most a clipped text can take.
		`{"op":"close","`+strings.Repeat("<", 9000)+`":1}`,
	)
	if assert.Len(t, replies, 4) {
		assert.Equal(t, false, replies[0]["ok"])
		assert.Contains(t, replies[0]["field"], "bytes left out")
		assert.Regexp(t, `^é<.* bytes left out .*\(allowed: op, arrays, .*\)$`, replies[0]["error"])
		assert.Equal(t, "variant", replies[1]["field"])
		assert.Regexp(t, `^variant: scenario tiny has no variant "é<.* bytes left out .*é<" \(allowed: split, team\)$`, replies[1]["error"])
		assert.Equal(t, true, replies[2]["ok"], "the session goes on: %v", replies[2]["error"])
		assert.Contains(t, replies[3]["field"], "bytes left out")
	}
	for _, s := range []string{"short", strings.Repeat("ü", 1000)} {
		for _, n := range []int{0, 10, 100, 1999, 2000} {
			got := clip(s, n)
			assert.True(t, utf8.ValidString(got), "%d", n)
			if len(s) <= n {
				assert.Equal(t, s, got)
			} else {
				assert.LessOrEqual(t, len(got), max(n, 40), "%d", n)
			}
		}
	}
}

// TestClipKeepsStartAndEnd: a clipped text is a start of the text, the
// mark, and an end of it, whole runes, n bytes at most (the mark alone
// where n is less), and the mark counts the bytes left out between them;
// a text that fits is kept as it is.
func TestClipKeepsStartAndEnd(t *testing.T) {
	marked := regexp.MustCompile(`(?s)^(.*) \[\.\.\. (\d+) bytes left out \.\.\.\] (.*)$`)
	for _, s := range []string{"short", strings.Repeat("ü", 1000), strings.Repeat("abc", 700), strings.Repeat("aü€😀", 200)} {
		for _, n := range append([]int{0, 1999, 2000, 2100}, seq(10, 200)...) {
			got := clip(s, n)
			assert.LessOrEqual(t, len(got), max(n, len(" [... 2000 bytes left out ...] ")), "%d", n)
			if len(s) <= n {
				assert.Equal(t, s, got, "%d", n)
				continue
			}
			m := marked.FindStringSubmatch(got)
			if !assert.NotNil(t, m, "%d: %q", n, got) {
				continue
			}
			head, tail := m[1], m[3]
			left, err := strconv.Atoi(m[2])
			assert.NoError(t, err)
			assert.True(t, strings.HasPrefix(s, head), "%d: the start", n)
			assert.True(t, strings.HasSuffix(s, tail), "%d: the end", n)
			assert.Equal(t, len(s), len(head)+left+len(tail), "%d: the bytes left out", n)
			assert.True(t, utf8.ValidString(head) && utf8.ValidString(tail), "%d", n)
			if n >= 100 {
				// Each half gives up less than a rune (4 bytes) to end on whole runes.
				assert.InDelta(t, len(head), len(tail), 4, "%d: as much of the start as of the end", n)
			}
		}
	}
}

// seq returns the integers from lo to hi, both included.
func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// serveReplies serves the requests whose headers are given, in one
// session, and returns the replies' headers, each checked to keep within
// maxReplyHeader.
func serveReplies(t *testing.T, headers ...string) []map[string]any {
	t.Helper()
	var in, out bytes.Buffer
	for _, h := range headers {
		in.Write(appendFrame(nil, []byte(h)))
	}
	assert.NoError(t, Serve(&in, &out, "test"))
	r := NewReader(&out)
	var replies []map[string]any
	for {
		m, err := r.Read()
		if err != nil {
			return replies
		}
		var h map[string]any
		assert.NoError(t, json.Unmarshal(m.Header, &h))
		assert.LessOrEqual(t, len(m.Header), maxReplyHeader, "reply %d", len(replies))
		replies = append(replies, h)
	}
}

// TestErrorReplyAtTheBound: an error reply that fits the header's bound
// exactly is sent whole; one byte less and it is clipped to fit.
func TestErrorReplyAtTheBound(t *testing.T) {
	was := maxReplyHeader
	t.Cleanup(func() { maxReplyHeader = was })
	reply := func() []byte {
		var in, out bytes.Buffer
		in.Write(appendFrame(nil, []byte(`{"op":"close","`+strings.Repeat("x", 200)+`":1}`)))
		assert.NoError(t, Serve(&in, &out, "test"))
		m, err := NewReader(&out).Read()
		if !assert.NoError(t, err) {
			return nil
		}
		return m.Header
	}
	whole := reply()
	assert.NotContains(t, string(whole), "bytes left out")
	maxReplyHeader = len(whole)
	assert.Equal(t, string(whole), string(reply()), "at the bound")
	maxReplyHeader = len(whole) - 1
	clipped := reply()
	assert.Contains(t, string(clipped), "bytes left out", "past the bound")
	assert.LessOrEqual(t, len(clipped), maxReplyHeader)
}
