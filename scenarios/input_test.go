package scenarios_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/scenarios"
)

func TestGraphFileGivenAsScenario(t *testing.T) {
	wf := filepath.Join("..", "..", "shared", "data", "wfcommons", "helloworld-chain-5-chameleon.json")
	tests := []struct {
		name, src, want string
	}{
		{"g.dot", "digraph { a -> b }", "this is a task graph (DOT)"},
		{"g.gv", "// made by hand\n/* two nodes */\nstrict digraph \"g\" {\n a -> b\n}", "this is a task graph (DOT)"},
		{"w.json", `{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": []}}}`, "this is a task graph (WfCommons WfFormat JSON)"},
		// Any one of the keys beside workflow that WfFormat files carry will do.
		{"w2.json", `{"wfcommons": {}, "workflow": {}}`, "this is a task graph (WfCommons WfFormat JSON)"},
		{"w3.json", `{"author": {"name": "a"}, "workflow": {}}`, "this is a task graph (WfCommons WfFormat JSON)"},
	}
	if data, err := os.ReadFile(wf); err == nil {
		tests = append(tests, struct{ name, src, want string }{"helloworld-chain-5-chameleon.json", string(data), "WfCommons WfFormat JSON"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src), tt.name, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "task: {shape: file, path: "+tt.name)
			assert.NotContains(t, err.Error(), "unknown key")
		})
	}
	// workflow alone is not enough to tell a WfFormat file.
	_, err := scenarios.Parse([]byte(`{"workflow": {}}`), "w.json", nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "task graph")
	// A scenario whose first key looks like a graph keyword is a scenario.
	_, err = scenarios.Parse([]byte("graph: 1\n"), "s.yaml", nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "task graph")
}

func TestBinaryFile(t *testing.T) {
	data := make([]byte, 17<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	_, err := scenarios.Parse(data, "a.out", nil)
	require.Error(t, err)
	assert.Equal(t, "a.out: not a text file (a scenario is a YAML text file; see 'simulate help run')", err.Error())
}

// TestByteOrderMark: a file that an editor began with a byte-order mark
// reads as without one, its errors at the same lines and columns.
func TestByteOrderMark(t *testing.T) {
	const text = "name: bom\ntask: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"
	plain, err := scenarios.Parse([]byte(text), "a.yaml", nil)
	require.NoError(t, err)
	marked, err := scenarios.Parse([]byte("\uFEFF"+text), "a.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, plain.Name, marked.Name)
	_, err = scenarios.Parse([]byte("\uFEFFnam: bom\n"), "a.yaml", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a.yaml:1:1: nam: unknown key")
}

func TestErrorsCapped(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\ncollective:\n")
	for i := range 25 {
		sb.WriteString("  key" + string(rune('a'+i)) + ": 1\n")
	}
	_, err := scenarios.Parse([]byte(sb.String()), "many.yaml", nil)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 11, "ten problems and a count")
	assert.Equal(t, "many.yaml: and 15 more problems", lines[10])
	assert.Less(t, len(err.Error()), 2500)
}

// TestEmptyMappingPlaced: an empty mapping in a list, which has no first
// key to point at, is placed at its opening brace.
func TestEmptyMappingPlaced(t *testing.T) {
	for src, want := range map[string]string{
		"figures: [{}]\ntask: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n":                                 "x.yaml:1:11: figures[0]: got a mapping, want a string",
		"task: {shape: mixture, components: [{}, {weight: 1, shape: chain, length: 2, work: 1m}]}\npolicy: {organization: team}\n": "x.yaml:1:37: task.components[0].shape: missing",
	} {
		_, err := scenarios.Parse([]byte(src), "x.yaml", nil)
		assert.ErrorContains(t, err, want)
	}
}

func TestRangeAndTypeErrorsTogether(t *testing.T) {
	src := "task: {shape: chain, length: 2, work: 1m, coupling: 1.5}\ncollective:\n  agents: four\npolicy: {organization: team}\ntrain: {iterations: 0}\n"
	_, err := scenarios.Parse([]byte(src), "x.yaml", nil)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `x.yaml:3:3: collective.agents: got "four", want an integer`)
	assert.Contains(t, msg, "task.coupling:")
	assert.Contains(t, msg, "train.iterations: 0 is out of range")
	// No check judges the default that stands in for the value that failed.
	assert.NotContains(t, msg, "collective.agents: 0")
}

// schema is the JSON Schema of scenario files as the tests read it: the
// top level's properties and each definition's, by name.
type schema struct {
	Properties map[string]map[string]any `json:"properties"`
	Defs       map[string]struct {
		Properties map[string]map[string]any `json:"properties"`
	} `json:"$defs"`
}

func readSchema(t *testing.T) schema {
	t.Helper()
	b, err := scenarios.JSONSchema()
	require.NoError(t, err)
	var s schema
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// pattern returns the pattern of the first alternative (anyOf) of the
// property field of definition def: a distribution's or a duration's
// string form.
func (s schema) pattern(t *testing.T, def, field string) *regexp.Regexp {
	t.Helper()
	alts, _ := s.Defs[def].Properties[field]["anyOf"].([]any)
	require.NotEmpty(t, alts, "schema has %s.%s with alternatives", def, field)
	p, _ := alts[0].(map[string]any)["pattern"].(string)
	require.NotEmpty(t, p, "%s.%s's first alternative has a pattern", def, field)
	return regexp.MustCompile(p)
}

// TestRangesInSchema checks each range twice: the loader refuses a value
// just outside it (from --set, as from a file), and the JSON Schema has a
// bound that the same value breaks.
func TestRangesInSchema(t *testing.T) {
	s := readSchema(t)
	tests := []struct {
		set, def, field string
		bad             float64
		with            []string // what makes the field count, so that the loader judges it
	}{
		{"task.coupling", "TaskFamily", "coupling", 1.5, nil},
		{"task.difficulty", "TaskFamily", "difficulty", 1, nil},
		{"collective.agents", "Collective", "agents", 0, nil},
		{"collective.speed", "Collective", "speed", 0, nil},
		{"collective.check.accuracy", "Verification", "accuracy", 1.1, nil},
		{"collective.select.accuracy", "Selection", "accuracy", -0.1, nil},
		{"train.iterations", "Train", "iterations", 0, nil},
		{"train.batch", "Train", "batch", 0, nil},
		{"train.group", "Train", "group", 0, nil},
		{"train.lr", "Train", "lr", 0, nil},
		{"train.beta1", "Train", "beta1", 1, nil},
		{"train.beta2", "Train", "beta2", 1, nil},
		{"train.eps", "Train", "eps", 0, nil},
		{"train.gamma", "Train", "gamma", 1.5, nil},
		{"train.lambda", "Train", "lambda", -1, nil},
		{"train.baseline_rate", "Train", "baseline_rate", 0, nil},
		{"train.clip_grad", "Train", "clip_grad", -1, nil},
		{"train.entropy", "Train", "entropy", -1, nil},
		{"train.epochs", "Train", "epochs", 0, nil},
		{"train.clip_ratio", "Train", "clip_ratio", 0, nil},
		{"train.value_lr", "Train", "value_lr", 0, nil},
		{"reward.anneal", "Reward", "anneal", -1, nil},
		{"seed", "", "seed", -1, nil},
		{"train.value_epochs", "Train", "value_epochs", 0, nil},
		{"train.warm_iterations", "Train", "warm_iterations", -1, nil},
		{"collective.serving.replicas", "Deployment", "replicas", -1, nil},
		{"collective.serving.replicas", "Deployment", "replicas", collective.MaxReplicas + 1, nil},
		{"collective.serving.max_batch", "Deployment", "max_batch", 0, []string{"collective.serving.replicas=1"}},
		{"collective.serving.max_batch", "Deployment", "max_batch", collective.MaxBatch + 1, []string{"collective.serving.replicas=1"}},
		{"collective.api.rpm", "API", "rpm", -1, []string{"collective.api.output_rate=50"}},
		{"collective.api.tpm", "API", "tpm", collective.MaxRate + 1, []string{"collective.api.output_rate=50"}},
		{"collective.api.concurrency", "API", "concurrency", -1, []string{"collective.api.output_rate=50"}},
		{"collective.api.output_rate", "API", "output_rate", -1, nil},
		{"collective.api.output_rate", "API", "output_rate", 2e9, nil},
		{"collective.tools.pool", "Tools", "pool", -1, nil},
		{"collective.handoff.miss", "Handoff", "miss", 1.5, []string{"collective.handoff.findings=1"}},
		{"collective.handoff.findings", "Handoff", "findings", -1, nil},
		{"replay.sessions", "Settings", "sessions", -1, nil},
		{"replay.sessions", "Settings", "sessions", replay.MaxSessions + 1, nil},
		{"replay.rate", "Settings", "rate", -1, nil},
		{"replay.speedup", "Settings", "speedup", -1, nil},
		{"replay.runs", "Settings", "runs", -1, nil},
		{"replay.runs", "Settings", "runs", replay.MaxRuns + 1, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%v", tt.set, tt.bad), func(t *testing.T) {
			// Advantage settings that make the PPO fields matter.
			sets := append([]string{"train.advantage=ppo-gae"}, tt.with...)
			sets = append(sets, fmt.Sprintf("%s=%v", tt.set, tt.bad))
			_, err := scenarios.Load("tiny", sets)
			assert.ErrorContains(t, err, tt.set, "the loader refuses %v", tt.bad)

			p := s.Defs[tt.def].Properties[tt.field]
			if tt.def == "" {
				p = s.Properties[tt.field]
			}
			require.NotNil(t, p, "schema has %s.%s", tt.def, tt.field)
			alts := []map[string]any{p}
			if list, ok := p["anyOf"].([]any); ok {
				alts = nil
				for _, a := range list {
					if m := a.(map[string]any); m["type"] == "number" {
						alts = append(alts, m)
					}
				}
			}
			require.Len(t, alts, 1)
			assert.True(t, breaks(alts[0], tt.bad), "the schema of %s.%s (%v) refuses %v", tt.def, tt.field, alts[0], tt.bad)
		})
	}
	// The constant form of a distribution keeps its range apart from other fields.
	work := s.Defs["TaskFamily"].Properties["work"]["anyOf"].([]any)[1].(map[string]any)
	assert.NotContains(t, work, "maximum")
}

// TestNamesInSchema checks that the names the JSON Schema allows for a
// field are the ones the loader reads: an editor must neither flag a value
// the loader takes (replay.pairing: rank) nor pass one it refuses.
func TestNamesInSchema(t *testing.T) {
	s := readSchema(t)
	tests := []struct {
		set, def, field string
		names           []string
	}{
		{"replay.pairing", "Settings", "pairing", []string{"rank", "independent"}},
		{"train.policy", "Train", "policy", []string{"linear", "mlp"}},
		{"train.warm_start", "Train", "warm_start", scenarios.OrganizationNames()},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			p := s.Defs[tt.def].Properties[tt.field]
			require.NotNil(t, p, "schema has %s.%s", tt.def, tt.field)
			assert.Equal(t, "string", p["type"])
			var enum []string
			list, _ := p["enum"].([]any)
			for _, v := range list {
				enum = append(enum, v.(string))
			}
			assert.ElementsMatch(t, tt.names, enum)
			for _, name := range tt.names {
				sets := []string{tt.set + "=" + name}
				if tt.field == "warm_start" {
					sets = append(sets, "train.warm_iterations=1")
				}
				_, err := scenarios.Load("tiny", sets)
				assert.NoError(t, err, "the loader takes %s", name)
			}
			_, err := scenarios.Load("tiny", []string{tt.set + "=no-such-name"})
			assert.ErrorContains(t, err, tt.set, "the loader refuses a name the schema does not list")
		})
	}
}

// breaks reports whether x violates a bound of the schema p.
func breaks(p map[string]any, x float64) bool {
	bound := func(key string) (float64, bool) {
		v, ok := p[key].(float64)
		return v, ok
	}
	if v, ok := bound("minimum"); ok && x < v {
		return true
	}
	if v, ok := bound("exclusiveMinimum"); ok && x <= v {
		return true
	}
	if v, ok := bound("maximum"); ok && x > v {
		return true
	}
	if v, ok := bound("exclusiveMaximum"); ok && x >= v {
		return true
	}
	return false
}

func TestDistributionSupportFromSet(t *testing.T) {
	_, err := scenarios.Load("tiny", []string{"task.coupling=uniform(0.5, 2)"})
	assert.EqualError(t, err, "--set task.coupling=uniform(0.5, 2): task.coupling: uniform(0.5, 2) can draw values up to 2, outside [0, 1] (use a distribution whose support lies inside, such as uniform(0.2, 0.8))")
	_, err = scenarios.Load("tiny", []string{"task.coupling=uniform(0, 1)"})
	assert.NoError(t, err)
}

// TestWorkRequired: work that is left out or always 0 ends every episode
// at once, however it is written.
func TestWorkRequired(t *testing.T) {
	_, err := scenarios.Parse([]byte("task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 1m}, {weight: 1, shape: chain, length: 3}]}\npolicy: {organization: team}\n"), "w.yaml", nil)
	assert.ErrorContains(t, err, "task.components[1].work: missing or always 0")
	for _, work := range []string{"0", "exp(0)", "uniform(0, 0)", "lognormal(mean=0, cv=1)", "normal(mean=0, sd=0)"} {
		_, err = scenarios.Load("tiny", []string{"task.work=" + work})
		assert.ErrorContains(t, err, "--set task.work="+work+": task.work: missing or always 0 (every subtask's work at speed 1, a duration or a distribution such as 5m or exp(5m); required, since without it every episode ends at once)")
	}
	_, err = scenarios.Parse([]byte("task: {kind: sequential, work: exp(0)}\npolicy: {organization: team}\n"), "w.yaml", nil)
	assert.ErrorContains(t, err, "w.yaml:1:26: task.work: missing or always 0")
	_, err = scenarios.Load("tiny", []string{"task.work=uniform(0, 1s)"})
	assert.NoError(t, err)
}

func TestMixtureWeightRequired(t *testing.T) {
	_, err := scenarios.Parse([]byte("task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 1m}, {shape: chain, length: 3, work: 1m}]}\npolicy: {organization: team}\n"), "m.yaml", nil)
	assert.ErrorContains(t, err, "task.components[1].weight: missing or 0")
	_, err = scenarios.Parse([]byte("task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 1m}, {weight: 0.5, shape: chain, length: 3, work: 1m}]}\npolicy: {organization: team}\n"), "m.yaml", nil)
	assert.NoError(t, err)
}

func TestInertValues(t *testing.T) {
	tests := []struct{ set, want string }{
		{"train.hidden=32", "train.hidden: given but never used: only an mlp policy has hidden units"},
		{"train.clip_ratio=0.3", `train.clip_ratio: given but never used: only the ppo-gae advantage reads it (train.advantage is "flat-collective")`},
		{"train.baseline_rate=0.5", "train.baseline_rate: given but never used: only the moving-average advantage"},
		{"collective.reconcile.rework=0.9", `collective.reconcile.rework: given but never used: only reconcile.mode rework redoes work (the mode is "fail")`},
		{"train.credit=passive", `train.credit: given but never used: only the per-agent advantage replays counterfactuals (train.advantage is "flat-collective")`},
		{"train.credit_baseline=none", `train.credit_baseline: given but never used: only the per-agent advantage replays counterfactuals (train.advantage is "flat-collective")`},
		{"train.lr_schedule=constant,train.lr_end=0.2", `train.lr_end: given but never used: a constant schedule stays at train.lr (train.lr_schedule is "constant"), and train.lr_end 0.2 is not train.lr 0.05`},
		{"train.entropy_schedule=constant,train.entropy_end=0.02", `train.entropy_end: given but never used: a constant schedule stays at train.entropy (train.entropy_schedule is "constant"), and train.entropy_end 0.02 is not train.entropy 0`},
		// A schedule from a start to the same end stays there, whatever
		// its shape (constant says so, and is no mistake).
		{"train.lr_end=0.05,train.lr_schedule=cosine", "train.lr_schedule: given but never used: train.lr_end is train.lr (0.05), so the rate stays there whatever the schedule's shape"},
		{"train.entropy_end=0.01,train.entropy_schedule=cosine", "train.entropy_schedule: given but never used: train.entropy_end is train.entropy (0.01), so the bonus stays there whatever the schedule's shape"},
		// A group of one shares its draws with no other rollout.
		{"train.advantage=none,train.group=1,train.crn=false", "train.crn: given but never used: train.group is 1, so no two rollouts of a task instance share"},
	}
	for _, tt := range tests {
		sets := strings.Split(tt.set, ",")
		_, err := scenarios.Load("tiny", sets)
		assert.ErrorContains(t, err, "--set "+sets[len(sets)-1]+": "+tt.want)
	}
	// A scenario whose constant schedule ends where it starts (rlcr-peer:
	// lr and lr_end 0.05) refuses a new start alone: the error names both
	// values, for the --set that changed the one the reader did not give.
	_, err := scenarios.Load("rlcr-peer", []string{"train.lr=0.1"})
	assert.ErrorContains(t, err, `--set train.lr=0.1: train.lr_end: given but never used: a constant schedule stays at train.lr (train.lr_schedule is "constant"), and train.lr_end 0.05 is not train.lr 0.1`)
	// An inert value of the file is the file's, though a variant sets
	// other fields of its section.
	src := "task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\ntrain:\n  hidden: 32\nvariants:\n  - {name: a, set: {train.lr: 0.2}}\n"
	_, err = scenarios.Parse([]byte(src), "h.yaml", nil)
	assert.ErrorContains(t, err, "h.yaml:4:3: train.hidden: given but never used")
	// The same values count where their settings read them.
	for _, sets := range [][]string{
		{"train.policy=mlp", "train.hidden=32"},
		{"train.advantage=ppo-gae", "train.clip_ratio=0.3"},
		{"collective.reconcile.mode=rework", "collective.reconcile.rework=0.9"},
		{"train.advantage=per-agent", "train.credit=passive", "train.credit_baseline=none"},
		{"train.lr_schedule=cosine", "train.lr_end=0.2"},
		{"train.lr_end=0.2", "train.entropy_end=0.02"},
		{"train.lr_schedule=constant", "train.entropy_schedule=constant"},
		{"train.lr_schedule=constant", "train.lr=0.2", "train.lr_end=0.2"},
		{"train.advantage=none", "train.group=2", "train.crn=false"},
		{"train.lr_end=0.05", "train.lr_schedule=constant"},
		{"train.entropy_end=0.01", "train.entropy_schedule=constant"},
	} {
		_, err := scenarios.Load("tiny", sets)
		assert.NoError(t, err, "%v", sets)
	}
}

// TestInertInSweep: in a scenario with a sweep, a value counts when some
// trial of its variant reads it; one that no trial reads is refused where
// it was given, as without a sweep.
func TestInertInSweep(t *testing.T) {
	const src = "task: {shape: fork-join, width: 3, stages: 1, work: exp(5m)}\ncollective: {agents: 3}\npolicy: {organization: split}\ntrain: {iterations: 5, batch: 2, group: 2, clip_ratio: 0.3, credit: passive}\nsweep:\n  command: train\n"
	const (
		clip    = `w.yaml:4:44: train.clip_ratio: given but never used: only the ppo-gae advantage reads it (train.advantage is "flat-collective"); remove it (or --set train.clip_ratio=0.2, its default), or set what makes it count`
		credit  = `w.yaml:4:61: train.credit: given but never used: only the per-agent advantage replays counterfactuals (train.advantage is "flat-collective"); remove it (or --set train.credit=contribution, its default), or set what makes it count`
		ppoOnly = `only the ppo-gae advantage reads it (train.advantage is "flat-collective"); sweep another field, or set what makes it count`
	)
	tests := []struct {
		name, sweep string
		want        []string // the errors, in order; none: it loads
	}{
		{"every advantage's values read", "  grid:\n    train.advantage: [flat-collective, ppo-gae, per-agent]\n", nil},
		{"no ppo-gae trial", "  grid:\n    train.advantage: [flat-collective, per-agent]\n", []string{clip}},
		{"no per-agent trial", "  grid:\n    train.advantage: [ppo-gae, flat-collective]\n", []string{credit}},
		{"an unrelated axis", "  grid:\n    task.coupling: [0, 0.5]\n", []string{clip, credit}},
		{"an unrelated random axis", "  random:\n    train.lr: uniform(0.02, 0.2)\n  samples: 2\n", []string{clip, credit}},
		{"another axis beside", "  grid:\n    task.coupling: [0, 0.5]\n    train.advantage: [per-agent, ppo-gae]\n", nil},
		// An axis no trial reads makes every trial the same.
		{"an axis no trial reads", "  grid:\n    train.epochs: [2, 3]\n", []string{clip, credit, `w.yaml:8:5: sweep.grid: train.epochs: no trial reads it: ` + ppoOnly}},
		{"a random axis no trial reads", "  random:\n    train.value_lr: uniform(0.01, 0.1)\n  samples: 2\n", []string{clip, credit, `w.yaml:8:5: sweep.random: train.value_lr: no trial reads it: ` + ppoOnly}},
		{"an axis some trials read", "  grid:\n    train.advantage: [flat-collective, ppo-gae, per-agent]\n    train.epochs: [2, 3]\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(src+tt.sweep), "w.yaml", nil)
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, strings.Join(tt.want, "\n"))
		})
	}
	// A variant's values are judged by the variant's trials.
	variants := "variants:\n  - {name: a}\n  - {name: b, set: {train.epochs: 3}}\n"
	_, err := scenarios.Parse([]byte(src+"  grid:\n    train.advantage: [flat-collective, per-agent]\n"+variants), "w.yaml", []string{"train.clip_ratio=0.25"})
	assert.EqualError(t, err, strings.Join([]string{
		// A variant's own value: a --set never replaces it, so none is offered.
		`w.yaml:11:21: variant "b": train.epochs: given but never used: only the ppo-gae advantage reads it (train.advantage is "flat-collective"); remove it, or set what makes it count`,
		`--set train.clip_ratio=0.25: train.clip_ratio: given but never used: only the ppo-gae advantage reads it (train.advantage is "flat-collective"); remove it (or --set train.clip_ratio=0.2, its default), or set what makes it count`,
	}, "\n"))
	_, err = scenarios.Parse([]byte(src+"  grid:\n    train.advantage: [ppo-gae, per-agent]\n"+variants), "w.yaml", nil)
	assert.NoError(t, err)
}

// TestRunInert: a hand-off setting that a fixed organization never
// exercises loads (training uses it) but is refused for an evaluation,
// at the place the value was given; a learned policy, an organization
// that delegates, or another variant that shares the value and delegates
// makes it count; a sweep of command run refuses it outright.
func TestRunInert(t *testing.T) {
	const head = "task: {shape: fork-join, width: 4, stages: 1, work: 5m}\ncollective:\n  agents: 4\n"
	tests := []struct {
		name, src string
		sets      []string
		want      []string // substrings of RunInert's error; none: nil
	}{
		{"duplicates under split", head + "  handoff: {duplicates: true}\npolicy: {organization: split}\n", nil,
			[]string{`d.yaml:4:13: collective.handoff.duplicates: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): every fixed organization (policy.organization) delegates only ready subtasks`, "it acts under simulate train, or with a learned policy (--policy FILE, or policy.file)"}},
		{"duplicates with a learned policy", head + "  handoff: {duplicates: true}\npolicy: {organization: split}\n", []string{"policy.file=p.json"}, nil},
		{"miss under split", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: split}\n", nil, nil},
		{"miss under team", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: team}\n", nil, nil},
		{"miss under sequential", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: sequential}\n", nil,
			[]string{`d.yaml:4:13: collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): the fixed organization "sequential" never delegates`}},
		{"miss under independent", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: independent}\n", nil,
			[]string{`collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): the fixed organization "independent" never delegates`}},
		{"miss with a learned policy", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: sequential}\n", []string{"policy.file=p.json"}, nil},
		{"an organization given by a flag", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: split}\n", []string{"policy.organization=independent"},
			[]string{`--set policy.organization=independent: collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run)`}},
		// A --set after the organization's was blamed for it: the last
		// --set, whatever it set.
		{"an organization given by a flag, another flag after it", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: split}\n", []string{"policy.organization=independent", "collective.time_limit=3h"},
			[]string{`--set policy.organization=independent: collective.handoff.miss: never acts when a fixed organization is evaluated`}},
		{"a coupling under an organization given by a flag, another flag after it", "task: {shape: fork-join, width: 4, stages: 1, work: 5m, coupling: 0.5}\ncollective:\n  agents: 4\npolicy: {organization: split}\n", []string{"policy.organization=single", "collective.agents=5"},
			[]string{`--set policy.organization=single: task.coupling: never acts when a fixed organization is evaluated`}},
		{"an organization given by a variant, another key after it", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: independent}\nvariants:\n  - {name: a}\n  - {name: b, set: {policy.organization: sequential, collective.time_limit: 3h}}\n", nil,
			[]string{`d.yaml:8:21: variant "b": collective.handoff.miss: never acts when a fixed organization is evaluated`}},
		{"an organization given by a variant", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: split}\nvariants:\n  - {name: a}\n  - {name: b, set: {policy.organization: sequential, collective.handoff.miss: 0.7}}\n", nil,
			[]string{`d.yaml:8:54: variant "b": collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): the fixed organization "sequential"`}},
		// Variants compare organizations under one setting, as a sweep's
		// trials do: a value that a variant holding it reads counts.
		{"a value shared with a variant that reads it", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: split}\nvariants:\n  - {name: a}\n  - {name: b, set: {policy.organization: sequential}}\n", nil, nil},
		{"a value shared by variants that never read it", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: independent}\nvariants:\n  - {name: a}\n  - {name: b, set: {policy.organization: sequential}}\n", nil,
			[]string{`d.yaml:4:13: collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): the fixed organization "independent"`,
				`d.yaml:8:21: variant "b": collective.handoff.miss: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): the fixed organization "sequential"`}},
		{"miss under an orchestrator", head + "  handoff: {miss: 0.5, findings: 1}\npolicy: {organization: centralized}\n", nil, nil},
		{"no handoff", head + "policy: {organization: sequential}\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenarios.Parse([]byte(tt.src), "d.yaml", tt.sets)
			require.NoError(t, err, "training would use the value")
			err = sc.RunInert()
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var e *scenarios.Error
			require.ErrorAs(t, err, &e)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	// A sweep of command run evaluates every trial: a value that acts in
	// none of them is refused when it loads; one that acts in some is part
	// of the comparison.
	sweep := head + "  handoff: {miss: 0.5, findings: 1, duplicates: true}\npolicy: {organization: split}\nsweep:\n  command: run\n"
	_, err := scenarios.Parse([]byte(sweep), "s.yaml", nil)
	assert.ErrorContains(t, err, "s.yaml:4:37: collective.handoff.duplicates: never acts in a sweep of command run: every fixed organization")
	assert.ErrorContains(t, err, "it acts with sweep.command train, or with policy.file")
	assert.NotContains(t, err.Error(), "handoff.miss", "split delegates")
	sweep = strings.Replace(sweep, ", duplicates: true", "", 1)
	_, err = scenarios.Parse([]byte(sweep+"  grid: {policy.organization: [split, sequential]}\n"), "s.yaml", nil)
	assert.NoError(t, err, "split's trials delegate")
	for _, sets := range [][]string{nil, {"sweep.seeds=1"}} {
		_, err = scenarios.Parse([]byte(sweep+"  grid: {policy.organization: [independent, sequential]}\n"), "s.yaml", sets)
		assert.ErrorContains(t, err, "s.yaml:4:13: collective.handoff.miss:", "placed in the file, with --set %v", sets)
	}
	assert.EqualError(t, err, `s.yaml:4:13: collective.handoff.miss: never acts in a sweep of command run: `+
		`the fixed organizations "independent" and "sequential" never delegate, so no hand-off can be misunderstood (centralized, decentralized, hybrid, split and team do); `+
		`it acts with sweep.command train, or with policy.file (a learned policy)`, "every trial's organization, once")
	_, err = scenarios.Parse([]byte(sweep+"  grid: {collective.agents: [2, 4]}\n"), "s.yaml", []string{"sweep.command=train"})
	assert.NoError(t, err)
}

// TestCouplingRunInert: a coupling acts where a join reconciles parts
// that two agents made, so with one agent it never acts when a fixed
// organization is evaluated, whatever the organization (a learned policy
// observes it); a sweep of command run whose trials are inert for that
// reason and for an organization's gives both reasons.
func TestCouplingRunInert(t *testing.T) {
	const src = "task: {shape: fork-join, width: 4, stages: 1, work: 5m, coupling: 0.5}\ncollective:\n  agents: 1\npolicy: {organization: split}\n"
	const alone = "task.coupling: never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): collective.agents is 1, so the main agent makes every part and no join has parts made by two agents to reconcile"
	sc, err := scenarios.Parse([]byte(src), "c.yaml", nil)
	require.NoError(t, err, "training would use the value")
	assert.ErrorContains(t, sc.RunInert(), "c.yaml:1:57: "+alone)
	sc, err = scenarios.Parse([]byte(src), "c.yaml", []string{"policy.file=p.json"})
	require.NoError(t, err)
	assert.NoError(t, sc.RunInert(), "a learned policy observes the coupling")
	sc, err = scenarios.Parse([]byte(src), "c.yaml", []string{"collective.agents=2"})
	require.NoError(t, err)
	assert.NoError(t, sc.RunInert(), "split delegates to a second agent")

	sweep := func(grid string) error {
		_, err := scenarios.Parse([]byte(src+"sweep:\n  command: run\n  grid: {"+grid+"}\n"), "s.yaml", nil)
		return err
	}
	assert.NoError(t, sweep("collective.agents: [1, 2]"), "the trial of two agents reads it")
	// The variant itself, evaluated alone, still never uses it: a note
	// about the variants, not the sweep.
	sc, err = scenarios.Parse([]byte(src+"sweep:\n  command: run\n  grid: {collective.agents: [1, 2]}\n"), "s.yaml", nil)
	require.NoError(t, err)
	assert.ErrorContains(t, sc.RunInert(), "s.yaml:1:57: task.coupling: never acts when a fixed organization is evaluated (simulate run or trace of the variants; the sweep's trials are judged apart): collective.agents is 1")
	assert.EqualError(t, sweep("policy.organization: [split, sequential]"),
		`s.yaml:1:57: task.coupling: never acts in a sweep of command run: collective.agents is 1, so the main agent makes every part and no join has parts made by two agents to reconcile; `+
			`the fixed organization "sequential" never delegates, so every part of an attempt is one agent's and no join has parts to reconcile (centralized, decentralized, hybrid, split and team do); `+
			`it acts with sweep.command train, or with policy.file (a learned policy)`)
	assert.ErrorContains(t, sweep("policy.organization: [single, sequential]"),
		`task.coupling: never acts in a sweep of command run: the fixed organizations "single" and "sequential" never delegate, so every part`)
}

// TestRunInertByOrganization: a setting of what a fixed organization
// never does (hand-offs and messages, findings' receivers, spawning,
// selecting among attempts, checks, reconciling) loads, since training
// may do it, but is refused for an evaluation under an organization that
// never reads it; an organization that reads it, a learned policy,
// variants or a sweep of command run comparing an organization that reads
// it make it count.
func TestRunInertByOrganization(t *testing.T) {
	const head = "task: {shape: fork-join, width: 4, stages: 1, work: 5m}\ncollective:\n  agents: 4\n"
	tests := []struct {
		set          string // the value, as a --set
		inert, reads string // an organization that never reads it, and one that does
		why          string // the reason under inert
	}{
		{"collective.spawn=10m", "sequential", "independent",
			`the fixed organization "sequential" never delegates nor starts an independent attempt, so no helper is spawned (centralized, decentralized, hybrid, independent, split and team do)`},
		{"collective.spawn=10m", "single", "split", `the fixed organization "single" never delegates nor starts`},
		{"collective.comm.write=1s", "sequential", "split",
			`the fixed organization "sequential" never delegates, so every part of an attempt is one agent's and no message (hand-off, input or finding) is sent (centralized, decentralized, hybrid, split and team do)`},
		{"collective.comm.read=10ms", "independent", "centralized", `the fixed organization "independent" never delegates, so every part`},
		{"collective.comm.latency=30s", "single", "team", `the fixed organization "single" never delegates, so every part`},
		{"collective.comm.bandwidth=1", "sequential", "hybrid", `the fixed organization "sequential" never delegates, so every part`},
		{"collective.comm.message_tokens=5000", "independent", "decentralized", `the fixed organization "independent" never delegates, so every part`},
		{"collective.comm.topology=broadcast", "split", "team",
			`the fixed organization "split" never shares findings, so no finding is sent (decentralized, hybrid and team do)`},
		{"collective.comm.topology=blackboard", "centralized", "hybrid", `the fixed organization "centralized" never shares findings`},
		{"collective.comm.topology=blackboard", "sequential", "decentralized", `the fixed organization "sequential" never shares findings`},
		{"collective.select.cost=20m", "team", "independent",
			`the fixed organization "team" never starts independent attempts, so there are no candidates to select among or merge (independent does)`},
		{"collective.select.accuracy=0.1", "sequential", "independent", `the fixed organization "sequential" never starts independent attempts`},
		{"collective.select.merge=synthesis", "hybrid", "independent", `the fixed organization "hybrid" never starts independent attempts`},
		{"collective.check.by=orchestrator", "sequential", "split",
			`the fixed organization "sequential" has no helper check a part, so none is handed back for the orchestrator's check (centralized, hybrid, split and team do)`},
		{"collective.check.by=orchestrator", "independent", "centralized", `the fixed organization "independent" has no helper check a part`},
		{"collective.check.by=orchestrator", "decentralized", "team", `the fixed organization "decentralized" has no helper check a part`},
		{"collective.check.cost=3", "independent", "sequential",
			`the fixed organization "independent" never checks a part, so no check is priced, judged or retried (centralized, hybrid, sequential, single, split and team do)`},
		{"collective.check.accuracy=0.5", "decentralized", "team", `the fixed organization "decentralized" never checks a part`},
		{"collective.check.retries=0", "independent", "hybrid", `the fixed organization "independent" never checks a part`},
		{"collective.reconcile.mode=rework", "sequential", "decentralized",
			`the fixed organization "sequential" never delegates, so every part of an attempt is one agent's and no join has parts to reconcile (centralized, decentralized, hybrid, split and team do)`},
		{"collective.reconcile.mode=rework", "independent", "split", `the fixed organization "independent" never delegates, so every part of an attempt is one agent's and no join`},
		{"task.coupling=0.5", "sequential", "split",
			`the fixed organization "sequential" never delegates, so every part of an attempt is one agent's and no join has parts to reconcile (centralized, decentralized, hybrid, split and team do)`},
		{"task.coupling=uniform(0.2, 0.8)", "independent", "centralized", `the fixed organization "independent" never delegates, so every part of an attempt is one agent's and no join`},
	}
	const lead = "never acts when a fixed organization is evaluated (simulate run or trace, a sweep of command run): "
	const tail = "; it acts under simulate train, or with a learned policy (--policy FILE, or policy.file)"
	for _, tt := range tests {
		path := tt.set[:strings.Index(tt.set, "=")]
		head := head
		if strings.HasPrefix(path, "collective.reconcile.") {
			// Parts conflict only at a coupled join: without a coupling
			// the reconcile settings never act, whatever the organization.
			head = strings.Replace(head, "work: 5m}", "work: 5m, coupling: 0.5}", 1)
		}
		t.Run(tt.set+" under "+tt.inert, func(t *testing.T) {
			load := func(org string, sets ...string) *scenarios.Scenario {
				t.Helper()
				sc, err := scenarios.Parse([]byte(head+"policy: {organization: "+org+"}\n"), "o.yaml", append([]string{tt.set}, sets...))
				require.NoError(t, err, "training would use the value")
				return sc
			}
			err := load(tt.inert).RunInert()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "--set "+tt.set+": "+path+": "+lead+tt.why)
			assert.Contains(t, err.Error(), tail)
			assert.NoError(t, load(tt.reads).RunInert(), "%s reads it", tt.reads)
			assert.NoError(t, load(tt.inert, "policy.file=p.json").RunInert(), "a learned policy may read it")
			variants := head + "policy: {organization: " + tt.inert + "}\nvariants:\n  - {name: a}\n  - {name: b, set: {policy.organization: " + tt.reads + "}}\n"
			sc, err := scenarios.Parse([]byte(variants), "v.yaml", []string{tt.set})
			require.NoError(t, err)
			assert.NoError(t, sc.RunInert(), "variants compare %s and %s under the value", tt.inert, tt.reads)

			// A training sweep trains; a sweep of command run counts a
			// value that some trial's organization reads, and refuses one
			// that none does.
			sweep := func(command, grid string) error {
				src := head + "policy: {organization: " + tt.inert + "}\nsweep:\n  command: " + command + "\n  grid: {" + grid + "}\n"
				_, err := scenarios.Parse([]byte(src), "s.yaml", []string{tt.set})
				return err
			}
			assert.NoError(t, sweep("train", "collective.agents: [3, 4]"))
			assert.NoError(t, sweep("run", "policy.organization: ["+tt.inert+", "+tt.reads+"]"), "%s reads it", tt.reads)
			assert.ErrorContains(t, sweep("run", "collective.agents: [3, 4]"),
				"--set "+tt.set+": "+path+": never acts in a sweep of command run: "+tt.why)
		})
	}

	// A value that names what the default does is no mistake anywhere.
	for _, set := range []string{"collective.check.by=maker", "collective.select.merge=verify"} {
		sc, err := scenarios.Parse([]byte(head+"policy: {organization: sequential}\n"), "o.yaml", []string{set})
		require.NoError(t, err)
		assert.NoError(t, sc.RunInert(), set)
	}

	// Several organizations of a sweep are named once each, in a list.
	_, err := scenarios.Parse([]byte(head+"  select: {cost: 20m}\npolicy: {organization: team}\nsweep:\n  command: run\n  grid: {policy.organization: [sequential, team, split]}\n"), "s.yaml", nil)
	assert.EqualError(t, err, `s.yaml:4:12: collective.select.cost: never acts in a sweep of command run: `+
		`the fixed organizations "sequential", "team" and "split" never start independent attempts, so there are no candidates to select among or merge (independent does); `+
		`it acts with sweep.command train, or with policy.file (a learned policy)`)
	_, err = scenarios.Parse([]byte(head+"  select: {cost: 20m}\npolicy: {organization: team}\nsweep:\n  command: run\n  grid: {policy.organization: [sequential, independent]}\n"), "s.yaml", nil)
	assert.NoError(t, err, "independent reads it")
}

func TestShadowedSet(t *testing.T) {
	// tiny's team variant sets policy.organization; split does not.
	sc, err := scenarios.Load("tiny", []string{"policy.organization=sequential"})
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	assert.Equal(t, "--set policy.organization=sequential applies only to the variants that do not set policy.organization to another value themselves: not to team", sc.Warnings[0].Msg)
	assert.Equal(t, "sequential", sc.Variants[0].Spec.Policy.Organization)
	// Cut to the variant it applies to, nothing is wrong; cut to the one
	// that sets another value, it changes nothing and is an error.
	assert.NoError(t, sc.Only("split"))
	assert.Empty(t, sc.Warnings, "the warning is about team")
	sc, err = scenarios.Load("tiny", []string{"policy.organization=sequential"})
	require.NoError(t, err)
	assert.EqualError(t, sc.Only("team"), "--set policy.organization=sequential: policy.organization: changes nothing: variant team sets policy.organization itself, to another value; run a variant that does not set it, or change the value in the variant's set")
	// A variant that sets the --set's own value loses nothing.
	sc, err = scenarios.Load("tiny", []string{"policy.organization=team"})
	require.NoError(t, err)
	assert.Empty(t, sc.Warnings)
	assert.NoError(t, sc.Only("team"))
	lp, err := scenarios.Load("latency-pressure", []string{"reward.latency=1.0"})
	require.NoError(t, err)
	require.Len(t, lp.Warnings, 1)
	assert.Equal(t, "--set reward.latency=1.0 applies only to the variants that do not set reward.latency to another value themselves: not to low and medium", lp.Warnings[0].Msg)
	assert.Equal(t, []string{"low", "medium"}, lp.Warnings[0].Variants)
	assert.NoError(t, lp.Only("high"), "high sets 1 itself")

	src := "task: {shape: chain, length: 2, work: 1m}\ncollective: {time_limit: 1h}\nreward: {penalty: linear}\npolicy: {organization: team}\nvariants:\n  - {name: a, set: {reward.latency: 1}}\n  - {name: b, set: {reward: {latency: 2}}}\n"
	_, err = scenarios.Parse([]byte(src), "v.yaml", []string{"reward.latency=3"})
	assert.EqualError(t, err, "--set reward.latency=3: reward.latency: changes nothing: every variant sets reward.latency itself (a, b); edit the variants, or give --set variants' own values in the file")
	// A mapping that every variant overrides in part still acts: a
	// warning, not an error.
	sc, err = scenarios.Parse([]byte(src), "v.yaml", []string{"reward={latency: 3, cost: 0.5}"})
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	assert.Equal(t, []string{"a", "b"}, sc.Warnings[0].Variants)
	assert.InDelta(t, 0.5, sc.Variants[1].Spec.Reward.Cost, 0, "b keeps the --set's cost")
	assert.EqualError(t, sc.Only("a"), "--set reward={latency: 3, cost: 0.5}: reward: changes nothing at reward.latency: variant a sets it itself, to another value; run a variant that does not set it, or change the value in the variant's set", "its cost still applies")
	// A mapping that every variant overrides whole names the keys.
	_, err = scenarios.Parse([]byte(src), "v.yaml", []string{"reward={latency: 3}"})
	assert.EqualError(t, err, "--set reward={latency: 3}: reward: changes nothing: every variant sets reward.latency itself (a, b); edit the variants, or give --set variants' own values in the file")
	// Where every variant sets the --set's own value, what it asks for
	// holds: no error, and no warning.
	same := strings.Replace(src, "latency: 2", "latency: 1", 1)
	sc, err = scenarios.Parse([]byte(same), "v.yaml", []string{"reward.latency=1"})
	require.NoError(t, err)
	assert.Empty(t, sc.Warnings)

	sc, err = scenarios.Load("tiny", []string{"collective.agents=5"})
	require.NoError(t, err)
	assert.Empty(t, sc.Warnings)

	// A mapping sets only the keys it names, on either side: a variant
	// that sets other keys of the section keeps the --set's.
	const sections = "task: {shape: chain, length: 2, work: 1m}\ncollective: {agents: 3, time_limit: 2h}\npolicy: {organization: team}\n" +
		"variants: [{name: three}, {name: four, set: {collective: {agents: 4}}}]\n"
	sc, err = scenarios.Parse([]byte(sections), "m.yaml", []string{"collective={time_limit: 1h}"})
	require.NoError(t, err)
	assert.Empty(t, sc.Warnings)
	assert.NoError(t, sc.Only("four"))
	assert.Equal(t, 4, sc.Variants[0].Spec.Collective.Agents)
	assert.Equal(t, "1h0m0s", sc.Variants[0].Spec.Collective.TimeLimit.String())
	// A mapping's key that a variant sets itself to another value is lost
	// there, as a dotted --set of it would be.
	lp, err = scenarios.Load("latency-pressure", []string{"reward={latency: 0.5}"})
	require.NoError(t, err)
	require.Len(t, lp.Warnings, 1)
	assert.Equal(t, []string{"low", "high"}, lp.Warnings[0].Variants, "medium sets 0.5 itself")
	assert.Equal(t, "--set reward={latency: 0.5} applies only to the variants that do not set reward.latency to another value themselves: not to low and high", lp.Warnings[0].Msg, "the key lost, not the section")
	assert.EqualError(t, lp.Only("high"), "--set reward={latency: 0.5}: reward: changes nothing: variant high sets reward.latency itself, to another value; run a variant that does not set it, or change the value in the variant's set", "the key lost, not the section")
	// A list's entry that a variant replaces with its own list is lost.
	const lists = "task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 1m}, {weight: 1, shape: chain, length: 3, work: 1m}]}\npolicy: {organization: team}\n" +
		"variants:\n  - {name: a}\n  - {name: b, set: {task.components: [{weight: 0.5, shape: chain, length: 2, work: 1m}, {weight: 0.5, shape: chain, length: 3, work: 1m}]}}\n"
	sc, err = scenarios.Parse([]byte(lists), "l.yaml", []string{"task.components[0].weight=2"})
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	assert.Equal(t, []string{"b"}, sc.Warnings[0].Variants)
	assert.Error(t, sc.Only("b"))
}

// TestOnlyRefusesAnUnreadSet: a --set that some variants read loads, but
// cut to a variant that leaves it inert it would silently change nothing:
// an error naming the --set, the field, the variant and why.
func TestOnlyRefusesAnUnreadSet(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, variant string
		sets                    []string
		want                    string // "" for none
	}{
		{"the penalty's form at weight 0", "latency-pressure", "none", []string{"reward.penalty=group-relative"},
			"--set reward.penalty=group-relative: reward.penalty: changes nothing in variant none: reward.latency is 0, so the latency penalty weighs nothing in the reward; run a variant that reads it, or set what makes it count"},
		{"a mapping's key", "latency-pressure", "none", []string{"reward={penalty: group-relative}"},
			"--set reward={penalty: group-relative}: reward.penalty: changes nothing in variant none: reward.latency is 0, so the latency penalty weighs nothing in the reward; run a variant that reads it, or set what makes it count"},
		{"a variant that reads it", "latency-pressure", "low", []string{"reward.penalty=group-relative"}, ""},
		{"a scale", "latency-pressure", "none", []string{"reward.scale=3h"},
			"--set reward.scale=3h: reward.scale: changes nothing in variant none: reward.latency is 0, so the latency penalty weighs nothing in the reward; run a variant that reads it, or set what makes it count"},
		{"its default", "latency-pressure", "none", []string{"reward.scale=0"}, ""},
		{"read by every variant", "latency-pressure", "none", []string{"train.lr=0.01"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.Load(tc.scenario, tc.sets)
			require.NoError(t, err, "some variant reads it")
			err = sc.Only(tc.variant)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.want)
		})
	}
}

// TestCouplingWithoutJoins: a coupling acts only at a join that needs every
// one of two or more parts, so on a graph without one (a chain, a needle,
// a graph one part wide) it would silently do nothing and is refused where
// it was given; where some trial of a sweep has such a join it counts.
func TestCouplingWithoutJoins(t *testing.T) {
	const policy = "policy: {organization: team}\n"
	tests := []struct {
		name, src, want string
	}{
		{"chain", "task: {shape: chain, length: 3, work: 5m, coupling: 0.9}\n",
			`c.yaml:1:43: task.coupling: given but never used: shape "chain" has no join of several parts, where a coupling acts; remove it (or --set task.coupling=0, its default), or set what makes it count`},
		{"needle", "task: {shape: needle, tries: 4, work: 5m, coupling: 0.5}\n",
			`c.yaml:1:43: task.coupling: given but never used: shape "needle" joins its tries with any (the first acceptable one settles it), so no parts are reconciled; remove it (or --set task.coupling=0, its default), or set what makes it count`},
		{"fork-join one wide", "task: {shape: fork-join, width: 1, stages: 2, work: 5m, coupling: 0.5}\n",
			`task.coupling: given but never used: shape "fork-join" with width 1 has no join of several parts`},
		{"layered one wide", "task: {shape: layered, width: 1, depth: 3, work: 5m, coupling: 0.5}\n",
			`task.coupling: given but never used: shape "layered" with width 1 has no join of several parts`},
		{"tree of branching 1", "task: {shape: tree, branching: 1, depth: 3, work: 5m, coupling: 0.5}\n",
			`task.coupling: given but never used: shape "tree" with branching 1 has no join of several parts`},
		{"kind sequential", "task: {kind: sequential, coupling: 0.5}\n",
			`task.coupling: given but never used: kind "sequential" (shape "chain") has no join of several parts`},
		{"uniform coupling on a chain", "task: {shape: chain, length: 3, work: 5m, coupling: 'uniform(0, 1)'}\n",
			`task.coupling: given but never used`},
		{"a variant's chain with a coupling of its own", "task: {shape: fork-join, width: 3, stages: 1, work: 5m, coupling: 0.5}\nvariants:\n  - {name: a}\n  - {name: b, set: {task.shape: chain, task.width: 0, task.stages: 0, task.length: 3, task.coupling: 0.7}}\n",
			`variant "b": task.coupling: given but never used: shape "chain" has no join`},
		{"a sweep axis on a chain", "task: {shape: chain, length: 3, work: 5m}\nsweep:\n  command: run\n  grid:\n    task.coupling: [0.2, 0.8]\n",
			`c.yaml:5:5: sweep.grid: task.coupling: no trial reads it: shape "chain" has no join of several parts`},
		// Where the coupling acts, or is the default 0, it is accepted.
		{"fork-join", "task: {shape: fork-join, width: 2, stages: 1, work: 5m, coupling: 0.5}\n", ""},
		{"chain at 0", "task: {shape: chain, length: 3, work: 5m, coupling: 0}\n", ""},
		{"tree", "task: {shape: tree, branching: 2, depth: 2, work: 5m, coupling: 0.5}\n", ""},
		{"layered", "task: {shape: layered, width: 3, depth: 2, work: 5m, coupling: 0.5}\n", ""},
		{"kind decomposable", "task: {kind: decomposable, coupling: 0.5}\n", ""},
		// Variants that compare shapes under one coupling share it, as a
		// sweep's trials over task.kind do: the fork-join reads it.
		{"a variant's chain sharing the coupling", "task: {shape: fork-join, width: 3, stages: 1, work: 5m, coupling: 0.5}\nvariants:\n  - {name: a}\n  - {name: b, set: {task.shape: chain, task.width: 0, task.stages: 0, task.length: 3}}\n", ""},
		// A sweep over kinds reads the coupling in its decomposable trials.
		{"a sweep of kinds", "task: {kind: decomposable, coupling: 0.5}\nsweep:\n  command: run\n  grid:\n    task.kind: [decomposable, sequential]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src+policy), "c.yaml", nil)
			errorHas(t, err, tt.want)
		})
	}
	_, err := scenarios.Load("tiny", []string{"task.shape=chain", "task.width=0", "task.stages=0", "task.length=3"})
	assert.ErrorContains(t, err, `task.coupling: given but never used: shape "chain" has no join of several parts`)
}

// TestEdgeProbOfOneLayer: a layered graph's edge_prob draws edges from
// one layer to the next, so with depth 1 it cannot act; nor with width 1,
// where each node's one parent is given it anyway.
func TestEdgeProbOfOneLayer(t *testing.T) {
	const policy = "policy: {organization: team}\n"
	tests := []struct {
		name, src, want string
	}{
		{"one layer", "task: {shape: layered, width: 3, depth: 1, edge_prob: 0.7, work: 1m}\n",
			`s.yaml:1:44: task.edge_prob: given but never used: shape "layered" with depth 1 is one layer, and edges (each drawn with edge_prob) join a layer only to the next`},
		{"kind with one layer", "task: {kind: tool-heavy, depth: 1, edge_prob: 0.7}\n",
			`task.edge_prob: given but never used: kind "tool-heavy" (shape "layered") with depth 1 is one layer`},
		{"two layers", "task: {shape: layered, width: 3, depth: 2, edge_prob: 0.7, work: 1m}\n", ""},
		// One node a layer gets its one parent whatever edge_prob.
		{"one node a layer", "task: {shape: layered, width: 1, depth: 3, edge_prob: 0.3, work: 1m}\n",
			`s.yaml:1:44: task.edge_prob: given but never used: shape "layered" with width 1 has one node a layer`},
		{"kind one node wide", "task: {kind: tool-heavy, width: 1, edge_prob: 0.3}\n",
			`task.edge_prob: given but never used: kind "tool-heavy" (shape "layered") with width 1 has one node a layer`},
		{"variants of widths", "task: {shape: layered, width: 1, depth: 3, edge_prob: 0.3, work: 1m}\nvariants:\n  - {name: narrow}\n  - {name: wide, set: {task.width: 3}}\n", ""},
		{"one layer, no edge_prob", "task: {shape: layered, width: 3, depth: 1, work: 1m}\n", ""},
		// Variants comparing depths under one edge_prob share it.
		{"variants of depths", "task: {shape: layered, width: 3, depth: 1, edge_prob: 0.7, work: 1m}\nvariants:\n  - {name: flat}\n  - {name: deep, set: {task.depth: 3}}\n", ""},
		{"a sweep of depths", "task: {shape: layered, width: 3, depth: 1, edge_prob: 0.7, work: 1m}\nsweep:\n  command: run\n  grid:\n    task.depth: [1, 2]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src+policy), "s.yaml", nil)
			errorHas(t, err, tt.want)
		})
	}
}

// TestEdgeProbAtItsCause: an edge_prob that overrides leave unused is
// placed at the override that does, depth 1 or width 1, not at the last.
func TestEdgeProbAtItsCause(t *testing.T) {
	const src = "task: {shape: layered, width: 3, depth: 2, edge_prob: 0.7, work: 1m}\npolicy: {organization: team}\n"
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"task.depth=1", "task.width=2"}, "--set task.depth=1: task.edge_prob: given but never used"},
		{[]string{"task.width=1", "task.depth=3"}, "--set task.width=1: task.edge_prob: given but never used"},
	} {
		_, err := scenarios.Parse([]byte(src), "s.yaml", tt.sets)
		errorHas(t, err, tt.want)
	}
}

// TestProblemAtClosestOverride: a problem that appeared with overrides
// that do not set its field is placed at the override nearest to it in the
// spec (collective.serving.replicas for collective.serving.max_batch), not
// at whichever override of the section came last.
func TestProblemAtClosestOverride(t *testing.T) {
	const base = "task: {shape: chain, length: 3, work: 5m}\ncollective:\n  serving: {replicas: 1, max_batch: 2}\npolicy: {organization: sequential}\n"
	const msg = "collective.serving.max_batch: is set but serving.replicas is 0"
	tests := []struct {
		name, variants string
		sets           []string
		want           string
	}{
		{"a variant's override before another", "variants:\n  - name: own\n    set:\n      collective.serving.replicas: 0\n      collective.speed: 2\n", nil,
			`s.yaml:8:7: variant "own": ` + msg},
		{"a variant's override after another", "variants:\n  - name: own\n    set:\n      collective.speed: 2\n      collective.serving.replicas: 0\n", nil,
			`s.yaml:9:7: variant "own": ` + msg},
		{"a flag before another", "", []string{"collective.serving.replicas=0", "collective.speed=2"},
			"--set collective.serving.replicas=0: " + msg},
		// Keys are counted, not dots: collective.check.accuracy shares one.
		{"a variant's override before a deeper one", "variants:\n  - name: own\n    set:\n      collective.serving.replicas: 0\n      collective.check.accuracy: 0.8\n", nil,
			`s.yaml:8:7: variant "own": ` + msg},
		// Of two as close, the later.
		{"the later of two as close", "variants:\n  - name: own\n    set:\n      collective.serving.replicas: 0\n      collective.serving.step: 1s\n", nil,
			`s.yaml:9:7: variant "own": ` + msg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(base+tt.variants), "s.yaml", tt.sets)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestInertProblemAtItsCause: a value left unused by an override of the
// field that switches it off is placed at that override, not at the
// override of the section nearest to it or written last.
func TestInertProblemAtItsCause(t *testing.T) {
	const base = "task: {shape: fork-join, width: 3, stages: 1, work: 5m, coupling: 0.5}\ncollective: {agents: 3, comm: {topology: broadcast}}\npolicy: {organization: team}\n"
	const noJoins = "variants:\n  - {name: a, set: {task.shape: layered, task.width: 1, task.depth: 3, task.stages: 0}}\n  - {name: b, set: {task.shape: chain, task.length: 3, task.width: 0, task.stages: 0}}\n"
	tests := []struct {
		name, variants string
		sets           []string
		want           string
	}{
		{"a flag of one agent before another flag", "", []string{"collective.agents=1", "collective.time_limit=3h"},
			"--set collective.agents=1: collective.comm.topology: given but never used: collective.agents is 1"},
		{"a flag of a chain before the flags it needs", "", []string{"task.shape=chain", "task.length=3", "task.width=0", "task.stages=0"},
			`--set task.shape=chain: task.coupling: given but never used: shape "chain"`},
		// No variant reads the file's coupling (a variant that did would
		// make it count for the others: sharedReadBy).
		{"a variant one part wide", noJoins, nil,
			`s.yaml:5:42: variant "a": task.coupling: given but never used: shape "layered" with width 1`},
		{"a variant's chain", noJoins, nil,
			`s.yaml:6:21: variant "b": task.coupling: given but never used: shape "chain"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(base+tt.variants), "s.yaml", tt.sets)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestNameFromAnInvalidFileName: a scenario without a name takes its file's
// base name; where that is no valid name, the error says so, rather than
// only that the name is missing.
func TestNameFromAnInvalidFileName(t *testing.T) {
	const src = "task: {shape: chain, length: 3, work: 5m}\npolicy: {organization: sequential}\n"
	tests := []struct{ source, want string }{
		{"dir/équipe.yaml", `dir/équipe.yaml: name: missing, and the file's base name "équipe" is not a valid name (give the scenario a name: 1 to 128 letters`},
		{"my scenario.yml", `my scenario.yml: name: missing, and the file's base name "my scenario" is not a valid name`},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(src), tt.source, nil)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	sc, err := scenarios.Parse([]byte(src), "dir/equipe-2.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, "equipe-2", sc.Name)
	_, err = scenarios.Parse([]byte("name: ''\n"+src), "dir/équipe.yaml", nil)
	assert.ErrorContains(t, err, "name: missing (give the scenario a name", "a name given empty is missing")
}

// TestGraphFileWithoutWork: a graph file whose nodes give no work, under a
// family without task.work, makes subtasks of no time (every episode ends
// at once, successful); CheckFiles refuses it, naming the node, as it
// refuses any other problem of the file. A task.work beside a file whose
// nodes all give their work is never drawn, and refused as given but never
// used.
func TestGraphFileWithoutWork(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"some.dot":  "digraph {\n  a [work=60]\n  a -> b\n}\n",
		"every.dot": "digraph {\n  a [work=60]\n  a -> b [tokens=5]\n  b [work=\"2m\"]\n}\n",
	})
	tests := []struct {
		name, task, want string
	}{
		{"a node without work", "{shape: file, path: some.dot}", `some.dot: node "b" gives no work, and task.work is not given`},
		{"task.work draws it", "{shape: file, path: some.dot, work: 5m}", ""},
		{"every node gives it", "{shape: file, path: every.dot}", ""},
		// Given where every node gives its own, task.work is never drawn.
		{"task.work beside nodes that all give it", "{shape: file, path: every.dot, work: 5m}", `every.dot: task.work: given but never used: every node of the file gives its work`},
		{"a component's work beside nodes that all give it", "{shape: mixture, components: [{weight: 1, shape: file, path: every.dot, work: 5m}]}", `task.components[0].work: given but never used`},
		{"a mixture's component", "{shape: mixture, components: [{weight: 1, shape: file, path: some.dot}]}", `node "b" gives no work, and task.components[0].work is not given`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.yaml")
			require.NoError(t, os.WriteFile(path, []byte("task: "+tt.task+"\npolicy: {organization: team}\n"), 0o644))
			sc, err := scenarios.Load(path, nil)
			require.NoError(t, err)
			err = sc.CheckFiles()
			if errorHas(t, err, tt.want) {
				assert.ErrorContains(t, err, "s.yaml:1:")
			}
		})
	}
}

// TestGraphFileReadPerVariant: variants that share a graph file but not
// the family's fields each have the file checked for theirs, where it was
// read for the first variant alone: a second variant's task.work beside
// nodes that all give their work went unnoticed.
func TestGraphFileReadPerVariant(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"every.dot": "digraph {\n  a [work=60]\n  a -> b [tokens=5]\n  b [work=\"2m\"]\n}\n",
		"s.yaml":    "task: {shape: file, path: every.dot}\npolicy: {organization: team}\nvariants:\n  - name: a\n  - name: b\n    set: {task.work: 5m}\n",
	})
	sc, err := scenarios.Load(filepath.Join(dir, "s.yaml"), nil)
	require.NoError(t, err)
	err = sc.CheckFiles()
	require.Error(t, err)
	assert.ErrorContains(t, err, `every.dot: task.work: given but never used`)
	assert.ErrorContains(t, err, `(variant "b")`)
}

// TestOverrideThatSetsNothing: a mapping override sets only the keys it
// names, so an empty mapping or null, from --set or a variant's set:,
// would change nothing and is refused where it was given.
func TestOverrideThatSetsNothing(t *testing.T) {
	const base = "task: {shape: chain, length: 3, work: 5m}\npolicy: {organization: sequential}\n"
	const nothing = "sets nothing: a mapping sets only the keys it names, and this one names none"
	const noAxis = "sets no axis: a --set of it replaces the whole list of axes, and this one names none"
	const sweep = "sweep:\n  command: run\n  grid:\n    collective.agents: [1, 2]\n"
	const nullList = "sets nothing: null keeps the list there is; give a list, or [] to leave the field out"
	const actions = "train: {actions: [work, delegate]}\n"
	tests := []struct {
		name, variants string
		sets           []string
		want           string
	}{
		{"--set of an empty mapping", "", []string{"collective.check={}"}, "--set collective.check={}: collective.check: " + nothing},
		{"--set of null", "", []string{"reward=null"}, "--set reward=null: reward: " + nothing},
		{"--set of ~ for a section", "", []string{"task=~"}, "--set task=~: task: " + nothing},
		{"a variant's empty mapping", "variants:\n  - name: a\n    set: {collective.check: {}}\n", nil, `s.yaml:5:11: variant "a": collective.check: ` + nothing},
		{"a variant's null", "variants:\n  - name: a\n    set:\n      collective.check: null\n", nil, `s.yaml:6:7: variant "a": collective.check: ` + nothing},
		// A --set of a sweep's axes replaces them: null kept them all,
		// silently, and an empty mapping dropped them all.
		{"--set of no grid axis", sweep, []string{"sweep.grid={}"}, "--set sweep.grid={}: sweep.grid: " + noAxis},
		{"--set of a null grid", sweep, []string{"sweep.grid=null"}, "--set sweep.grid=null: sweep.grid: " + noAxis},
		{"--set of an empty grid", sweep, []string{"sweep.grid="}, "--set sweep.grid=: sweep.grid: " + noAxis},
		{"--set of null random axes", sweep, []string{"sweep.random=~"}, "--set sweep.random=~: sweep.random: " + noAxis},
		// Null for a list kept the list there was, silently: [] leaves
		// the field out.
		{"--set of a null list", actions, []string{"train.actions=null"}, "--set train.actions=null: train.actions: " + nullList},
		{"a variant's null list", actions + "variants:\n  - {name: a, set: {train.actions: ~}}\n", nil, `s.yaml:5:21: variant "a": train.actions: ` + nullList},
		{"--set of an empty list", actions, []string{"train.actions=[]"}, ""},
		// So is any of those inside a mapping.
		{"a null list in a mapping", actions, []string{"train={actions: null}"}, "--set train={actions: null}: train.actions: " + nullList},
		{"null in a mapping", "", []string{"collective={check: null}"}, "--set collective={check: null}: collective.check: " + nothing},
		{"an empty mapping in a variant's mapping", "variants:\n  - {name: a, set: {collective: {check: {}}}}\n", nil, `variant "a": collective.check: ` + nothing},
		{"no axis in a mapping", sweep, []string{"sweep={grid: null}"}, "--set sweep={grid: null}: sweep.grid: " + noAxis},
		// A mapping that names a key sets it.
		{"--set of a key", "", []string{"collective.check={cost: 0.5}"}, ""},
		{"a variant's key", "variants:\n  - name: a\n    set: {collective: {check: {cost: 0.5}}}\n", nil, ""},
		{"--set of an axis", sweep, []string{"sweep.grid={collective.agents: [2, 3]}"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(base+tt.variants), "s.yaml", tt.sets)
			errorHas(t, err, tt.want)
		})
	}
}

// TestReconcileWithoutCoupling: parts conflict only at a join whose
// coupling is above 0, so reconcile settings where no join is coupled (a
// coupling of 0, or a graph without a join of several parts) would do
// nothing, under run and train alike, and are refused at the value or at
// the override that made them inert; a variant or trial that holds the
// same value and is coupled makes it count, and a file's graph or a
// mixture's components, which carry couplings of their own, are not
// judged.
func TestReconcileWithoutCoupling(t *testing.T) {
	const fork = "task: {shape: fork-join, width: 3, stages: 1, work: 5m}\npolicy: {organization: team}\n"
	const unused = "given but never used: no two parts can conflict at a join, as "
	tests := []struct {
		name, src string
		sets      []string
		want      string // a substring of the error; "": none
	}{
		{"mode at coupling 0", fork + "collective: {reconcile: {mode: rework}}\n", nil,
			"r.yaml:3:26: collective.reconcile.mode: " + unused + "task.coupling is 0; remove it (or --set collective.reconcile.mode=fail, its default), or set what makes it count"},
		{"rework at coupling 0", fork + "collective: {reconcile: {mode: rework, rework: 0.3}}\n", nil,
			"collective.reconcile.rework: " + unused + "task.coupling is 0"},
		{"rework under mode fail", fork + "collective: {reconcile: {rework: 0.3}}\n", []string{"task.coupling=0.5"},
			`collective.reconcile.rework: given but never used: only reconcile.mode rework redoes work (the mode is "fail")`},
		{"a chain", "task: {shape: chain, length: 3, work: 5m, coupling: 0.5}\npolicy: {organization: team}\ncollective: {reconcile: {mode: rework}}\n", nil,
			"collective.reconcile.mode: " + unused + `shape "chain" has no join of several parts, where a coupling acts`},
		{"one agent", fork + "collective: {agents: 1, reconcile: {mode: rework}}\n", []string{"task.coupling=0.5"},
			"collective.reconcile.mode: given but never used: collective.agents is 1, so the main agent works alone"},
		{"a --set that uncouples", "task: {shape: fork-join, width: 3, stages: 1, work: 5m, coupling: 0.5}\npolicy: {organization: team}\ncollective: {reconcile: {mode: rework}}\n", []string{"task.coupling=0", "collective.reconcile.rework=0.4"},
			"--set task.coupling=0: collective.reconcile.mode: " + unused + "task.coupling is 0"},
		{"coupled", fork + "collective: {reconcile: {mode: rework, rework: 0.3}}\n", []string{"task.coupling=0.5"}, ""},
		{"a coupled variant", fork + "collective: {reconcile: {mode: rework, rework: 0.3}}\nvariants:\n  - {name: a}\n  - {name: b, set: {task.coupling: 0.5}}\n", nil, ""},
		{"a variant's own value", fork + "variants:\n  - {name: a, set: {collective.reconcile.mode: rework}}\n  - {name: b, set: {task.coupling: 0.5}}\n", nil,
			`variant "a": collective.reconcile.mode: ` + unused + "task.coupling is 0"},
		{"a sweep of couplings", fork + "collective: {reconcile: {mode: rework}}\nsweep:\n  command: run\n  grid:\n    task.coupling: [0, 0.5]\n", nil, ""},
		{"a sweep of uncoupled shapes", "task: {shape: chain, length: 3, work: 5m, coupling: 0.5}\npolicy: {organization: team}\ncollective: {reconcile: {mode: rework}}\nsweep:\n  command: run\n  grid:\n    task.length: [2, 3]\n", nil,
			"collective.reconcile.mode: " + unused + `shape "chain"`},
		{"a file's graph", "task: {shape: file, path: g.dot, work: 5m}\npolicy: {organization: team}\ncollective: {reconcile: {mode: rework}}\n", nil, ""},
		{"a mixture", "task: {shape: mixture, components: [{weight: 1, shape: fork-join, width: 2, stages: 1, work: 1m, coupling: 0.5}]}\npolicy: {organization: team}\ncollective: {reconcile: {mode: rework}}\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src), "r.yaml", tt.sets)
			errorHas(t, err, tt.want)
		})
	}
}

// TestUnweighedPenalty: reward.latency weighs the latency penalty, so at
// 0 the penalty and its parameters change no reward and are refused, at
// the value or at the override that made the weight 0; a variant or a
// sweep's trial holding the same penalty with a weight makes it count (the
// flagship's none variant beside low, medium and high).
func TestUnweighedPenalty(t *testing.T) {
	const head = "task: {shape: fork-join, width: 3, stages: 1, work: 5m}\ncollective: {agents: 3, time_limit: 2h}\npolicy: {organization: team}\n"
	const unused = "given but never used: reward.latency is 0, so the latency penalty weighs nothing in the reward"
	tests := []struct {
		name, src string
		sets      []string
		want      []string // substrings of the error; none: no error
	}{
		{"a penalty without a weight", head + "reward: {penalty: quadratic, scale: 1h}\n", nil,
			[]string{"p.yaml:4:10: reward.penalty: " + unused + "; remove it (or --set reward.penalty=none, its default), or set what makes it count", "p.yaml:4:30: reward.scale: " + unused}},
		{"a deadline without a weight", head + "reward: {penalty: soft-overlong, deadline: 1h, buffer: 10m}\n", nil,
			[]string{"reward.penalty: " + unused, "reward.deadline: " + unused, "reward.buffer: " + unused}},
		{"steps without a weight", head + "reward: {penalty: critical-steps, steps: 40}\n", nil, []string{"reward.steps: " + unused}},
		{"weighed", head + "reward: {penalty: quadratic, scale: 1h, latency: 0.5}\n", nil, nil},
		{"a --set that unweighs", head + "reward: {penalty: linear, latency: 1}\n", []string{"reward.latency=0"},
			[]string{"--set reward.latency=0: reward.penalty: " + unused}},
		{"a variant of weight 0 beside weighed ones", head + "reward: {penalty: linear}\nvariants:\n  - {name: none}\n  - {name: high, set: {reward.latency: 1}}\n", nil, nil},
		{"a variant's own penalty without a weight", head + "reward: {penalty: linear}\nvariants:\n  - {name: none, set: {reward.penalty: deadline}}\n  - {name: high, set: {reward.latency: 1}}\n", nil,
			[]string{`variant "none": reward.penalty: ` + unused}},
		{"a sweep of weights", head + "reward: {penalty: linear}\nsweep:\n  command: run\n  grid: {reward.latency: [0, 1]}\n", nil, nil},
		{"a sweep of widths", head + "reward: {penalty: linear}\nsweep:\n  command: run\n  grid: {task.width: [2, 3]}\n", nil,
			[]string{"reward.penalty: " + unused}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src), "p.yaml", tt.sets)
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// TestMissingRequiredField: a structure parameter or rate that a shape or
// section needs, left out, is reported as missing at its section, with
// what is allowed; written as 0 it is out of range at the value.
func TestMissingRequiredField(t *testing.T) {
	const policy = "policy: {organization: team}\n"
	for _, tc := range []struct{ name, src, want string }{
		{"stages left out", "task: {shape: fork-join, width: 3, work: 5m}\n",
			`m.yaml:1:1: task.stages: missing (must be at least 1 for shape "fork-join")`},
		{"stages of 0", "task: {shape: fork-join, width: 3, stages: 0, work: 5m}\n",
			`m.yaml:1:36: task.stages: must be at least 1 for shape "fork-join", got 0`},
		{"length left out", "task: {shape: chain, work: 5m}\n",
			`task.length: missing (must be at least 1 for shape "chain")`},
		{"an API's output rate left out", "task: {shape: chain, length: 2, work: 5m}\ncollective: {api: {concurrency: 2}}\n",
			`m.yaml:2:14: collective.api.output_rate: missing (greater than 0`},
		{"an API's output rate of 0", "task: {shape: chain, length: 2, work: 5m}\ncollective: {api: {concurrency: 2, output_rate: 0}}\n",
			`collective.api.output_rate: 0 is out of range (greater than 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tc.src+policy), "m.yaml", nil)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestTrainRangeErrorsNameTheField: an out-of-range hyperparameter of the
// train section is placed at its own line and named, not at the section
// (where "train: beta1, beta2, eps: ..." left the reader to find which)
// nor at another field (lr for lr_end, a "train.schedule" there is none
// of).
func TestTrainRangeErrorsNameTheField(t *testing.T) {
	const head = "task: {shape: chain, length: 2, work: 5m}\npolicy: {organization: team}\ntrain:\n  iterations: 5\n"
	for _, tc := range []struct{ src, want string }{
		{"  beta2: 1.5\n", "t.yaml:5:3: train.beta2: 1.5 is out of range ([0, 1))"},
		{"  policy: mlp\n  hidden: 100000000\n", "t.yaml:6:3: train.hidden: 100000000 is out of range (1 to 1024 for an mlp)"},
		{"  eps: 0\n", "t.yaml:5:3: train.eps: 0 is out of range (greater than 0)"},
		{"  lr_end: -1\n", "t.yaml:5:3: train.lr_end: -1 is out of range (0 or more)"},
		{"  entropy_end: -1\n", "t.yaml:5:3: train.entropy_end: -1 is out of range (0 or more)"},
		{"  lr_schedule: cosin\n", `t.yaml:5:3: train.lr_schedule: "cosin" is not allowed (allowed: constant, linear, cosine); did you mean "cosine"?`},
		{"  entropy_schedule: step\n", `t.yaml:5:3: train.entropy_schedule: "step" is not allowed`},
		{"  advantage: ppo-gae\n  clip_ratio: 0\n", "t.yaml:6:3: train.clip_ratio: 0 is out of range (greater than 0)"},
		{"  advantage: ppo-gae\n  gamma: 1.5\n", "t.yaml:6:3: train.gamma: 1.5 is out of range ([0, 1])"},
		{"  advantage: ppo-gae\n  value_lr: 0\n", "t.yaml:6:3: train.value_lr: 0 is out of range (greater than 0)"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(head+tc.src), "t.yaml", nil)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestSettingsBetweenAgentsWithOneAgent: with collective.agents 1 the main
// agent works alone, whatever the policy, so the settings that act only
// between agents (a helper's spawn, messages, reconciliation, the
// orchestrator's check) would do nothing and are refused, under run and
// train alike; where a variant or a trial with more agents holds the same
// value, it counts.
func TestSettingsBetweenAgentsWithOneAgent(t *testing.T) {
	const task = "task: {shape: fork-join, width: 3, stages: 1, work: 5m, coupling: 0.5}\npolicy: {organization: team}\n"
	const alone = "given but never used: collective.agents is 1, so the main agent works alone"
	tests := []struct {
		name, src, want string
	}{
		{"spawn", "collective: {agents: 1, spawn: 10s}\n", "s.yaml:3:25: collective.spawn: " + alone},
		{"topology", "collective: {agents: 1, comm: {topology: broadcast}}\n", "collective.comm.topology: " + alone},
		{"message size", "collective: {agents: 1, comm: {message_tokens: 50}}\n", "collective.comm.message_tokens: " + alone},
		{"reconcile", "collective: {agents: 1, reconcile: {mode: rework}}\n", "collective.reconcile.mode: " + alone},
		{"orchestrator", "collective: {agents: 1, check: {by: orchestrator}}\n", "collective.check.by: " + alone},
		{"selection's cost", "collective: {agents: 1, select: {cost: 1h}}\n", "s.yaml:3:34: collective.select.cost: " + alone},
		{"selection's accuracy", "collective: {agents: 1, select: {accuracy: 0.1}}\n", "collective.select.accuracy: " + alone},
		{"synthesis", "collective: {agents: 1, select: {merge: synthesis}}\n", "collective.select.merge: " + alone},
		// Naming the default (what the empty value does) is no mistake.
		{"named defaults", "collective: {agents: 1, select: {merge: verify}, check: {by: maker}}\n", ""},
		{"a variant of one agent", "collective: {comm: {topology: broadcast}}\nvariants:\n  - {name: solo, set: {collective.agents: 1, collective.comm.topology: blackboard}}\n",
			`variant "solo": collective.comm.topology: ` + alone},
		// Where another variant or a trial with more agents holds the
		// value, it counts: team sizes compared under one setting.
		{"variants of team sizes", "collective: {comm: {topology: broadcast}, spawn: 10s}\nvariants:\n  - {name: solo, set: {collective.agents: 1}}\n  - {name: four, set: {collective.agents: 4}}\n", ""},
		{"a sweep of team sizes", "collective: {spawn: 10s}\nsweep:\n  command: run\n  grid:\n    collective.agents: [1, 4]\n", ""},
		{"defaults", "collective: {agents: 1}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(task+tt.src), "s.yaml", nil)
			errorHas(t, err, tt.want)
		})
	}
}

// TestSelectAccuracyUnderSynthesis: select.merge synthesis merges every
// independent attempt without judging any, so select.accuracy, the
// verifier's chance of judging right, is never drawn there; where a
// variant that verifies holds the same accuracy, it counts.
func TestSelectAccuracyUnderSynthesis(t *testing.T) {
	const head = "task: {shape: fork-join, width: 3, stages: 1, work: 5m, difficulty: 0.2}\npolicy: {organization: independent}\n"
	const unjudged = "collective.select.accuracy: given but never used: select.merge synthesis merges every attempt's result without judging any"
	tests := []struct {
		name, src string
		sets      []string
		want      string
	}{
		{"synthesis", "collective: {select: {merge: synthesis, accuracy: 0.5}}\n", nil, "s.yaml:3:41: " + unjudged},
		{"verify", "collective: {select: {merge: verify, accuracy: 0.5}}\n", nil, ""},
		{"synthesis by --set", "collective: {select: {accuracy: 0.5}}\n", []string{"collective.select.merge=synthesis"}, "--set collective.select.merge=synthesis: " + unjudged},
		{"synthesis by --set, then agents", "collective: {select: {accuracy: 0.5}}\n", []string{"collective.select.merge=synthesis", "collective.agents=3"}, "--set collective.select.merge=synthesis: " + unjudged},
		{"the default accuracy", "collective: {select: {merge: synthesis, accuracy: 0.9}}\n", nil, ""},
		{"variants of merges", "collective: {select: {accuracy: 0.5}}\nvariants:\n  - {name: verify}\n  - {name: synth, set: {collective.select.merge: synthesis}}\n", nil, ""},
		{"a variant of synthesis alone", "collective: {select: {merge: synthesis}}\nvariants:\n  - {name: a}\n  - {name: b, set: {collective.select.accuracy: 0.5}}\n", nil, `variant "b": ` + unjudged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(head+tt.src), "s.yaml", tt.sets)
			errorHas(t, err, tt.want)
		})
	}
}

// TestStrengthWithoutDifficulty: an attempt succeeds with probability
// (1 − d)^(1/strength), which is 1 whatever the strength where every
// difficulty d is 0, so a strength there is refused; a kind's preset, a
// mixture's component or a file's graph may give a difficulty, and a
// variant with one makes a strength shared with it count.
func TestStrengthWithoutDifficulty(t *testing.T) {
	const policy = "policy: {organization: team}\n"
	const unused = "collective.strength: given but never used: task.difficulty is 0 at every subtask"
	tests := []struct {
		name, src string
		sets      []string
		want      string
	}{
		{"no difficulty", "task: {shape: chain, length: 2, work: 5m}\ncollective: {strength: 2}\n", nil, "s.yaml:2:14: " + unused},
		{"a difficulty of 0", "task: {shape: chain, length: 2, work: 5m, difficulty: 0}\ncollective: {strength: 2}\n", nil, unused},
		{"one that always draws 0", "task: {shape: chain, length: 2, work: 5m, difficulty: uniform(0, 0)}\ncollective: {strength: 2}\n", nil, unused},
		{"made 0 by --set", "task: {shape: chain, length: 2, work: 5m, difficulty: 0.2}\ncollective: {strength: 2}\n", []string{"task.difficulty=0"}, "--set task.difficulty=0: " + unused},
		{"a difficulty", "task: {shape: chain, length: 2, work: 5m, difficulty: 0.2}\ncollective: {strength: 2}\n", nil, ""},
		{"a kind", "task: {kind: sequential}\ncollective: {strength: 2}\n", nil, ""},
		{"a mixture", "task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 5m}, {weight: 1, shape: chain, length: 2, work: 5m, difficulty: 0.3}]}\ncollective: {strength: 2}\n", nil, ""},
		{"a mixture without", "task: {shape: mixture, components: [{weight: 1, shape: chain, length: 2, work: 5m}]}\ncollective: {strength: 2}\n", nil, unused},
		{"variants of difficulties", "task: {shape: chain, length: 2, work: 5m}\ncollective: {strength: 2}\nvariants:\n  - {name: easy}\n  - {name: hard, set: {task.difficulty: 0.3}}\n", nil, ""},
		{"the default strength", "task: {shape: chain, length: 2, work: 5m}\ncollective: {strength: 1}\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src+policy), "s.yaml", tt.sets)
			errorHas(t, err, tt.want)
		})
	}
}

// TestToolPoolOfEveryAgent: an agent makes one tool call at a time and at
// most collective.agents agents are live, so a pool of as many sandboxes
// or more never makes a call wait; where a variant with more agents holds
// the same pool, it counts.
func TestToolPoolOfEveryAgent(t *testing.T) {
	const head = "task: {shape: fork-join, width: 8, stages: 1, work: 5m, tool_calls: poisson(4), tool_latency: 20s}\npolicy: {organization: split}\n"
	const unused = "collective.tools.pool: given but never used: collective.agents is 4, so at most 4 tool calls run at once"
	tests := []struct {
		name, src string
		sets      []string
		want      string
	}{
		{"as many as the agents", "collective: {agents: 4, tools: {pool: 4}}\n", nil, "s.yaml:3:33: " + unused},
		{"more", "collective: {agents: 4, tools: {pool: 100}}\n", nil, unused},
		{"agents made fewer by --set", "collective: {agents: 8, tools: {pool: 6}}\n", []string{"collective.agents=4"}, "--set collective.agents=4: collective.tools.pool: given but never used"},
		{"fewer than the agents", "collective: {agents: 4, tools: {pool: 3}}\n", nil, ""},
		{"variants of team sizes", "collective: {agents: 2, tools: {pool: 3}}\nvariants:\n  - {name: two}\n  - {name: eight, set: {collective.agents: 8}}\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(head+tt.src), "s.yaml", tt.sets)
			errorHas(t, err, tt.want)
		})
	}
}

// TestOutputTokensWithOneAgent: a part's output tokens are read where its
// result goes to another agent, into a shared server's prefill, or
// against a token budget; one agent without those never reads them.
func TestOutputTokensWithOneAgent(t *testing.T) {
	const head = "task: {shape: fork-join, width: 3, stages: 2, work: 5m, output_tokens: 500}\npolicy: {organization: independent}\n"
	tests := []struct {
		name, src, want string
	}{
		{"alone", "collective: {agents: 1}\n", "s.yaml:1:57: task.output_tokens: given but never used: collective.agents is 1, so no part's result is sent"},
		{"two agents", "collective: {agents: 2}\n", ""},
		{"a token budget", "collective: {agents: 1, token_budget: 100000}\n", ""},
		{"a shared server", "collective: {agents: 1, serving: {replicas: 1}}\n", ""},
		{"a hosted API", "collective: {agents: 1, api: {concurrency: 4, output_rate: 50}}\n", ""},
		{"variants of team sizes", "collective: {agents: 1}\nvariants:\n  - {name: solo}\n  - {name: four, set: {collective.agents: 4}}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(head+tt.src), "s.yaml", nil)
			errorHas(t, err, tt.want)
		})
	}
}

// TestIdentical: variants whose specs are the same, as an evaluation
// plays them (a policy file in place of the organization), come in
// groups; a variant that sets what another has is one of them.
func TestIdentical(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	assert.Empty(t, sc.Identical(), "split and team differ")
	sc, err = scenarios.Load("tiny", []string{"policy.file=p.json"})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"split", "team"}}, sc.Identical())
	sc, err = scenarios.Parse([]byte("task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\nvariants:\n  - {name: a}\n  - {name: b, set: {collective.agents: 2}}\n  - {name: c, set: {policy.organization: team}}\n  - {name: d, set: {collective.agents: 2}}\n"), "i.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"a", "c"}, {"b", "d"}}, sc.Identical())
}

// TestNarrowedLibrarySweep: a --set that narrows a library scenario's sweep
// can leave one of its values unused (pressure-sweep's reconcile setting,
// without its axis over task.coupling), which no one can remove from the
// file; the error's remedy, a --set of the default, is accepted.
func TestNarrowedLibrarySweep(t *testing.T) {
	narrow := "sweep.grid={reward.latency: [3]}"
	_, err := scenarios.Load("pressure-sweep", []string{narrow})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "collective.reconcile.mode: given but never used: no two parts can conflict at a join, as task.coupling is 0; remove it (or --set collective.reconcile.mode=fail, its default)")
	sc, err := scenarios.Load("pressure-sweep", []string{narrow, "collective.reconcile.mode=fail"})
	require.NoError(t, err)
	assert.Equal(t, collective.ConflictFail, sc.Variants[0].Spec.Collective.Reconcile.Mode)
}

// errorHas checks that err contains want, or that there is none where want
// is "", and reports whether an error was wanted.
func errorHas(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		assert.NoError(t, err)
		return false
	}
	assert.ErrorContains(t, err, want)
	return true
}
