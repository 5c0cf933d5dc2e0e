package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	htmlreport "github.com/swarmsim/swarmsim/report"
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
description and its variants, each with the settings it changes from
the scenario's: the names that --variant (run, train, sweep, trace,
graph), 'simulate env' and VecEnv's variant take, and that the other
commands' outputs name in their variant column. For a
scenario with a sweep section, list also prints what 'simulate sweep'
runs: the command, the axes and their values, the reference, the metrics
and the number of trials.`,
	Examples: `
	simulate list
	simulate list latency-pressure
	simulate list exp-pressure
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
		sc, err := loadScenario(s, args[0], nil, "")
		if err != nil {
			return err
		}
		st, err := htmlreport.ReadSettings(string(sc.Resolved))
		if err != nil {
			return fmt.Errorf("%s: the scenario as resolved: %w", sc.Source, err)
		}
		if sc.Description == "" {
			fmt.Fprintf(tw, "%s\n", sc.Name)
		} else {
			fmt.Fprintf(tw, "%s\t%s\n", sc.Name, sc.Description)
		}
		fmt.Fprintf(tw, "\nvariant\tsets\n")
		var paths []string
		set := map[string]map[string]string{} // by variant name
		if st != nil {
			paths = st.Paths
			for _, vs := range st.Variants {
				set[vs.Name] = vs.Set
			}
		}
		for _, v := range sc.Variants {
			var own, scenario []string
			for _, p := range paths {
				if val, ok := set[v.Name][p]; ok {
					own = append(own, p+"="+val)
				} else {
					scenario = append(scenario, p+"="+st.Scenario[p])
				}
			}
			sets := strings.Join(own, ", ")
			if len(own) == 0 {
				// What the others change, this one has as the scenario does.
				sets = "nothing"
				if len(scenario) > 0 {
					sets += "; the scenario's " + strings.Join(scenario, ", ")
				}
			}
			fmt.Fprintf(tw, "%s\t%s\n", v.Name, sets)
		}
		if sc.Sweep != nil {
			listSweep(tw, sc.Sweep, len(sc.Variants))
		}
		return tw.Flush()
	}
	for _, name := range scenarios.Names() {
		desc, _ := scenarios.Info(name)
		fmt.Fprintf(tw, "%s\t%s\n", name, desc)
	}
	return tw.Flush()
}

// listSweep prints what a sweep's trials do and over which values.
func listSweep(tw io.Writer, sw *scenarios.Sweep, variants int) {
	samples := max(1, sw.Samples)
	trials := variants * sw.Points() * samples * sw.Seeds
	fmt.Fprintf(tw, "\nsweep\t%s, %d trials: variants %d × grid points %d", sw.Command, trials, variants, sw.Points())
	if len(sw.Random) > 0 {
		fmt.Fprintf(tw, " × samples %d", samples)
	}
	fmt.Fprintf(tw, " × seeds %d\n", sw.Seeds)
	for _, ax := range sw.Grid {
		fmt.Fprintf(tw, "grid\t%s: %s\n", ax.Path, strings.Join(ax.Values, ", "))
	}
	for _, ax := range sw.Random {
		fmt.Fprintf(tw, "random\t%s: %s\n", ax.Path, ax.Dist)
	}
	if len(sw.Reference) > 0 {
		ref := make([]string, len(sw.Reference))
		for i, p := range sw.Reference {
			ref[i] = p.Path + "=" + p.Value
		}
		fmt.Fprintf(tw, "reference\t%s\n", strings.Join(ref, ", "))
	}
	fmt.Fprintf(tw, "metrics\t%s\n", strings.Join(slices.Concat(sw.Metrics, sw.Relative), ", "))
}
