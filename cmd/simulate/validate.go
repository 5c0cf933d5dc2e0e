package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdValidate = &command{
	Name:  "validate",
	Args:  "FILE...",
	Short: "check scenario files",
	Long: `
Validate loads each scenario FILE strictly, as run does, and checks it: the
YAML is well formed, every key is known, every value has the right type and
is in range, every file it refers to (task.path, policy.file: relative to
the scenario's folder) reads without error, every path of replay.traces
names a file or folder (what the traces hold a replay reads), and every
variant's policy can be built. It prints "ok" and the file for a valid scenario, and each
problem as file:line:col: message otherwise (file: message for a field
the file leaves out, such as a missing policy section, which has no
line). A FILE may also be an embedded scenario's name.

A value that only training or a learned policy exercises (a hand-off
setting no fixed organization makes act, docs/scenarios.md) is valid,
since train uses it; validate notes it on standard error, because run
and trace refuse it without --policy.

The exit status is 1 when any file has a problem.`,
	Examples: `
	simulate validate my-scenario.yaml
	simulate validate scenarios/library/*.yaml`,
	Setup: func(fs *flag.FlagSet) action {
		return runValidate
	},
}

func runValidate(ctx context.Context, s *session, args []string) error {
	if len(args) == 0 {
		return usagef("want one or more scenario files")
	}
	bad := 0
	for _, file := range args {
		sc, err := validate(file)
		if err != nil {
			bad++
			printProblems(s.stderr, "", err, isTerminal(s.stderr))
			continue
		}
		fmt.Fprintf(s.stdout, "ok\t%s\n", file)
		for _, e := range flatten(sc.RunInert()) {
			s.infof("note: %s", e)
		}
		for _, names := range sc.Identical() {
			s.infof("note: %s: variants %s have the same settings: their episodes are the same", file, joinAnd(names))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d scenarios have problems", bad, len(args))
	}
	return nil
}

// validate loads a scenario, checks the files it refers to (replay.traces
// among them), and builds its variants' policies.
func validate(file string) (*scenarios.Scenario, error) {
	sc, err := scenarios.Load(file, nil)
	if err != nil {
		return nil, err
	}
	if err := sc.CheckFiles(); err != nil {
		return nil, err
	}
	if err := sc.CheckTraces(); err != nil {
		return nil, err
	}
	var errs []error
	for _, v := range sc.Variants {
		if _, err := v.Policy(); err != nil {
			errs = append(errs, fmt.Errorf("%s: variant %s: %w", sc.Source, v.Name, err))
		}
	}
	return sc, errors.Join(errs...)
}

// printProblems prints each problem of err on its own line after prefix
// (each command's failure, "simulate run: "; none for validate), followed
// by the source lines around it with a caret under its position, where
// the problem has one.
func printProblems(w io.Writer, prefix string, err error, colored bool) {
	for _, e := range flatten(err) {
		for _, line := range errorLines(e) {
			fmt.Fprintf(w, "%s%s\n", prefix, line)
		}
		var se *scenarios.Error
		if errors.As(e, &se) {
			if snip := strings.TrimRight(se.Snippet(colored), "\n"); snip != "" {
				fmt.Fprintf(w, "%s\n\n", snip)
			}
		}
	}
}

// flatten returns the errors joined in err (see errors.Join), or err;
// none for nil.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, flatten(e)...)
		}
		return errs
	}
	return []error{err}
}
