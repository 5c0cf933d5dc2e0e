package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdList = &command{
	Name:  "list",
	Short: "list the embedded scenarios",
	Long: `
List prints the scenarios embedded in simulate, one a line, with their
one-line descriptions. Any command that takes a SCENARIO accepts these
names as well as paths to YAML files.`,
	Examples: `
	simulate list
	simulate run tiny`,
	Setup: func(fs *flag.FlagSet) action {
		return runList
	},
}

func runList(ctx context.Context, s *session, args []string) error {
	if len(args) > 0 {
		return usagef("list takes no arguments")
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 8, 3, ' ', 0)
	for _, name := range scenarios.Names() {
		desc, _ := scenarios.Info(name)
		fmt.Fprintf(tw, "%s\t%s\n", name, desc)
	}
	return tw.Flush()
}
