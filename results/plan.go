package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// A sweep directory is described by its plan: experiment/sweep writes it,
// and this package (to compare sweeps) and the sweep's resume and merge read
// it back.
const (
	// PlanFile is the plan's name in a sweep directory.
	PlanFile = "sweep.json"
	// PlanFormat is the plan's format, its first field.
	PlanFormat = "swarmsim-sweep/1"
	// TrialsDir is the directory of the trial records.
	TrialsDir = "trials"
)

// Plan describes one sweep: what the trials run and which trials there
// are. It is written as sweep.json. Everything in it depends only on the
// scenario as resolved, the seed and the variant restriction, so every
// shard of a sweep writes the same bytes; it holds no paths, host names or
// times.
type Plan struct {
	Format string `json:"format"`
	// Hash is "sha256:<hex>" of the plan's JSON with Hash empty.
	Hash        string `json:"hash"`
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	// ScenarioHash is the hash of the resolved scenario (Scenario.Hash).
	ScenarioHash string `json:"scenario_hash"`
	// Inputs is the digest of the files the trials read
	// (scenarios.Scenario.InputDigest), absent where they read none.
	Inputs  string `json:"inputs,omitempty"`
	Command string `json:"command"`
	// Seed is the sweep's first seed; trials use Seed, ..., Seed+Seeds-1.
	Seed     uint64 `json:"seed"`
	Seeds    int    `json:"seeds"`
	Samples  int    `json:"samples,omitempty"`
	Episodes int    `json:"episodes,omitempty"` // per run trial
	// Only is the one variant the sweep was restricted to, if any.
	Only     string       `json:"only_variant,omitempty"`
	Variants []string     `json:"variants"`
	Grid     []Axis       `json:"grid,omitempty"`
	Random   []RandomAxis `json:"random,omitempty"`
	Metrics  []string     `json:"metrics"`
	// Relative are the metrics relative to each trial's reference trial
	// (sweep.reference), which the tables compute from the records and
	// write after Metrics; Reference holds the reference's grid values.
	// Both are absent from plans of sweeps without a reference.
	Relative  []string          `json:"relative,omitempty"`
	Reference []scenarios.Param `json:"reference,omitempty"`
	// Resolved is the scenario's canonical YAML.
	Resolved string      `json:"resolved"`
	Trials   []TrialInfo `json:"trials"`
}

// Axis is a grid axis of a plan.
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
	// Numbers are the values as numbers, when they all are.
	Numbers []float64 `json:"numbers,omitempty"`
	// Unit is "s" for durations.
	Unit string `json:"unit,omitempty"`
}

// RandomAxis is a random axis of a plan.
type RandomAxis struct {
	Path string `json:"path"`
	Dist string `json:"dist"`
}

// TrialInfo is one trial of a plan.
type TrialInfo struct {
	ID      string            `json:"id"`
	Variant string            `json:"variant"`
	Seed    uint64            `json:"seed"`
	Sample  int               `json:"sample,omitempty"`
	Point   []int             `json:"point,omitempty"`
	Params  []scenarios.Param `json:"params,omitempty"`
}

// ContentHash returns the hash of p's JSON with Hash empty.
func (p *Plan) ContentHash() string {
	c := *p
	c.Hash = ""
	b, err := json.Marshal(&c)
	if err != nil {
		panic(err) // a plan holds strings and numbers only
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Marshal returns the JSON of p as sweep.json holds it.
func (p *Plan) Marshal() []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // a plan holds strings and numbers only
	}
	return append(b, '\n')
}

// ParsePlan reads a plan and checks its format and hash.
func ParsePlan(data []byte) (*Plan, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if p.Format != PlanFormat {
		return nil, fmt.Errorf("format %q, want %q", p.Format, PlanFormat)
	}
	if h := p.ContentHash(); p.Hash == "" {
		return nil, fmt.Errorf("damaged: it has no hash (its content hashes to %s)", rundir.ShortHash(h, "…"))
	} else if h != p.Hash {
		return nil, fmt.Errorf("damaged: its content hashes to %s, not to its hash %s", rundir.ShortHash(h, "…"), rundir.ShortHash(p.Hash, "…"))
	}
	return &p, nil
}

// Index returns the position of the trial id in the plan, or -1.
func (p *Plan) Index(id string) int {
	for i := range p.Trials {
		if p.Trials[i].ID == id {
			return i
		}
	}
	return -1
}

// TrialIndex maps trial IDs to their positions.
func (p *Plan) TrialIndex() map[string]int {
	m := make(map[string]int, len(p.Trials))
	for i, t := range p.Trials {
		m[t.ID] = i
	}
	return m
}

// Describe names trial i by its parameters, variant and seed, as messages
// show it: "reward.latency=0.5, task.coupling=0, variant default, seed 2".
func (p *Plan) Describe(i int) string {
	t := &p.Trials[i]
	parts := make([]string, 0, len(t.Params)+3)
	for _, q := range t.Params {
		parts = append(parts, q.Path+"="+q.Value)
	}
	if len(p.Random) > 0 {
		parts = append(parts, fmt.Sprintf("sample %d", t.Sample))
	}
	parts = append(parts, "variant "+t.Variant, fmt.Sprintf("seed %d", t.Seed))
	return strings.Join(parts, ", ")
}

// ParamNames returns the parameter columns: the grid axes, then the random
// axes.
func (p *Plan) ParamNames() []string {
	var names []string
	for _, ax := range p.Grid {
		names = append(names, ax.Path)
	}
	for _, ax := range p.Random {
		names = append(names, ax.Path)
	}
	return names
}

// ReadPlan reads dir/sweep.json. The error wraps fs.ErrNotExist when there
// is none.
func ReadPlan(dir string) (*Plan, error) {
	path := filepath.Join(dir, PlanFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePlan(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
