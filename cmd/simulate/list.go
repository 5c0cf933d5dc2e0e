package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdList = &command{
	Name:  "list",
	Args:  "[SCENARIO]",
	Short: "list the embedded scenarios, or a scenario's variants",
	Long: `
List prints the scenarios embedded in simulate, one a line, with their
one-line descriptions. Any command that takes a SCENARIO accepts these
names as well as paths to YAML files.

With a SCENARIO (a name or a YAML file's path), list prints its
description and its variants, the names that 'simulate env' and
VecEnv's variant take, and that the other commands' outputs name in
their variant column.`,
	Examples: `
	simulate list
	simulate list latency-pressure
	simulate run tiny`,
	Setup: func(fs *flag.FlagSet) action {
		return runList
	},
}

func runList(ctx context.Context, s *session, args []string) error {
	if len(args) > 1 {
		return usagef("list takes at most one SCENARIO")
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 8, 3, ' ', 0)
	if len(args) == 1 {
		sc, err := loadScenario(s, args[0], nil)
		if err != nil {
			return err
		}
		names := make([]string, len(sc.Variants))
		for i, v := range sc.Variants {
			names[i] = v.Name
		}
		fmt.Fprintf(tw, "%s\t%s\n", sc.Name, sc.Description)
		fmt.Fprintf(tw, "variants\t%s\n", strings.Join(names, ", "))
		return tw.Flush()
	}
	for _, name := range scenarios.Names() {
		desc, _ := scenarios.Info(name)
		fmt.Fprintf(tw, "%s\t%s\n", name, desc)
	}
	return tw.Flush()
}
