package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/token"
)

// Error is one problem found while loading a scenario. It says where
// (Source, and Line and Column when the problem sits at a place in a file),
// which field (Path, such as "collective.agents"), and what is wrong and
// what is allowed (Msg). Load and Parse return an *Error, or several joined
// with errors.Join; find them with errors.As.
type Error struct {
	// Source is the file's path, "embedded:NAME", or "--set PATH=VALUE"
	// for an override given on the command line.
	Source string
	// Line and Column are 1-based; 0 when the problem has no place in a
	// file (an override given with --set, a missing top-level field).
	Line, Column int
	// Variant names the variant whose `set:` introduced the problem, if any.
	Variant string
	// Path is the field path ("collective.check.accuracy",
	// "task.components[1].width"); empty for syntax errors.
	Path string
	// Msg says what is wrong and what is allowed.
	Msg string

	// text is the source's text where the error has a place in it: the
	// lines of its Snippet.
	text []byte
}

// Error formats e as "SOURCE:LINE:COL: variant "V": PATH: MSG", leaving out
// the parts that are empty.
func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&sb, ":%d:%d", e.Line, e.Column)
	}
	sb.WriteString(": ")
	if e.Variant != "" {
		fmt.Fprintf(&sb, "variant %q: ", e.Variant)
	}
	if e.Path != "" {
		sb.WriteString(e.Path)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// snippetContext is how many lines a snippet shows before and after the
// error's line.
const snippetContext = 3

// Snippet returns the lines of the source around the error, numbered as in
// the file, the error's line marked with ">" and a caret under its column
// (the caret ANSI-coloured if colored is set), or "" when the error has no
// position. The lines are the file's own text, kept with the error: the
// tokens' text would not do, since goccy links not every token it makes
// (the null of a key without a value) and its printer drops and misplaces
// blank lines and comments.
func (e *Error) Snippet(colored bool) string {
	lines := strings.Split(string(e.text), "\n")
	if e.Line < 1 || e.Line > len(lines) || e.text == nil {
		return ""
	}
	if n := len(lines); lines[n-1] == "" && e.Line < n {
		lines = lines[:n-1] // what follows the last newline is no line
	}
	lo, hi := max(1, e.Line-snippetContext), min(len(lines), e.Line+snippetContext)
	width := len(strconv.Itoa(hi))
	var sb strings.Builder
	for n := lo; n <= hi; n++ {
		mark := " "
		if n == e.Line {
			mark = ">"
		}
		fmt.Fprintf(&sb, "%s %*d | %s\n", mark, width, n, strings.TrimRight(lines[n-1], " \r"))
		if n == e.Line {
			caret := "^"
			if colored {
				caret = "\x1b[1;31m^\x1b[0m"
			}
			fmt.Fprintf(&sb, "%s%s\n", strings.Repeat(" ", len(mark)+1+width+3+max(0, e.Column-1)), caret)
		}
	}
	return sb.String()
}

// errList collects errors, keeping the first few: past that, a file is
// more likely the wrong file than one with that many mistakes, and the
// count says so without flooding the terminal.
type errList struct {
	list    []*Error
	dropped int
}

// maxErrors bounds how many problems one Parse reports.
const maxErrors = 10

func (l *errList) add(e *Error) {
	if len(l.list) < maxErrors {
		l.list = append(l.list, e)
		return
	}
	l.dropped++
}

// merge adds the errors of other, and counts those it dropped.
func (l *errList) merge(other *errList) {
	for _, e := range other.list {
		l.add(e)
	}
	l.dropped += other.dropped
}

func (l *errList) len() int { return len(l.list) + l.dropped }

// err returns nil, the single error, or the errors joined, followed by
// "and N more problems" when some were dropped.
func (l *errList) err() error {
	errs := l.sorted()
	if l.dropped > 0 {
		errs = append(errs, &Error{Source: l.list[0].Source, Msg: fmt.Sprintf("and %d more %s", l.dropped, plural(l.dropped, "problem"))})
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// sorted returns the errors kept, in file order: errors with a position by
// line and column, then the others as they came.
func (l *errList) sorted() []*Error {
	if len(l.list) < 2 {
		return slices.Clone(l.list)
	}
	sorted := slices.Clone(l.list)
	unplaced := func(e *Error) int {
		if e.Line > 0 {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(sorted, func(a, b *Error) int {
		if c := cmp.Compare(unplaced(a), unplaced(b)); c != 0 || unplaced(a) == 1 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return sorted
}

// newError returns an error at tk (which may be nil) in source, whose
// text is text.
func newError(source string, text []byte, tk *token.Token, path, format string, args ...any) *Error {
	e := &Error{Source: source, Path: path, Msg: fmt.Sprintf(format, args...), text: text}
	e.at(tk)
	return e
}

// at places e at tk.
func (e *Error) at(tk *token.Token) {
	if tk == nil || tk.Position == nil || tk.Position.Line <= 0 {
		e.Line, e.Column = 0, 0
		return
	}
	e.Line, e.Column = tk.Position.Line, tk.Position.Column
}
