package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/printer"
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

	tok *token.Token
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

// Snippet returns the lines of the source around the error with a caret
// under its position (ANSI-coloured if colored is set), or "" when the error
// has no position.
func (e *Error) Snippet(colored bool) string {
	if e.tok == nil {
		return ""
	}
	var p printer.Printer
	return p.PrintErrorToken(e.tok, colored)
}

// errList collects errors, keeping the first few.
type errList []*Error

// maxErrors bounds how many problems one Parse reports.
const maxErrors = 20

func (l *errList) add(e *Error) {
	if len(*l) < maxErrors {
		*l = append(*l, e)
	}
}

// err returns nil, the single error, or the errors joined.
func (l errList) err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	// File order: errors with a position by line and column, then the
	// others as they came.
	sorted := slices.Clone(l)
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
	errs := make([]error, len(sorted))
	for i, e := range sorted {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// newError returns an error at tk (which may be nil) in source.
func newError(source string, tk *token.Token, path, format string, args ...any) *Error {
	e := &Error{Source: source, Path: path, Msg: fmt.Sprintf(format, args...)}
	e.at(tk)
	return e
}

// at places e at tk.
func (e *Error) at(tk *token.Token) {
	if tk == nil || tk.Position == nil || tk.Position.Line <= 0 {
		e.tok, e.Line, e.Column = nil, 0, 0
		return
	}
	e.tok = tk
	e.Line, e.Column = tk.Position.Line, tk.Position.Column
}
