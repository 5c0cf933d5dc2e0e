package metric

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Better says which values of a metric are better.
type Better string

// The directions of the table. compare orients its probability of
// improvement by them: P(B < A) for Lower, P(B > A) otherwise.
const (
	Higher Better = "higher"
	Lower  Better = "lower"
	// None is for what is neither good nor bad in itself: an action's
	// probability, a property of the task draw, bookkeeping.
	None Better = "none"
)

// Units of the table. Times are virtual seconds everywhere, rates and
// probabilities fractions in [0, 1]; Plain is a count or a plain number.
const (
	Seconds         = "s"
	Fraction        = "fraction"
	Plain           = "1"
	TokensPerSecond = "tokens/s"
)

// A Metric is one entry of the table.
type Metric struct {
	// Name is the column's name. A family's entry names its pattern,
	// such as "prob_<action>"; Lookup returns its members with their own
	// names.
	Name string
	// Label is the axis label of charts, with the unit in parentheses
	// where there is one.
	Label string
	// Head is the column's head in the tables printed on the terminal;
	// empty for metrics no terminal table shows.
	Head string
	// Unit is the unit written in the unit column of summary.csv and
	// compare.csv: Seconds, Fraction, Plain or TokensPerSecond.
	Unit string
	// Better says which way the metric is better.
	Better Better
	// Reading says, in one sentence, what the metric measures.
	Reading string
}

// A family's pattern holds its parameter between angle brackets, once:
// "prob_<action>".
func (m *Metric) family() (prefix, param string, ok bool) {
	prefix, rest, ok := strings.Cut(m.Name, "<")
	if !ok {
		return "", "", false
	}
	param, _, ok = strings.Cut(rest, ">")
	return prefix, param, ok
}

// member returns the entry of a family's member: its name, with the
// member in place of the parameter in the label, head and reading.
func (m Metric) member(param, name string) Metric {
	// ReplaceAll, not a strings.Replacer: one pattern, four short texts,
	// and a Replacer builds a 2 KB table for each member looked up.
	p := "<" + param + ">"
	m.Name = strings.ReplaceAll(m.Name, p, name)
	m.Label, m.Head, m.Reading = strings.ReplaceAll(m.Label, p, name), strings.ReplaceAll(m.Head, p, name), strings.ReplaceAll(m.Reading, p, name)
	return m
}

// byName indexes the table's exact names.
var byName = func() map[string]int {
	idx := make(map[string]int, len(table))
	for i := range table {
		if _, _, fam := table[i].family(); !fam {
			idx[table[i].Name] = i
		}
	}
	return idx
}()

// Lookup returns the entry of column name: an exact name of the table,
// or a member of a family (a lower-case word in place of the pattern's
// parameter, as "prob_share" of "prob_<action>"). It reports false for a
// name the table lacks.
func Lookup(name string) (Metric, bool) {
	if i, ok := byName[name]; ok {
		return table[i], true
	}
	for i := range table {
		prefix, param, fam := table[i].family()
		if !fam {
			continue
		}
		if word, ok := strings.CutPrefix(name, prefix); ok && isWord(word) {
			return table[i].member(param, word), true
		}
	}
	return Metric{}, false
}

// isWord reports whether s is a non-empty run of lower-case letters: an
// action's name.
func isWord(s string) bool {
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// Of returns the entry of column name. A name the table lacks is a
// column written without an entry: in a test (testing.Testing) Of
// panics, so that the test that writes the column fails; elsewhere it
// returns a neutral entry (the name as label, Plain, None), so that
// compare still reads a directory written by another version.
func Of(name string) Metric {
	if m, ok := Lookup(name); ok {
		return m
	}
	if testing.Testing() {
		panic(fmt.Sprintf("metric: column %q has no entry in the table of metrics (metric/table.go)", name))
	}
	return Metric{Name: name, Label: name, Head: name, Unit: Plain, Better: None, Reading: "A column swarmsim's table of metrics does not know."}
}

// All returns the table: every metric once, families as their patterns,
// grouped by the table that writes them first.
func All() []Metric { return append([]Metric(nil), table...) }

// Main reports whether name is one of the main metrics, those a reader
// judges a variant by and compare shows by default, and its place among
// them (0 first): tables that show the main metrics first sort by it.
func Main(name string) (place int, ok bool) {
	i := slices.Index(mainMetrics, name)
	return i, i >= 0
}
