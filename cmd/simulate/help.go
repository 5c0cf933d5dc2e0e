package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"
)

// overview is the first part of 'simulate help' and of the package
// documentation.
const overview = `Simulate runs discrete-event simulations of LLM agent collectives: several
agents sharing one policy work on a task-decomposition graph on a virtual
clock, with model calls, messages, checks and reconciliation priced in
virtual time. It compares organizations of the collective (sequential work,
independent attempts with selection, a split, a communicating team) on the
same random draws, trains the shared policy with reinforcement learning from
collective rewards (RLCR) under latency pressure, and writes tables and
charts for papers.

A scenario is a YAML file, or the name of one embedded in simulate (see
'simulate list'); the JSON Schema of the format is printed by
'simulate schema'. Every result depends only on the scenario and its seed:
the same scenario and seed give byte-identical tables on any machine,
whatever the number of workers.`

// usageLine returns "simulate NAME [flags] ARGS" for cmd.
func usageLine(cmd *command) string {
	line := "simulate " + cmd.Name
	if hasFlags(cmd) {
		line += " [flags]"
	}
	if cmd.Args != "" {
		line += " " + cmd.Args
	}
	return line
}

// newFlagSet returns a fresh FlagSet with cmd's flags, which reports its
// errors to the caller and prints nothing, and cmd's action bound to it.
func newFlagSet(cmd *command) (*flag.FlagSet, action) {
	fs := flag.NewFlagSet("simulate "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, cmd.Setup(fs)
}

func hasFlags(cmd *command) bool {
	fs, _ := newFlagSet(cmd)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// mainUsage prints the overview and the list of commands.
func mainUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage:\n\n\tsimulate <command> [arguments]\n\nThe commands are:\n\n", overview)
	width := 0
	for _, c := range commands {
		width = max(width, len(c.Name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-*s   %s\n", width, c.Name, c.Short)
	}
	fmt.Fprintf(w, "\nUse \"simulate help <command>\" for more information about a command.\n\n%s\n", exitStatuses)
}

// exitStatuses is the last part of 'simulate help'.
const exitStatuses = `Every command exits with status 0 when it did its work; 1 when it failed:
a scenario, file or directory it refuses, a name that the scenario or the
directory does not have (a --set key, a variant, a metric), a value the
scenario does not allow, a simulation error, with a message that names what
was wrong and where (a scenario's file, line and field); 2 when the command
line itself is wrong (an unknown command or flag, a flag value of the wrong
form, out of its range or empty, a missing or extra argument), with a
pointer to its help; 130 or 143 when SIGINT or SIGTERM stopped it, after
removing what it had half written.`

// help implements 'simulate help [command]'.
func help(s *session, args []string) int {
	switch len(args) {
	case 0:
		mainUsage(s.stdout)
		return exitOK
	case 1:
		if cmd := lookup(args[0]); cmd != nil {
			printHelp(s.stdout, cmd)
			return exitOK
		}
		fmt.Fprintf(s.stderr, "simulate help %s: unknown help topic%s\nRun 'simulate help' for the list of commands.\n", args[0], didYouMean(args[0]))
	default:
		fmt.Fprintf(s.stderr, "simulate help: too many arguments\nusage: simulate help [command]\n")
	}
	return exitUsage
}

// printHelp prints cmd's manual: usage line, description, flags, examples.
func printHelp(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", usageLine(cmd), strings.TrimSpace(cmd.Long))
	if f := flagHelp(cmd); f != "" {
		fmt.Fprintf(w, "\nFlags:\n\n%s", f)
	}
	if cmd.Examples != "" {
		fmt.Fprintf(w, "\nExamples:\n\n%s\n", strings.Trim(cmd.Examples, "\n"))
	}
}

// flagHelp lists cmd's flags in alphabetical order, each as
//
//	--name VALUE
//		usage
//
// where VALUE is the back-quoted word of the usage (see flag.UnquoteUsage).
func flagHelp(cmd *command) string {
	var b bytes.Buffer
	fs, _ := newFlagSet(cmd)
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		if _, ok := f.Value.(interface{ IsBoolFlag() bool }); ok {
			value = ""
		}
		fmt.Fprintf(&b, "\t--%s", f.Name)
		if value != "" {
			fmt.Fprintf(&b, " %s", value)
		}
		fmt.Fprintf(&b, "\n")
		// A default that is not zero is shown, unless the usage says it.
		switch f.DefValue {
		case "", "0", "false", "0B":
		default:
			if !strings.Contains(usage, "(default") {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		for line := range strings.SplitSeq(usage, "\n") {
			fmt.Fprintf(&b, "\t\t%s\n", line)
		}
	})
	return b.String()
}

// documentation returns the package comment of doc.go: the overview, the
// list of commands and every command's manual, as 'go doc' shows them.
// TestDocUpToDate keeps doc.go in step with it (go test -update writes it).
func documentation() string {
	var b bytes.Buffer
	mainUsage(&b)
	for _, c := range commands {
		fmt.Fprintf(&b, "\n# %s\n\n", capitalize(c.Short))
		fmt.Fprintf(&b, "Usage:\n\n\t%s\n\n%s\n", usageLine(c), strings.TrimSpace(c.Long))
		if f := flagHelp(c); f != "" {
			fmt.Fprintf(&b, "\nThe flags are:\n\n%s", f)
		}
		if c.Examples != "" {
			fmt.Fprintf(&b, "\nExamples:\n\n%s\n", strings.Trim(c.Examples, "\n"))
		}
	}
	var doc bytes.Buffer
	doc.WriteString("// Code generated by 'go test -run TestDocUpToDate -update'; DO NOT EDIT.\n// Edit the commands' help text and regenerate.\n\n")
	for line := range strings.SplitSeq(strings.TrimRight(b.String(), "\n"), "\n") {
		if line == "" {
			doc.WriteString("//\n")
		} else {
			doc.WriteString("// " + line + "\n")
		}
	}
	doc.WriteString("package main\n")
	return strings.ReplaceAll(doc.String(), "// \t", "//\t")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
