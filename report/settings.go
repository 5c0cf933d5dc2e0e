package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/swarmsim/swarmsim/rundir"
)

// Settings are the settings in which the variants of a resolved scenario
// (a manifest's scenario as run) differ, each value written as YAML
// writes it on one line.
type Settings struct {
	// Paths are the dotted paths that any variant sets, sorted.
	Paths []string
	// Variants are the variants in the scenario's order.
	Variants []VariantSettings
	// Scenario holds the scenario's own value at each path, "–" where it
	// has none.
	Scenario map[string]string
}

// VariantSettings are the values one variant sets, by path.
type VariantSettings struct {
	Name string
	Set  map[string]string
}

// ReadSettings reads the settings of resolved; nil when no variant sets
// anything.
func ReadSettings(resolved string) (*Settings, error) {
	sc, err := readScenario(resolved)
	return sc.settings, err
}

// scenario is a manifest's scenario as run, parsed once for all that a
// page reads of it: parsing is most of the cost of each reading, and a
// page makes three (the settings, the problems, the rewards).
type scenario struct {
	root     ast.Node  // nil for no scenario, or an empty one
	settings *Settings // nil where no variant sets anything
}

// readScenario parses resolved and reads its variants' settings.
func readScenario(resolved string) (scenario, error) {
	var sc scenario
	if resolved == "" {
		return sc, nil
	}
	file, err := parser.ParseBytes([]byte(resolved), 0)
	if err != nil {
		return sc, err
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return sc, nil
	}
	sc.root = file.Docs[0].Body
	var doc struct {
		Variants []struct {
			Name string         `yaml:"name"`
			Set  map[string]any `yaml:"set"`
		} `yaml:"variants"`
	}
	if err := decode(func() error { return yaml.NodeToValue(sc.root, &doc) }); err != nil {
		return sc, err
	}
	var whole map[string]any
	if err := decode(func() error { return yaml.NodeToValue(sc.root, &whole) }); err != nil {
		return sc, err
	}
	st := &Settings{Scenario: map[string]string{}}
	for _, v := range doc.Variants {
		vs := VariantSettings{Name: v.Name, Set: map[string]string{}}
		for p, val := range v.Set {
			for p, val := range leaves(whole, p, val) {
				if !slices.Contains(st.Paths, p) {
					st.Paths = append(st.Paths, p)
					st.Scenario[p] = value(lookup(whole, p))
				}
				vs.Set[p] = value(val)
			}
		}
		st.Variants = append(st.Variants, vs)
	}
	if len(st.Paths) > 0 {
		slices.Sort(st.Paths)
		sc.settings = st
	}
	return sc, nil
}

// settings returns the table of the settings st: a row per
// variant the directory holds (ran, in the manifest's variants; a run or
// training of one --variant keeps the whole scenario as resolved), a
// column per path any variant sets, the scenario's own value where a
// variant does not set it. It is nil when no variant sets anything.
func settings(st *Settings, ran []string) *Table {
	if st == nil {
		return nil
	}
	tab := &Table{ID: "settings", Title: "Variants",
		Caption: "The settings a variant sets; the others are the scenario's (in grey). The manifest holds the whole scenario as run."}
	tab.Head = append(tab.Head, Head{Text: "variant"})
	for _, p := range st.Paths {
		tab.Head = append(tab.Head, Head{Text: p})
	}
	for _, v := range st.Variants {
		if !slices.Contains(ran, v.Name) {
			continue
		}
		row := []Cell{{Text: v.Name}}
		for _, p := range st.Paths {
			if val, ok := v.Set[p]; ok {
				row = append(row, Cell{Text: val})
			} else {
				row = append(row, Cell{Text: st.Scenario[p], Class: "default", Title: "the scenario's value"})
			}
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab
}

// leaves returns what a variant's set of val at path p changes, by dotted
// path: p and val for a value, and for a section given as a mapping (set:
// {collective: {agents: 3}}), which the resolved scenario writes whole,
// each field in it whose value is not the scenario's (a field the
// scenario leaves out, written only where it is not zero).
func leaves(whole map[string]any, p string, val any) map[string]any {
	out := map[string]any{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, sub := range m {
				walk(p+"."+k, sub)
			}
			return
		}
		base := lookup(whole, p)
		// A null (v == nil) is as zero as a 0 is.
		if base == nil && (v == nil || reflect.ValueOf(v).IsZero()) || base != nil && value(base) == value(v) {
			return
		}
		out[p] = v
	}
	if _, ok := val.(map[string]any); !ok {
		return map[string]any{p: val} // a value set by its path is shown as given
	}
	walk(p, val)
	return out
}

// lookup returns the value at the dotted path p of doc, nil if it has
// none.
func lookup(doc map[string]any, p string) any {
	var cur any = doc
	for _, k := range strings.Split(p, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// value writes a setting as YAML writes it in one line.
func value(v any) string {
	if v == nil {
		return "–"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := yaml.MarshalWithOptions(v, yaml.Flow(true))
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}

// RewardsDiffer says how the rows of the directory that m describes
// score their rewards differently, "" when they score them alike: a
// reward setting, or the time limit (the default scale and deadline of
// the latency penalty, the cost's scale, the time a result never
// submitted is scored at), that the variants it ran set to different
// values, or that its sweep varies. A best reward would then compare
// objectives, not outcomes (latency-pressure's variants weigh latency
// differently), so neither the page nor simulate table marks one.
func RewardsDiffer(m *rundir.Manifest) (string, error) {
	sc, err := readScenario(m.Resolved)
	if err != nil {
		return "", err
	}
	return sc.rewardsDiffer(m.Variants)
}

func (sc scenario) rewardsDiffer(ran []string) (string, error) {
	differ := setApart(sc.settings, ran, scoring)
	var doc struct {
		Sweep struct {
			Grid   map[string]any `yaml:"grid"`
			Random map[string]any `yaml:"random"`
		} `yaml:"sweep"`
	}
	if sc.root != nil {
		if err := decode(func() error { return yaml.NodeToValue(sc.root, &doc) }); err != nil {
			return "", err
		}
	}
	var swept []string
	for _, axes := range []map[string]any{doc.Sweep.Grid, doc.Sweep.Random} {
		for p := range axes {
			if scoring(p) {
				swept = append(swept, p)
			}
		}
	}
	slices.Sort(swept)
	var why []string
	if len(differ) > 0 {
		why = append(why, "the variants set "+strings.Join(differ, ", ")+" differently")
	}
	if len(swept) > 0 {
		why = append(why, "the sweep varies "+strings.Join(swept, ", "))
	}
	return strings.Join(why, ", and "), nil
}

// tasksDiffer says how the variants ran pose different problems, "" when
// they pose one: the task settings that they set to different values
// (exp-credit's task.width, two parts for two agents, thirty-two for
// thirty-two). The best of any metric would then compare problems, not
// ways of solving one, so neither the page nor simulate table marks one.
// A sweep's task axes are left out: a sweep varies the problem by design,
// and its rows name the point.
func (sc scenario) tasksDiffer(ran []string) string {
	differ := setApart(sc.settings, ran, func(p string) bool { return strings.HasPrefix(p, "task.") })
	if len(differ) == 0 {
		return ""
	}
	return "the variants set " + strings.Join(differ, ", ") + " differently"
}

// setApart returns the paths of st that keep selects and that the
// variants ran set to different values (a variant that does not set one
// has the scenario's).
func setApart(st *Settings, ran []string, keep func(p string) bool) []string {
	var differ []string
	for _, p := range pathsOf(st) {
		if !keep(p) {
			continue
		}
		values := map[string]bool{}
		for _, v := range st.Variants {
			if slices.Contains(ran, v.Name) {
				val, ok := v.Set[p]
				if !ok {
					val = st.Scenario[p]
				}
				values[val] = true
			}
		}
		if len(values) > 1 {
			differ = append(differ, p)
		}
	}
	return differ
}

// scoring reports whether the setting at path p changes how a reward is
// scored (RewardsDiffer).
func scoring(p string) bool {
	return strings.HasPrefix(p, "reward.") || p == "collective.time_limit"
}

// decode runs a decoding of YAML, whose library panics on some
// malformed input (a tag on a scalar where a list belongs, in v1.19.2):
// a manifest edited by hand gets an error, not a crash.
func decode(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the resolved scenario does not decode: %v", r)
		}
	}()
	return f()
}

// pathsOf returns st's paths; none for no settings.
func pathsOf(st *Settings) []string {
	if st == nil {
		return nil
	}
	return st.Paths
}
