package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/scenarios"
)

// A command is one subcommand of simulate, in the manner of cmd/go's
// base.Command: its help text, and a function that defines its flags on a
// fresh FlagSet and returns what runs it with the arguments left over.
type command struct {
	// Name is the command's name, as typed after "simulate".
	Name string
	// Args is the part of the usage line after the flags: "SCENARIO".
	Args string
	// Short is the one-line description shown by 'simulate help'.
	Short string
	// Long is the description shown by 'simulate help NAME', before the
	// flags: what the command does and what it writes.
	Long string
	// Examples follow the flags in 'simulate help NAME'.
	Examples string
	// Setup defines the command's flags on fs and returns its action. It
	// is called once per invocation, so no state outlives a call of run.
	Setup func(fs *flag.FlagSet) action
}

// An action runs a command with its positional arguments. It returns a
// usageError for bad arguments and any other error for failures.
type action func(ctx context.Context, s *session, args []string) error

// A session is the environment of one invocation: the streams to write to
// and the command line, as recorded in manifests.
type session struct {
	stdout, stderr io.Writer
	// argv is the command line as typed, starting with "simulate".
	argv []string
	// name is "simulate CMD", the prefix of messages.
	name string
}

// warnf prints a one-line warning on stderr.
func (s *session) warnf(format string, args ...any) {
	fmt.Fprintf(s.stderr, "%s: warning: %s\n", s.name, fmt.Sprintf(format, args...))
}

// infof prints a one-line note on stderr.
func (s *session) infof(format string, args ...any) {
	fmt.Fprintf(s.stderr, "%s: %s\n", s.name, fmt.Sprintf(format, args...))
}

// commands lists the commands in the order 'simulate help' shows them.
// It is filled in init to break the cycle through the help command.
var commands []*command

func init() {
	commands = []*command{cmdRun, cmdTrain, cmdSweep, cmdMerge, cmdCompare, cmdPlot, cmdTable, cmdReport, cmdGraph, cmdTrace, cmdEnv, cmdFit, cmdReplay, cmdValidate, cmdList, cmdSchema, cmdVersion}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// didYouMean returns "; did you mean "NAME"?" for the command a mistyped
// name most likely meant, or "".
func didYouMean(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.Name
	}
	return spelling.DidYouMean(name, names)
}

// usageError is an error in how simulate was called: an unknown command or
// flag, a missing or extra argument, a value out of range. It exits with
// status 2 and shows the usage line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the command failed
	exitUsage = 2 // the command was called wrongly
	// exitInterrupt is the status after SIGINT, as shells report a
	// process killed by it (128 + 2); SIGTERM gives 143.
	exitInterrupt = 130
)

// status is the exit status after the interrupt e (nil for a context
// canceled otherwise): as shells report a process its signal killed, 128
// plus the signal's number.
func (e *interrupted) status() int {
	if e != nil {
		if sig, ok := e.sig.(syscall.Signal); ok {
			return 128 + int(sig)
		}
	}
	return exitInterrupt
}

// gcPercent is the garbage collector's target unless GOGC is set.
// Simulations keep little memory live and allocate steadily, so at the
// default target the collector runs very often; at 4× the live heap
// sweeps ran about 1.5× faster on two workers for a few MB more.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs simulate with args (without the program name) and returns the
// exit status. An interrupt (SIGINT, SIGTERM) cancels the command, which
// cleans up after itself. run never panics: an unexpected panic becomes a
// one-line internal error (with the stack when SIMULATE_DEBUG is set).
func run(args []string, stdout, stderr io.Writer) (code int) {
	ctx, stop := interruptible(context.Background())
	defer stop()
	s := &session{stdout: stdout, stderr: stderr, argv: append([]string{"simulate"}, args...), name: "simulate"}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\n", s.name, oneLine(fmt.Sprint(r)))
			if os.Getenv("SIMULATE_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitFail
		}
	}()

	if len(args) == 0 {
		mainUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-version", "--version":
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "simulate: %s takes no arguments\n", name)
			return exitUsage
		}
		return report(s, cmdVersion, runVersion(ctx, s, nil))
	case "help", "-h", "-help", "--help":
		if name != "help" {
			rest = nil
		}
		return help(s, rest)
	}
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(stderr, "simulate: flag provided but not defined: %s\n", name)
		fmt.Fprintf(stderr, "usage: simulate <command> [arguments]\nRun 'simulate help' for the list of commands.\n")
		return exitUsage
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "simulate %s: unknown command%s\nRun 'simulate help' for the list of commands.\n", name, didYouMean(name))
		return exitUsage
	}
	s.name = "simulate " + cmd.Name

	fs, act := newFlagSet(cmd)
	pos, err := parseFlags(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, cmd)
		return exitOK
	}
	if err == nil {
		err = act(ctx, s, pos)
	}
	if err != nil && ctx.Err() != nil {
		// Work stopped because of an interrupt: say that, not what the
		// cancelled work happened to return.
		err = context.Cause(ctx)
	}
	return report(s, cmd, err)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted" }

// interruptible returns a context that the first SIGINT or SIGTERM
// cancels, with an *interrupted cause. After that the signals get their
// default action back, so that a second Ctrl-C ends a process that is slow
// to clean up.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(&interrupted{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// report prints err for cmd on stderr and returns the exit status.
func report(s *session, cmd *command, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) || isFlagError(err) {
		fmt.Fprintf(s.stderr, "%s: %s\n", s.name, oneLine(err.Error()))
		fmt.Fprintf(s.stderr, "usage: %s\nRun 'simulate help %s' for details.\n", usageLine(cmd), cmd.Name)
		return exitUsage
	}
	var in *interrupted
	if errors.As(err, &in) || errors.Is(err, context.Canceled) {
		fmt.Fprintf(s.stderr, "%s: interrupted\n", s.name)
		return in.status()
	}
	// A scenario's problems show their lines, as validate shows them.
	if se := (*scenarios.Error)(nil); errors.As(err, &se) {
		printProblems(s.stderr, s.name+": ", err, isTerminal(s.stderr))
		return exitFail
	}
	for _, line := range errorLines(err) {
		fmt.Fprintf(s.stderr, "%s: %s\n", s.name, line)
	}
	return exitFail
}

// flagError marks errors returned by FlagSet.Parse, which are usage errors.
type flagError struct{ err error }

// flagName finds a flag's name in the flag package's messages, which
// write it with one dash ("for flag -seed"), as the help never does.
var flagName = regexp.MustCompile(`(: |for (?:flag )?)-([A-Za-z])`)

// flagValue matches the flag package's message for a value that a flag
// refused: `invalid value "V" for flag -NAME: why`, or `invalid boolean
// value "V" for -NAME: parse error` for a switch.
var flagValue = regexp.MustCompile(`(?s)^invalid (boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([A-Za-z][\w-]*): (.*)$`)

// Error says a refused value as the commands' own checks of their flags
// do, "--NAME VALUE: why", with the value quoted as the flag package
// quoted it where it is empty, holds spaces or quotes, or had to be
// escaped (control characters, which a terminal would obey); the flag
// package's other messages keep their words, with two dashes.
func (e *flagError) Error() string {
	msg := e.err.Error()
	m := flagValue.FindStringSubmatch(msg)
	if m == nil {
		return flagName.ReplaceAllString(msg, "$1--$2")
	}
	v, err := strconv.Unquote(m[2])
	if err != nil || v == "" || strings.ContainsAny(v, " \t\"'") || strings.ContainsRune(m[2], '\\') {
		v = m[2]
	}
	why := m[4]
	if m[1] != "" {
		why = "want true or false"
	}
	return "--" + m[3] + " " + v + ": " + why
}

func (e *flagError) Unwrap() error { return e.err }

// flagHints say, by command and unknown flag, where what a flag of
// another command does, or what a learner's usual flag sets, is given in
// this one: a nearest name would mislead there (sweep's --seed is the
// first seed, not a count), and none at all leaves a newcomer to train
// without the flag it expected guessing.
var flagHints = map[string]map[string]string{
	"run": {"seeds": "run evaluates --episodes episodes from one --seed; --seeds is simulate train's"},
	"train": {
		"episodes":   "a training plays train.batch × train.group episodes an iteration (--set train.batch=N); --episodes is simulate run's",
		"iterations": "a training's number of iterations is the scenario's train.iterations (--set train.iterations=N)",
	},
	"sweep": {"seeds": "a sweep's number of seeds is the scenario's sweep.seeds (--set sweep.seeds=N); --seed is the first seed"},
}

// withFlagHint adds to the flag package's error for an unknown flag the
// flag of fs its name most likely meant, or what flagHints say.
func withFlagHint(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return err
	}
	if hint := flagHints[strings.TrimPrefix(fs.Name(), "simulate ")][strings.TrimLeft(name, "-")]; hint != "" {
		return fmt.Errorf("%w: %s", err, hint)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := spelling.Nearest(strings.TrimLeft(name, "-"), names); near != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, near)
	}
	return err
}

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

// parseFlags parses args with fs, allowing flags after positional
// arguments ("simulate run tiny --seed 3") as the usage lines show them.
// A "--" ends the flags: everything after it is positional. It returns the
// positional arguments in order. A text flag given empty is refused
// (emptyFlag).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &flagError{withFlagHint(fs, err)}
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), emptyFlag(fs)
		}
		if len(rest) == 0 {
			return pos, emptyFlag(fs)
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// emptyFlag returns a usage error for a text flag of fs given an empty
// value where its default is empty: taken as not given, it silently meant
// the default (a --out "$DIR" of an unset DIR wrote to the default
// directory, a --rate "$R" replayed a closed loop, a --variant "" ran
// every variant), as the flags of numbers refuse a 0 that would. A flag
// with a default of its own checks its value itself.
func emptyFlag(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok && err == nil && f.DefValue == "" && g.Get() == "" {
			err = &flagError{fmt.Errorf("--%s \"\": empty: give a value, or leave the flag out for its default", f.Name)}
		}
	})
	return err
}

// errorLines splits an error into the lines to print, one per problem:
// errors.Join and multi-line messages give several, and blank lines are
// dropped.
func errorLines(err error) []string {
	var lines []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// oneLine joins the lines of msg with "; ".
func oneLine(msg string) string {
	return strings.Join(errorLines(errors.New(msg)), "; ")
}
