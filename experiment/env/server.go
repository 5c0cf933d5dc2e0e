package env

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/models/collective"
)

// request is a message's header: the op and its fields. Fields an op
// does not read must be absent.
type request struct {
	Op          string          `json:"op"`
	Protocol    string          `json:"protocol"`
	Scenario    string          `json:"scenario"`
	Variant     string          `json:"variant"`
	NumEnvs     *int            `json:"num_envs"`
	Group       *int            `json:"group"`
	Workers     int             `json:"workers"`
	Decide      string          `json:"decide"`
	Seed        *uint64         `json:"seed"`
	Set         json.RawMessage `json:"set"`
	Rows        []int           `json:"rows"`
	First       *int            `json:"first"`
	Count       *int            `json:"count"`
	ActionNames []*string       `json:"action_names"`
	Arrays      []Array         `json:"arrays"`
}

// opFields are the header fields each op reads, besides op and arrays.
var opFields = map[string][]string{
	"make":   {"protocol", "scenario", "variant", "num_envs", "group", "seed", "set", "workers", "decide"},
	"reset":  {"seed"},
	"step":   {"action_names", "first", "count"},
	"render": {"rows"},
	"close":  nil,
}

// retired says what changed since a protocol this server no longer
// serves, for the client's author.
var retired = map[string]string{
	"swarmsim-env/1": "; /2 sends the episode metrics of the rows that ended only, as episode_rows and episode (docs/environment.md): update the client",
}

// opNames lists the ops for messages.
const opNames = "make, reset, step, render, close"

// server is one client's session: its environment once made, and the
// memory of its replies.
type server struct {
	out     io.Writer
	version string
	env     *Env
	reply   []byte
	actions []int32
	// The arrays of reset's and step's replies, the same every time, and
	// the memory of a reply's header.
	resetArrays, stepArrays []replyArray
	header                  []byte
	// The last request header decoded without error and its request: a
	// client sends one step header at every step.
	lastHeader []byte
	lastReq    *request
}

// Serve answers the requests read from in, one reply each on out, until
// a close request or the end of in between messages (a client that closed
// or died), and returns nil then. version is what make's reply reports. A
// message that breaks the framing, or that in ends inside, is answered
// with an error and ends the session with a *FramingError; any other bad request is answered with an error that
// names its field, and the session goes on unchanged. Each reply is one
// Write to out.
func Serve(in io.Reader, out io.Writer, version string) error {
	s := &server{out: out, version: version}
	r := NewReader(in)
	for {
		m, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var fe *FramingError
		if errors.As(err, &fe) {
			// A client that broke the framing may be gone (the input
			// ended inside a message): the framing error is what its
			// author needs to hear, whether or not the reply got out.
			s.fail(&FieldError{Field: "header", Err: err})
			return errors.Join(err, s.send())
		}
		if err != nil {
			return err
		}
		closing, err := s.handle(m)
		if err != nil {
			s.fail(err)
		}
		if err := s.send(); err != nil {
			return err
		}
		if closing {
			return nil
		}
	}
}

// send writes the reply in one Write.
func (s *server) send() error {
	_, err := s.out.Write(s.reply)
	return err
}

// fail makes the reply an error naming its field.
func (s *server) fail(err error) {
	field := "op"
	var fe *FieldError
	if errors.As(err, &fe) {
		field = fe.Field
	}
	type reply struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
		Field string `json:"field"`
	}
	h, merr := json.Marshal(reply{false, err.Error(), field})
	if merr == nil && len(h) > maxReplyHeader {
		// An error quotes what the client sent (a name, a path, a set's
		// value), which may take megabytes: the reply is held to the
		// header's bound as render's is, so that a client reading under
		// it keeps its session. JSON writes a byte in at most 6.
		h, merr = json.Marshal(reply{false, clip(err.Error(), maxReplyHeader/16), clip(field, maxReplyHeader/16)})
	}
	if merr != nil {
		panic(merr) // strings always marshal
	}
	s.reply = appendFrame(s.reply[:0], h)
}

// clip returns s if it has at most n bytes, else its start and end, n
// bytes in all at most, around a mark of what was left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " [... %d bytes left out ...] "
	keep := max(0, n-len(fmt.Sprintf(mark, len(s))))
	head, tail := keep/2, len(s)-(keep-keep/2)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf(mark, tail-head) + s[tail:]
}

// ok makes the reply a success with the given header.
func (s *server) ok(header any) error {
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	s.reply = appendFrame(s.reply[:0], h)
	return nil
}

// handle answers one request, leaving the reply in s.reply, and reports
// whether the session ends.
func (s *server) handle(m *Message) (bool, error) {
	req := s.lastReq
	if req == nil || !bytes.Equal(m.Header, s.lastHeader) {
		var err error
		rows := 0
		if s.env != nil {
			rows = s.env.n
		}
		if req, err = decodeRequest(m.Header, rows); err != nil {
			return false, err
		}
		s.lastHeader, s.lastReq = append(s.lastHeader[:0], m.Header...), req
	}
	if req.Op != "make" && s.env == nil && req.Op != "close" {
		if _, known := opFields[req.Op]; known {
			return false, fieldErr("op", "op: %s before make (the first request makes the environment)", req.Op)
		}
	}
	switch req.Op {
	case "make":
		return false, s.make(req, m)
	case "reset":
		return false, s.reset(req, m)
	case "step":
		return false, s.step(req, m)
	case "render":
		return false, s.render(req, m)
	case "close":
		if err := noArrays(m); err != nil {
			return false, err
		}
		return true, s.ok(struct {
			OK bool `json:"ok"`
		}{true})
	}
	return false, fieldErr("op", "op: %q is not a request (allowed: %s)", req.Op, opNames)
}

// decodeRequest reads a header strictly: every field known and of its
// type, and only the fields its op reads. rows is the number of rows of
// the session's environment, 0 before make, which a render row's range
// names.
func decodeRequest(header []byte, rows int) (*request, error) {
	// encoding/json reads a byte that is not UTF-8 as U+FFFD, so that a
	// client's name would arrive as another.
	if !utf8.Valid(header) {
		at := 0
		for at < len(header) {
			r, n := utf8.DecodeRune(header[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return nil, fieldErr("header", "header: the byte at offset %d (0x%02X) is not UTF-8, which the header's JSON must be", at, header[at])
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			if err := listElementError(header, te.Field, rows); err != nil {
				return nil, err
			}
			want, ok := fieldWants[te.Field]
			if !ok {
				want = typeName(te.Type.String())
			}
			return nil, fieldErr(te.Field, "%s: a JSON %s is not allowed here (want %s)", te.Field, te.Value, want)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			if name == "actions" {
				return nil, fieldErr(name, "actions: not a header field: step's actions travel as a binary array named actions (dtype i4, one per row) that header.arrays lists, or by name in action_names")
			}
			if path := arrayEntryField(header, name); path != "" {
				return nil, fieldErr(path, "%s: not a field of an array (allowed: name, dtype, shape)", path)
			}
			return nil, fieldErr(name, "%s: not a field of any request (allowed: op, arrays, %s)", name, allFields())
		}
		return nil, fieldErr("header", "header: %v", err)
	}
	keys, err := headerKeys(header)
	if err != nil {
		return nil, fieldErr("header", "header: %v", err)
	}
	// encoding/json matches a key to a field whatever its case ("OP" to
	// op), so that the checks below would take {"OP": "make"} for a make
	// that does not read OP: a key that is a field's name but for case is
	// said to be so, first.
	for _, name := range keys {
		if f := caseVariant(name); f != "" {
			return nil, fieldErr(name, "%s: not a field of any request (names are case-sensitive: %s)", name, f)
		}
	}
	fields, known := opFields[req.Op]
	if !known {
		if req.Op == "" {
			return nil, fieldErr("op", "op: missing (allowed: %s)", opNames)
		}
		return nil, fieldErr("op", "op: %q is not a request (allowed: %s)", req.Op, opNames)
	}
	for i, name := range keys {
		if slices.Contains(keys[:i], name) {
			// encoding/json keeps the last, other readers the first: a
			// client could be read as asking for what it did not.
			return nil, fieldErr(name, "%s: given twice (give each field once)", name)
		}
		if name == "op" || name == "arrays" || containsString(fields, name) {
			continue
		}
		return nil, fieldErr(name, "%s: %s does not read it (its fields: %s)", name, req.Op, fieldList(fields))
	}
	return &req, nil
}

// headerKeys returns the keys of the header, a JSON object, in its order
// and with any repeated: of several fields at fault, an error names the
// first as written, the same every time, where a map's order would change
// from try to try.
func headerKeys(header []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(header))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// listElementError returns the error of the first element of the list
// field that is not of its type, named by its index, or nil if field is
// not such a list or no element is at fault.
func listElementError(header []byte, field string, rows int) error {
	var want string
	var fits func(json.RawMessage) bool
	switch field {
	case "rows":
		want = "a row: an integer from 0 to num_envs - 1"
		if rows > 0 {
			want = fmt.Sprintf("a row: an integer from 0 to %d", rows-1)
		}
		fits = func(v json.RawMessage) bool {
			var i int
			return json.Unmarshal(v, &i) == nil && i >= 0 && (rows == 0 || i < rows)
		}
	case "action_names":
		want = "an action's name, or null for an inactive row"
		fits = func(v json.RawMessage) bool {
			var name *string
			return json.Unmarshal(v, &name) == nil
		}
	default:
		return nil
	}
	var h map[string]json.RawMessage
	var list []json.RawMessage
	if json.Unmarshal(header, &h) != nil || json.Unmarshal(h[field], &list) != nil {
		return nil
	}
	for i, v := range list {
		if !fits(v) {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "%s[%d]: %s is not allowed here (want %s)", field, i, shorten(v), want)
		}
	}
	return nil
}

// arrayEntryField returns the path of the unknown field name in an entry
// of the header's arrays, such as arrays[0].x, or "" if no entry has it.
func arrayEntryField(header []byte, name string) string {
	var h struct {
		Arrays []map[string]json.RawMessage `json:"arrays"`
	}
	if json.Unmarshal(header, &h) != nil {
		return ""
	}
	for i, a := range h.Arrays {
		if _, ok := a[name]; ok && name != "name" && name != "dtype" && name != "shape" {
			return fmt.Sprintf("arrays[%d].%s", i, name)
		}
	}
	return ""
}

// fieldWants says what a field of a number takes, for a value of another
// JSON type: the range make checks, rather than that of the Go type that
// holds it.
var fieldWants = map[string]string{
	"num_envs": fmt.Sprintf("an integer from 1 to %d", MaxRows),
	"group":    "an integer from 1 up that divides num_envs",
	"workers":  fmt.Sprintf("an integer from 0 to %d", MaxWorkers),
	"seed":     "an integer from 0 to 18446744073709551615",
	"first":    "the first row of a group: an integer from 0 to num_envs - group",
	"count":    "a number of rows in whole groups: an integer from group to num_envs",
}

// typeName says in words what a Go type of request holds.
func typeName(t string) string {
	switch {
	case strings.Contains(t, "[]*string"):
		return "a list of action names or nulls"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.Contains(t, "uint64"):
		return "an integer from 0 to 18446744073709551615"
	case strings.Contains(t, "int"):
		return "an integer from -9223372036854775808 to 9223372036854775807"
	case t == "string":
		return "a string"
	}
	return t
}

// caseVariant returns the request field that name is but for case (as
// encoding/json folds it: "OP" or "Scenario"), or "" if it is none or the
// field itself.
func caseVariant(name string) string {
	for _, f := range append([]string{"op", "arrays"}, strings.Split(allFields(), ", ")...) {
		if name != f && strings.EqualFold(name, f) {
			return f
		}
	}
	return ""
}

func allFields() string {
	seen := map[string]bool{}
	var all []string
	for _, op := range strings.Split(opNames, ", ") {
		for _, f := range opFields[op] {
			if !seen[f] {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	return strings.Join(all, ", ")
}

func fieldList(fields []string) string {
	if len(fields) == 0 {
		return "none"
	}
	return strings.Join(fields, ", ")
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// noArrays refuses arrays a request does not read.
func noArrays(m *Message) error {
	if len(m.Arrays) > 0 {
		return fieldErr("arrays", "arrays: this request reads none (got %q)", m.Arrays[0].Name)
	}
	return nil
}

// make makes the session's environment.
func (s *server) make(req *request, m *Message) error {
	if s.env != nil {
		return fieldErr("op", "op: make, but the environment is made already (one per session; start another simulate env for another)")
	}
	if err := noArrays(m); err != nil {
		return err
	}
	if req.Protocol == "" {
		// Said as missing, not as the protocol "" unserved: a client that
		// left it out is new, not old.
		return fieldErr("protocol", "protocol: missing (allowed: %s; make names the protocol the client speaks)", Protocol)
	}
	if req.Protocol != Protocol {
		return fieldErr("protocol", "protocol: %q is not served (allowed: %s)%s", req.Protocol, Protocol, retired[req.Protocol])
	}
	if req.Scenario == "" {
		return fieldErr("scenario", "scenario: missing (a library scenario's name, as simulate list shows them, or a YAML file's path)")
	}
	cfg := Config{Scenario: req.Scenario, Variant: req.Variant, NumEnvs: 1, Group: 1, Seed: req.Seed, Workers: req.Workers, Decide: req.Decide}
	if req.NumEnvs != nil {
		cfg.NumEnvs = *req.NumEnvs
	}
	if req.Group != nil {
		cfg.Group = *req.Group
	}
	sets, err := parseSets(req.Set)
	if err != nil {
		return err
	}
	cfg.Sets = sets
	e, err := New(cfg)
	if err != nil {
		return err
	}
	s.env = e
	s.actions = make([]int32, e.n)
	s.resetArrays, s.stepArrays = replyArrays(e, false), replyArrays(e, true)
	return s.ok(struct {
		OK             bool     `json:"ok"`
		Protocol       string   `json:"protocol"`
		Version        string   `json:"version"`
		NumEnvs        int      `json:"num_envs"`
		Group          int      `json:"group"`
		Workers        int      `json:"workers"`
		Decide         string   `json:"decide"`
		NumFeatures    int      `json:"num_features"`
		NumActions     int      `json:"num_actions"`
		ActionNames    []string `json:"action_names"`
		FeatureNames   []string `json:"feature_names"`
		EpisodeMetrics []string `json:"episode_metrics"`
		Scenario       string   `json:"scenario"`
		Variant        string   `json:"variant"`
		Warnings       []string `json:"warnings"`
		Objective      string   `json:"objective"`
	}{true, Protocol, s.version, e.n, e.g, len(e.parts), e.decide, NumFeatures, NumActions, ActionNames(), FeatureNames(), e.Metrics(), e.name, e.variant.Name, nonNil(e.Warnings()), e.Objective()})
}

// nonNil makes a missing list an empty one, which JSON writes as [].
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// parseSets reads make's set object in its order (a later set of a path
// wins, as with repeated --set): path to value, the value a string as
// --set takes it, or a JSON number or boolean standing for its text.
func parseSets(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fieldErr("set", "set: want an object of path: value (such as {\"reward.latency\": \"1.0\"})")
	}
	var sets []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fieldErr("set", "set: %v", err)
		}
		path, _ := t.(string)
		if path == "" {
			return nil, fieldErr("set", "set: an empty path (want a path such as reward.latency)")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fieldErr("set."+path, "set.%s: %v", path, err)
		}
		var value string
		switch v[0] {
		case '"':
			if err := json.Unmarshal(v, &value); err != nil {
				return nil, fieldErr("set."+path, "set.%s: %v", path, err)
			}
		case 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			value = string(v) // a number or a boolean stands for its text
		case '[', '{':
			return nil, fieldErr("set."+path, "set.%s: want a value as --set takes it, as a string (got %s; a list or a map is its YAML text in a string, such as \"[work, delegate]\")", path, shorten(v))
		default:
			return nil, fieldErr("set."+path, "set.%s: want a value as --set takes it, as a string (got %s)", path, shorten(v))
		}
		sets = append(sets, path+"="+value)
	}
	return sets, nil
}

// A replyArray is an array of reset's or step's reply: how the header
// lists it and how it is written from the output. The lists below are
// the one place where the order of the arrays is written.
type replyArray struct {
	Array
	// ended marks an array over the rows whose episodes ended: its first
	// dimension is len(Out.Ended), which changes from step to step.
	ended bool
	write func(buf []byte, o *Out) []byte
	// head is its description in the reply's header up to the shape's
	// numbers, quoted once rather than at every step.
	head string
}

// replyArrays returns the arrays of reset's reply, or with step step's.
func replyArrays(e *Env, step bool) []replyArray {
	n := e.n
	arrays := []replyArray{{Array: Array{"obs", "f4", []int{n, NumFeatures}}, write: func(b []byte, o *Out) []byte { return appendF4(b, o.Obs) }}}
	if step {
		arrays = append(arrays,
			replyArray{Array: Array{"reward", "f8", []int{n}}, write: func(b []byte, o *Out) []byte { return appendF8(b, o.Reward) }},
			replyArray{Array: Array{"terminated", "u1", []int{n}}, write: func(b []byte, o *Out) []byte { return append(b, o.Terminated...) }},
			replyArray{Array: Array{"truncated", "u1", []int{n}}, write: func(b []byte, o *Out) []byte { return append(b, o.Truncated...) }})
	}
	arrays = append(arrays,
		replyArray{Array: Array{"action_mask", "u1", []int{n, NumActions}}, write: func(b []byte, o *Out) []byte { return append(b, o.Mask...) }},
		replyArray{Array: Array{"agent", "i4", []int{n}}, write: func(b []byte, o *Out) []byte { return appendI4(b, o.Agent) }},
		replyArray{Array: Array{"active", "u1", []int{n}}, write: func(b []byte, o *Out) []byte { return append(b, o.Active...) }},
		replyArray{Array: Array{"u", "f8", []int{n}}, write: func(b []byte, o *Out) []byte { return appendF8(b, o.U) }})
	if step {
		arrays = append(arrays,
			replyArray{Array: Array{"episode_rows", "i4", []int{0}}, ended: true, write: func(b []byte, o *Out) []byte { return appendI4(b, o.Ended) }},
			replyArray{Array: Array{"episode", "f8", []int{0, len(e.metrics)}}, ended: true, write: func(b []byte, o *Out) []byte { return appendF8(b, o.Episode) }})
	}
	for i := range arrays {
		a := &arrays[i]
		a.head = `{"name":` + strconv.Quote(a.Name) + `,"dtype":` + strconv.Quote(a.Dtype) + `,"shape":[`
	}
	return arrays
}

// appendHeader appends the header of a reply with the arrays to buf:
// the arrays over the rows with rows of them, those over ended rows with
// ended. It writes the JSON itself, since it does so at every step: names
// and dtypes are plain ASCII, which Go quotes as JSON does.
func appendHeader(buf []byte, arrays []replyArray, rows, ended int) []byte {
	buf = append(buf, `{"ok":true,"arrays":[`...)
	for i := range arrays {
		a := &arrays[i]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, a.head...)
		for j, d := range a.Shape {
			if j > 0 {
				buf = append(buf, ',')
			}
			if j == 0 {
				d = rows
				if a.ended {
					d = ended
				}
			}
			buf = strconv.AppendInt(buf, int64(d), 10)
		}
		buf = append(buf, "]}"...)
	}
	return append(buf, "]}"...)
}

// writeArrays makes the reply the header and the arrays of out.
func (s *server) writeArrays(arrays []replyArray, out *Out) {
	s.header = appendHeader(s.header[:0], arrays, len(out.Agent), len(out.Ended))
	s.reply = appendFrame(s.reply[:0], s.header)
	for _, a := range arrays {
		s.reply = a.write(s.reply, out)
	}
}

// reset starts every row's next episode.
func (s *server) reset(req *request, m *Message) error {
	if err := noArrays(m); err != nil {
		return err
	}
	out, err := s.env.Reset(req.Seed)
	if err != nil {
		return err
	}
	s.writeArrays(s.resetArrays, out)
	return nil
}

// step gives every row its action, by number or by name, or the rows
// first to first+count-1 theirs.
func (s *server) step(req *request, m *Message) error {
	lo, hi, err := s.stepRows(req)
	if err != nil {
		return err
	}
	if err := s.stepActions(req, m, lo, hi); err != nil {
		return err
	}
	out, err := s.env.StepRows(lo, hi, s.actions[:hi-lo])
	if err != nil {
		// The mask's verdict names the field as the client gave it.
		var fe *FieldError
		if req.ActionNames != nil && errors.As(err, &fe) && strings.HasPrefix(fe.Field, "actions[") {
			fe.Field = "action_names" + strings.TrimPrefix(fe.Field, "actions")
		}
		return err
	}
	s.writeArrays(s.stepArrays, out)
	return nil
}

// stepRows returns the rows [lo, hi) a step acts on: first and count,
// each whole groups, or every row.
func (s *server) stepRows(req *request) (lo, hi int, _ error) {
	e := s.env
	lo, hi = 0, e.n
	if req.First != nil {
		lo = *req.First
		if lo < 0 || lo >= e.n || lo%e.g != 0 {
			return 0, 0, fieldErr("first", "first: %d is not the first row of a group (allowed: a multiple of group %d from 0 to %d)", lo, e.g, e.n-e.g)
		}
		hi = e.n
	}
	if req.Count != nil {
		n := *req.Count
		if n < 1 || n > e.n-lo || n%e.g != 0 {
			return 0, 0, fieldErr("count", "count: %d rows from row %d is not a number of whole groups there (allowed: a multiple of group %d from %d to %d)", n, lo, e.g, e.g, e.n-lo)
		}
		hi = lo + n
	}
	return lo, hi, nil
}

// stepActions reads the actions of a step of the rows [lo, hi) into
// s.actions: the i4 array "actions", or the header's action_names.
func (s *server) stepActions(req *request, m *Message, lo, hi int) error {
	n := hi - lo
	switch {
	case req.ActionNames != nil && len(m.Arrays) > 0:
		return fieldErr("action_names", "action_names: given with arrays (give the actions either as the array actions or by name)")
	case req.ActionNames != nil:
		if len(req.ActionNames) != n {
			return fieldErr("action_names", "action_names: %d names for %d rows (want one per row, null for an inactive row)", len(req.ActionNames), n)
		}
		for i, name := range req.ActionNames {
			s.actions[i] = 0
			if name == nil {
				if p, active := s.env.Pending(lo + i); active {
					// A model that answered nothing is asked again with
					// what it may answer, as for a name that is no action's.
					return fieldErr(fmt.Sprintf("action_names[%d]", i), "row %d: no action for an active row (null is for inactive rows; valid here: %s)", lo+i, p.Mask.List())
				}
				continue
			}
			a, err := collective.ParseAction(*name)
			if err != nil {
				if p, active := s.env.Pending(lo + i); active {
					return unknownName(i, lo+i, *name, p.Mask)
				}
				return fieldErr(fmt.Sprintf("action_names[%d]", i), "row %d: %v", lo+i, err)
			}
			s.actions[i] = int32(a)
		}
		return nil
	}
	switch {
	case len(m.Arrays) == 0:
		return fieldErr("actions", "actions: want one array named actions (i4, shape [%d]) or action_names in the header", n)
	case m.Arrays[0].Name == "":
		return fieldErr("arrays[0].name", "arrays[0].name: missing (a step reads one array, named actions: i4, shape [%d])", n)
	case m.Arrays[0].Name != "actions":
		return fieldErr("arrays[0].name", "arrays[0].name: %q is not an array of step (a step reads one array, named actions: i4, shape [%d])", m.Arrays[0].Name, n)
	case len(m.Arrays) > 1:
		return fieldErr("arrays[1].name", "arrays[1].name: %q after actions (a step reads one array, actions)", m.Arrays[1].Name)
	}
	a := &m.Arrays[0]
	if a.Dtype != "i4" || len(a.Shape) != 1 || a.Shape[0] != n {
		return fieldErr("actions", "actions: dtype %s shape %v (want dtype i4, shape [%d])", a.Dtype, a.Shape, n)
	}
	p := m.Payloads[0]
	for i := range n {
		s.actions[i] = int32(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return nil
}

// unknownName is the error of an active row given a name that is no
// action's. A language model's answer is judged against the row's valid
// actions, so the error lists those, not all seven, and suggests one of
// them: a suggestion of an action the row cannot take would only lead to
// a second refusal. Case and the decorations of the rendered list
// ("- work:", "**work**") are ignored in the suggestion, not in the name.
func unknownName(j, row int, name string, mask collective.Mask) error {
	valid := strings.Split(mask.List(), ",")
	msg := fmt.Sprintf("row %d: unknown action %q (valid here: %s)", row, name, mask.List())
	bare := strings.ToLower(strings.Trim(name, " \t\n-*`'\":."))
	if slices.Contains(valid, bare) {
		msg += fmt.Sprintf("; did you mean %q?", bare)
	} else {
		msg += spelling.DidYouMean(bare, valid)
	}
	return fieldErr(fmt.Sprintf("action_names[%d]", j), "%s", msg)
}

// render describes the rows' pending decisions in words.
func (s *server) render(req *request, m *Message) error {
	if err := noArrays(m); err != nil {
		return err
	}
	if !s.env.reset {
		return fieldErr("op", "render before reset: the rows have no episodes (send reset first)")
	}
	rows := req.Rows
	if rows == nil {
		rows = []int{}
		for i := range s.env.n {
			if _, active := s.env.Pending(i); active {
				rows = append(rows, i)
			}
		}
	}
	for j, i := range rows {
		if i < 0 || i >= s.env.n {
			return fieldErr(fmt.Sprintf("rows[%d]", j), "rows[%d]: row %d is out of range (0 to %d)", j, i, s.env.n-1)
		}
	}
	texts := make([]string, len(rows))
	size := 0
	for j, i := range rows {
		texts[j] = s.env.Render(i)
		// Refused as soon as the texts alone pass the bound checked below:
		// a request's header holds a list of 8 million rows, whose texts
		// would take tens of gigabytes before the check.
		if size += len(texts[j]); size > maxReplyHeader {
			return fieldErr("rows", "rows: the texts of the first %d of %d rows take more than a message's header may hold (%d bytes, docs/environment.md, Framing): render fewer rows at a time", j+1, len(rows), maxReplyHeader)
		}
	}
	if err := s.ok(struct {
		OK   bool     `json:"ok"`
		Rows []int    `json:"rows"`
		Text []string `json:"text"`
	}{true, rows, texts}); err != nil {
		return err
	}
	// The texts travel in the header, which a client may refuse beyond
	// MaxHeader as the server does: a reply it cannot read would end the
	// session.
	if n := len(s.reply) - 4; n > maxReplyHeader {
		return fieldErr("rows", "rows: the texts of %d rows take a reply header of %d bytes, more than a message's header may hold (%d, docs/environment.md, Framing): render fewer rows at a time", len(rows), n, maxReplyHeader)
	}
	return nil
}

// maxReplyHeader bounds a reply's header as MaxHeader bounds a request's;
// a variable for tests.
var maxReplyHeader = MaxHeader
