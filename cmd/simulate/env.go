package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/term"

	"github.com/swarmsim/swarmsim/experiment/env"
)

var cmdEnv = &command{
	Name:  "env",
	Short: "serve a scenario as a vector environment to a learner in any language",
	Long: `
Env makes a scenario an environment that a learner outside simulate steps:
a Python, Julia or Rust program, or a language model's harness, starts
'simulate env' as a child process, writes requests to its standard input
and reads one reply per request from its standard output, in the
swarmsim-env/2 protocol (docs/environment.md). Standard error carries
human messages only.

Each message is a 4-byte little-endian length, a JSON header of that
length, and the binary arrays the header lists. The requests:

	make      the scenario (a library name or a YAML path), its variant,
	          num_envs rows in groups of group, the seed, set overrides
	          (as --set takes them), the workers that step the rows,
	          and whose decisions come to the client (decide: all, or
	          main: the main agent's, the variant's policy deciding for
	          the others);
	          the reply names the features, the actions and the episode
	          metrics, and says in words how an episode is scored
	reset     start every row's next episode and run it to its first
	          decision: observations, masks, deciding agents, active rows
	step      one action per row (an i4 array, or action names): the
	          next observations, the rewards, which episodes ended
	          (terminated, or truncated by the time limit) and their
	          metrics, the columns of episodes.csv; with first and count,
	          those rows alone (whole groups), so that a client chooses
	          one part's actions while another part steps
	render    each pending decision in words, with the valid actions by
	          name: the observation of a language model
	close     end the session

An observation is the learned policy's feature vector; a row's reward is 0
until its episode ends, then the scenario's collective reward as
'simulate train' scores it. Rows in a group share one task instance and
the environment's random draws (train.crn); with group 1 a finished row
starts its next episode in the same step, with a larger group it waits
until reset. With the choices of a built-in policy, the episodes are those
of 'simulate run', byte for byte.

A bad request gets an error reply naming its field, and the session goes
on; a message that breaks the framing gets one and ends the session with
status 1. At the end of standard input (the client closed it, or died)
env exits at once with status 0, so no process outlives its client. A
heap past --max-memory (a make of millions of subtasks on thousands of
rows) ends the session with status 1 and a message on standard error,
rather than growing until the system kills it.`,
	Examples: `
	simulate env
	python3 policy_program.py ./simulate    # the example of docs/environment.md`,
	Setup: func(fs *flag.FlagSet) action {
		var limits limitOptions
		limits.memoryFlag(fs, "end the session with status 1 when the process's heap passes `SIZE`\n(such as 512MiB or 16GiB; 0 for no bound)")
		return func(ctx context.Context, s *session, args []string) error {
			return runEnv(ctx, s, args, &limits)
		}
	},
}

func runEnv(ctx context.Context, s *session, args []string, limits *limitOptions) error {
	if len(args) > 0 {
		return usagef("env takes no arguments: the client names the scenario in its make request")
	}
	// A make of a task of millions of subtasks on thousands of rows
	// would grow until the kernel killed the server, or the machine
	// swapped: the bound ends it with a message the client's error shows.
	ctx, stop := limits.guard(ctx)
	defer stop()
	// A read of standard input cannot be interrupted, and env writes
	// nothing but replies: an interrupt, or the bound, ends the process
	// at once.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			var in *interrupted
			switch cause := context.Cause(ctx); {
			case errors.As(cause, &in):
				fmt.Fprintf(s.stderr, "%s: interrupted\n", s.name)
				os.Exit(in.status())
			case errors.Is(cause, errMemory):
				fmt.Fprintf(s.stderr, "%s: %v\n", s.name, cause)
				os.Exit(exitFail)
			}
		case <-done:
		}
	}()
	if term.IsTerminal(int(os.Stdin.Fd())) {
		s.infof("standard input is a terminal, but env speaks the binary swarmsim-env/2 protocol to a program (each message a 4-byte little-endian length, then a JSON header: docs/environment.md), not to a person typing; Ctrl-D ends it")
	}
	in, out := pollable(os.Stdin, os.O_RDONLY), s.stdout
	if f, ok := out.(*os.File); ok {
		out = pollable(f, os.O_WRONLY)
	}
	err := env.Serve(in, out, version())
	if errors.Is(err, syscall.EPIPE) {
		// The client stopped reading: it is gone, as at the end of the
		// input, unless it broke the framing first (died inside a
		// message), which its author needs to hear of.
		var fe *env.FramingError
		if errors.As(err, &fe) {
			return fe
		}
		return nil
	}
	return err
}
