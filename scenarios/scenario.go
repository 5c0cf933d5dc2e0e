package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Scenario is a loaded, validated scenario: what to simulate (the base
// Spec), the variants to compare on the same task draws, and how many
// episodes from which seed.
type Scenario struct {
	// Name identifies the scenario (letters, digits, '.', '_', '-'); it
	// defaults to the file's base name.
	Name string
	// Description is a one-line summary.
	Description string
	// Source is the file's path, or "embedded:NAME" for a library scenario.
	Source string
	// Seed is the master seed of every random stream.
	Seed uint64
	// Episodes is the number of episodes per variant (default 100).
	Episodes int
	// Base is the spec before variants: the file's task, collective and
	// policy, with collective.Defaults() for what the file leaves out and
	// --set overrides applied.
	Base Spec
	// Variants holds at least one variant, in file order. A file without
	// variants has one, named "default", equal to Base.
	Variants []Variant
	// Resolved is the canonical YAML of the fully resolved scenario:
	// defaults filled in, --set overrides applied, values in canonical
	// form. It is itself a scenario file that parses to an equal scenario;
	// runs record it in their manifest.
	Resolved []byte
	// Hash is "sha256:<hex>" of Resolved.
	Hash string
	// WorkHash is "sha256:<hex>" of Resolved without the figures list:
	// what a training's results depend on, and so what its checkpoints
	// resume under. The figures list is checked only when the work is
	// done; a name it lists that the run did not draw, once corrected,
	// resumes the work instead of starting it again.
	WorkHash string
	// Warnings are things the scenario does that are probably not meant
	// but not wrong either, such as a --set that some variants override
	// with their own value; the command line prints them.
	Warnings []Warning
	// Sweep is the file's sweep section, resolved; nil when it has none.
	// Trials enumerates its trials.
	Sweep *Sweep
	// Figures names the charts of a run, training or sweep that
	// `--figures DIR` copies into DIR (as SCENARIO_CHART): the few that
	// carry the scenario's finding. Empty means every chart.
	Figures []string

	// rawBase and rawSpecs are Base and the variants' specs with file
	// paths as written (relative to the scenario's folder).
	rawBase  Spec
	rawSpecs []Spec
	// overrides lists, per variant, the field paths its `set:` sets (a
	// mapping's each key), in order: a sweep trial applies them on top of
	// its own values.
	overrides [][]string
	// flags are the --set overrides, for Only's check that the variant
	// it keeps reads them.
	flags []override
	// runInert is what RunInert returns.
	runInert error
	// kindWritten says, per variant, whether a trial's field path is
	// given (see kindZeroProblems); only with a sweep.
	kindWritten []func(path string) bool
	// fileAt holds, per variant, where each field that names a file
	// (fileRefs) was written, for CheckFiles' messages.
	fileAt []map[string]*Error
	// figureAt holds where each name of Figures was written, for the
	// messages of commands that find it was not drawn.
	figureAt []*Error
	// tracesAt holds where each path of Base.Replay.Traces was written,
	// for CheckTraces' messages.
	tracesAt []*Error
	// randomAt holds where each random axis of Sweep was written, for the
	// errors of trials whose draws leave a field's range: those depend on
	// the seed, so Trials finds them after the file has loaded.
	randomAt []*Error
}

// Spec is what one variant simulates: the task family episodes draw from,
// the collective that works on them, the policy that decides, and, for
// `simulate train`, the collective reward and the learner's settings.
type Spec struct {
	Task       task.Family       `yaml:"task" json:"task"`
	Collective collective.Config `yaml:"collective" json:"collective"`
	Policy     PolicySpec        `yaml:"policy" json:"policy"`
	Reward     rlcr.Reward       `yaml:"reward" json:"reward"`
	Train      rlcr.Config       `yaml:"train" json:"train"`
	// Replay is what `simulate replay` and sweeps of command replay
	// replay, and under which load; nothing else reads it.
	Replay replay.Settings `yaml:"replay,omitempty" json:"replay,omitzero"`
}

// PolicySpec chooses the policy that `simulate run` evaluates: a fixed
// organization, or a policy file written by `simulate train`. Training
// ignores it: it learns the policy that train.policy names.
type PolicySpec struct {
	// Organization is a fixed organization: one of the names of
	// policy.Organizations (independent, sequential, split, team).
	Organization string `yaml:"organization" json:"organization"`
	// File is a learned policy (swarmsim-policy/1 JSON); when set it
	// replaces the organization.
	File string `yaml:"file" json:"file,omitempty"`
}

// Variant is the base spec with a variant's overrides applied.
type Variant struct {
	Name string
	Spec Spec
}

// Policy returns the policy of the variant's spec: the learned policy in
// its file, or the fixed organization.
func (v Variant) Policy() (collective.Policy, error) {
	if path := v.Spec.Policy.File; path != "" {
		f, err := openRegular(path)
		if err != nil {
			return nil, fmt.Errorf("variant %q: policy.file: %w", v.Name, err)
		}
		defer f.Close()
		p, err := policy.Load(f, path)
		if err != nil {
			return nil, fmt.Errorf("variant %q: %w", v.Name, err)
		}
		return p, nil
	}
	f, err := policy.Organization(v.Spec.Policy.Organization)
	if err != nil {
		return nil, fmt.Errorf("variant %q: policy.organization: %w", v.Name, err)
	}
	return f, nil
}

// Problem returns what `simulate train` learns for the variant.
func (v Variant) Problem() rlcr.Problem {
	return rlcr.Problem{Task: v.Spec.Task, Collective: v.Spec.Collective, Reward: v.Spec.Reward}
}

// DefaultVariant is the name of the single variant of a file without
// variants.
const DefaultVariant = "default"

// defaultEpisodes is the episodes of a file that leaves them out.
const defaultEpisodes = 100

// MaxEpisodes bounds a scenario's episodes per variant, and the --episodes
// of simulate run that replaces them: one bound, whichever gives them.
const MaxEpisodes = 1_000_000_000

// file is the document's structure.
type file struct {
	Name        string `yaml:"name" json:"name,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
	Seed        uint64 `yaml:"seed" json:"seed,omitempty"`
	Episodes    int    `yaml:"episodes" json:"episodes,omitempty"`
	Spec        `yaml:",inline"`
	Variants    []fileVariant `yaml:"variants" json:"variants,omitempty"`
	Sweep       fileSweep     `yaml:"sweep" json:"sweep,omitempty"`
	Figures     []string      `yaml:"figures" json:"figures,omitempty"`
}

type fileVariant struct {
	Name string  `yaml:"name" json:"name"`
	Set  setList `yaml:"set" json:"set,omitempty"`
}

const nameRule = "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit"

// namePattern is nameRule as a regular expression, for the JSON Schema;
// validName checks it (TestValidNameIsNamePattern).
const namePattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`

// validName reports whether s follows nameRule (ASCII letters and digits).
// It is a loop rather than the regexp of the rule: that regexp's {0,127}
// compiles to 128 copies of its class, 1.2 million instructions at every
// start of simulate.
func validName(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckName returns an error saying what a name may be, or nil when name
// is a valid scenario or variant name.
func CheckName(name string) error {
	if validName(name) {
		return nil
	}
	return fmt.Errorf("%q is not a valid name (%s)", name, nameRule)
}

// errInternal marks a bug caught while parsing; tests look for it.
var errInternal = errors.New("internal error")

// override is one applied override, remembered to explain errors.
type override struct {
	path   string
	key    *token.Token // where a variant's `set:` names it
	source string       // "--set PATH=VALUE" for command-line overrides
	// leaves are the paths the override sets: its path, or for a
	// mapping, which sets only the keys it names, each of those.
	leaves []string
	// live are the leaves that no later override sets again (setAgain).
	live []string
}

// variantState is a variant being built.
type variantState struct {
	Variant
	overrides []override
	nameTok   *token.Token
	implicit  bool // the "default" variant of a file without variants
}

// parse holds the state of one Parse.
type parse struct {
	source string
	text   []byte // the document, which errors show lines of
	root   ast.Node
	dec    *decoder
	flags  []override
	errs   errList
	seen   map[string]bool
	// runErrs are the values that only an evaluation leaves inert
	// (Scenario.RunInert).
	runErrs errList

	fileProblems, baseProblems map[problem]bool
	// failed lists the paths of values that did not decode: checks of
	// their values are left out (they would judge a default), while the
	// other checks still run, so that one pass reports every problem.
	failed []string
	// axes are the sweep's axes as written, for the checks that judge them
	// against the trials (checkTrialsInert).
	axes []axisPlace
	// randomAt is where each random axis of the sweep was written
	// (Scenario.randomAt).
	randomAt []*Error
}

// axisPlace is where an axis of the sweep was written.
type axisPlace struct {
	section, path string // "grid" or "random"; the field it sweeps
	key           *token.Token
}

// merge adds the errors of a decoder and notes the paths that failed.
func (p *parse) merge(errs *errList) {
	for _, e := range errs.list {
		p.failed = append(p.failed, e.Path)
	}
	p.errs.merge(errs)
}

// shadowed reports whether a problem at path may stem from a value that
// did not decode: the value itself, or a sibling in the same mapping.
func (p *parse) shadowed(path string) bool {
	for _, f := range p.failed {
		if f == "" || related(path, f) {
			return true
		}
		if i := strings.LastIndexAny(f, ".["); i > 0 && related(path, f[:i]) {
			return true
		}
	}
	return false
}

// allProblems returns a spec's problems, inert values included, so that
// report can tell those a variant or a flag brought in; sweepy is
// inertProblems'.
func allProblems(s *Spec, sweepy bool) []problem {
	always, run := inertProblems(s, sweepy, nil)
	return append(append(specProblems(s), always...), run...)
}

func problemSet(ps []problem) map[problem]bool {
	m := make(map[problem]bool, len(ps))
	for _, p := range ps {
		m[p] = true
	}
	return m
}

// Parse reads a scenario from data. source names it in errors and in
// Scenario.Source. sets are overrides "PATH=VALUE" applied to the base
// before the variants (see Load). Errors are *Error values, joined when
// there are several.
func Parse(data []byte, source string, sets []string) (sc *Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			sc, err = nil, fmt.Errorf("%s: %w: %v", source, errInternal, r)
		}
	}()
	p := &parse{source: source, seen: map[string]bool{}}
	// YAML allows a byte-order mark, which some editors write; go-yaml
	// reads it as part of the first key.
	return p.run(bytes.TrimPrefix(data, []byte("\uFEFF")), sets)
}

func (p *parse) run(data []byte, sets []string) (*Scenario, error) {
	if err := p.syntax(data); err != nil {
		return nil, err
	}
	fl := file{Episodes: defaultEpisodes, Spec: Spec{Collective: collective.Defaults(), Reward: rlcr.DefaultReward(), Train: rlcr.DefaultConfig()}, Sweep: fileSweep{Seeds: 1}}
	p.dec.decode(p.root, reflect.ValueOf(&fl).Elem(), "", nil, 0)
	p.merge(&p.dec.errs)
	if p.dec.blown {
		// A document too large to decode is not worth checking further.
		return nil, p.errs.err()
	}
	fileSpec := cloneSpec(fl.Spec)
	for _, s := range sets {
		p.applyFlag(&fl, s)
	}
	if _, given := p.dec.lookupNode(p.root, "name"); fl.Name == "" && !given {
		fl.Name = nameFromSource(p.source)
	}
	p.checkTop(&fl)
	variants := p.buildVariants(&fl)
	// With a sweep, a value counts when a trial reads it: the trials
	// are known only once the sweep section is (checkTrialsInert).
	sweepy := p.hasSweep()
	// Problems that the file has before any override are the file's;
	// the others were introduced by --set or by a variant's `set:`.
	p.fileProblems = problemSet(allProblems(&fileSpec, sweepy))
	p.baseProblems = problemSet(allProblems(&fl.Spec, sweepy))
	runRead := runReadBy(variants)
	sharedRead := sharedReadBy(variants)
	for i := range variants {
		p.validate(&variants[i])
		if !sweepy {
			p.checkInert(&variants[i], sharedRead[i], runRead[i])
			for _, pr := range kindZeroProblems(&variants[i].Spec, p.kindWritten(&fl, i, nil)) {
				p.report(pr.path, pr.msg, &variants[i])
			}
		}
	}
	if fl.Sweep.Command != SweepReplay {
		p.checkReplayPairing(variants)
	}
	warnings := p.shadowedFlags(variants, &fl)
	if err := p.errs.err(); err != nil {
		return nil, err
	}
	sweep := p.buildSweep(&fl, variants)
	if err := p.errs.err(); err != nil {
		return nil, err
	}
	sc := &Scenario{
		Name:        fl.Name,
		Description: fl.Description,
		Source:      p.source,
		Seed:        fl.Seed,
		Episodes:    fl.Episodes,
		Base:        fl.Spec,
		Warnings:    warnings,
		Figures:     fl.Figures,
	}
	for i := range variants {
		at := map[string]*Error{}
		for _, ref := range fileRefs(&variants[i].Spec) {
			at[ref.field] = p.where(ref.field, &variants[i])
		}
		sc.fileAt = append(sc.fileAt, at)
	}
	for i := range fl.Figures {
		sc.figureAt = append(sc.figureAt, p.where(fmt.Sprintf("figures[%d]", i), nil))
	}
	for i := range fl.Replay.Traces {
		sc.tracesAt = append(sc.tracesAt, p.where(fmt.Sprintf("replay.traces[%d]", i), nil))
	}
	for _, v := range variants {
		sc.Variants = append(sc.Variants, v.Variant)
		var paths []string
		for _, o := range v.overrides {
			paths = append(paths, o.leaves...)
		}
		sc.overrides = append(sc.overrides, paths)
	}
	sc.Sweep = sweep
	sc.randomAt = p.randomAt
	sc.flags = p.flags
	if sweep != nil {
		axes := sweep.axisPaths()
		for i := range variants {
			sc.kindWritten = append(sc.kindWritten, p.kindWritten(&fl, i, axes))
		}
	}
	// Trials start from the specs as written, so that a trial's file
	// paths are located once; callers get them located.
	dir := scenarioDir(p.source)
	sc.rawBase = cloneSpec(sc.Base)
	locateSpec(dir, &sc.Base)
	for i := range sc.Variants {
		sc.rawSpecs = append(sc.rawSpecs, cloneSpec(sc.Variants[i].Spec))
		locateSpec(dir, &sc.Variants[i].Spec)
	}
	if sweep != nil {
		// Every trial's spec must be valid; random draws are checked with
		// the scenario's seed here and again with the seed of a run.
		if err := sc.checkTrials(sc.Seed); err != nil {
			if e := (*Error)(nil); errors.As(err, &e) {
				p.errs.add(e) // placed at the random axis already
			} else {
				p.report("sweep", err.Error(), nil)
			}
			return nil, p.errs.err()
		}
		p.checkTrialsInert(sc, variants)
		switch sweep.Command {
		case SweepRun:
			p.checkRunTrials(sc, variants)
		case SweepReplay:
			p.checkReplayDraws(sc)
		}
		if err := p.errs.err(); err != nil {
			return nil, err
		}
	}
	sc.runInert = p.runErrs.err()
	resolved, err := resolve(&fl, variants, sweep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: writing the resolved scenario: %v", p.source, errInternal, err)
	}
	sc.Resolved = resolved
	sc.Hash = hash(resolved)
	sc.WorkHash = sc.Hash
	if len(fl.Figures) > 0 {
		fl.Figures = nil
		work, err := resolve(&fl, variants, sweep)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: writing the resolved scenario: %v", p.source, errInternal, err)
		}
		sc.WorkHash = hash(work)
	}
	return sc, nil
}

// hash is "sha256:<hex>" of b.
func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkText returns an error for data that is not UTF-8 text: UTF-16
// text, which Windows tools write (PowerShell's > among them), said to be
// saved as UTF-8; text in a legacy encoding (a Latin-1 "é" in a
// description), at the line and column of its first byte that is not
// UTF-8; and a binary file, holding a NUL.
func (p *parse) checkText(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return &Error{Source: p.source, Msg: "the file is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8, which a scenario must be"}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return &Error{Source: p.source, Msg: "not a text file (a scenario is a YAML text file; see 'simulate help run')"}
	}
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return &Error{Source: p.source, Line: 1 + bytes.Count(data[:off], []byte("\n")), Column: 1 + utf8.RuneCount(data[start:off]),
		Msg: fmt.Sprintf("byte 0x%02X is not UTF-8, which a scenario must be (is the file in Latin-1 or another legacy encoding? save it as UTF-8)", data[off])}
}

// syntax parses data into p.root: one document holding a mapping.
func (p *parse) syntax(data []byte) (err error) {
	// The YAML parser slows down quadratically with nesting; scenario
	// files are small and shallow.
	if len(data) > maxFileSize {
		return &Error{Source: p.source, Msg: fmt.Sprintf("file too large (%d bytes; the limit is %d)", len(data), maxFileSize)}
	}
	if err := p.checkText(data); err != nil {
		return err
	}
	if kind := graphFormat(data); kind != "" {
		return &Error{Source: p.source, Msg: fmt.Sprintf("this is a task graph (%s), not a scenario; run it from a scenario that names it:\n\ttask: {shape: file, path: %s, work: exp(5m)}\n\tpolicy: {organization: team}", kind, graphPathHint(p.source))}
	}
	if line, ok := shallow(data); !ok {
		return &Error{Source: p.source, Line: line, Column: 1, Msg: fmt.Sprintf("brackets nested too deeply (more than %d levels)", maxDepth)}
	}
	p.text = data
	var f *ast.File
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = &Error{Source: p.source, Msg: fmt.Sprintf("malformed YAML (the parser failed: %v)", r)}
			}
		}()
		f, err = parser.ParseBytes(data, 0)
	}()
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			return se
		}
		e := &Error{Source: p.source, Msg: "malformed YAML: " + err.Error(), text: data}
		var ye interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &ye) {
			e.Msg = "malformed YAML: " + ye.GetMessage()
			if ye.GetMessage() == "mapping value is not allowed in this context" {
				// The parser reports the value that a deeper-indented key
				// below it continues, not the key.
				e.Msg += " (either a key below is indented deeper than the key before it, which makes it part of this value, or this value holds \": \" and needs quotes)"
			}
			if ye.GetMessage() == "value is not allowed in this context" {
				// A key at an indentation no mapping has: most often one
				// below a list, at its dashes.
				e.Msg += " (this key's indentation fits no mapping above it: after a list item, line it up with the item's first key, after its \"- \", or start a new item with \"- \"; after a value written on its key's line, line it up with that key)"
			}
			if strings.HasPrefix(ye.GetMessage(), "found character '\t'") {
				// Editors show a tab as indentation, so the line looks fine.
				e.Msg += " (YAML indents with spaces, not tabs: replace the tab)"
			}
			e.at(ye.GetToken())
		}
		return e
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch {
	case len(docs) == 0:
		return &Error{Source: p.source, Msg: "empty scenario (want a mapping with at least task: and policy:)"}
	case len(docs) > 1:
		return newError(p.source, p.text, docs[1].GetToken(), "", "more than one YAML document (a scenario is one document)")
	}
	p.root = docs[0].Body
	anchors := map[string]ast.Node{}
	collectAnchors(p.root, anchors)
	p.dec = newDecoder(p.source, p.text, anchors)
	if _, ok := mappingValues(p.dec.resolve(p.root)); !ok {
		return newError(p.source, p.text, posTok(p.root), "", "got %s, want a mapping (allowed keys: %s)",
			nodeKind(p.dec.resolve(p.root)), strings.Join(fieldNames(fieldsOf(reflect.TypeFor[file]())), ", "))
	}
	return nil
}

var dotStart = regexp.MustCompile(`^(?i)(strict\s+)?(di)?graph(\s+("[^"]*"|[A-Za-z0-9_.]+))?\s*\{`)

// graphFormat says which task-graph format data is in ("DOT", "WfCommons
// WfFormat JSON"), or "" for anything else: a graph file given where a
// scenario belongs gets a message about what to do instead of a list of
// unknown keys.
func graphFormat(data []byte) string {
	text := bytes.TrimSpace(data)
	// DOT files may start with comments.
	for {
		switch {
		case bytes.HasPrefix(text, []byte("//")), bytes.HasPrefix(text, []byte("#")):
			_, rest, _ := bytes.Cut(text, []byte("\n"))
			text = bytes.TrimSpace(rest)
			continue
		case bytes.HasPrefix(text, []byte("/*")):
			if _, rest, ok := bytes.Cut(text, []byte("*/")); ok {
				text = bytes.TrimSpace(rest)
				continue
			}
		}
		break
	}
	if dotStart.Match(text) {
		return "DOT"
	}
	if bytes.HasPrefix(text, []byte("{")) {
		var doc map[string]json.RawMessage
		if json.Unmarshal(text, &doc) == nil && doc["workflow"] != nil && (doc["schemaVersion"] != nil || doc["wfcommons"] != nil || doc["author"] != nil) {
			return "WfCommons WfFormat JSON"
		}
	}
	return ""
}

// graphPathHint is the path to a graph file as a scenario next to it
// would write it.
func graphPathHint(source string) string {
	return filepath.ToSlash(filepath.Base(source))
}

// maxFileSize bounds the size of a scenario file.
const maxFileSize = 4 << 20

// shallow reports whether the flow brackets ([ and {) of data nest at most
// maxDepth deep, skipping quoted text and comments, or else the line where
// they nest deeper.
func shallow(data []byte) (line int, ok bool) {
	depth, line := 0, 1
	var quote byte
	comment := false
	for i, c := range data {
		switch {
		case c == '\n':
			// A comment ends with its line; a quoted scalar may go on.
			line++
			comment = false
		case comment:
		case quote != 0:
			if c == quote && (quote == '\'' || i == 0 || data[i-1] != '\\') {
				quote = 0
			}
		case (c == '"' || c == '\'') && quoteStarts(data, i, depth):
			quote = c
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			comment = true
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return line, false
			}
		case c == ']' || c == '}':
			depth = max(0, depth-1)
		}
	}
	return 0, true
}

// quoteStarts reports whether the quote at data[i] opens a quoted
// scalar: first on its line, after an indicator and a space (": ", "- ",
// "? "), or after "[", "{" or "," inside brackets. Elsewhere it is text
// of a plain scalar (it's, 5" screen), and taking it for a quote would
// hide every bracket after it from the depth check.
func quoteStarts(data []byte, i, depth int) bool {
	j := i - 1
	for j >= 0 && (data[j] == ' ' || data[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	switch data[j] {
	case '\n', '\r':
		return true
	case ':', '-', '?':
		return j < i-1
	case '[', '{', ',':
		return depth > 0
	}
	return false
}

// nameFromSource derives a scenario name from a path or "embedded:NAME".
func nameFromSource(source string) string {
	if s := baseName(source); validName(s) {
		return s
	}
	return ""
}

// baseName is the file's base name of source, without .yaml or .yml.
func baseName(source string) string {
	s := filepath.Base(strings.TrimPrefix(source, "embedded:"))
	if ext := filepath.Ext(s); ext == ".yaml" || ext == ".yml" {
		s = strings.TrimSuffix(s, ext)
	}
	return s
}

// SetForm says what an override's form is: what a --set without "=" is
// told.
const SetForm = "want PATH=VALUE, such as collective.agents=8 or 'task.work=exp(5m)' (quoted: a shell reads the parentheses itself)"

// applyFlag applies one --set override to the base.
func (p *parse) applyFlag(fl *file, s string) {
	src := "--set " + s
	pathText, val, ok := strings.Cut(s, "=")
	if !ok {
		p.errs.add(&Error{Source: src, Msg: SetForm})
		return
	}
	segs, err := parsePath(pathText)
	if err != nil {
		p.errs.add(&Error{Source: src, Msg: err.Error()})
		return
	}
	path := pathString(segs)
	forbid := func(key string) string {
		if key == "variants" {
			return "cannot be changed with --set (edit the file, or set fields of the base, which every variant starts from)"
		}
		return ""
	}
	tgt, err := findField(reflect.ValueOf(fl).Elem(), segs, forbid)
	if err != nil {
		p.errs.add(&Error{Source: src, Path: path, Msg: err.Error()})
		return
	}
	d := newDecoder(src, nil, nil)
	d.noPos = true
	d.rebaseTo = scenarioDir(p.source)
	leaves := d.decodeFlag(val, tgt, path)
	p.merge(&d.errs)
	// A value (a number, a duration, a list) replaces the one before it,
	// where a map only sets the keys it names: an earlier --set of what
	// this one sets again is lost, whichever of the two forms wrote it.
	for i := range p.flags {
		o := &p.flags[i]
		switch again := o.setAgain(leaves); {
		case len(again) > 0 && len(again) == len(o.leaves):
			p.errs.add(&Error{Source: o.source, Path: o.path, Msg: fmt.Sprintf("changes nothing: the later %s replaces it; give one", src)})
		default:
			for _, leaf := range again {
				p.errs.add(&Error{Source: o.source, Path: leaf, Msg: fmt.Sprintf("the later %s sets it again, which replaces this value; give one", src)})
			}
		}
	}
	p.flags = append(p.flags, override{path: path, source: src, leaves: leaves, live: slices.Clone(leaves)})
}

// setAgain returns the leaves of o that leaves, a later override's, set
// again (the same field, a field within it, or one around it), but no
// override between them does: one set again in between was reported
// there. It drops them from o.live, which holds the leaves that no later
// override has set again, so that an override costs one pass over the
// leaves still live before it, not over every override between each
// earlier one and it (a make of simulate env with 4,000 sets took more
// than two minutes).
func (o *override) setAgain(leaves []string) []string {
	var out []string
	live := o.live[:0]
	for _, leaf := range o.live {
		if slices.ContainsFunc(leaves, func(p string) bool { return related(leaf, p) }) {
			out = append(out, leaf)
		} else {
			live = append(live, leaf)
		}
	}
	o.live = live
	return out
}

// decodeFlag stores the text of a --set value into v. Strings and
// text-encoded values (durations, distributions) take the text as it is;
// anything else is read as YAML ("8", "0.95", "true", "[...]", "{...}").
// It returns the paths the value sets (setLeaves).
func (d *decoder) decodeFlag(val string, v reflect.Value, path string) []string {
	t := v.Type()
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		nv := reflect.New(t)
		if err := nv.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(strings.TrimSpace(val))); err != nil {
			d.fail(nil, path, "%v%s", err, distHint(err))
			return nil
		}
		v.Set(nv.Elem())
		return []string{path}
	}
	if t.Kind() == reflect.String {
		v.SetString(d.filePath(path, val))
		return []string{path}
	}
	// The bounds of a file hold for a value too: the YAML parser slows
	// down quadratically with nesting (100,000 brackets took minutes and
	// gigabytes), and a value comes from a make request of simulate env
	// as well as from the command line.
	if len(val) > maxFileSize {
		d.fail(nil, path, "value too large (%d bytes; the limit is %d)", len(val), maxFileSize)
		return nil
	}
	if _, ok := shallow([]byte(val)); !ok {
		d.fail(nil, path, "brackets nested too deeply (more than %d levels)", maxDepth)
		return nil
	}
	var f *ast.File
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the parser failed: %v", r)
			}
		}()
		f, err = parser.ParseBytes([]byte(val), 0)
	}()
	if err != nil {
		msg := err.Error()
		var ye interface{ GetMessage() string }
		if errors.As(err, &ye) {
			msg = ye.GetMessage()
		}
		d.fail(nil, path, "malformed value %q: %s", val, msg)
		return nil
	}
	var body ast.Node
	if len(f.Docs) > 0 && f.Docs[0] != nil {
		body = f.Docs[0].Body
		collectAnchors(body, d.anchorsMap())
	}
	if at, msg := d.nothingSet(body, t, path); msg != "" {
		d.fail(nil, at, "%s", msg)
		return nil
	}
	d.decode(body, v, path, nil, 0)
	return d.setLeaves(body, t, path)
}

// setLeaves returns the paths that a value written as n sets in a field
// of type t at path: path itself, or for a mapping into a section (which
// sets only the keys it names) the paths its keys set, at any depth.
func (d *decoder) setLeaves(n ast.Node, t reflect.Type, path string) []string {
	values, ok := mappingValues(d.resolve(n))
	if !keyed(t) || !ok {
		return []string{path}
	}
	var out []string
	for _, mv := range values {
		f, ok := lookupField(fieldsOf(t), keyText(mv.Key))
		if !ok {
			continue // decode has reported the key
		}
		out = append(out, d.setLeaves(mv.Value, t.FieldByIndex(f.index).Type, joinPath(path, f.name))...)
	}
	return out
}

func (d *decoder) anchorsMap() map[string]ast.Node {
	if d.anchors == nil {
		d.anchors = map[string]ast.Node{}
	}
	return d.anchors
}

// checkTop checks the fields that are not part of a spec.
func (p *parse) checkTop(fl *file) {
	if err := CheckName(fl.Name); err != nil {
		_, given := p.dec.lookupNode(p.root, "name")
		switch {
		case fl.Name == "" && !given && p.source != "":
			// The docs promise the file's base name: say why it did not do.
			p.report("name", fmt.Sprintf("missing, and the file's base name %q is not a valid name (give the scenario a name: %s)", baseName(p.source), nameRule), nil)
		case fl.Name == "":
			p.report("name", "missing (give the scenario a name: "+nameRule+")", nil)
		default:
			p.report("name", err.Error(), nil)
		}
	}
	if strings.ContainsAny(fl.Description, "\r\n") {
		p.report("description", "must be one line (it is the summary `simulate list` shows)", nil)
	}
	if fl.Episodes < 1 || fl.Episodes > MaxEpisodes {
		p.report("episodes", fmt.Sprintf("%d is out of range (1 to %d)", fl.Episodes, MaxEpisodes), nil)
	}
	figures := map[string]int{}
	for i, f := range fl.Figures {
		at := fmt.Sprintf("figures[%d]", i)
		if prev, dup := figures[f]; dup {
			p.report(at, fmt.Sprintf("duplicate figure %q (figures[%d] names it too)", f, prev), nil)
		} else if !validName(f) {
			p.report(at, fmt.Sprintf("%q is not a chart name (%s)", f, nameRule), nil)
		}
		figures[f] = i
	}
	// Names are compared ignoring case: they name files (policies,
	// charts, checkpoints), and the file systems of macOS and Windows take
	// "Fast" and "fast" for one file.
	seen := map[string]int{}
	for i, v := range fl.Variants {
		at := fmt.Sprintf("variants[%d].name", i)
		nameErr := CheckName(v.Name)
		switch prev, dup := seen[strings.ToLower(v.Name)]; {
		case v.Name == "":
			p.report(at, "missing (every variant needs a name: "+nameRule+")", nil)
		case nameErr != nil:
			p.report(at, nameErr.Error(), nil)
		case dup && fl.Variants[prev].Name == v.Name:
			p.report(at, fmt.Sprintf("duplicate variant name %q (variants[%d] has it too; names must be unique)", v.Name, prev), nil)
		case dup:
			p.report(at, fmt.Sprintf("variant name %q differs from variants[%d]'s %q only in case (names must differ in more than case: they name files, and macOS and Windows ignore case)", v.Name, prev, fl.Variants[prev].Name), nil)
		default:
			seen[strings.ToLower(v.Name)] = i
		}
	}
}

// buildVariants applies each variant's overrides to a copy of the base.
func (p *parse) buildVariants(fl *file) []variantState {
	if len(fl.Variants) == 0 {
		return []variantState{{Variant: Variant{Name: DefaultVariant, Spec: cloneSpec(fl.Spec)}, implicit: true}}
	}
	out := make([]variantState, len(fl.Variants))
	for i, fv := range fl.Variants {
		vs := &out[i]
		vs.Name = fv.Name
		vs.Spec = cloneSpec(fl.Spec)
		vs.nameTok, _ = p.dec.lookupNode(p.root, fmt.Sprintf("variants[%d]", i))
		d := newDecoder(p.source, p.text, p.dec.anchors)
		d.variant = fv.Name
		for _, e := range fv.Set {
			segs, err := parsePath(e.Path)
			if err != nil {
				d.fail(e.key, "", "set: %v", err)
				continue
			}
			path := pathString(segs)
			forbid := func(key string) string {
				switch key {
				case "task", "collective", "policy", "reward", "train":
					return ""
				}
				return "is shared by all variants and cannot be set in a variant"
			}
			tgt, err := findField(reflect.ValueOf(&vs.Spec).Elem(), segs, forbid)
			if err != nil {
				if _, ok := lookupField(fieldsOf(reflect.TypeFor[file]()), segs[0].key); ok && forbid(segs[0].key) != "" {
					err = errors.New("shared by all variants: a variant can set only paths under task, collective, policy, reward and train")
				}
				d.fail(e.key, path, "%v", err)
				continue
			}
			if at, msg := d.nothingSet(e.Value, tgt.Type(), path); msg != "" {
				d.fail(e.key, at, "%s", msg)
				continue
			}
			d.decode(e.Value, tgt, path, e.key, 0)
			// Of two overrides that set one field (a path, and a map
			// around it), the later replaces the other's value.
			leaves := d.setLeaves(e.Value, tgt.Type(), path)
			for i := range vs.overrides {
				o := &vs.overrides[i]
				for _, leaf := range o.setAgain(leaves) {
					d.fail(o.key, leaf, "set again by %s (line %d), which replaces this value; give one", e.Path, e.key.Position.Line)
				}
			}
			vs.overrides = append(vs.overrides, override{path: path, key: e.key, leaves: leaves, live: slices.Clone(leaves)})
		}
		p.merge(&d.errs)
	}
	return out
}

// validate checks a variant's spec and reports its problems where they
// were written.
func (p *parse) validate(vs *variantState) {
	for _, fe := range specProblems(&vs.Spec) {
		p.report(fe.path, fe.msg, vs)
	}
}

type problem struct{ path, msg string }

var fieldErrRE = regexp.MustCompile(`(?s)^([A-Za-z_][A-Za-z0-9_]*(?:\[[0-9]+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[[0-9]+\])?)*): (.*)$`)

// splitFieldErr splits "path: message" as the models' Validate methods
// write them, with the nearest allowed value suggested (suggestAllowed).
func splitFieldErr(prefix string, err error) problem {
	if m := fieldErrRE.FindStringSubmatch(err.Error()); m != nil {
		return problem{prefix + "." + m[1], suggestAllowed(m[2])}
	}
	return problem{prefix, err.Error()}
}

// notAllowedRE is the models' message about a name that is none of the
// allowed ones, which suggests none.
var notAllowedRE = regexp.MustCompile(`^"([^"]*)" is not allowed \(allowed: ([^)]*)\)$`)

// suggestAllowed adds to a message of notAllowedRE the allowed value that
// the name most likely meant: the nearest in spelling, whatever its case
// ("MLP"), else the one it begins ("exp" of exponential, "ppo" of
// ppo-gae); other messages are returned as they are.
func suggestAllowed(msg string) string {
	m := notAllowedRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	allowed := strings.Split(m[2], ", ")
	name := strings.ToLower(m[1])
	near := spelling.Nearest(name, allowed)
	if near == "" && name != "" {
		var starts []string
		for _, a := range allowed {
			if strings.HasPrefix(a, name) {
				starts = append(starts, a)
			}
		}
		if len(starts) == 1 {
			near = starts[0]
		}
	}
	if near == "" {
		return msg
	}
	return fmt.Sprintf("%s; did you mean %q?", msg, near)
}

// fieldProblems splits err, which may join several, into a problem per
// field under prefix.
func fieldProblems(prefix string, err error) []problem {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]problem, len(errs))
	for i, e := range errs {
		out[i] = splitFieldErr(prefix, e)
	}
	return out
}

// specProblems validates a spec; paths are full field paths.
func specProblems(s *Spec) []problem {
	var out []problem
	if err := s.Task.Validate(); err != nil {
		out = append(out, splitFieldErr("task", err))
	}
	out = append(out, workProblems("task", &s.Task)...)
	out = append(out, fieldProblems("collective", s.Collective.Validate())...)
	if p := s.Collective.Tools.Pool; p > 0 && !s.Task.UsesTools() {
		out = append(out, problem{"collective.tools.pool", fmt.Sprintf("%d sandboxes, but the task makes no tool calls (set task.tool_calls and task.tool_latency)", p)})
	}
	if err := s.Reward.Validate(&s.Collective); err != nil {
		out = append(out, splitFieldErr("reward", err))
	} else if err := s.Reward.ValidateTraining(&s.Train); err != nil {
		out = append(out, splitFieldErr("reward", err))
	}
	if err := s.Train.Validate(); err != nil {
		out = append(out, splitFieldErr("train", err))
	}
	out = append(out, fieldProblems("replay", s.Replay.Validate())...)
	if s.Policy.File != "" {
		return out // the file's policy replaces the organization
	}
	if org := s.Policy.Organization; org == "" {
		out = append(out, problem{"policy.organization", "missing (allowed: " + strings.Join(OrganizationNames(), ", ") + ")"})
	} else if _, err := policy.Organization(org); err != nil {
		out = append(out, problem{"policy.organization", err.Error()})
	}
	return out
}

// workProblems reports families that leave out work: without it every
// subtask takes no time, and an episode succeeds in 0 minutes, which is
// never what was meant (graph files may give each node's work
// themselves); and mixture components that can never be drawn.
func workProblems(at string, f *task.Family) []problem {
	switch {
	case f.Shape == task.ShapeMixture:
		var out []problem
		for i := range f.Components {
			c := &f.Components[i]
			cat := fmt.Sprintf("%s.components[%d]", at, i)
			if c.Weight == 0 {
				// The zero weight is also what a missing weight decodes to.
				out = append(out, problem{cat + ".weight", "missing or 0 (a component is drawn with probability weight / the sum of the weights, so weight 0 never draws it; give a positive weight, or remove the component)"})
			}
			out = append(out, workProblems(cat, &c.Family)...)
		}
		return out
	case f.Kind == "" && f.Shape != task.ShapeFile && f.Work.IsZero(), alwaysZero(f.Work):
		return []problem{{at + ".work", "missing or always 0 (every subtask's work at speed 1, a duration or a distribution such as 5m or exp(5m); required, since without it every episode ends at once)"}}
	}
	return nil
}

// alwaysZero reports whether d is given (not the zero Dist, which a
// missing field decodes to) but draws nothing else than 0: exp(0),
// uniform(0, 0). A kind's or a file's own work is not used then either.
func alwaysZero(d sim.Dist) bool {
	_, hi := d.Support()
	return !d.IsZero() && hi == 0
}

// OrganizationNames lists the fixed organizations a policy may name,
// sorted.
func OrganizationNames() []string { return sortedKeys(policy.Organizations()) }

// report records a problem with the field at path, placing it where the
// value came from: the variant's `set:` entry, a --set flag, or the file.
func (p *parse) report(path, msg string, vs *variantState) {
	p.reportTo(&p.errs, path, msg, vs, nil)
}

// reportTo is report into list: p.errs, or p.runErrs for problems that
// only an evaluation has; causes, when not nil, gives the fields that
// leave path without effect (else inertCauses does).
func (p *parse) reportTo(list *errList, path, msg string, vs *variantState, causes func(*Spec) []string) {
	if p.shadowed(path) {
		return
	}
	if causes == nil {
		causes = inertCauses[path]
	}
	e := p.place(path, msg, vs, causes)
	if key := e.Error(); !p.seen[key] {
		p.seen[key] = true
		list.add(e)
	}
}

// place returns the error msg of the field at path, placed where the
// problem came from; causes gives the fields whose values leave path
// without effect, where the problem is one of those (nil where not).
func (p *parse) place(path, msg string, vs *variantState, causes func(*Spec) []string) *Error {
	if e, ok := p.placeGiven(path, msg, vs); ok {
		return e
	}
	var own []override
	if vs != nil {
		own = vs.overrides
	}
	atVariant := func(o override) *Error { return p.atVariant(o, path, msg, vs) }
	atFlag := func(o override) *Error { return atFlag(o, path, msg) }
	// A problem that appeared with the overrides (a new shape that does
	// not use a parameter of the old one): blame the override nearest to
	// the field in the spec (serving.replicas 0 for serving.max_batch,
	// though collective.speed came later), or else the last one.
	pr := problem{path, msg}
	if p.baseProblems != nil && !p.baseProblems[pr] && len(own) > 0 {
		if o, ok := causeOverride(own, causes, vs); ok {
			return atVariant(o)
		}
		if o, ok := closestOverride(own, path); ok {
			return atVariant(o)
		}
		return atVariant(own[len(own)-1])
	}
	if p.fileProblems != nil && !p.fileProblems[pr] && len(p.flags) > 0 {
		if o, ok := causeOverride(p.flags, causes, vs); ok {
			return atFlag(o)
		}
		if o, ok := closestOverride(p.flags, path); ok {
			return atFlag(o)
		}
		return atFlag(p.flags[len(p.flags)-1])
	}
	tok, found := p.dec.lookupNode(p.root, path)
	if !found {
		msg = missingMsg(msg)
	}
	e := newError(p.source, p.text, tok, path, "%s", msg)
	if tok == nil && vs != nil && !vs.implicit {
		e.Variant = vs.Name
		e.at(vs.nameTok)
	}
	return e
}

// missingMsg rewords a range check's message about a field's zero value
// ("must be at least 1 ..., got 0", "0 is out of range (...)") for a field
// that nothing gave: what is wrong is that it is missing.
func missingMsg(msg string) string {
	if m, ok := strings.CutSuffix(msg, ", got 0"); ok {
		return "missing (" + m + ")"
	}
	if m, ok := strings.CutPrefix(msg, "0 is out of range ("); ok {
		return "missing (" + m
	}
	return msg
}

// placeGiven places a problem of the field path at the override that
// set it, or a field around or inside it: the variant's own, else a --set
// flag's. It reports false when no override touches the field.
func (p *parse) placeGiven(path, msg string, vs *variantState) (*Error, bool) {
	if vs != nil {
		if o, ok := lastOverride(vs.overrides, func(o override) bool { return related(path, o.path) }); ok {
			return p.atVariant(o, path, msg, vs), true
		}
	}
	if o, ok := lastOverride(p.flags, func(o override) bool { return related(path, o.path) }); ok {
		return atFlag(o, path, msg), true
	}
	return nil, false
}

// atFlag places a problem of the field path at the --set flag o.
func atFlag(o override, path, msg string) *Error {
	return &Error{Source: o.source, Path: path, Msg: msg}
}

// atVariant places a problem of the field path at the variant's override o.
func (p *parse) atVariant(o override, path, msg string, vs *variantState) *Error {
	e := newError(p.source, p.text, o.key, path, "%s", msg)
	e.Variant = vs.Name
	return e
}

// where is the place of the field path of vs, as written: the override
// that set it, else its place in the file (no line when the file does not
// write it).
func (p *parse) where(path string, vs *variantState) *Error {
	if e, ok := p.placeGiven(path, "", vs); ok {
		return e
	}
	tok, _ := p.dec.lookupNode(p.root, path)
	return newError(p.source, p.text, tok, path, "")
}

func lastOverride(list []override, match func(override) bool) (override, bool) {
	for i := len(list) - 1; i >= 0; i-- {
		if match(list[i]) {
			return list[i], true
		}
	}
	return override{}, false
}

// causeOverride returns the last override of list that sets a field
// whose value in vs leaves a field unused (causes, such as inertCauses'),
// trying the causes in their order: --set collective.agents=1 for a comm
// setting of the file, though a --set of collective.time_limit came later.
func causeOverride(list []override, causes func(*Spec) []string, vs *variantState) (override, bool) {
	if causes == nil || vs == nil {
		return override{}, false
	}
	for _, c := range causes(&vs.Spec) {
		if o, ok := lastOverride(list, func(o override) bool { return related(o.path, c) }); ok {
			return o, true
		}
	}
	return override{}, false
}

// closestOverride returns the override of list whose path shares the most
// leading keys with path, at least the section; the last of those that
// share as many.
func closestOverride(list []override, path string) (override, bool) {
	var best override
	most := 0
	for _, o := range list {
		if n := sharedKeys(o.path, path); n > 0 && n >= most {
			best, most = o, n
		}
	}
	return best, most > 0
}

// sharedKeys counts the leading keys that the field paths a and b share.
func sharedKeys(a, b string) int {
	as, bs := strings.FieldsFunc(a, isPathSep), strings.FieldsFunc(b, isPathSep)
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// isPathSep reports whether r separates the keys of a field path.
func isPathSep(r rune) bool { return r == '.' || r == '[' }

// topKey is the first key of a field path.
func topKey(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// cloneSpec returns a deep copy of s, so that a variant's overrides cannot
// reach the base through shared slices.
func cloneSpec(s Spec) Spec {
	c := s
	deepCopy(reflect.ValueOf(&c).Elem())
	return c
}

// deepCopy replaces every slice reachable through v's exported fields by a
// copy.
func deepCopy(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				deepCopy(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			deepCopy(c.Index(i))
		}
		v.Set(c)
	}
}

// Server returns the variant's deployment as a replay sees it: its
// collective.serving and collective.api.
func (v Variant) Server() replay.Server {
	return replay.Server{Name: v.Name, Serving: v.Spec.Collective.Serving, API: v.Spec.Collective.API}
}

// Only keeps the variant of sc named name and drops the others, so that a
// command runs that variant alone; Resolved, Hash and WorkHash still
// describe the whole file as loaded, whose checks (a setting no variant
// reads, for one) were made over every variant. Of the Warnings it keeps
// those that concern the variant. The error for a name sc has no variant
// of lists those it has; a --set that the variant replaces with another
// value of its own is an error too, as it changes nothing there, and so is
// one that only the other variants read (a latency penalty's form in the
// variant of weight 0).
func (sc *Scenario) Only(name string) error {
	i := slices.IndexFunc(sc.Variants, func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return sc.noVariant(name)
	}
	if err := sc.unreadFlag(name, &sc.Variants[i].Spec); err != nil {
		return err
	}
	for _, w := range sc.Warnings {
		if f, j := w.flag, slices.Index(w.Variants, name); f.source != "" && j >= 0 {
			lost := strings.Join(w.lost[j], ", ")
			msg := fmt.Sprintf("changes nothing: variant %s sets %s itself, to another value", name, lost)
			if len(w.lost[j]) < len(f.leaves) {
				// A mapping's other keys still apply.
				msg = fmt.Sprintf("changes nothing at %s: variant %s sets it itself, to another value", lost, name)
			}
			return &Error{Source: f.source, Path: f.path, Msg: msg + "; run a variant that does not set it, or change the value in the variant's set"}
		}
	}
	sc.Variants = sc.Variants[i : i+1 : i+1]
	sc.rawSpecs = sc.rawSpecs[i : i+1 : i+1]
	sc.overrides = sc.overrides[i : i+1 : i+1]
	sc.fileAt = sc.fileAt[i : i+1 : i+1]
	if sc.kindWritten != nil {
		sc.kindWritten = sc.kindWritten[i : i+1 : i+1]
	}
	sc.Warnings = slices.DeleteFunc(sc.Warnings, func(w Warning) bool {
		return len(w.Variants) > 0 && !slices.Contains(w.Variants, name)
	})
	return nil
}

// unreadFlag returns the error for the first --set whose value (not its
// default) variant name's spec leaves inert, or nil. The load refused
// those that no variant reads; this is for one that only other variants
// read. A sweep's trials are judged at load, by what they read.
func (sc *Scenario) unreadFlag(name string, spec *Spec) error {
	if sc.Sweep != nil {
		return nil
	}
	inert := inertValues(spec, inertRules, func(_, why string) string { return why })
	for _, f := range sc.flags {
		for _, leaf := range f.leaves {
			for _, pr := range inert {
				if related(leaf, pr.path) {
					return &Error{Source: f.source, Path: pr.path, Msg: fmt.Sprintf("changes nothing in variant %s: %s; run a variant that reads it, or set what makes it count", name, pr.msg)}
				}
			}
		}
	}
	return nil
}

// Identical returns the names of the variants of sc that have the same
// spec as an earlier one, in groups of two or more: evaluated, they play
// the same episodes (as the variants of tiny do under one policy file,
// which replaces the organizations they differ in).
func (sc *Scenario) Identical() [][]string {
	var groups [][]string
	taken := make([]bool, len(sc.Variants))
	for i := range sc.Variants {
		if taken[i] {
			continue
		}
		group := []string{sc.Variants[i].Name}
		for j := i + 1; j < len(sc.Variants); j++ {
			if !taken[j] && reflect.DeepEqual(played(sc.Variants[i].Spec), played(sc.Variants[j].Spec)) {
				taken[j] = true
				group = append(group, sc.Variants[j].Name)
			}
		}
		if len(group) > 1 {
			groups = append(groups, group)
		}
	}
	return groups
}

// played is s as an evaluation plays it: a policy file replaces the
// organization.
func played(s Spec) Spec {
	if s.Policy.File != "" {
		s.Policy.Organization = ""
	}
	return s
}

// noVariant is the error for a variant name sc does not have.
func (sc *Scenario) noVariant(name string) error {
	names := make([]string, len(sc.Variants))
	for i, v := range sc.Variants {
		names[i] = v.Name
	}
	return fmt.Errorf("scenario %s has no variant %q (allowed: %s)%s", sc.Name, name, strings.Join(names, ", "), spelling.DidYouMean(name, names))
}
