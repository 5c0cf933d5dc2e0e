package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

var cmdGraph = &command{
	Name:  "graph",
	Args:  "FILE|SCENARIO",
	Short: "describe a task graph",
	Long: `
Graph prints the size and shape of a task-decomposition graph: its tasks
and edges, the total work (the time one agent of unit speed needs for all
of it, without overheads), the critical path (the time with unlimited
agents: the latency lower bound), the width (the most tasks on one level,
a bound on useful parallelism) and the depth (levels).

The argument is a graph file (Graphviz DOT, .dot or .gv, or WfCommons
WfFormat JSON, .json) or a scenario (an embedded scenario's name, or a
YAML file). For a scenario, graph draws the instance that episode
--episode of variant --variant works on in 'simulate run' with the same
seed: the same task draw.

Times are printed as durations and in seconds; with --json they are
numbers of seconds at unit speed, under the keys tasks, edges, total_work,
critical_path, width and depth.

With --dot FILE the graph is also written in Graphviz DOT, atomically; a
file that exists is replaced only with --force.

The first example reads ../shared/data: real input files kept beside
the checkout, not in it (README.md).`,
	Examples: `
	simulate graph ../shared/data/wfcommons/helloworld-forkjoin-10-chameleon.json
	simulate graph tiny --json
	simulate graph tiny --episode 3 --dot tiny3.dot && dot -Tsvg tiny3.dot >tiny3.svg`,
	Setup: func(fs *flag.FlagSet) action {
		o := &graphOptions{}
		fs.BoolVar(&o.json, "json", false, "print the figures as a JSON object")
		fs.StringVar(&o.dot, "dot", "", "also write the graph in Graphviz DOT to `FILE` (- for standard output,\nin place of the figures)")
		fs.BoolVar(&o.force, "force", false, "replace the file --dot names if it exists")
		o.draw.flags(fs)
		return o.run
	},
}

type graphOptions struct {
	json  bool
	dot   string
	force bool
	draw  drawOptions
}

// graphFigures are what graph prints.
type graphFigures struct {
	Tasks        int     `json:"tasks"`
	Edges        int     `json:"edges"`
	TotalWork    float64 `json:"total_work"`
	CriticalPath float64 `json:"critical_path"`
	Width        int     `json:"width"`
	Depth        int     `json:"depth"`
}

func (o *graphOptions) run(ctx context.Context, s *session, args []string) error {
	if len(args) != 1 {
		return usagef("want one graph file or scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if o.json && o.dot == "-" {
		return usagef("--json and --dot - both print on standard output: write the DOT to a file (--dot FILE)")
	}
	toFile := o.dot != "" && o.dot != "-"
	if o.force && !toFile {
		return usagef("--force without --dot FILE: only a DOT file is replaced")
	}
	if toFile {
		// Checked before the work, as trace checks --out.
		if err := checkOutFile("--dot", o.dot, "graph.dot", o.force); err != nil {
			return err
		}
	}
	var (
		g     *task.Graph
		title string
		err   error
	)
	if isGraphFile(args[0]) {
		if o.draw.given() {
			return usagef("--seed, --set, --variant and --episode apply to scenarios, not to graph files")
		}
		g, err = task.Load(args[0])
		title = args[0]
	} else {
		var ep *episode
		// Checked before loading, as run does.
		err = refuseUnread(o.draw.sets, scenarios.GraphCommand, false)
		if err == nil {
			ep, err = o.draw.load(s, args[0], nil)
		}
		if ep != nil {
			g = ep.graph
			title = ep.title()
		}
	}
	if err != nil {
		return err
	}
	// The sums saturate at sim.MaxTime; the critical path is no longer
	// than the total work, so one check covers both. A saturated sum is
	// no figure to print ("never"), but work no simulation can hold.
	if g.TotalWork() == sim.MaxTime {
		return fmt.Errorf("%s: the total work of its %s is more than a simulated time holds (about 292 years): lower the work of its tasks", title, count(g.Len(), "task", "tasks"))
	}

	if o.dot != "" {
		var b bytes.Buffer
		if err := task.WriteDOT(&b, g); err != nil {
			return err
		}
		if o.dot == "-" {
			_, err := s.stdout.Write(b.Bytes())
			return err
		}
		if err := writeOutFile("--dot", o.dot, "graph.dot", o.force, b.Bytes()); err != nil {
			return err
		}
		// On standard error: standard output holds the figures, or --json's
		// document.
		s.infof("wrote %s", quotePath(o.dot))
	}

	if isGraphFile(args[0]) && g.Len() > 0 && g.TotalWork() == 0 {
		// Figures of 0 s would read as a graph that takes no time, where
		// a scenario gives the nodes without work their work when run.
		fmt.Fprintln(s.stderr, noWork(args[0]))
	}
	cp := g.CriticalLength()
	fig := graphFigures{
		Tasks:        g.Len(),
		Edges:        g.Edges(),
		TotalWork:    g.TotalWork().Seconds(),
		CriticalPath: cp.Seconds(),
		Width:        g.Width(),
		Depth:        g.Depth(),
	}
	if o.json {
		b, err := json.MarshalIndent(fig, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(s.stdout, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "graph\t%s\n", title)
	fmt.Fprintf(tw, "tasks\t%d\n", fig.Tasks)
	fmt.Fprintf(tw, "edges\t%d\n", fig.Edges)
	fmt.Fprintf(tw, "total work\t%s\n", duration(g.TotalWork()))
	fmt.Fprintf(tw, "critical path\t%s\n", duration(cp))
	fmt.Fprintf(tw, "width\t%d\n", fig.Width)
	fmt.Fprintf(tw, "depth\t%d\n", fig.Depth)
	if cp > 0 {
		fmt.Fprintf(tw, "work / critical path\t%.3g (average parallelism with unlimited agents)\n", float64(g.TotalWork())/float64(cp))
	}
	return tw.Flush()
}

// noWork is the note on a graph file whose tasks have no work, so that
// every time figure is 0.
func noWork(path string) string {
	if strings.ToLower(filepath.Ext(path)) == ".json" {
		return fmt.Sprintf("note: no task of %s has a runtime above 0, so the total work and the critical path are 0", path)
	}
	return fmt.Sprintf("note: no node of %s has work (a work attribute above 0), so the total work and the critical path are 0; "+
		"in a scenario (task.path) each node without a work attribute takes a draw of task.work when run", path)
}

// isGraphFile reports whether arg names a graph file rather than a
// scenario, by its extension.
func isGraphFile(arg string) bool {
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".dot", ".gv", ".json":
		return true
	}
	return false
}

// duration formats t for reading as "5430.1 s (1h30m30s)": seconds to
// a tenth, then the duration to the second (to the millisecond below a
// minute).
func duration(t sim.Time) string {
	if t == sim.MaxTime {
		return "never"
	}
	unit := time.Second
	if t < sim.Minute {
		unit = time.Millisecond
	}
	return fmt.Sprintf("%.1f s (%v)", t.Seconds(), time.Duration(t).Round(unit))
}
