package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/rundir"
)

// Merged is what Merge found in the directories of one sweep.
type Merged struct {
	Plan *results.Plan
	// Records holds one record per trial found, by ID.
	Records map[string]*Record
	// Read counts the trial files read; Duplicates the records found
	// more than once with the same result.
	Read, Duplicates int
	// Missing lists the trials (indices into results.Plan.Trials) without a
	// record.
	Missing []int
	// Invalid lists trial files that could not be used; their trials
	// count as missing unless another directory has them.
	Invalid []Invalid
}

// Merge reads the plan and the records of each directory. The directories
// must hold the same sweep (the same plan hash). A trial found in several
// directories must have the same result in each (it does when the same
// sweep ran it: results are deterministic); differing results are an
// error.
func Merge(dirs []string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no directories to merge")
	}
	m := &Merged{Records: map[string]*Record{}}
	var first string
	var conflicts []string
	// from is the directory each record was read from, so that a
	// conflict names both sides: naming only the later one blamed it
	// for an edit made in the earlier.
	from := map[string]string{}
	for _, dir := range dirs {
		plan, err := results.ReadPlan(dir)
		if err != nil {
			return nil, notSweep(dir, err)
		}
		if m.Plan == nil {
			m.Plan, first = plan, dir
		} else if plan.Hash != m.Plan.Hash {
			return nil, fmt.Errorf("%s holds another sweep than %s (scenario %s, hash %s against scenario %s, hash %s)%s",
				dir, first, plan.Scenario, rundir.ShortHash(plan.Hash, "…"), m.Plan.Scenario, rundir.ShortHash(m.Plan.Hash, "…"), whatChanged(m.Plan, plan))
		}
		recs, bad, err := ReadRecords(dir, m.Plan)
		if err != nil {
			return nil, err
		}
		m.Invalid = append(m.Invalid, bad...)
		for _, id := range sortedIDs(m.Plan, recs) {
			r := recs[id]
			m.Read++
			old, dup := m.Records[id]
			switch {
			case !dup:
				m.Records[id], from[id] = r, dir
			case same(old, r):
				m.Duplicates++
			default:
				conflicts = append(conflicts, fmt.Sprintf("trial %s (%s) has different results in %s and %s", id, m.Plan.Describe(r.Trial), from[id], dir))
			}
		}
	}
	if len(conflicts) > 0 {
		what := "trials have"
		if len(conflicts) == 1 {
			what = "trial has"
		}
		return nil, fmt.Errorf("%d %s differing results in different directories (are they from different builds of simulate?):\n%s",
			len(conflicts), what, strings.Join(conflicts, "\n"))
	}
	for j, t := range m.Plan.Trials {
		if _, ok := m.Records[t.ID]; !ok {
			m.Missing = append(m.Missing, j)
		}
	}
	return m, nil
}

// Table returns trials.csv of the records present: one row per trial in
// plan order, with the columns trial (the ID), variant, seed, the
// parameters (grid axes, then random axes) and the metrics. Floats are
// written in their shortest exact form, a negative zero as 0; non-finite
// values as NaN, +Inf or -Inf.
func Table(plan *results.Plan, recs map[string]*Record) []byte {
	header := append([]string{"trial", "variant", "seed"}, plan.ParamNames()...)
	header = append(header, plan.Metrics...)
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	for _, t := range plan.Trials {
		r, ok := recs[t.ID]
		if !ok {
			continue
		}
		row := make([]string, 0, len(header))
		row = append(row, t.ID, t.Variant, strconv.FormatUint(t.Seed, 10))
		for _, p := range t.Params {
			row = append(row, p.Value)
		}
		for _, name := range plan.Metrics {
			row = append(row, numtext.Shortest(float64(r.Metrics[name])))
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

// shardDirRE matches the name of a shard's own directory.
var shardDirRE = regexp.MustCompile(`^shard-[0-9]+-of-[0-9]+$`)

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// notSweep says why dir, whose sweep.json did not read (err), is no
// sweep directory: what dir is, rather than that a file in it does not
// open.
func notSweep(dir string, err error) error {
	if nerr := rundir.NotDirectory(dir, "a directory that simulate sweep wrote"); nerr != nil {
		return nerr
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A shard ends with "wrote DIR/shard-i-of-n": that directory is
		// easily taken for the one to merge.
		if up := filepath.Dir(filepath.Clean(dir)); shardDirRE.MatchString(filepath.Base(filepath.Clean(dir))) && fileExists(filepath.Join(up, results.PlanFile)) {
			return fmt.Errorf("%s: not a sweep directory: it has no %s; it holds a shard's own tables: merge %s, the sweep's directory", dir, results.PlanFile, up)
		}
		return fmt.Errorf("%s: not a sweep directory: it has no %s", dir, results.PlanFile)
	}
	return fmt.Errorf("%s: not a sweep directory: %w", dir, err)
}
