package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/swarmsim/swarmsim/experiment/sweep"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
)

var cmdMerge = &command{
	Name:  "merge",
	Args:  "DIR...",
	Short: "merge the trials of a sweep's shards",
	Long: `
Merge joins the trials that 'simulate sweep' wrote into one or more
directories of the same sweep (the shards of a cluster job, which may
share one directory) and writes what a single unsharded sweep would have
written into the --out directory: sweep.json, the trial files, trials.csv
(byte-identical to a single run's), the charts and manifest.json.

Every directory must hold the same sweep (the same sweep.json hash). A
trial found in several directories is counted once when its results are
the same, and is an error when they differ. Missing trials are listed by
ID and parameters, and merge fails unless --partial is given, which
writes the tables and charts of the trials present. Run the missing
shards again (the same command resumes them) and merge again. An --out
directory that holds another sweep is refused unless --fresh is given,
which clears what sweeps write there first (not with --out one of the
inputs), and so is one without sweep.json that holds files of other names
than a sweep writes (a folder of yours). Trial directories (--trial-dirs) are not copied: they stay
where the shards wrote them.`,
	Examples: `
	simulate merge $SCRATCH/my-sweep --out results/my-sweep
	simulate merge shard0 shard1 shard2 --out merged
	simulate merge $SCRATCH/my-sweep --out $SCRATCH/my-sweep --partial`,
	Setup: func(fs *flag.FlagSet) action {
		o := &mergeOptions{}
		fs.StringVar(&o.out, "out", "", "write the merged sweep into directory `DIR` (required; may be one of the inputs)")
		fs.BoolVar(&o.partial, "partial", false, "write the tables and charts even when trials are missing")
		fs.BoolVar(&o.charts, "charts", true, "draw the charts; --charts=false writes the tables only")
		addFormatFlag(fs, &o.format, formatNeedsSVG)
		fs.BoolVar(&o.fresh, "fresh", false, "clear an --out directory that holds another sweep first (not one of the inputs)")
		return o.run
	},
}

type mergeOptions struct {
	out     string
	partial bool
	charts  bool
	format  formatsFlag
	fresh   bool
}

// maxListed bounds the missing trials listed one by one.
const maxListed = 20

func (o *mergeOptions) run(ctx context.Context, s *session, args []string) error {
	if len(args) == 0 {
		return usagef("want at least one sweep directory")
	}
	if o.out == "" {
		return usagef("--out DIR is required (it may be one of the inputs)")
	}
	if err := checkFormats(o.format, o.charts, ""); err != nil {
		return err
	}
	if o.fresh {
		for _, in := range args {
			if sameFile(in, o.out) {
				return usagef("--fresh with --out %s, one of the inputs: it would clear the trials it merges", o.out)
			}
		}
	}
	m, err := sweep.Merge(args)
	if err != nil {
		return err
	}
	for _, iv := range m.Invalid {
		s.warnf("%s: ignored", iv)
	}
	plan := m.Plan
	if n := len(m.Missing); n > 0 {
		for i, j := range m.Missing {
			if i == maxListed {
				fmt.Fprintf(s.stderr, "%s: ... and %d more missing trials\n", s.name, n-i)
				break
			}
			fmt.Fprintf(s.stderr, "%s: missing trial %s: %s\n", s.name, plan.Trials[j].ID, plan.Describe(j))
		}
		if !o.partial {
			return fmt.Errorf("%d of %d trials are missing: run their shards again (the same command resumes them), or merge with --partial", n, len(plan.Trials))
		}
		s.warnf("%d of %d trials are missing: the tables and charts hold the others", n, len(plan.Trials))
	}
	if err := otherWork(o.out, results.PlanFile); err != nil {
		return err
	}
	if err := foreignFiles(o.out, results.PlanFile, sweepWrites, "--fresh", o.fresh); err != nil {
		return err
	}
	dir, err := sweep.Prepare(o.out, plan, o.fresh)
	if err != nil {
		return err
	}
	recs := make([]*sweep.Record, 0, len(m.Records))
	for _, t := range plan.Trials {
		if r, ok := m.Records[t.ID]; ok {
			recs = append(recs, r)
		}
	}
	if err := sweep.CopyRecords(dir, recs); err != nil {
		return err
	}
	if err := recordSweepFiles(dir, plan, m.Records); err != nil {
		return err
	}
	if err := writeSweepOutputs(ctx, s, dir, sweepOutputs{source: mergedSource(args, plan), plan: plan, recs: m.Records, charts: o.charts, formats: o.format.formats()}); err != nil {
		// The tables and charts written so far go; the records, parts
		// that the same command resumes from, stay.
		dir.Abort()
		return err
	}
	see := s.writeReport(dir.Path())
	if err := printSweepSummary(s.stdout, plan, m.Records); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "\nmerged %d of %d trials from %s (%s, %s)\nwrote %s\n%s",
		len(m.Records), len(plan.Trials), count(len(args), "directory", "directories"), count(m.Read, "file", "files"),
		count(m.Duplicates, "identical duplicate", "identical duplicates"), quotePath(filepath.Clean(o.out)), see)
	return nil
}

// count writes n with the word's singular or plural.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mergedSource returns the scenario source that the inputs' shards (or a
// complete sweep among them) record in their manifests, for the merged
// manifest, or "" where none of the plan's sweep records one.
func mergedSource(inputs []string, plan *results.Plan) string {
	for _, in := range inputs {
		dirs, err := rundir.List(in)
		if err != nil {
			continue // merge has read the inputs' records; a source is a nicety
		}
		for _, d := range dirs {
			if m, err := rundir.ReadManifest(d); err == nil && m.Kind == rundir.KindSweep && m.Hash == plan.ScenarioHash && m.Source != "" {
				return m.Source
			}
		}
	}
	return ""
}
