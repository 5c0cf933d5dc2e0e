package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
)

var cmdTrace = &command{
	Name:  "trace",
	Args:  "SCENARIO",
	Short: "export one episode as a Chrome trace",
	Long: `
Trace runs one episode of one variant of SCENARIO again, recording every
activity and message, and writes it in the Chrome Trace Event JSON format,
which Perfetto (https://ui.perfetto.dev) and chrome://tracing open: agents
are threads, model calls, checks, shares and waits are slices, messages are
flow arrows from sender to receiver. Times are virtual.

The episode is the one 'simulate run' evaluates as episode --episode of
variant --variant with the same seed and --set values: the same task draw
and the same random streams, so the trace shows the row of episodes.csv.

The file is written atomically; without --out the trace goes to standard
output.`,
	Examples: `
	simulate trace tiny --variant team --episode 0 --out team0.json
	simulate trace my-scenario.yaml --variant split --episode 12 --seed 7 --out split12.json`,
	Setup: func(fs *flag.FlagSet) action {
		o := &traceOptions{}
		fs.StringVar(&o.out, "out", "", "write the trace to `FILE` (default: standard output)")
		o.draw.flags(fs)
		o.limits.flags(fs)
		return o.run
	},
}

type traceOptions struct {
	limits limitOptions
	out    string
	draw   drawOptions
}

func (o *traceOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 1 {
		return usagef("want one scenario, got %d arguments", len(args))
	}
	ep, err := o.draw.load(args[0])
	if err != nil {
		return err
	}
	ctx, done, err := o.limits.start(ctx, ep.sc, 1)
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	ep.maxEvents = o.limits.maxEvents
	res, err := ep.run(ctx, true)
	if err != nil {
		return fmt.Errorf("%s: %w", ep.title(), err)
	}
	var b bytes.Buffer
	if err := res.Trace.WriteChrome(&b, ep.title()); err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err = s.stdout.Write(b.Bytes())
		return err
	}
	return atomicfile.Write(o.out, b.Bytes())
}
