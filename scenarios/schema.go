package scenarios

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Patterns for values written as text. A distribution's name is one that
// sim.ParseDist reads. Neither takes a leading minus sign: the loader
// refuses a negative duration or constant in every field.
const durationPattern = `^\s*(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+\s*$`

var distPattern = `^\s*(([0-9.][0-9.eE+-]*)([a-zµ]+)?([0-9.]+[a-zµ]+)*|(` + strings.Join(sim.DistNames(), "|") + `)\s*\(.*\))\s*$`

const (
	durationDoc = "A duration: a number with a unit (ns, us, ms, s, m, h), such as 90s, 12m or 1h30m; 0 needs no unit."
	distDoc     = "A distribution of non-negative values (seconds for durations): a constant (0.3, 5m), " +
		"const(X), exp(MEAN), uniform(LO, HI), lognormal(mean=M, cv=C), gamma(mean=M, cv=C), normal(mean=M, sd=S) " +
		"truncated at 0, poisson(MEAN) (whole numbers, for counts) or lognormal2(mean=M, cv=C, mean2=M2, cv2=C2, w=W) " +
		"(a mixture of two log-normals, the first with probability W). Arguments are numbers or durations."
)

// JSONSchema returns a JSON Schema (draft 2020-12) of the scenario format,
// for editors: keys, types, allowed names and ranges. Durations and
// distributions are strings with a pattern and a description. The loader
// remains the authority: it also checks what a schema cannot say (which
// structure parameters a task shape uses, that variant names are unique).
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		ExpandedStruct:             true,
		Mapper:                     schemaMapper,
		Namer:                      schemaName,
	}
	s := r.Reflect(&file{})
	s.ID = ""
	s.Title = "swarmsim scenario"
	s.Description = "A scenario of swarmsim: a task family, a collective, a policy, and variants compared on the same task draws."
	refine(s)
	return json.MarshalIndent(s, "", "  ")
}

// schemaName names the definitions of the schema.
func schemaName(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[fileVariant]():
		return "Variant"
	case reflect.TypeFor[collective.Config]():
		return "Collective"
	case reflect.TypeFor[task.Family]():
		return "TaskFamily"
	case reflect.TypeFor[task.Component]():
		return "TaskComponent"
	case reflect.TypeFor[PolicySpec]():
		return "Policy"
	case reflect.TypeFor[rlcr.Reward]():
		return "Reward"
	case reflect.TypeFor[rlcr.Config]():
		return "Train"
	case reflect.TypeFor[fileSweep]():
		return "Sweep"
	}
	return t.Name()
}

func schemaMapper(t reflect.Type) *jsonschema.Schema {
	switch t {
	case timeType:
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			{Type: "string", Pattern: durationPattern},
			{Type: "integer", Const: 0},
		}, Description: durationDoc}
	case distType:
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			{Type: "string", Pattern: distPattern},
			{Type: "number", Minimum: "0"},
		}, Description: distDoc}
	case setListType:
		return &jsonschema.Schema{
			Type:          "object",
			Description:   "Overrides of the base: field paths under task, collective, policy, reward and train (such as collective.check.accuracy or task.components[0].weight) and their values.",
			PropertyNames: &jsonschema.Schema{Type: "string", Pattern: pathPattern},
		}
	case gridListType:
		one := uint64(1)
		return &jsonschema.Schema{
			Type:                 "object",
			Description:          "Grid axes: field paths under task, collective, policy, reward and train (as for --set), each with the list of its values; trials cover every combination, row-major in file order.",
			PropertyNames:        &jsonschema.Schema{Type: "string", Pattern: pathPattern},
			AdditionalProperties: &jsonschema.Schema{Type: "array", MinItems: &one},
		}
	case randomListType:
		return &jsonschema.Schema{
			Type:                 "object",
			Description:          "Random axes: field paths (numbers, integers, durations or distributions) with the distribution their values are drawn from, once per sample.",
			PropertyNames:        &jsonschema.Schema{Type: "string", Pattern: pathPattern},
			AdditionalProperties: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string", Pattern: distPattern}, {Type: "number", Minimum: "0"}}, Description: distDoc},
		}
	case reflect.TypeFor[collective.Topology]():
		return enumSchema("Who receives a shared finding.",
			string(collective.PointToPoint), string(collective.Broadcast), string(collective.Blackboard))
	case reflect.TypeFor[collective.ConflictMode]():
		return enumSchema("What an unreconciled conflict at a coupled join does.",
			string(collective.ConflictFail), string(collective.ConflictRework))
	case reflect.TypeFor[rlcr.Penalty]():
		names := make([]string, len(rlcr.Penalties))
		for i, p := range rlcr.Penalties {
			names[i] = string(p)
		}
		return enumSchema("The shape P(T) of the latency penalty (docs/rlcr.md).", names...)
	case reflect.TypeFor[rlcr.Advantage]():
		return enumSchema("How a rollout's reward becomes the advantage of its decisions.",
			string(rlcr.FlatCollective), string(rlcr.NoBaseline), string(rlcr.MovingAverage), string(rlcr.PerAgent), string(rlcr.PPOGAE))
	case reflect.TypeFor[rlcr.Credit]():
		return enumSchema("The counterfactual of per-agent credit: remove the agent's delegations, attempts and shares, or make it passive.", string(rlcr.Contribution), string(rlcr.Passive))
	case reflect.TypeFor[rlcr.CreditBaseline]():
		return enumSchema("What per-agent credit subtracts: the group's mean difference reward of the agent, or nothing.", string(rlcr.GroupCredit), string(rlcr.NoCredit))
	case reflect.TypeFor[rlcr.LossNorm]():
		return enumSchema("How the loss is averaged: over all decisions, or per rollout first.", string(rlcr.PerDecision), string(rlcr.PerRollout))
	case reflect.TypeFor[replay.Pairing]():
		// A Pairing is a number in Go but a name in the file (its
		// UnmarshalText), so the reflected integer would refuse rank.
		return enumSchema("How a hosted API's replayed latencies pair with the recorded ones: rank (by quantile) or independent (drawn afresh).",
			replay.Rank.String(), replay.Independent.String())
	case reflect.TypeFor[rlcr.Schedule]():
		return enumSchema("How a coefficient moves from its start to its end value.", string(rlcr.Constant), string(rlcr.Linear), string(rlcr.Cosine))
	}
	return nil
}

func enumSchema(doc string, values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: doc}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// refine adds what struct tags cannot say: allowed names, ranges and
// descriptions of the main fields.
func refine(s *jsonschema.Schema) {
	prop := func(def, name string) *jsonschema.Schema {
		var parent *jsonschema.Schema
		if def == "" {
			parent = s
		} else {
			parent = s.Definitions[def]
		}
		if parent == nil || parent.Properties == nil {
			return nil
		}
		p, _ := parent.Properties.Get(name)
		return p
	}
	set := func(def, name, doc string, edit func(p *jsonschema.Schema)) {
		if p := prop(def, name); p != nil {
			if doc != "" {
				p.Description = doc
			}
			if edit != nil {
				edit(p)
			}
		}
	}
	minimum := func(v string) func(*jsonschema.Schema) {
		return func(p *jsonschema.Schema) { p.Minimum = json.Number(v) }
	}
	atMost := func(lo, hi string) func(*jsonschema.Schema) {
		return func(p *jsonschema.Schema) { p.Minimum, p.Maximum = json.Number(lo), json.Number(hi) }
	}
	unit := atMost("0", "1")
	// A distribution's constants have the field's range; the loader also
	// checks the support of the other forms, which a pattern cannot.
	distAtMost := func(hi string, exclusive bool) func(*jsonschema.Schema) {
		return func(p *jsonschema.Schema) {
			for _, alt := range p.AnyOf {
				if alt.Type == "number" {
					if exclusive {
						alt.ExclusiveMaximum = json.Number(hi)
					} else {
						alt.Maximum = json.Number(hi)
					}
				}
			}
		}
	}
	positive := func(p *jsonschema.Schema) { p.ExclusiveMinimum = "0" }

	set("", "name", "The scenario's name ("+nameRule+"); defaults to the file's base name.", func(p *jsonschema.Schema) { p.Pattern = namePattern })
	set("", "description", "A one-line summary, shown by `simulate list`.", nil)
	set("", "seed", "The master seed of every random stream.", minimum("0"))
	set("", "episodes", "Episodes per variant (default 100).", atMost("1", strconv.Itoa(MaxEpisodes)))
	set("", "task", "The task family episodes draw their task graphs from.", nil)
	set("", "collective", "The collective: agents and the costs of calls, messages, checks and spawning. Omitted fields keep their defaults.", nil)
	set("", "policy", "The policy that decides for every agent.", nil)
	set("", "reward", "The collective reward R = task·[acceptable] − latency·P(T) − cost·agent time/cost_scale + annealed PARL terms, for `simulate train` and the reward column of `simulate run`.", nil)
	set("", "train", "The RLCR learner's hyperparameters, for `simulate train`.", nil)
	set("", "replay", "Recorded runs to replay and the load, for `simulate replay` and sweeps of command replay: at most one of sessions (a closed loop; default 1), rate (Poisson arrivals a second) and speedup (recorded start times, sped up).", nil)
	set("", "variants", "Variants compared on the same task draws: the base with overrides. Without variants there is one, named default.", nil)

	set("", "figures", "The charts that `--figures DIR` copies into DIR as SCENARIO_CHART (SVG, PNG and CSV); default every chart.", nil)
	set("", "sweep", "A sweep: trials of the scenario over grid and random values of spec fields, with several seeds each (simulate sweep).", nil)
	set("Sweep", "command", "What each trial does: train (RLCR), run (evaluate) or replay (recorded runs, simulate replay).", func(p *jsonschema.Schema) { p.Enum = []any{SweepTrain, SweepRun, SweepReplay} })
	set("Sweep", "seeds", "Seeds per point: S, S+1, ... (default 1).", minimum("1"))
	set("Sweep", "samples", "Random draws per grid point; required with random axes.", minimum("1"))
	set("Sweep", "metrics", "The final metrics each trial records (default: a few per command).", func(p *jsonschema.Schema) {
		if p.Items != nil {
			for _, m := range slices.Concat(SweepMetrics(SweepTrain), SweepMetrics(SweepRun), SweepMetrics(SweepReplay), RelativeMetrics()) {
				if !slices.Contains(p.Items.Enum, any(m)) {
					p.Items.Enum = append(p.Items.Enum, m)
				}
			}
		}
	})
	set("Sweep", "reference", "Run sweeps: the grid values of the reference trial (the single agent), such as {policy.organization: sequential, collective.agents: 1}; each trial's relative metrics compare it with the trial of the same variant, seed, sample and other values that has these values.", nil)
	set("Variant", "name", "The variant's name, unique in the file ignoring case ("+nameRule+").", func(p *jsonschema.Schema) { p.Pattern = namePattern })
	set("Policy", "organization", "A fixed organization.", func(p *jsonschema.Schema) {
		for _, n := range OrganizationNames() {
			p.Enum = append(p.Enum, n)
		}
	})
	for _, def := range []string{"TaskFamily", "TaskComponent"} {
		set(def, "kind", "A task kind: a preset that sets the shape and default values of the other fields (explicit fields override them).", func(p *jsonschema.Schema) {
			for _, n := range task.Kinds {
				p.Enum = append(p.Enum, n)
			}
		})
		set(def, "shape", "The structure of the drawn graphs (required unless kind gives it).", func(p *jsonschema.Schema) {
			for _, n := range task.Shapes {
				p.Enum = append(p.Enum, n)
			}
		})
		for _, f := range []string{"length", "width", "stages", "branching", "tries"} {
			set(def, f, "", minimum("1"))
		}
		set(def, "depth", "", minimum("1"))
		set(def, "edge_prob", "", unit)
		set(def, "loop_prob", "", unit)
		set(def, "loop", "", minimum("0"))
	}
	for _, def := range []string{"TaskFamily", "TaskComponent"} {
		set(def, "coupling", "κ at joins: a distribution whose values all lie in [0, 1].", distAtMost("1", false))
		set(def, "difficulty", "A subtask's difficulty: a distribution whose values all lie in [0, 1).", distAtMost("1", true))
		set(def, "work", "A subtask's work at speed 1 (required unless the shape is file or a kind gives it).", nil)
	}
	set("TaskComponent", "weight", "The component's weight, relative to the others.", minimum("0"))
	set("Collective", "agents", "The most agents that may exist at once, the main agent included.", minimum("1"))
	set("Collective", "speed", "Work done per unit of virtual time.", positive)
	set("Collective", "strength", "The base model's strength: an attempt at difficulty d succeeds with probability (1-d)^(1/strength).", positive)
	set("Collective", "time_limit", "Episodes still running at this time are not acceptable; 0 means no limit.", nil)
	set("Collective", "token_budget", "Tokens the whole collective may spend on the task (every model call's prompt and output, checks included); the first call that would overdraw it is not made, nor any after it, and the episode is judged on what exists. 0 means no budget.", minimum("0"))
	set("Verification", "by", "Who checks a part a helper of the main team made: maker (default) or orchestrator (the main agent, at its own time).", func(p *jsonschema.Schema) {
		p.Enum = []any{string(collective.ByMaker), string(collective.ByOrchestrator)}
	})
	set("Selection", "merge", "How independent attempts' results become one: verify (default: a verifier selects one) or synthesis (all merged without verification; one unacceptable spoils the whole).", func(p *jsonschema.Schema) {
		p.Enum = []any{string(collective.MergeVerify), string(collective.MergeSynthesis)}
	})
	set("Verification", "accuracy", "", unit)
	set("Verification", "cost", "", minimum("0"))
	set("Verification", "retries", "", minimum("0"))
	set("Selection", "accuracy", "", unit)
	set("Reconcile", "rework", "", minimum("0"))
	set("Calls", "output_rate", "", minimum("0"))
	set("Calls", "system_prompt", "", minimum("0"))
	set("Comm", "bandwidth", "", minimum("0"))
	set("Comm", "message_tokens", "", minimum("0"))
	set("Train", "actions", "The actions the policy may choose among (at least two, each once); the others are masked, and where none of them is valid the agent does what it must without a decision. Omitted: every action.", func(p *jsonschema.Schema) {
		if p.Items != nil {
			for a := range collective.Action(collective.NumActions) {
				p.Items.Enum = append(p.Items.Enum, a.String())
			}
			two := uint64(2)
			p.MinItems = &two
			p.UniqueItems = true
		}
	})
	for _, f := range []string{"iterations", "batch", "group", "epochs"} {
		set("Train", f, "", minimum("1"))
	}
	set("Train", "hidden", "", atMost("1", strconv.Itoa(policy.MaxHidden)))
	for _, f := range []string{"lr", "eps", "clip_ratio", "value_lr"} {
		set("Train", f, "", positive)
	}
	for _, f := range []string{"lr_end", "clip_grad", "entropy", "entropy_end"} {
		set("Train", f, "", minimum("0"))
	}
	for _, f := range []string{"beta1", "beta2"} {
		set("Train", f, "", func(p *jsonschema.Schema) { p.Minimum, p.ExclusiveMaximum = "0", "1" })
	}
	set("Train", "gamma", "", unit)
	set("Train", "lambda", "", unit)
	set("Train", "baseline_rate", "", func(p *jsonschema.Schema) { p.ExclusiveMinimum, p.Maximum = "0", "1" })
	set("Train", "value_epochs", "", minimum("1"))
	set("Train", "warm_iterations", "", minimum("0"))
	set("Train", "policy", "", func(p *jsonschema.Schema) { p.Enum = []any{"linear", "mlp"} })
	set("Train", "warm_start", "", func(p *jsonschema.Schema) {
		for _, n := range OrganizationNames() {
			p.Enum = append(p.Enum, n)
		}
	})
	// The bounds of the shared server, the API, the tools, the hand-offs
	// and the replay: the loader's (collective.Config.Validate,
	// replay.Settings.Validate), where 0 stands for "none" or "no limit".
	set("Deployment", "replicas", "", atMost("0", strconv.Itoa(collective.MaxReplicas)))
	set("Deployment", "max_batch", "", atMost("1", strconv.Itoa(collective.MaxBatch)))
	set("API", "rpm", "", atMost("0", strconv.Itoa(collective.MaxRate)))
	set("API", "tpm", "", atMost("0", strconv.Itoa(collective.MaxRate)))
	set("API", "concurrency", "", minimum("0"))
	set("API", "output_rate", "", atMost("0", "1e9")) // 0 only where no API is set
	set("Tools", "pool", "", minimum("0"))
	set("Handoff", "miss", "", unit)
	set("Handoff", "findings", "", minimum("0"))
	set("Settings", "sessions", "", atMost("0", strconv.Itoa(replay.MaxSessions)))
	set("Settings", "runs", "", atMost("0", strconv.Itoa(replay.MaxRuns)))
	for _, f := range []string{"rate", "speedup"} {
		set("Settings", f, "", minimum("0"))
	}
	set("Reward", "anneal", "", minimum("0"))
	set("Reward", "steps", "", minimum("0")) // 0 is the default of 100, as resolved scenarios write it

	// The reflector drops the descriptions of mapped types; put them back.
	var walk func(p *jsonschema.Schema)
	walk = func(p *jsonschema.Schema) {
		if p == nil {
			return
		}
		if len(p.AnyOf) > 0 && p.Description == "" {
			switch p.AnyOf[0].Pattern {
			case durationPattern:
				p.Description = durationDoc
			case distPattern:
				p.Description = distDoc
			}
		}
		if p.Properties != nil {
			for pair := p.Properties.Oldest(); pair != nil; pair = pair.Next() {
				walk(pair.Value)
			}
		}
		walk(p.Items)
	}
	walk(s)
	for _, name := range sortedKeys(s.Definitions) {
		walk(s.Definitions[name])
	}
}
