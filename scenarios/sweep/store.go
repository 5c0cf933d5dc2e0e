package sweep

import (
	"github.com/swarmsim/swarmsim/internal/atomicfile"

	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Names in a sweep directory.
const (
	PlanFile  = "sweep.json"
	TrialsDir = "trials"
)

// idRE matches a trial ID.
var idRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ErrOtherSweep is returned by Prepare for a directory that holds another
// sweep.
var ErrOtherSweep = errors.New("holds another sweep")

// Prepare makes dir ready to run plan's trials: it creates the directory
// and writes sweep.json, or checks that the sweep.json there is the same
// sweep. A directory of another sweep is refused (an error wrapping
// ErrOtherSweep) unless fresh is set, which first clears it (see Clear).
// With fresh, no other process may be working in dir.
//
// Several processes may prepare the same directory at once: each writes
// the same sweep.json atomically.
func Prepare(dir string, plan *Plan, fresh bool) error {
	old, err := ReadPlan(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			return fmt.Errorf("%s holds a run that is not a sweep (a manifest.json without %s); choose another directory with --out", dir, PlanFile)
		}
		if fresh {
			if err := Clear(dir); err != nil {
				return err
			}
		}
	case err == nil && old.Hash == plan.Hash && !fresh:
		return os.MkdirAll(filepath.Join(dir, TrialsDir), 0o755)
	case !fresh:
		what := "an unreadable " + PlanFile + " (" + errString(err) + ")"
		if err == nil {
			what = fmt.Sprintf("the sweep of scenario %s (hash %s), not this one (scenario %s, hash %s)", old.Scenario, short(old.Hash), plan.Scenario, short(plan.Hash))
			if old.Scenario == plan.Scenario {
				what += ": the scenario, the --set overrides, the seed or --variant changed"
			}
		}
		return fmt.Errorf("%s %w: %s; use --fresh to discard it, or --out to choose another directory", dir, ErrOtherSweep, what)
	default:
		if err := Clear(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, TrialsDir), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, PlanFile), plan.Marshal())
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Clear removes what sweeps write into dir: sweep.json, trials/,
// trials.csv, charts/, manifest.json and shard-*/ directories. Other files
// are left alone.
func Clear(dir string) error {
	for _, name := range []string{"manifest.json", "trials.csv", PlanFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "shard-*-of-*"))
	for _, d := range append(shards, filepath.Join(dir, TrialsDir), filepath.Join(dir, "charts")) {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

// ReadPlan reads dir/sweep.json. The error wraps fs.ErrNotExist when there
// is none.
func ReadPlan(dir string) (*Plan, error) {
	path := filepath.Join(dir, PlanFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := parsePlan(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// RecordPath returns the path of a trial's record in dir.
func RecordPath(dir, id string) string { return filepath.Join(dir, TrialsDir, id+".json") }

// TrialDir returns the directory of a trial's own outputs in dir.
func TrialDir(dir, id string) string { return filepath.Join(dir, TrialsDir, id) }

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
func ReadRecords(dir string, plan *Plan) (map[string]*Record, []Invalid, error) {
	entries, err := os.ReadDir(filepath.Join(dir, TrialsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Record{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	index := plan.index()
	recs := make(map[string]*Record)
	var bad []Invalid
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !idRE.MatchString(id) || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, TrialsDir, name)
		data, err := os.ReadFile(path)
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
	return atomicfile.Write(RecordPath(dir, r.ID), r.marshal())
}

// CopyRecords writes the records into dir/trials, skipping files that
// already hold the same bytes.
func CopyRecords(dir string, recs []*Record) error {
	if err := os.MkdirAll(filepath.Join(dir, TrialsDir), 0o755); err != nil {
		return err
	}
	for _, r := range recs {
		data := r.marshal()
		if old, err := os.ReadFile(RecordPath(dir, r.ID)); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := atomicfile.Write(RecordPath(dir, r.ID), data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes data to path atomically: through a hidden temporary
// file in the same directory, synced and renamed into place, so that
// readers (and a resumed sweep) see the old file or the new one, never a
// part of one.
func WriteFile(path string, data []byte) error { return atomicfile.Write(path, data) }

// sortedIDs returns the keys of recs in plan order.
func sortedIDs(plan *Plan, recs map[string]*Record) []string {
	index := plan.index()
	ids := make([]string, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return index[a] - index[b] })
	return ids
}
