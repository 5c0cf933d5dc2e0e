package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdTrace = &command{
	Name:  "trace",
	Args:  "SCENARIO",
	Short: "export one episode as a Chrome trace, or episodes as OTLP GenAI spans",
	Long: `
Trace runs one episode of one variant of SCENARIO again, recording every
activity and message, and writes it in the Chrome Trace Event JSON format,
which Perfetto (https://ui.perfetto.dev) and chrome://tracing open: agents
are threads, model calls, checks, shares and waits are slices, messages are
flow arrows from sender to receiver. Times are virtual, in whole
microseconds, every one rounded from the exact virtual time, so that
slices that touch in the simulation touch exactly in the trace.

The episode is the one 'simulate run' evaluates as episode --episode of
variant --variant with the same seed, --set values and --policy: the
same task draw and the same random streams, so the trace shows the row
of episodes.csv. As run does, trace refuses a setting that no fixed
organization holding it exercises (collective.handoff.duplicates under
any, collective.select.cost under all but independent) unless --policy
gives a learned policy that may. The variants are judged together, as a
sweep's trials are: a value that they share counts when some variant
with the same value exercises it, though the traced one may not.

With --format otlp the episode is written as OpenTelemetry spans under the
GenAI semantic conventions, in OTLP/JSON as the Collector's file exporter
writes them: an invoke_agent span per agent, a chat span per model call
of work (gen_ai.request.model is the variant's name; its prompt and output
tokens), an execute_tool span per tool call. Checks are left out: recorded
traces have none, and 'simulate fit' would read them as calls of work, so
a check's time shows as a gap between calls. --count N writes N episodes
from --episode on, one OTLP document per line; 'simulate fit' reads them
back.

The file is written atomically, and trace says so on standard output;
a file that exists is replaced only with --force. Without --out the
trace itself goes to standard output.`,
	Examples: `
	simulate trace tiny --variant team --episode 0 --out team0.json
	simulate trace my-scenario.yaml --variant split --episode 12 --seed 7 --out split12.json
	simulate trace my-scenario.yaml --format otlp --count 200 --out spans.jsonl
	simulate trace exp-parl --policy out/exp-parl-train-seed1/policies/annealed-seed1.json --out parl.json`,
	Setup: func(fs *flag.FlagSet) action {
		o := &traceOptions{count: 1}
		fs.StringVar(&o.out, "out", "", "write the trace to `FILE` (default: standard output)")
		fs.BoolVar(&o.force, "force", false, "replace the file --out names if it exists")
		fs.StringVar(&o.format, "format", "chrome", "the trace's `FORMAT`: chrome (Chrome Trace Event JSON) or otlp (OTLP/JSON GenAI spans)")
		fs.Var(intFlag{&o.count}, "count", "with --format otlp, write `N` episodes from --episode on")
		o.draw.flags(fs)
		o.limits.flags(fs)
		o.policy.flags(fs)
		return o.run
	},
}

type traceOptions struct {
	limits      limitOptions
	policy      policyFlag
	out, format string
	force       bool
	count       int
	draw        drawOptions
}

func (o *traceOptions) run(ctx context.Context, s *session, args []string) (err error) {
	// The scenario's errors name the --set that --policy stands for.
	defer func() { err = o.policy.restate(err) }()
	if len(args) != 1 {
		return usagef("want one scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if o.format != "chrome" && o.format != "otlp" {
		return usagef("--format %s: want chrome or otlp", o.format)
	}
	if o.count < 1 || (o.count > 1 && o.format != "otlp") {
		return usagef("--count %d: want 1, or more with --format otlp (a Chrome trace holds one episode)", o.count)
	}
	if o.draw.episode > math.MaxInt-(o.count-1) {
		// The episodes' numbers would wrap around: nothing would be traced.
		return usagef("--episode %d with --count %d: the last episode is past %d", o.draw.episode, o.count, math.MaxInt)
	}
	toFile := o.out != "" && o.out != "-"
	if o.force && !toFile {
		return usagef("--force without --out FILE: standard output has no file to replace")
	}
	if toFile {
		if err := checkOutFile("--out", o.out, "trace.json", o.force); err != nil {
			return err
		}
	}
	if err := refuseReplaced(o.draw.sets, o.policy.stand()); err != nil {
		return err
	}
	// Checked before loading: a section the command never reads is the
	// problem, whatever the scenario makes of the value (a sweep.* given
	// to a scenario without a sweep is not an incomplete sweep).
	if err := refuseUnread(o.draw.sets, scenarios.TraceCommand, false); err != nil {
		return err
	}
	ep, err := o.draw.load(s, args[0], o.policy.sets())
	if err != nil {
		return err
	}
	if err := ep.sc.RunInert(); err != nil {
		return err
	}
	ctx, done, err := o.limits.start(ctx, ep.sc, []workload{variantWorkload(ep.variant, false)}, 1)
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	ep.maxEvents = o.limits.events()
	var b bytes.Buffer
	for i := range o.count {
		if err := ep.draw(o.draw.episode + i); err != nil {
			return err
		}
		if err := o.write(ctx, ep, &b); err != nil {
			return err
		}
	}
	if !toFile {
		_, err = s.stdout.Write(b.Bytes())
		return err
	}
	if err := writeOutFile("--out", o.out, "trace.json", o.force, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "wrote %s\n", quotePath(o.out))
	return nil
}

// write runs the episode and appends its trace to b.
func (o *traceOptions) write(ctx context.Context, ep *episode, b *bytes.Buffer) error {
	res, err := ep.run(ctx, true)
	if err != nil {
		return fmt.Errorf("%s: %w", ep.title(), err)
	}
	if o.format == "chrome" {
		return res.Trace.WriteChrome(b, ep.title())
	}
	return calibrate.WriteOTLP(b, calibrate.Episode{Trace: res.Trace, Finish: int64(res.Metrics.Finish),
		Model: ep.variant.Name, ID: uint64(ep.k), Acceptable: res.Metrics.Acceptable})
}
