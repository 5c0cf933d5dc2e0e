package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// Formats of the files of a sweep directory.
const (
	PlanFormat   = "swarmsim-sweep/1"
	RecordFormat = "swarmsim-sweep-trial/1"
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
	Command      string `json:"command"`
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

// NewPlan enumerates the trials of sc's sweep from seed, for every variant
// or only the one named only (when not ""), and returns the plan with the
// trials.
func NewPlan(sc *scenarios.Scenario, seed uint64, only string) (*Plan, []scenarios.Trial, error) {
	if sc.Sweep == nil {
		return nil, nil, fmt.Errorf("scenario %s has no sweep section (add one: see 'simulate help sweep')", sc.Name)
	}
	trials, err := sc.Trials(seed, only)
	if err != nil {
		return nil, nil, err
	}
	sw := sc.Sweep
	p := &Plan{
		Format:       PlanFormat,
		Scenario:     sc.Name,
		Description:  sc.Description,
		ScenarioHash: sc.Hash,
		Command:      sw.Command,
		Seed:         seed,
		Seeds:        sw.Seeds,
		Samples:      sw.Samples,
		Only:         only,
		Metrics:      sw.Metrics,
		Resolved:     string(sc.Resolved),
	}
	if sw.Command == scenarios.SweepRun {
		p.Episodes = sc.Episodes
	}
	for _, v := range sc.Variants {
		if only == "" || v.Name == only {
			p.Variants = append(p.Variants, v.Name)
		}
	}
	for _, ax := range sw.Grid {
		p.Grid = append(p.Grid, Axis{Path: ax.Path, Values: ax.Values, Numbers: ax.Numbers, Unit: ax.Unit})
	}
	for _, ax := range sw.Random {
		p.Random = append(p.Random, RandomAxis{Path: ax.Path, Dist: ax.Dist.String()})
	}
	p.Trials = make([]TrialInfo, len(trials))
	for i, t := range trials {
		p.Trials[i] = TrialInfo{ID: t.ID, Variant: t.Variant.Name, Seed: t.Seed, Sample: t.Sample, Point: t.Point, Params: t.Params}
	}
	seen := make(map[string]int, len(trials))
	for i, t := range p.Trials {
		if j, dup := seen[t.ID]; dup {
			return nil, nil, fmt.Errorf("trials %d and %d have the same ID %s (%s): their parameters, variant and seed are the same", j, i, t.ID, p.Describe(i))
		}
		seen[t.ID] = i
	}
	p.Hash = p.computeHash()
	return p, trials, nil
}

// computeHash returns the hash of p's JSON with Hash empty.
func (p *Plan) computeHash() string {
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

// parsePlan reads a plan and checks its format and hash.
func parsePlan(data []byte) (*Plan, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if p.Format != PlanFormat {
		return nil, fmt.Errorf("format %q, want %q", p.Format, PlanFormat)
	}
	if h := p.computeHash(); h != p.Hash {
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

// index maps trial IDs to their positions.
func (p *Plan) index() map[string]int {
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
