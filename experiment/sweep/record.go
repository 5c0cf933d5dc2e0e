package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// RecordFormat is the format of a trial record, its first field.
const RecordFormat = "swarmsim-sweep-trial/1"

// Record is the result of one finished trial: trials/<id>.json.
type Record struct {
	Format string `json:"format"`
	// Sweep is the hash of the plan the trial belongs to.
	Sweep   string            `json:"sweep"`
	ID      string            `json:"id"`
	Trial   int               `json:"trial"` // the index in the plan
	Variant string            `json:"variant"`
	Seed    uint64            `json:"seed"`
	Sample  int               `json:"sample,omitempty"`
	Params  []scenarios.Param `json:"params,omitempty"`
	Metrics map[string]Value  `json:"metrics"`
}

// Value is a metric value. It is written to JSON as a number, or as the
// string "NaN", "+Inf" or "-Inf" when it is not finite (a mean over no
// acceptable episode, the cost of a result never reached).
type Value float64

// MarshalJSON writes v as a number (the shortest form that reads back to
// v) or as a string for non-finite values.
func (v Value) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte(strconv.Quote(numtext.Shortest(f))), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Value) UnmarshalJSON(b []byte) error {
	// json.Unmarshal reads null into a string or a float as a no-op: null
	// would otherwise be refused as the string "", or read as 0.
	if string(bytes.TrimSpace(b)) == "null" {
		return errors.New(`metric value null: want a number, "NaN", "+Inf" or "-Inf"`)
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.IsNaN(f) || math.IsInf(f, 0)) {
			return fmt.Errorf("metric value %q: want a number, \"NaN\", \"+Inf\" or \"-Inf\"", s)
		}
		*v = Value(f)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = Value(f)
	return nil
}

// newRecord returns the record of trial i of p with its metrics.
func newRecord(p *results.Plan, i int, metrics map[string]float64) *Record {
	t := &p.Trials[i]
	r := &Record{
		Format:  RecordFormat,
		Sweep:   p.Hash,
		ID:      t.ID,
		Trial:   i,
		Variant: t.Variant,
		Seed:    t.Seed,
		Sample:  t.Sample,
		Params:  t.Params,
		Metrics: make(map[string]Value, len(p.Metrics)),
	}
	for _, m := range p.Metrics {
		r.Metrics[m] = Value(metrics[m])
	}
	return r
}

func (r *Record) marshal() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // Value handles every float
	}
	return append(b, '\n')
}

// parseRecord reads a record and checks it against the plan: the format,
// the sweep's hash, and the trial's identity.
func parseRecord(p *results.Plan, index map[string]int, data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Format != RecordFormat {
		return nil, fmt.Errorf("format %q, want %q", r.Format, RecordFormat)
	}
	if r.Sweep != p.Hash {
		return nil, fmt.Errorf("belongs to the sweep %s, not to %s", rundir.ShortHash(r.Sweep, "…"), rundir.ShortHash(p.Hash, "…"))
	}
	i, ok := index[r.ID]
	if !ok {
		return nil, fmt.Errorf("trial %q is not in the sweep", r.ID)
	}
	t := &p.Trials[i]
	if r.Trial != i || r.Variant != t.Variant || r.Seed != t.Seed || r.Sample != t.Sample || !slices.Equal(r.Params, t.Params) {
		return nil, fmt.Errorf("trial %s: its number, variant, seed, sample or parameters differ from the sweep's", r.ID)
	}
	for _, m := range p.Metrics {
		if _, ok := r.Metrics[m]; !ok {
			return nil, fmt.Errorf("trial %s: metric %s is missing", r.ID, m)
		}
	}
	if len(r.Metrics) != len(p.Metrics) {
		return nil, fmt.Errorf("trial %s: %d metrics, want %d", r.ID, len(r.Metrics), len(p.Metrics))
	}
	return &r, nil
}

// same reports whether two records hold the same result, bit for bit.
func same(a, b *Record) bool {
	if a.ID != b.ID || len(a.Metrics) != len(b.Metrics) {
		return false
	}
	for k, v := range a.Metrics {
		w, ok := b.Metrics[k]
		if !ok || math.Float64bits(float64(v)) != math.Float64bits(float64(w)) {
			return false
		}
	}
	return true
}
