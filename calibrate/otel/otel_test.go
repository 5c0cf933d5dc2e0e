package otel_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate/otel"
	"github.com/swarmsim/swarmsim/internal/fuzzseed"
	"github.com/swarmsim/swarmsim/internal/shareddata"
)

func read(t *testing.T, path string) []otel.Span {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	spans, err := otel.Read(f, path)
	require.NoError(t, err)
	return spans
}

// key is what both forms must agree on for one span.
type key struct {
	Trace, ID, Parent, Name string
	Start, End              int64
	HasEnd                  bool
	Attrs                   string
}

func keys(spans []otel.Span) []key {
	out := make([]key, len(spans))
	for i, s := range spans {
		a, _ := json.Marshal(s.Attrs) // sorted keys
		if len(s.Attrs) == 0 {
			a = nil
		}
		out[i] = key{s.TraceID, s.SpanID, s.ParentID, s.Name, s.Start, s.End, s.HasEnd, string(a)}
	}
	return out
}

// TestFormsAgree reads the same runs written in both forms (by
// ../testdata/multiagent.py) and requires the same spans.
func TestFormsAgree(t *testing.T) {
	o := read(t, "../testdata/multiagent.otlp.json")
	p := read(t, "../testdata/multiagent.python.json")
	require.Len(t, o, 38)
	assert.Equal(t, keys(o), keys(p))
	assert.Equal(t, otel.OTLP, o[0].Format)
	assert.Equal(t, otel.Python, p[0].Format)
	root := o[0]
	assert.Equal(t, "00000000000000000000000000000001", root.TraceID)
	assert.Equal(t, "", root.ParentID)
	assert.Equal(t, "00000000000003e9", root.SpanID)
	d, ok := root.Duration()
	assert.True(t, ok)
	assert.InDelta(t, 30, d, 1e-9)
	acc, ok := root.Bool("swarmsim.acceptable")
	assert.True(t, ok)
	assert.True(t, acc)
	var noEnd, noAttrs int
	for _, s := range o {
		if !s.HasEnd {
			noEnd++
			assert.Equal(t, "execute_tool write_file", s.Name)
		}
		if len(s.Attrs) == 0 {
			noAttrs++
			assert.Equal(t, "http.request", s.Name)
		}
	}
	assert.Equal(t, 2, noEnd)
	assert.Equal(t, 2, noAttrs)
}

// TestAnyAgent reads a recorded run in the form any-agent stores: integer
// IDs and times, a parent context, {"spans": [...]}.
func TestAnyAgent(t *testing.T) {
	in := `{"spans": [
	 {"name": "call_llm m", "parent": {"trace_id": 340282366920938463463374607431768211455, "span_id": 17700730060412036331},
	  "context": {"trace_id": 340282366920938463463374607431768211455, "span_id": 651388875576976777},
	  "start_time": 1752494930378918000, "end_time": 1752494931193687000,
	  "attributes": {"gen_ai.operation.name": "call_llm", "gen_ai.usage.input_tokens": 447, "gen_ai.usage.input_cost": 4.47e-05}},
	 {"name": "invoke_agent [a]", "parent": null,
	  "context": {"trace_id": 340282366920938463463374607431768211455, "span_id": 17700730060412036331},
	  "start_time": 1752494930000000000, "end_time": null, "attributes": null}],
	 "final_output": "done"}`
	spans, err := otel.Read(strings.NewReader(in), "run.json")
	require.NoError(t, err)
	require.Len(t, spans, 2)
	c := spans[0]
	assert.Equal(t, strings.Repeat("f", 32), c.TraceID)
	assert.Equal(t, "090a32bb2b682589", c.SpanID)
	assert.Equal(t, "f5a5a0351bf024eb", c.ParentID)
	n, ok := c.Int("gen_ai.usage.input_tokens")
	assert.True(t, ok)
	assert.EqualValues(t, 447, n)
	assert.Equal(t, 4.47e-05, c.Attrs["gen_ai.usage.input_cost"])
	d, ok := c.Duration()
	assert.True(t, ok)
	assert.InDelta(t, 0.814769, d, 1e-9)
	root := spans[1]
	assert.Equal(t, "", root.ParentID)
	assert.False(t, root.HasEnd)
	assert.Empty(t, root.Attrs)
	_, ok = root.Duration()
	assert.False(t, ok)
}

// TestPythonTimeRange reads RFC 3339 times at the two ends of what Unix
// nanoseconds hold: the first and the last nanosecond are read exactly,
// and the span from one to the other is as long as the clock.
func TestPythonTimeRange(t *testing.T) {
	spans, err := otel.Read(strings.NewReader(`[{"name": "b", "context": {"span_id": "0x1"},
	 "start_time": "1970-01-01T00:00:00Z", "end_time": "2262-04-11T23:47:16.854775807Z"}]`), "f.json")
	require.NoError(t, err)
	require.Len(t, spans, 1)
	assert.Equal(t, int64(0), spans[0].Start)
	assert.Equal(t, int64(math.MaxInt64), spans[0].End)
	d, ok := spans[0].Duration()
	assert.True(t, ok)
	assert.Equal(t, float64(math.MaxInt64)/1e9, d)
}

// TestByteOrderMark reads a file of either form, and one of JSON lines,
// that starts with a UTF-8 byte-order mark: the mark is skipped and the
// spans are those of the file without it.
func TestByteOrderMark(t *testing.T) {
	// The OTLP/JSON file is two documents, one a line, as the Collector
	// writes them; its first line alone is one document.
	lines, err := os.ReadFile("../testdata/multiagent.otlp.json")
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(lines), "\n")
	python, err := os.ReadFile("../testdata/multiagent.python.json")
	require.NoError(t, err)
	for _, tc := range []struct{ name, data string }{
		{"OTLP/JSON", first},
		{"JSON lines", string(lines)},
		{"Python", string(python)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := otel.Read(strings.NewReader(tc.data), "f.json")
			require.NoError(t, err)
			require.NotEmpty(t, want)
			got, err := otel.Read(strings.NewReader("\uFEFF"+tc.data), "f.json")
			require.NoError(t, err)
			assert.Equal(t, keys(want), keys(got))
		})
	}
}

// TestSharedData reads every recorded run of ../shared/data, when it is
// there, and checks the spans against the files' own count.
func TestSharedData(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedTraces(t), "*", "*.json"))
	require.Len(t, files, 68)
	count := regexp.MustCompile(`"context"`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		spans := read(t, f)
		assert.Len(t, spans, len(count.FindAll(b, -1)), f)
		for _, s := range spans {
			assert.Len(t, s.SpanID, 16, f)
			assert.Len(t, s.TraceID, 32, f)
		}
	}
}

// sharedTraces returns the recorded runs' folder, or skips.
func sharedTraces(t *testing.T) string {
	dir, ok := shareddata.Find("agent-traces", "any-agent")
	if !ok {
		t.Skip("shared/data/agent-traces is not beside the repository")
	}
	return dir
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // regexp
		notSpans bool
	}{
		{"empty", "", `^f\.json: empty file: not OpenTelemetry span JSON$`, true},
		{"other JSON", `{"traceEvents": [], "displayTimeUnit": "ms"}`,
			`^f\.json: not OpenTelemetry span JSON: want an OTLP/JSON object .*; got an object with keys \["displayTimeUnit" "traceEvents"\]$`, true},
		{"a number", `42`, `got a number$`, true},
		// The second comma is the 14th character of line 2 (it was
		// said to be the 15th).
		{"syntax", "{\"spans\": [\n  {\"name\": 1,,}]}", `^f\.json:2:14: invalid JSON`, false},
		{"syntax at the first character", "x", `^f\.json:1:1: invalid JSON`, false},
		// A UTF-16 file decoded as UTF-8 failed on "invalid character 'ÿ'".
		{"UTF-16 little-endian", "\xFF\xFE[\x00]\x00", `^f\.json: the file looks like UTF-16 text .*: save it as UTF-8`, false},
		{"UTF-16 big-endian", "\xFE\xFF\x00[\x00]", `^f\.json: the file looks like UTF-16 text`, false},
		{"UTF-16 without a mark", "[\x00]\x00", `^f\.json: the file looks like UTF-16 text`, false},
		{"cut short", "{\"spans\": [\n  {\"name\": \"a\"", `^f\.json:2:15: invalid JSON: the file ends inside a value \(cut short\?\)$`, false},
		{"second document", `{"resourceSpans": []}` + "\n" + `{"x": 1}`, `^f\.json: document 2: not OpenTelemetry span JSON`, true},
		{"OTLP time", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "spanId": "0000000000000001", "startTimeUnixNano": {}}]}]}]}`,
			`^f\.json:1: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]: span "a": startTimeUnixNano: want a string of Unix nanoseconds, got an object$`, false},
		// A span's field named no line: the line is the one its object
		// starts on, in a document of many lines, and of the document's
		// in JSON lines.
		{"OTLP time on a later line", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n  {\"name\": \"a\", \"spanId\": \"0000000000000001\"},\n  {\"name\": \"b\", \"spanId\": \"0000000000000002\",\n   \"endTimeUnixNano\": \"-1\"}]}]}]}",
			`^f\.json:3: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]: span "b": endTimeUnixNano: "-1" is not a whole, non-negative number of nanoseconds$`, false},
		{"OTLP time in JSON lines", `{"resourceSpans": []}` + "\n\n" + `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "spanId": "0000000000000001", "startTimeUnixNano": "soon"}]}]}]}`,
			`^f\.json:3: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]: span "a": startTimeUnixNano: "soon" is not`, false},
		{"Python time on a later line", "[\n {\"name\": \"a\", \"context\": {\"span_id\": \"0x1\"}},\n\n {\"name\": \"b\",\n  \"context\": {\"span_id\": \"0x2\"}, \"end_time\": 1.5}\n]",
			`^f\.json:4: span 1: span "b": end_time: "1\.5" is not a whole, non-negative number of nanoseconds$`, false},
		{"one Python span", "\n{\"name\": \"b\", \"context\": {\"span_id\": \"0x2\"}, \"start_time\": true}",
			`^f\.json:2: span "b": start_time: want Unix nanoseconds or an RFC 3339 time, got a boolean$`, false},
		{"OTLP id", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "spanId": "xyz"}]}]}]}`,
			`span "a": spanId: "xyz" is not 16 hex digits`, false},
		{"OTLP int attribute", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "spanId": "0000000000000001", "attributes": [{"key": "n", "value": {"intValue": "1.5"}}]}]}]}]}`,
			`span "a": attributes: n: intValue: "1.5" is not a 64-bit integer$`, false},
		{"Python time", `[{"name": "b", "context": {"span_id": "0x1"}, "start_time": "yesterday"}]`,
			`^f\.json:1: span 0: span "b": start_time: "yesterday" is neither Unix nanoseconds nor an RFC 3339 time$`, false},
		{"Python time before 1970", `[{"name": "b", "context": {"span_id": "0x1"}, "start_time": "1969-12-31T23:59:59.999999999Z"}]`,
			`start_time: "1969-12-31T23:59:59.999999999Z" is outside the times Unix nanoseconds hold \(1970 to 2262\)$`, false},
		{"Python time after 2262", `[{"name": "b", "context": {"span_id": "0x1"}, "end_time": "2262-04-11T23:47:16.854775808Z"}]`,
			`end_time: "2262-04-11T23:47:16.854775808Z" is outside the times Unix nanoseconds hold \(1970 to 2262\)$`, false},
		{"Python no id", `[{"name": "b", "context": {}}]`, `span "b": context\.span_id: missing$`, false},
		{"Python attributes", `{"spans": [{"name": "b", "context": {"span_id": 1}, "attributes": []}]}`,
			`span "b": attributes: want an object, got an array$`, false},
		{"Python big id", `{"spans": [{"name": "b", "context": {"span_id": 18446744073709551616}}]}`,
			`span_id: 18446744073709551616 does not fit 64 bits$`, false},
		// A span ID twice named the line its document starts on, not
		// the span's, nor the first's.
		{"span ID twice in a document", "[\n {\"name\": \"a\", \"context\": {\"trace_id\": 7, \"span_id\": 1}},\n {\"name\": \"c\", \"context\": {\"trace_id\": 7, \"span_id\": 2}},\n {\"name\": \"b\", \"context\": {\"trace_id\": 7, \"span_id\": 1}}]",
			`^f\.json:4: span "b": span ID 0000000000000001 of trace 0{31}7 is that of span "a" on line 2: a trace holds each span once`, false},
		{"span ID twice in JSON lines", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "traceId": "00000000000000000000000000000007", "spanId": "0000000000000001"}]}]}]}` + "\n\n" +
			`{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "traceId": "00000000000000000000000000000007", "spanId": "0000000000000001"}]}]}]}`,
			`^f\.json:3: span "a": span ID 0000000000000001 of trace 0{31}7 is that of span "a" on line 1 \(document 1\): a trace holds`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := otel.Read(strings.NewReader(tc.in), "f.json")
			require.Error(t, err)
			assert.Regexp(t, tc.want, err.Error())
			assert.Equal(t, tc.notSpans, errors.Is(err, otel.ErrNotSpans))
		})
	}
}

// TestSpanIDRepeats checks the repeats of a span ID that are not errors:
// one ID in two traces, and one span written twice over, identical, in
// one document (as any-agent's OpenAI recorder does), on one line or on
// two.
func TestSpanIDRepeats(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"two traces", `[{"name": "a", "context": {"trace_id": 7, "span_id": 1}}, {"name": "b", "context": {"trace_id": 8, "span_id": 1}}]`},
		{"one span twice", `[{"name": "a", "context": {"trace_id": 7, "span_id": 1}, "attributes": {"n": [1, "x"]}}, {"name": "a", "context": {"trace_id": 7, "span_id": 1}, "attributes": {"n": [1, "x"]}}]`},
		// The recorder's files are indented: the two copies start on
		// different lines, which does not make them two spans.
		{"one span twice on two lines", "[\n {\"name\": \"a\", \"context\": {\"trace_id\": 7, \"span_id\": 1}},\n {\"name\": \"a\", \"context\": {\"trace_id\": 7, \"span_id\": 1}}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, err := otel.Read(strings.NewReader(tc.in), "f.json")
			require.NoError(t, err)
			assert.Len(t, spans, 2)
		})
	}
}

func TestAttributeAccessors(t *testing.T) {
	s := otel.Span{Attrs: map[string]any{"i": int64(3), "f": 4.0, "h": 4.5, "s": "12", "b": "true", "x": []any{"a"}}}
	for _, tc := range []struct {
		key  string
		want int64
		ok   bool
	}{{"i", 3, true}, {"f", 4, true}, {"h", 0, false}, {"s", 12, true}, {"x", 0, false}, {"none", 0, false}} {
		got, ok := s.Int(tc.key)
		assert.Equal(t, tc.ok, ok, tc.key)
		assert.Equal(t, tc.want, got, tc.key)
	}
	b, ok := s.Bool("b")
	assert.True(t, b && ok)
	_, ok = s.Bool("i")
	assert.False(t, ok)
	assert.Equal(t, "12", s.String("s"))
	assert.Equal(t, "", s.String("i"))
}

// fuzzRead is the property both fuzz targets check: Read never panics,
// and what it returns is well formed.
func fuzzRead(t *testing.T, data []byte) {
	spans, err := otel.Read(strings.NewReader(string(data)), "fuzz.json")
	if err != nil {
		assert.Regexp(t, `^fuzz\.json(:[1-9][0-9]*)?: `, err.Error())
		return
	}
	for _, s := range spans {
		assert.Regexp(t, `^[0-9a-f]{16}$`, s.SpanID)
		assert.Regexp(t, `^([0-9a-f]{16})?$`, s.ParentID)
		assert.Regexp(t, `^([0-9a-f]{32})?$`, s.TraceID)
		assert.True(t, slices.Contains([]otel.Format{otel.OTLP, otel.Python}, s.Format))
		if d, ok := s.Duration(); ok {
			assert.GreaterOrEqual(t, d, 0.0)
		}
		assert.GreaterOrEqual(t, s.Start, int64(0))
		if s.HasEnd {
			assert.GreaterOrEqual(t, s.End, int64(0))
		}
	}
}

// seed adds the trace file at path, cut (fuzzseed.JSON): whole, it left
// the fuzzer no time to run inputs.
func seed(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	require.NoError(f, err)
	b, err = fuzzseed.JSON(b, 3)
	require.NoError(f, err)
	f.Add(b)
}

func FuzzReadOTLP(f *testing.F) {
	seed(f, "../testdata/multiagent.otlp.json")
	f.Add([]byte(`{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "AAAAAAAAAAE=", "startTimeUnixNano": 5, "endTimeUnixNano": "3",
		"attributes": [{"key": "a", "value": {"arrayValue": {"values": [{"doubleValue": "NaN"}, {"boolValue": true}]}}}]}]}]}]}`))
	f.Add([]byte(`[{"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": []}]}]}]`))
	f.Fuzz(fuzzRead)
}

func FuzzReadPython(f *testing.F) {
	seed(f, "../testdata/multiagent.python.json")
	f.Add([]byte(`{"spans": [{"name": "a", "parent": {"span_id": 7}, "context": {"trace_id": 1, "span_id": 2},
		"start_time": 10, "end_time": "1970-01-01T00:00:00.000001Z", "attributes": {"k": [1, 2.5, "x", null]}}]}`))
	f.Add([]byte(`{"name": "b", "context": {"span_id": "0x0"}, "parent_id": "0xff"}`))
	f.Fuzz(fuzzRead)
}

// TestLines checks the line each span is said to start on: that of its
// object, in a document of many lines and in JSON lines.
func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []int
	}{
		{"Python array", "[\n  {\"name\": \"a\", \"context\": {\"span_id\": 1}},\n\n  {\n \"name\": \"b\", \"context\": {\"span_id\": 2}}]", []int{2, 4}},
		{"one Python span", "\n\n{\"name\": \"a\", \"context\": {\"span_id\": 1}}", []int{3}},
		{"JSON lines", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "spanId": "0000000000000001"}, {"name": "b", "spanId": "0000000000000002"}]}]}]}` + "\n\n" +
			`{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "c", "spanId": "0000000000000003"}]}]}]}`, []int{1, 1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, err := otel.Read(strings.NewReader(tc.in), "f.json")
			require.NoError(t, err)
			var got []int
			for _, s := range spans {
				got = append(got, s.Line)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
