package sweep

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/rundir"
)

// idRE matches a trial ID.
var idRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ErrOtherSweep is returned by Prepare for a directory that holds another
// sweep. It is rundir.ErrOtherWork.
var ErrOtherSweep = rundir.ErrOtherWork

// Prepare makes dir ready to run plan's trials: it creates the directory
// and writes sweep.json, or checks that the sweep.json there is the same
// sweep, whose trial records then count as done. A directory of another
// sweep is refused (an error wrapping ErrOtherSweep) unless fresh is set,
// which first clears what sweeps write: sweep.json, trials/, trials.csv,
// charts/, manifest.json, report.html and shard-*/ directories. With fresh, no other
// process may be working in dir.
//
// Several processes may prepare the same directory at once: the first
// sweep.json stays, and a process of another sweep is refused.
func Prepare(dir string, plan *results.Plan, fresh bool) (*rundir.Dir, error) {
	c := &rundir.Claim{
		File: results.PlanFile,
		Data: plan.Marshal(),
		Same: func(data []byte) error {
			old, err := results.ParsePlan(data)
			if err != nil {
				return fmt.Errorf("an unreadable %s (%w)", results.PlanFile, err)
			}
			if old.Hash == plan.Hash {
				return nil
			}
			return fmt.Errorf("the sweep of scenario %s (hash %s), not this one (scenario %s, hash %s)%s", old.Scenario, rundir.ShortHash(old.Hash, "…"), plan.Scenario, rundir.ShortHash(plan.Hash, "…"), whatChanged(old, plan))
		},
		// The page (report.html, package report) is written after the
		// manifest, which does not list it: left, it would show the old
		// sweep beside the new sweep.json until the new one finishes.
		Clear: []string{results.TrialsDir, "trials.csv", "charts", "shard-*-of-*", "report.html"},
		Fresh: "--fresh",
	}
	d, err := c.Open(dir, fresh)
	if err != nil {
		return nil, err
	}
	return d, d.Mkdir(results.TrialsDir)
}

// whatChanged says what likely makes two plans of one scenario differ, as
// ": ... changed", or "" for plans of two scenarios.
func whatChanged(a, b *results.Plan) string {
	switch {
	case a.Scenario != b.Scenario:
		return ""
	case a.ScenarioHash == b.ScenarioHash && a.Inputs != b.Inputs:
		return ": a file the scenario reads (a graph of task.path, a policy.file, the replay.traces) changed"
	}
	return ": the scenario, the --set overrides, the seed or --variant changed"
}

// records are the trial records of the sweep in dir, by trial ID: the
// units a sweep resumes from.
func records(dir string) experiment.Units {
	return experiment.Units{Dir: dir, Sub: results.TrialsDir, Ext: ".json"}
}

// RecordPath returns the path of a trial's record in dir.
func RecordPath(dir, id string) string { return records(dir).Path(id) }

// TrialDir returns the directory of a trial's own outputs in dir.
func TrialDir(dir, id string) string { return filepath.Join(dir, results.TrialsDir, id) }

// Invalid is a trial file that could not be used.
type Invalid struct {
	Path string
	Err  error
}

func (iv Invalid) String() string { return fmt.Sprintf("%s: %v", iv.Path, iv.Err) }

// ReadRecords reads the records in dir/trials that belong to plan, by
// trial ID. Files that do not parse or do not match the plan are returned
// as invalid; hidden temporary files (left by a killed process) and other
// names are ignored.
func ReadRecords(dir string, plan *results.Plan) (map[string]*Record, []Invalid, error) {
	units := records(dir)
	ids, err := units.Keys()
	if err != nil {
		return nil, nil, err
	}
	index := plan.TrialIndex()
	recs := make(map[string]*Record)
	var bad []Invalid
	for _, id := range ids {
		if !idRE.MatchString(id) {
			continue
		}
		path := units.Path(id)
		data, err := units.Get(id)
		if err != nil {
			bad = append(bad, Invalid{path, err})
			continue
		}
		r, err := parseRecord(plan, index, data)
		if err == nil && r.ID != id {
			err = fmt.Errorf("holds trial %s", r.ID)
		}
		if err != nil {
			bad = append(bad, Invalid{path, err})
			continue
		}
		recs[id] = r
	}
	return recs, bad, nil
}

// writeRecord writes r into dir atomically.
func writeRecord(dir string, r *Record) error {
	return records(dir).Put(r.ID, r.marshal())
}

// CopyRecords writes the records into d's trials/, skipping files that
// already hold the same bytes.
func CopyRecords(d *rundir.Dir, recs []*Record) error {
	units := records(d.Path())
	for _, r := range recs {
		data := r.marshal()
		if old, err := units.Get(r.ID); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := units.Put(r.ID, data); err != nil {
			return err
		}
	}
	return nil
}

// sortedIDs returns the keys of recs in plan order.
func sortedIDs(plan *results.Plan, recs map[string]*Record) []string {
	index := plan.TrialIndex()
	ids := make([]string, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return index[a] - index[b] })
	return ids
}
