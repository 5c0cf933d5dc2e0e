package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	// Aliased: main has a func report (an error to an exit status).
	htmlreport "github.com/swarmsim/swarmsim/report"
)

var cmdReport = &command{
	Name:  "report",
	Args:  "DIR",
	Short: "write the report page of a run, train, sweep, compare, fit or replay directory again",
	Long: `
Report writes DIR/report.html again from the directory's files, without
running anything, as plot redraws its charts: after 'simulate plot' drew
them anew, or for a directory written before reports were. run, train,
sweep, merge, compare, fit and replay write the report themselves when they
finish.

The report is one page that opens offline in any browser: what was run
(scenario, description, seed, variants, the command, the version), the
summary table with intervals and the best value of each column marked
(for a compare directory, the differences with their intervals and the
probability of improvement), every chart with its caption, the settings in
which the variants differ, and links to every file. It follows the
reader's light or dark theme and prints cleanly. DIR must be complete
(hold a manifest.json).`,
	Examples: `
	simulate report out/latency-pressure-train-seed1
	open out/latency-pressure-train-seed1/report.html`,
	Setup: func(fs *flag.FlagSet) action {
		return runReport
	},
}

func runReport(ctx context.Context, s *session, args []string) error {
	if len(args) != 1 {
		return usagef("want one directory, got %s", count(len(args), "argument", "arguments"))
	}
	if err := htmlreport.Write(args[0]); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "wrote %s\n", quotePath(filepath.Join(args[0], htmlreport.Name)))
	return nil
}

// writeReport writes the report of dir, complete, at the end of a command,
// and returns the line that points the reader to it, which the command
// prints after the path it wrote. The results stand without it, so a
// failure is a warning that says how to try again, not a failed command,
// and points to nothing.
func (s *session) writeReport(dir string) string {
	if err := htmlreport.Write(dir); err != nil {
		s.warnf("%s not written: %v; 'simulate report %s' tries again", htmlreport.Name, err, dir)
		return ""
	}
	return fmt.Sprintf("report: %s (open it in a browser)\n", quotePath(filepath.Join(dir, htmlreport.Name)))
}
