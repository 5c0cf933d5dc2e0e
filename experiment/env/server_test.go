package env_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
)

// client drives Serve over pipes, as a program in another language would.
type client struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *env.Reader
	done chan error
}

func newClient(t *testing.T) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: env.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := env.Serve(inR, outW, "test")
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

// frame returns a message: header, then the payloads.
func frame(t testing.TB, header any, payloads ...[]byte) []byte {
	h, err := json.Marshal(header)
	require.NoError(t, err)
	msg := binary.LittleEndian.AppendUint32(nil, uint32(len(h)))
	msg = append(msg, h...)
	for _, p := range payloads {
		msg = append(msg, p...)
	}
	return msg
}

// send writes raw bytes and returns the reply's header and arrays by name.
func (c *client) send(raw []byte) (map[string]any, map[string][]byte) {
	c.t.Helper()
	go c.in.Write(raw) //nolint:errcheck // a server that stops reading fails the read below
	m, err := c.out.Read()
	require.NoError(c.t, err)
	var h map[string]any
	require.NoError(c.t, json.Unmarshal(m.Header, &h))
	arrays := map[string][]byte{}
	for i, a := range m.Arrays {
		arrays[a.Name] = append([]byte(nil), m.Payloads[i]...)
	}
	return h, arrays
}

func (c *client) request(header any, payloads ...[]byte) (map[string]any, map[string][]byte) {
	c.t.Helper()
	return c.send(frame(c.t, header, payloads...))
}

// shapes returns the shapes of a reply's arrays by name, as its header
// lists them.
func shapes(h map[string]any) map[string]any {
	out := map[string]any{}
	list, _ := h["arrays"].([]any)
	for _, a := range list {
		a := a.(map[string]any)
		out[a["name"].(string)] = a["shape"]
	}
	return out
}

// wantError checks that a reply is an error about field.
func wantError(t *testing.T, h map[string]any, field, msg string) {
	t.Helper()
	assert.Equal(t, false, h["ok"], "%v", h)
	assert.Equal(t, field, h["field"], "%v", h)
	assert.Contains(t, h["error"], msg)
}

func i4(xs ...int32) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

var makeTiny = map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "variant": "team", "num_envs": 2, "group": 1, "seed": 3, "workers": 2}

// TestServeSession runs a session through every request and checks the
// replies' fields and arrays.
func TestServeSession(t *testing.T) {
	c := newClient(t)
	h, _ := c.request(map[string]any{"op": "reset"})
	wantError(t, h, "op", "reset before make")

	h, _ = c.request(makeTiny)
	require.Equal(t, true, h["ok"], "%v", h)
	assert.EqualValues(t, env.NumFeatures, h["num_features"])
	assert.EqualValues(t, env.NumActions, h["num_actions"])
	assert.Equal(t, "test", h["version"])
	assert.EqualValues(t, 2, h["workers"])
	assert.Contains(t, h["episode_metrics"], "parallelism_mean")
	assert.Equal(t, []any{}, h["warnings"], "no warnings is an empty list, not null")
	metrics := h["episode_metrics"].([]any)
	finishCol := slices.Index(metrics, any("finish_time"))
	require.GreaterOrEqual(t, finishCol, 0, "%v", metrics)
	h, _ = c.request(makeTiny)
	wantError(t, h, "op", "made already")

	h, arrays := c.request(map[string]any{"op": "reset"})
	require.Equal(t, true, h["ok"], "%v", h)
	assert.Len(t, arrays["obs"], 2*env.NumFeatures*4)
	assert.Equal(t, []byte{1, 1}, arrays["active"])
	mask := arrays["action_mask"]
	require.Len(t, mask, 2*env.NumActions)

	h, _ = c.request(map[string]any{"op": "render"})
	require.Equal(t, true, h["ok"], "%v", h)
	require.Len(t, h["text"], 2)
	assert.Contains(t, h["text"].([]any)[0], "You are agent 0, the main agent")
	assert.Contains(t, h["text"].([]any)[0], "Valid actions:")

	ended := 0
	for step := 0; ended == 0; step++ {
		require.Less(t, step, 10000)
		var actions []int32
		var names []string
		for row := range 2 {
			for a := range env.NumActions {
				if mask[row*env.NumActions+a] == 1 {
					actions = append(actions, int32(a))
					names = append(names, env.ActionNames()[a])
					break
				}
			}
		}
		if step%2 == 0 {
			h, arrays = c.request(map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(actions...))
		} else {
			h, arrays = c.request(map[string]any{"op": "step", "action_names": names})
		}
		require.Equal(t, true, h["ok"], "%v", h)
		mask = arrays["action_mask"]
		// episode_rows lists the rows that ended, in order, and episode
		// holds their metrics, one row of the matrix each.
		var want []byte
		for row := range 2 {
			if arrays["terminated"][row]+arrays["truncated"][row] == 1 {
				want = append(want, i4(int32(row))...)
			}
		}
		assert.Equal(t, want, arrays["episode_rows"], "step %d", step)
		k := len(want) / 4
		require.Len(t, arrays["episode"], 8*k*len(metrics))
		assert.Equal(t, []any{float64(k), float64(len(metrics))}, shapes(h)["episode"])
		for j := range k {
			finish := math.Float64frombits(binary.LittleEndian.Uint64(arrays["episode"][8*(j*len(metrics)+finishCol):]))
			assert.Positive(t, finish)
			ended++
		}
		assert.Equal(t, []byte{1, 1}, arrays["active"], "group 1 resets a finished row at once")
	}
	h, _ = c.request(map[string]any{"op": "close"})
	assert.Equal(t, true, h["ok"])
	require.NoError(t, <-c.done)
}

// TestServeStepsParts sends the steps of a table's two halves back to
// back, the second half first, before reading either reply, and checks
// that the replies are those halves of the whole steps that another
// session takes.
func TestServeStepsParts(t *testing.T) {
	whole, parted := newClient(t), newClient(t)
	for _, c := range []*client{whole, parted} {
		h, _ := c.request(makeTiny)
		require.Equal(t, true, h["ok"], "%v", h)
	}
	_, want := whole.request(map[string]any{"op": "reset"})
	_, got := parted.request(map[string]any{"op": "reset"})
	require.Equal(t, want, got)
	stepOf := func(first, count int) map[string]any {
		return map[string]any{"op": "step", "first": first, "count": count, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{count}}}}
	}
	ended := 0
	for step := range 400 {
		var actions []int32
		for row := range 2 {
			actions = append(actions, int32(bytes.IndexByte(want["action_mask"][row*env.NumActions:(row+1)*env.NumActions], 1)))
		}
		_, want = whole.request(map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(actions...))
		go parted.in.Write(append(frame(t, stepOf(1, 1), i4(actions[1])), frame(t, stepOf(0, 1), i4(actions[0]))...)) //nolint:errcheck // a server that stops reading fails the reads below
		var halves [2]map[string][]byte
		for _, half := range []int{1, 0} {
			m, err := parted.out.Read()
			require.NoError(t, err)
			var h map[string]any
			require.NoError(t, json.Unmarshal(m.Header, &h))
			require.Equal(t, true, h["ok"], "%v", h)
			assert.Equal(t, []any{1.0, float64(env.NumFeatures)}, shapes(h)["obs"])
			halves[half] = map[string][]byte{}
			for i, a := range m.Arrays {
				halves[half][a.Name] = append([]byte(nil), m.Payloads[i]...)
			}
		}
		for name, w := range want {
			assert.Equal(t, w, append(halves[0][name], halves[1][name]...), "step %d: %s", step, name)
		}
		ended += len(want["episode_rows"]) / 4
	}
	assert.Positive(t, ended, "no episode ended: the test compares no episode_rows")
}

// TestServeNamesOfAPart steps the second group of four rows by name while
// its rows wait for a reset and the rows of the first group, at the same
// places in their part, do not: a null is for the part's inactive rows,
// whatever the first group's rows are doing.
func TestServeNamesOfAPart(t *testing.T) {
	for seed := range 20 {
		c := newClient(t)
		h, _ := c.request(map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "variant": "team", "num_envs": 4, "group": 2, "seed": seed})
		require.Equal(t, true, h["ok"], "%v", h)
		_, arrays := c.request(map[string]any{"op": "reset"})
		for range 1000 {
			active, mask := arrays["active"], arrays["action_mask"]
			names := make([]any, 4)
			for row := range 4 {
				if active[row] == 1 {
					names[row] = env.ActionNames()[bytes.IndexByte(mask[row*env.NumActions:(row+1)*env.NumActions], 1)]
				}
			}
			if active[0] == 1 && active[1] == 1 && active[2] == 0 && active[3] == 0 {
				h, arrays = c.request(map[string]any{"op": "step", "first": 2, "count": 2, "action_names": names[2:]})
				require.Equal(t, true, h["ok"], "seed %d: %v", seed, h)
				assert.Equal(t, []byte{0, 0}, arrays["active"], "seed %d: the part's rows wait for a reset", seed)
				return
			}
			if !slices.Contains(active, 1) {
				break
			}
			h, arrays = c.request(map[string]any{"op": "step", "action_names": names})
			require.Equal(t, true, h["ok"], "%v", h)
		}
	}
	t.Fatal("no seed ended the second group before the first")
}

// TestServeErrors checks that bad requests get an error naming their
// field and leave the session as it was.
// TestServeRepeatedFields: a field given twice is refused, not read as
// its last value (encoding/json's choice, where other readers keep the
// first), and the session goes on.
func TestServeRepeatedFields(t *testing.T) {
	c := newClient(t)
	for _, tc := range []struct{ header, field string }{
		{`{"op":"close","op":"make","protocol":"` + env.Protocol + `","scenario":"tiny","variant":"team"}`, "op"},
		{`{"op":"make","protocol":"` + env.Protocol + `","scenario":"tiny","variant":"team","num_envs":4,"num_envs":8}`, "num_envs"},
	} {
		h, _ := c.send(frame(t, json.RawMessage(tc.header)))
		wantError(t, h, tc.field, tc.field+": given twice (give each field once)")
	}
	h, _ := c.request(makeTiny)
	require.Equal(t, true, h["ok"], "%v", h)
	h, _ = c.send(frame(t, json.RawMessage(`{"op":"reset","seed":1,"seed":2}`)))
	wantError(t, h, "seed", "seed: given twice")
}

func TestServeErrors(t *testing.T) {
	c := newClient(t)
	for _, tc := range []struct {
		name   string
		header map[string]any
		field  string
		msg    string
	}{
		{"unknown op", map[string]any{"op": "jump"}, "op", `"jump" is not a request (allowed: make, reset, step, render, close)`},
		{"no op", map[string]any{"scenario": "tiny"}, "op", "op: missing"},
		{"unknown field", map[string]any{"op": "make", "scenarioo": "tiny"}, "scenarioo", "not a field of any request"},
		{"wrong type", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "num_envs": "4"}, "num_envs", `num_envs: a JSON string is not allowed here (want an integer from 1 to 65536)`},
		{"wrong type of workers", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "workers": 1.5}, "workers", `workers: a JSON number 1.5 is not allowed here (want an integer from 0 to 1024)`},
		{"wrong type of rows", map[string]any{"op": "render", "rows": "all"}, "rows", `rows: a JSON string is not allowed here (want a list)`},
		{"negative seed", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "seed": -1}, "seed", "want an integer from 0 to 18446744073709551615"},
		{"actions in the header", map[string]any{"op": "step", "actions": []int{0, 0}}, "actions", "travel as a binary array named actions (dtype i4, one per row)"},
		{"protocol", map[string]any{"op": "make", "protocol": "swarmsim-env/0", "scenario": "tiny"}, "protocol", "allowed: swarmsim-env/2"},
		{"no protocol", map[string]any{"op": "make", "scenario": "tiny"}, "protocol", "protocol: missing (allowed: swarmsim-env/2;"},
		{"retired protocol", map[string]any{"op": "make", "protocol": "swarmsim-env/1", "scenario": "tiny"}, "protocol", "update the client"},
		{"bad scenario", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tinyy"}, "scenario", `did you mean "tiny"?`},
		{"bad set key", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "variant": "team", "set": map[string]any{"reward.latencyy": "1"}}, "set.reward.latencyy", "latencyy"},
		{"field of another op", map[string]any{"op": "reset", "scenario": "tiny"}, "scenario", "reset does not read it"},
		{"unknown field of an array", map[string]any{"op": "reset", "arrays": []any{map[string]any{"name": "a", "dtype": "u1", "shape": []int{0}, "x": 1}}}, "arrays[0].x", "arrays[0].x: not a field of an array (allowed: name, dtype, shape)"},
		{"empty set path", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "set": map[string]any{"": "3"}}, "set", "set: an empty path"},
		{"set to an object", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "set": map[string]any{"k": map[string]any{"a": 1}}}, "set.k", `set.k: want a value as --set takes it, as a string (got {"a":1}; a list or a map is its YAML text in a string, such as "[work, delegate]")`},
		{"set to a JSON list", map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "set": map[string]any{"train.actions": []string{"work", "delegate"}}}, "set.train.actions", `(got ["work","delegate"]; a list or a map is its YAML text in a string, such as "[work, delegate]")`},
		{"a field for close", map[string]any{"op": "close", "seed": 1}, "seed", "close does not read it (its fields: none)"},
		// encoding/json reads OP as op: the error names the key as sent,
		// not as a field of the op it would have read.
		{"op but for case", map[string]any{"OP": "make"}, "OP", "OP: not a field of any request (names are case-sensitive: op)"},
		{"unknown op but for case", map[string]any{"Op": "jump"}, "Op", "Op: not a field of any request (names are case-sensitive: op)"},
		{"a field but for case", map[string]any{"op": "make", "protocol": env.Protocol, "Scenario": "tiny"}, "Scenario", "Scenario: not a field of any request (names are case-sensitive: scenario)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := c.request(tc.header)
			wantError(t, h, tc.field, tc.msg)
		})
	}
	// A header that is not UTF-8 (Latin-1's é) is refused, not read with
	// U+FFFD in its place; the session goes on.
	latin1 := []byte(`{"op": "make", "protocol": "` + env.Protocol + `", "scenario": "tiny", "variant": "caf` + "\xe9" + `"}`)
	h, _ := c.send(append(binary.LittleEndian.AppendUint32(nil, uint32(len(latin1))), latin1...))
	wantError(t, h, "header", "header: the byte at offset 80 (0xE9) is not UTF-8, which the header's JSON must be")
	h, _ = c.request(makeTiny)
	require.Equal(t, true, h["ok"], "%v", h)
	h, _ = c.request(map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(0, 0))
	wantError(t, h, "op", "step before reset")
	h, _ = c.request(map[string]any{"op": "render"})
	wantError(t, h, "op", "render before reset")
	_, arrays := c.request(map[string]any{"op": "reset"})
	obs := arrays["obs"]
	for _, tc := range []struct {
		name    string
		header  map[string]any
		payload []byte
		field   string
		msg     string
	}{
		{"dtype", map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "f8", Shape: []int{2}}}}, make([]byte, 16), "actions", "want dtype i4, shape [2]"},
		{"shape", map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{3}}}}, i4(0, 0, 0), "actions", "want dtype i4, shape [2]"},
		{"name", map[string]any{"op": "step", "arrays": []env.Array{{Name: "act", Dtype: "i4", Shape: []int{2}}}}, i4(0, 0), "arrays[0].name", `arrays[0].name: "act" is not an array of step (a step reads one array, named actions: i4, shape [2])`},
		{"no name", map[string]any{"op": "step", "arrays": []any{map[string]any{"dtype": "i4", "shape": []int{2}}}}, i4(0, 0), "arrays[0].name", "arrays[0].name: missing (a step reads one array, named actions"},
		{"null name", map[string]any{"op": "step", "arrays": []any{map[string]any{"name": nil, "dtype": "i4", "shape": []int{2}}}}, i4(0, 0), "arrays[0].name", "arrays[0].name: missing"},
		{"a second array", map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}, {Name: "x", Dtype: "u1", Shape: []int{1}}}}, append(i4(0, 0), 0), "arrays[1].name", `arrays[1].name: "x" after actions (a step reads one array, actions)`},
		{"actions twice", map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}, {Name: "actions", Dtype: "i4", Shape: []int{2}}}}, append(i4(0, 0), i4(0, 0)...), "arrays[1].name", `arrays[1].name: "actions" after actions`},
		{"no arrays", map[string]any{"op": "step"}, nil, "actions", "actions: want one array named actions (i4, shape [2]) or action_names in the header"},
		{"invalid action", map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(0, 6), "actions[1]", "row 1: action 6 (submit) is not valid; valid: "},
		{"unknown name", map[string]any{"op": "step", "action_names": []any{"work", "fly"}}, nil, "action_names[1]", `row 1: unknown action "fly"`},
		{"null for an active row", map[string]any{"op": "step", "action_names": []any{"work", nil}}, nil, "action_names[1]", "row 1: no action for an active row (null is for inactive rows; valid here: work,delegate,attempt)"},
		{"invalid action by name", map[string]any{"op": "step", "action_names": []any{"work", "submit"}}, nil, "action_names[1]", "row 1: action 6 (submit) is not valid; valid: "},
		{"first past the rows", map[string]any{"op": "step", "first": 2, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{1}}}}, i4(0), "first", "first: 2 is not the first row of a group (allowed: a multiple of group 1 from 0 to 1)"},
		{"negative first", map[string]any{"op": "step", "first": -1, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{1}}}}, i4(0), "first", "first: -1 is not"},
		{"count past the rows", map[string]any{"op": "step", "first": 1, "count": 2, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(0, 0), "count", "count: 2 rows from row 1 is not a number of whole groups there (allowed: a multiple of group 1 from 1 to 1)"},
		{"count 0", map[string]any{"op": "step", "count": 0, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{0}}}}, nil, "count", "count: 0 rows"},
		{"actions for every row with a count", map[string]any{"op": "step", "count": 1, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(0, 0), "actions", "want dtype i4, shape [1]"},
		{"invalid action of a part", map[string]any{"op": "step", "first": 1, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{1}}}}, i4(6), "actions[0]", "row 1: action 6 (submit) is not valid; valid: "},
		{"names for every row with a first", map[string]any{"op": "step", "first": 1, "action_names": []any{"work", "work"}}, nil, "action_names", "2 names for 1 rows"},
		{"null for an active row of a part", map[string]any{"op": "step", "first": 1, "action_names": []any{nil}}, nil, "action_names[0]", "row 1: no action for an active row (null is for inactive rows; valid here: work,delegate,attempt)"},
		{"render a fraction of a row", map[string]any{"op": "render", "rows": []any{0, 0.5}}, nil, "rows[1]", "rows[1]: 0.5 is not allowed here (want a row: an integer from 0 to 1)"},
		{"action by number in action_names", map[string]any{"op": "step", "action_names": []any{0, "work"}}, nil, "action_names[0]", "action_names[0]: 0 is not allowed here (want an action's name, or null for an inactive row)"},
		{"render row", map[string]any{"op": "render", "rows": []int{5}}, nil, "rows[0]", "row 5 is out of range (0 to 1)"},
		{"render the row after the last", map[string]any{"op": "render", "rows": []int{0, 2}}, nil, "rows[1]", "row 2 is out of range (0 to 1)"},
		{"render a negative row", map[string]any{"op": "render", "rows": []int{-1}}, nil, "rows[0]", "row -1 is out of range (0 to 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := c.request(tc.header, tc.payload)
			wantError(t, h, tc.field, tc.msg)
		})
	}
	// Nothing advanced: a reset-free session still sees its first decisions.
	h, _ = c.request(map[string]any{"op": "render", "rows": []int{0}})
	assert.Contains(t, h["text"].([]any)[0], "Time: 0s of virtual time")
	_, again := c.request(map[string]any{"op": "step", "action_names": []any{"work", "work"}})
	assert.NotEqual(t, obs, again["obs"], "a valid step after the errors moves")
	// Later decisions' clocks read to the second.
	h, _ = c.request(map[string]any{"op": "render"})
	for _, text := range h["text"].([]any) {
		assert.Regexp(t, `Time: ([0-9]+h)?([0-9]+m)?[0-9]+s of virtual time`, text)
		assert.NotRegexp(t, `Time: [^ ]*\.`, text, "no fraction of a second")
	}
}

// TestServeFraming checks that a message that breaks the framing is
// answered with an error and ends the session with a FramingError.
func TestServeFraming(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
		msg  string
	}{
		{"bad JSON", append(binary.LittleEndian.AppendUint32(nil, 5), "{op: "...), "not a JSON object"},
		{"not an object", append(binary.LittleEndian.AppendUint32(nil, 2), "[]"...), "not a JSON object"},
		{"huge header", binary.LittleEndian.AppendUint32(nil, env.MaxHeader+1), "a header of"},
		// JSON sent without its length: "{\"op" read as a length is 1.9 GB.
		{"text without a length", []byte(`{"op":"make"}` + "\n"), `framing: the message starts with the text "{\"op": a message is its header's length in 4 bytes, little-endian, then the JSON header and the arrays (docs/environment.md, Framing); read as a length, its first 4 bytes ask for a header of 1886331515 bytes`},
		{"bad dtype", frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "f2", Shape: []int{2}}}}), `dtype "f2" (allowed: u1, i4, f4, f8)`},
		{"numpy's int64", frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i8", Shape: []int{2}}}}), `dtype "i8" (allowed: u1, i4, f4, f8); numpy's integers are i8 by default`},
		{"negative shape", frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{-1}}}}), "shape [-1]"},
		// Read as a scalar's, the payload's other bytes would be the next message.
		{"no shape", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4"}}}, i4(0, 0, 0, 0)), "arrays[0].shape: missing (want a list of dimensions, [] for a scalar)"},
		{"null shape", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "shape": nil}}}, i4(0, 0)), "arrays[0].shape: want a list of dimensions, [] for a scalar (got null)"},
		{"shape not a list", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "shape": 2}}}, i4(0, 0)), "arrays[0].shape: want a list of dimensions, [] for a scalar (got 2)"},
		{"no dtype", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "shape": []int{2}}}}, i4(0, 0)), `arrays[0].dtype: missing (allowed: u1, i4, f4, f8)`},
		{"null dtype", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": nil, "shape": []int{2}}}}, i4(0, 0)), `arrays[0].dtype: missing (allowed: u1, i4, f4, f8)`},
		// The entry at fault is named as the client wrote it, not by Go's types.
		{"dtype of the second array", frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "a", Dtype: "u1", Shape: []int{1}}, {Name: "b", Dtype: "c8", Shape: []int{1}}}}), `arrays[1].dtype: "b" has dtype "c8"`},
		{"shape of the second array", frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "a", Dtype: "u1", Shape: []int{1}}, {Name: "b", Dtype: "u1", Shape: []int{2, -1}}}}), `arrays[1].shape: "b" has shape [2 -1]`},
		{"fractional dimension", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "shape": []any{1.5}}}}), "arrays[0].shape[0]: want an integer from 0 (got 1.5)"},
		{"dimension as text", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "shape": []any{2, "2"}}}}), `arrays[0].shape[1]: want an integer from 0 (got "2")`},
		{"dtype not a string", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": 4, "shape": []int{2}}}}), "arrays[0].dtype: want a string (got 4)"},
		{"name not a string", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": nil, "dtype": "i4", "shape": []int{2}}, map[string]any{"name": 7, "dtype": "i4", "shape": []int{2}}}}), "arrays[1].name: want a string (got 7)"},
		{"entry not an object", frame(t, map[string]any{"op": "step", "arrays": []any{5}}), "arrays[0]: want an object {name, dtype, shape} (got 5)"},
		{"null entry", frame(t, map[string]any{"op": "step", "arrays": []any{nil}}), "arrays[0]: want an object {name, dtype, shape} (got null)"},
		// encoding/json folds case, so that a "SHAPE" after "shape" would
		// set the payloads' length that a client's JSON reader does not see.
		{"shape in another case", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "Shape": []int{2}}}}, i4(0, 0)), "arrays[0].Shape: not a field of an array (names are case-sensitive: name, dtype, shape)"},
		{"shape twice in two cases", append(binary.LittleEndian.AppendUint32(nil, 80), `{"op":"step","arrays":[{"name":"actions","dtype":"i4","shape":[2],"SHAPE":[0]}]}`...), "arrays[0].SHAPE: not a field of an array"},
		// encoding/json folds Unicode too: ſ is s.
		{"shape with a long s", frame(t, map[string]any{"op": "step", "arrays": []any{map[string]any{"name": "actions", "dtype": "i4", "ſhape": []int{2}}}}, i4(0, 0)), "arrays[0].ſhape: not a field of an array"},
		// A key spelled with an escape folds as its letters do: no capital
		// or multi-byte character is in the bytes.
		{"shape escaped in another case", frame(t, json.RawMessage(`{"op":"step","arrays":[{"name":"actions","dtype":"i4","\u0053hape":[2]}]}`), i4(0, 0)), "arrays[0].Shape: not a field of an array"},
		{"arrays escaped in another case", frame(t, json.RawMessage(`{"op":"step","\u0041rrays":[{"name":"actions","dtype":"i4","shape":[2]}]}`), i4(0, 0)), "Arrays: not a field of a message"},
		{"arrays in another case", frame(t, map[string]any{"op": "step", "Arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(0, 0)), "Arrays: not a field of a message (names are case-sensitive: arrays)"},
		// encoding/json keeps the last of a key given twice, a client's
		// reader may keep the first and put the payloads elsewhere.
		{"shape twice", frame(t, json.RawMessage(`{"op":"step","arrays":[{"name":"actions","dtype":"i4","shape":[2],"shape":[0]}]}`), i4(0, 0)), "arrays[0].shape: given twice"},
		{"dtype twice", frame(t, json.RawMessage(`{"op":"step","arrays":[{"name":"actions","dtype":"i4","shape":[2]},{"name":"b","dtype":"u1","dtype":"f8","shape":[1]}]}`), i4(0, 0), []byte{0}), "arrays[1].dtype: given twice"},
		{"name twice, first", frame(t, json.RawMessage(`{"op":"step","arrays":[{"name":"x","name":"actions","dtype":"i4","shape":[2]}]}`), i4(0, 0)), "arrays[0].name: given twice"},
		{"arrays twice, first", frame(t, json.RawMessage(`{"arrays":[],"op":"reset","arrays":[{"name":"a","dtype":"u1","shape":[1]}]}`), []byte{0}), "arrays: given twice"},
		{"arrays twice", frame(t, json.RawMessage(`{"op":"reset","arrays":[],"arrays":[{"name":"a","dtype":"u1","shape":[1]}]}`), []byte{0}), "arrays: given twice"},
		{"arrays not a list", frame(t, map[string]any{"op": "step", "arrays": map[string]any{"name": "actions"}}), `arrays: want a list of {name, dtype, shape} (got {"name":"actions"})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t)
			h, _ := c.send(tc.raw)
			wantError(t, h, "header", tc.msg)
			var fe *env.FramingError
			select {
			case err := <-c.done:
				assert.ErrorAs(t, err, &fe)
			case <-time.After(10 * time.Second):
				t.Fatal("the session went on after a framing error")
			}
		})
	}
}

// TestServeEndsAtEOF checks that the server returns when its client
// closes its input, in the middle of a session or of a message: a dead
// client leaves nothing running. An end between messages is the
// session's end; one inside a message is a framing error saying how far
// the message got, also answered.
func TestServeEndsAtEOF(t *testing.T) {
	step := frame(t, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(1, 2))
	for _, tc := range []struct {
		name string
		raw  []byte
		want string // the framing error's message; "" for none
	}{
		{"between messages", nil, ""},
		{"inside a length", frame(t, makeTiny)[:3], "after 3 of the 4 bytes of its length"},
		{"before a header", frame(t, makeTiny)[:4], fmt.Sprintf("after 0 of the %d bytes of its header", len(frame(t, makeTiny))-4)},
		{"inside a header", frame(t, makeTiny)[:7], fmt.Sprintf("after 3 of the %d bytes of its header", len(frame(t, makeTiny))-4)},
		{"inside the arrays", step[:len(step)-3], "after 5 of the 8 bytes of its arrays"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t)
			h, _ := c.request(makeTiny)
			require.Equal(t, true, h["ok"])
			_, err := c.in.Write(tc.raw)
			require.NoError(t, err)
			require.NoError(t, c.in.Close())
			if tc.want != "" {
				m, err := c.out.Read()
				require.NoError(t, err)
				var reply map[string]any
				require.NoError(t, json.Unmarshal(m.Header, &reply))
				assert.Equal(t, "header", reply["field"])
				assert.Contains(t, reply["error"], tc.want)
			}
			select {
			case err := <-c.done:
				if tc.want == "" {
					assert.NoError(t, err)
					return
				}
				var fe *env.FramingError
				require.ErrorAs(t, err, &fe)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
				assert.Contains(t, err.Error(), "the input ended inside a message, "+tc.want)
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return at the end of its input")
			}
		})
	}
}

// TestReaderRepeatedHeaders checks that a header read again, as a
// client's step header is, gives its own arrays and payloads, and that
// the next different header is parsed afresh.
func TestReaderRepeatedHeaders(t *testing.T) {
	two := map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}
	three := map[string]any{"op": "step", "arrays": []env.Array{{Name: "x", Dtype: "u1", Shape: []int{3}}, {Name: "y", Dtype: "f8", Shape: []int{0}}}}
	var raw []byte
	for _, m := range [][]byte{frame(t, two, i4(1, 2)), frame(t, two, i4(3, 4)), frame(t, three, []byte{5, 6, 7}), frame(t, two, i4(8, 9))} {
		raw = append(raw, m...)
	}
	r := env.NewReader(bytes.NewReader(raw))
	for _, want := range []struct {
		names    []string
		payloads [][]byte
	}{
		{[]string{"actions"}, [][]byte{i4(1, 2)}},
		{[]string{"actions"}, [][]byte{i4(3, 4)}},
		{[]string{"x", "y"}, [][]byte{{5, 6, 7}, {}}},
		{[]string{"actions"}, [][]byte{i4(8, 9)}},
	} {
		m, err := r.Read()
		require.NoError(t, err)
		var names []string
		for _, a := range m.Arrays {
			names = append(names, a.Name)
		}
		assert.Equal(t, want.names, names)
		assert.Equal(t, want.payloads, m.Payloads)
	}
	_, err := r.Read()
	assert.ErrorIs(t, err, io.EOF)
}

// FuzzReader reads arbitrary bytes as messages: it never panics, and a
// message it reads is one its arrays and payloads describe.
func FuzzReader(f *testing.F) {
	f.Add(frame(f, makeTiny))
	f.Add(frame(f, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{2}}}}, i4(1, 2)))
	f.Add([]byte{2, 0, 0, 0, '{', '}'})
	f.Add([]byte{255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := env.NewReader(bytes.NewReader(data))
		for range 4 {
			m, err := r.Read()
			if err != nil {
				return
			}
			require.Len(t, m.Payloads, len(m.Arrays))
			require.True(t, json.Valid(m.Header))
		}
	})
}

// FuzzServe serves arbitrary bytes: it never panics, and whatever it
// reads it answers with well-formed replies.
func FuzzServe(f *testing.F) {
	f.Add(append(frame(f, makeTiny), frame(f, map[string]any{"op": "reset"})...))
	f.Add(frame(f, map[string]any{"op": "step", "action_names": []any{"work", nil}}))
	f.Add(append(append(frame(f, makeTiny), frame(f, map[string]any{"op": "reset"})...),
		frame(f, map[string]any{"op": "step", "first": 1, "count": 1, "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{1}}}}, i4(0))...))
	f.Add([]byte{3, 0, 0, 0, '{', '}', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_ = env.Serve(bytes.NewReader(data), &out, "fuzz")
		r := env.NewReader(&out)
		for {
			m, err := r.Read()
			if err == io.EOF {
				return
			}
			require.NoError(t, err)
			var h map[string]any
			require.NoError(t, json.Unmarshal(m.Header, &h))
			require.Contains(t, h, "ok")
		}
	})
}

// TestMakeExampleInDocs checks that the make request docs/environment.md
// shows is made without a warning: its set takes effect under its variant.
func TestMakeExampleInDocs(t *testing.T) {
	shown := fromDoc(t, "**make** — `", "`")
	var req map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.ReplaceAll(shown, "\n", " ")), &req), "%s", shown)
	require.Contains(t, req, "set", "the example shows a set")
	h, _ := newClient(t).request(req)
	require.Equal(t, true, h["ok"], "%v", h)
	assert.Empty(t, h["warnings"])
}

// TestMakeRefusesASetItsVariantOverrides checks that make refuses a set
// that its own variant replaces with another value, which would change
// nothing, naming the set, and warns of none that only other variants
// override: the environment plays one variant, so the command line's
// warning about the others would read as if the set did not apply here.
// A variant that sets the same value loses nothing (the example of issue
// 23: high with reward.latency 1).
func TestMakeRefusesASetItsVariantOverrides(t *testing.T) {
	for _, tc := range []struct {
		variant, latency string
		refused          bool
	}{{"none", "5", false}, {"high", "5", true}, {"high", "1.0", false}} {
		t.Run(tc.variant+" "+tc.latency, func(t *testing.T) {
			h, _ := newClient(t).request(map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "latency-pressure",
				"variant": tc.variant, "num_envs": 2, "group": 2, "set": map[string]any{"reward.latency": tc.latency}})
			if tc.refused {
				require.Equal(t, false, h["ok"], "%v", h)
				assert.Equal(t, "set.reward.latency", h["field"])
				assert.Contains(t, h["error"], "--set reward.latency=5: reward.latency: changes nothing: variant high sets reward.latency itself, to another value")
				return
			}
			require.Equal(t, true, h["ok"], "%v", h)
			assert.Equal(t, []any{}, h["warnings"])
		})
	}
}

// TestUnknownNameNamesTheValidActions checks the refusal of a name that is
// no action's in an active row, as a language model's answer gets it: the
// row's valid actions, not all seven, and a suggestion among them only,
// through case and the decorations of the rendered list.
func TestUnknownNameNamesTheValidActions(t *testing.T) {
	c := newClient(t)
	h, _ := c.request(makeTiny)
	require.Equal(t, true, h["ok"], "%v", h)
	c.request(map[string]any{"op": "reset"})
	h, _ = c.request(map[string]any{"op": "render", "rows": []int{1}})
	require.Contains(t, h["text"].([]any)[0], "Valid actions:\n- work: take the next ready subtask and work on it yourself\n- delegate: hand the next ready subtask to an idle helper, spawning one if none is idle; you stay free\n- attempt: start")
	for _, tc := range []struct{ name, msg string }{
		{"fly", `row 1: unknown action "fly" (valid here: work,delegate,attempt)`},
		{"Work", `row 1: unknown action "Work" (valid here: work,delegate,attempt); did you mean "work"?`},
		{"DELEGATE", `; did you mean "delegate"?`},
		{"- attempt:", `; did you mean "attempt"?`},
		{"**work**", `; did you mean "work"?`},
		{"dlegate", `; did you mean "delegate"?`},
	} {
		h, _ := c.request(map[string]any{"op": "step", "action_names": []any{"work", tc.name}})
		wantError(t, h, "action_names[1]", tc.msg)
		assert.NotContains(t, h["error"], "submit", "%q: an action the row cannot take", tc.name)
	}
	// Near a valid name of the row that is not valid here: no suggestion
	// that the next step would refuse too.
	h, _ = c.request(map[string]any{"op": "step", "action_names": []any{"work", "submitt"}})
	wantError(t, h, "action_names[1]", `row 1: unknown action "submitt" (valid here: work,delegate,attempt)`)
	assert.NotContains(t, h["error"], "did you mean")
}

// TestMakeStatesTheObjective checks that make's reply says how an episode
// is scored: latency-pressure's variants differ in their reward alone, so
// their decisions read the same, and a reader learns the latency weight
// from the objective only.
func TestMakeStatesTheObjective(t *testing.T) {
	objective := map[string]string{}
	for _, v := range []string{"none", "high"} {
		c := newClient(t)
		h, _ := c.request(map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "latency-pressure", "variant": v})
		require.Equal(t, true, h["ok"], "%v", h)
		objective[v], _ = h["objective"].(string)
		assert.Contains(t, objective[v], "1 if the submitted result is acceptable", v)
		assert.Contains(t, objective[v], "minus 1 × the total busy time of all agents over 6h0m0s", v)
		assert.Contains(t, objective[v], "time limit of 6h0m0s is cut off", v)
	}
	assert.NotContains(t, objective["none"], "finish time over")
	assert.Contains(t, objective["high"], "minus 1 × the finish time over 6h0m0s")
}

// TestUnreadFieldsNamedInTheirOrder: of several fields that a request's
// op does not read, the error names the first as the header writes it,
// the same at every try: a client's author, or its test, must not get a
// different field for the same mistake.
func TestUnreadFieldsNamedInTheirOrder(t *testing.T) {
	c := newClient(t)
	c.request(makeTiny)
	for i := range 20 {
		// Each header differs, so that none is answered from the last.
		raw := fmt.Sprintf(`{"op":"reset","seed":%d,"rows":[0],"first":0,"count":2,"action_names":[]}`, i)
		h, _ := c.send(append(binary.LittleEndian.AppendUint32(nil, uint32(len(raw))), raw...))
		wantError(t, h, "rows", "rows: reset does not read it")
	}
}
