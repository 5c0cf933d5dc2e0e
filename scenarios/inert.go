package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
)

// A value that a scenario changes from its default but that the rest of
// its settings never read would silently do nothing: the user meant
// something by it. Those are errors, placed where the value was given. A
// default that goes unused is no mistake (and the resolved scenario,
// which writes every field, must load again).

// inertRule says when a given field does nothing.
type inertRule struct {
	path  string
	inert func(s *Spec) string // why the field is not read, or ""
}

// defaultSpec holds the defaults that a file's fields start from.
var defaultSpec = Spec{Collective: collective.Defaults(), Reward: rlcr.DefaultReward(), Train: rlcr.DefaultConfig()}

var inertRules = []inertRule{
	{"train.hidden", func(s *Spec) string {
		return unless(s.Train.Policy == "mlp", "only an mlp policy has hidden units (train.policy is %q)", s.Train.Policy)
	}},
	{"train.std_norm", func(s *Spec) string {
		return unless(s.Train.Advantage == rlcr.FlatCollective, "only the flat-collective advantage divides by the group's std (train.advantage is %q)", s.Train.Advantage)
	}},
	// Common random numbers are shared among the rollouts of a group.
	{"train.crn", func(s *Spec) string {
		return unless(s.Train.Group != 1, "train.group is 1, so no two rollouts of a task instance share (or do not share) the environment's draws")
	}},
	{"train.baseline_rate", func(s *Spec) string {
		return unless(s.Train.Advantage == rlcr.MovingAverage, "only the moving-average advantage has a baseline rate (train.advantage is %q)", s.Train.Advantage)
	}},
	// An end equal to the start says what a constant schedule does. The
	// values are named: a --set of the start alone (train.lr) makes an end
	// the reader never gave differ from it.
	{"train.lr_end", func(s *Spec) string {
		return unless(s.Train.LRSchedule != rlcr.Constant || s.Train.LREnd == s.Train.LR, "a constant schedule stays at train.lr (train.lr_schedule is %q), and train.lr_end %g is not train.lr %g", s.Train.LRSchedule, s.Train.LREnd, s.Train.LR)
	}},
	{"train.entropy_end", func(s *Spec) string {
		return unless(s.Train.EntropySchedule != rlcr.Constant || s.Train.EntropyEnd == s.Train.Entropy, "a constant schedule stays at train.entropy (train.entropy_schedule is %q), and train.entropy_end %g is not train.entropy %g", s.Train.EntropySchedule, s.Train.EntropyEnd, s.Train.Entropy)
	}},
	// A schedule moves from its start to its end: where the two are equal
	// its shape does nothing (constant names what that is, and is no
	// mistake).
	{"train.lr_schedule", func(s *Spec) string {
		return unless(s.Train.LRSchedule == rlcr.Constant || s.Train.LREnd != s.Train.LR, "train.lr_end is train.lr (%g), so the rate stays there whatever the schedule's shape", s.Train.LR)
	}},
	{"train.entropy_schedule", func(s *Spec) string {
		return unless(s.Train.EntropySchedule == rlcr.Constant || s.Train.EntropyEnd != s.Train.Entropy, "train.entropy_end is train.entropy (%g), so the bonus stays there whatever the schedule's shape", s.Train.Entropy)
	}},
	{"task.coupling", func(s *Spec) string { return couplingInert(&s.Task) }},
	// A part's output tokens are read where its result goes to another
	// agent, into a shared server's prefill, or against a token budget (a
	// check's prompt): one agent alone, without those, reads them nowhere.
	// (An agents out of range, 0, is reported for itself alone.)
	{"task.output_tokens", func(s *Spec) string {
		return unless(s.Collective.Agents != 1 || !s.Collective.Serving.IsZero() || s.Collective.API != (serving.API{}) || s.Collective.TokenBudget > 0,
			"collective.agents is 1, so no part's result is sent to another agent as its input, and without collective.serving, collective.api or collective.token_budget nothing depends on the tokens of a check's prompt, which reads the part")
	}},
	// A layered graph draws its edges, each with edge_prob, from one layer
	// to the next: one layer has none. (It is a graph still, of parallel
	// parts, where a tree of depth 0, its root alone, is refused by
	// task.Family.Validate.) One node a layer is its layer's only parent
	// of the next, which a node left without a parent gets anyway.
	{"task.edge_prob", func(s *Spec) string {
		shape, what, p := resolvedShape(&s.Task)
		switch {
		case shape != task.ShapeLayered:
			return ""
		case cmp.Or(s.Task.Depth, p.Depth) == 1:
			return what + " with depth 1 is one layer, and edges (each drawn with edge_prob) join a layer only to the next"
		case cmp.Or(s.Task.Width, p.Width) == 1:
			return what + " with width 1 has one node a layer, and a node left without an edge (each drawn with edge_prob) gets one from the layer above: every graph is the same chain, whatever edge_prob"
		}
		return ""
	}},
	{"collective.reconcile.mode", unreconciled},
	{"collective.reconcile.rework", func(s *Spec) string {
		if s.Collective.Reconcile.Mode != collective.ConflictRework {
			return fmt.Sprintf("only reconcile.mode rework redoes work (the mode is %q)", s.Collective.Reconcile.Mode)
		}
		return unreconciled(s)
	}},
	// An attempt succeeds with probability (1 − d)^(1/strength): where
	// every difficulty d is 0, that is 1 whatever the strength.
	{"collective.strength", func(s *Spec) string {
		return unless(mayBeDifficult(&s.Task), "task.difficulty is 0 at every subtask, so every attempt succeeds with probability (1 − 0)^(1/strength) = 1, whatever the strength")
	}},
	// An agent makes one tool call at a time, and at most
	// collective.agents agents are live: a pool of as many sandboxes or
	// more never makes a call wait.
	{"collective.tools.pool", func(s *Spec) string {
		c := &s.Collective
		return unless(c.Tools.Pool < c.Agents, "collective.agents is %d, so at most %d tool calls run at once (each agent makes one at a time), and a pool of %d sandboxes never makes one wait", c.Agents, c.Agents, c.Tools.Pool)
	}},
	// A synthesis merges every attempt's result without judging any
	// (collective.Selection), so the verifier's accuracy is never drawn.
	{"collective.select.accuracy", func(s *Spec) string {
		if s.Collective.Select.Merge == collective.MergeSynthesis {
			return "select.merge synthesis merges every attempt's result without judging any, and only the verifier of select.merge verify judges with select.accuracy"
		}
		return alone(s)
	}},
}

// unweighed are the reward's settings of its latency penalty, which
// reward.latency weighs: at 0 they change no reward.
var unweighed = []string{"penalty", "scale", "deadline", "buffer", "steps"}

func init() {
	for _, f := range unweighed {
		inertRules = append(inertRules, inertRule{"reward." + f, func(s *Spec) string {
			return unless(s.Reward.Latency != 0, "reward.latency is 0, so the latency penalty weighs nothing in the reward")
		}})
		inertCauses["reward."+f] = func(*Spec) []string { return []string{"reward.latency"} }
	}
	for _, f := range []string{"credit", "credit_baseline"} {
		inertRules = append(inertRules, inertRule{"train." + f, func(s *Spec) string {
			return unless(s.Train.Advantage == rlcr.PerAgent, "only the per-agent advantage replays counterfactuals (train.advantage is %q)", s.Train.Advantage)
		}})
	}
	for _, f := range betweenAgents {
		// The rules above of reconcile.mode and select.accuracy give this
		// reason too.
		if f != "reconcile.mode" && f != "select.accuracy" {
			path := "collective." + f
			inertRules = append(inertRules, inertRule{path, func(s *Spec) string {
				if namedDefault(s, path) {
					return ""
				}
				return alone(s)
			}})
		}
	}
	for _, f := range []string{"epochs", "clip_ratio", "gamma", "lambda", "value_lr", "value_epochs"} {
		inertRules = append(inertRules, inertRule{"train." + f, func(s *Spec) string {
			return unless(s.Train.Advantage == rlcr.PPOGAE, "only the ppo-gae advantage reads it (train.advantage is %q)", s.Train.Advantage)
		}})
	}
}

// Inert returns why the field at path (train.lambda) does nothing under
// spec ("only the ppo-gae advantage reads it"), or "" where it may act
// or no rule says: a chart's legend names a setting only where it acts.
func Inert(spec *Spec, path string) string {
	for _, r := range inertRules {
		if r.path == path {
			if why := r.inert(spec); why != "" {
				return why
			}
		}
	}
	return ""
}

// mayBeDifficult reports whether a subtask of f's graphs may draw a
// difficulty above 0: its own distribution's, or its kind's, can; a
// mixture's component's may; a file's graph may give one itself, and is
// not judged.
func mayBeDifficult(f *task.Family) bool {
	if f.Shape == task.ShapeFile {
		return true
	}
	for i := range f.Components {
		if mayBeDifficult(&f.Components[i].Family) {
			return true
		}
	}
	d := f.Difficulty
	if _, _, p := resolvedShape(f); d.IsZero() {
		d = p.Difficulty
	}
	_, hi := d.Support()
	return hi > 0
}

// couplingInert says why the coupling of f's graphs never acts, or "".
// A coupling acts only at a join that needs every one of two or more parts
// (collective's reconcile, and the coupling a policy observes): a chain
// has no such join, a needle's join takes any one try, and a fork-join or
// layered graph one part wide, or a tree of branching 1, joins one part at
// a time. A file's graph and a mixture's components are not judged here.
func couplingInert(f *task.Family) string {
	why, _ := couplingOff(f)
	return why
}

// couplingOff returns couplingInert's reason, and the fields that give
// it, most telling first (inertCauses).
func couplingOff(f *task.Family) (why string, causes []string) {
	shape, what, p := resolvedShape(f)
	width, branching := cmp.Or(f.Width, p.Width), cmp.Or(f.Branching, p.Branching)
	shapes := []string{"task.shape", "task.kind"}
	const none = " has no join of several parts, where a coupling acts"
	switch {
	case shape == task.ShapeChain:
		return what + none, shapes
	case shape == task.ShapeNeedle:
		return what + " joins its tries with any (the first acceptable one settles it), so no parts are reconciled", shapes
	case (shape == task.ShapeForkJoin || shape == task.ShapeLayered) && width == 1:
		return what + " with width 1" + none, append([]string{"task.width"}, shapes...)
	case shape == task.ShapeTree && branching == 1:
		return what + " with branching 1" + none, append([]string{"task.branching"}, shapes...)
	}
	return "", nil
}

// resolvedShape returns f's shape, its name for a message, and its
// kind's preset (the zero Family without a kind), whose fields f's
// explicit ones override (task.Family): cmp.Or(f.Width, p.Width).
func resolvedShape(f *task.Family) (shape, what string, p task.Family) {
	if p, ok := task.KindPreset(f.Kind); ok {
		return p.Shape, fmt.Sprintf("kind %q (shape %q)", f.Kind, p.Shape), p
	}
	return f.Shape, fmt.Sprintf("shape %q", f.Shape), task.Family{}
}

// unreconciled says why the settings of reconciling never act in s, or
// "": a conflict is drawn only at a join whose coupling is above 0 between
// parts that two agents made (collective's reconcile). A file's graph and
// a mixture's components carry couplings of their own and are not judged.
func unreconciled(s *Spec) string {
	if why, _ := uncoupled(&s.Task); why != "" {
		return "no two parts can conflict at a join, as " + why
	}
	return alone(s)
}

// unreconciledCauses returns the fields that give unreconciled's reason,
// most telling first (inertCauses).
func unreconciledCauses(s *Spec) []string {
	if _, causes := uncoupled(&s.Task); causes != nil {
		return causes
	}
	return []string{"collective.agents"}
}

// alone says why the settings that act only between two agents never do
// in s, or "".
func alone(s *Spec) string {
	return unless(s.Collective.Agents > 1, "collective.agents is 1, so the main agent works alone, whatever its policy: no helper is spawned, no finding or hand-off is sent, no part made by another is reconciled or handed back to be checked, and no other attempt's result is selected among or merged")
}

// uncoupled returns why no join of f's graphs has a coupling, or "", and
// the fields that give the reason, most telling first (inertCauses).
func uncoupled(f *task.Family) (why string, causes []string) {
	switch {
	case f.Path != "" || len(f.Components) > 0:
		return "", nil
	case f.Coupling.IsZero():
		return "task.coupling is 0", []string{"task.coupling"}
	}
	return couplingOff(f)
}

// inertCauses returns, for the fields of the inertRules that another
// field switches off, the fields of s that do, most telling first: an
// override of one of them, rather than the last override of the section,
// is where the problem is placed.
var inertCauses = map[string]func(s *Spec) []string{
	"task.coupling": func(s *Spec) []string {
		_, causes := couplingOff(&s.Task)
		return causes
	},
	"collective.reconcile.mode": unreconciledCauses,
	"task.edge_prob": func(s *Spec) []string {
		if _, _, p := resolvedShape(&s.Task); cmp.Or(s.Task.Depth, p.Depth) == 1 {
			return []string{"task.depth", "task.shape", "task.kind"}
		}
		return []string{"task.width", "task.shape", "task.kind"}
	},
	"task.output_tokens":    func(*Spec) []string { return []string{"collective.agents"} },
	"collective.strength":   func(*Spec) []string { return []string{"task.difficulty", "task.kind", "task.shape"} },
	"collective.tools.pool": func(*Spec) []string { return []string{"collective.agents"} },
	"collective.select.accuracy": func(s *Spec) []string {
		if s.Collective.Select.Merge == collective.MergeSynthesis {
			return []string{"collective.select.merge"}
		}
		return []string{"collective.agents"}
	},
	"collective.reconcile.rework": func(s *Spec) []string {
		if s.Collective.Reconcile.Mode != collective.ConflictRework {
			return []string{"collective.reconcile.mode"}
		}
		return unreconciledCauses(s)
	},
}

func init() {
	for _, f := range betweenAgents {
		if _, ok := inertCauses["collective."+f]; !ok {
			inertCauses["collective."+f] = func(*Spec) []string { return []string{"collective.agents"} }
		}
	}
}

// betweenAgents are the collective's settings that act only between two
// agents or more (under collective). Variants and trials compare team sizes
// under one setting, so a value that a variant with more agents holds
// counts for the variant of one as well (sharedReadBy).
var betweenAgents = []string{"spawn", "comm.topology", "comm.write", "comm.read", "comm.latency", "comm.bandwidth", "comm.message_tokens", "reconcile.mode", "check.by",
	// Only helpers' independent attempts become candidates to select
	// among: the main agent's own result alone ends the episode.
	"select.cost", "select.accuracy", "select.merge"}

// sharedReadBy returns, for each variant, the paths of betweenAgents, of
// the task's rules, the reconcile settings and the latency penalty's whose
// value (not the default) some variant with the same value reads: the
// variant of one agent in a comparison of team sizes, the chain in a
// comparison of shapes under one coupling, the layered graph of depth 1
// in a comparison of depths under one edge_prob, or the variant of latency
// weight 0 in a comparison of weights under one penalty, as a sweep's
// trials over collective.agents, task.kind or reward.latency are judged.
func sharedReadBy(variants []variantState) []map[string]bool {
	var rules []inertRule
	for _, r := range inertRules {
		if strings.HasPrefix(r.path, "task.") || r.path == "collective.reconcile.rework" || r.path == "collective.strength" || r.path == "collective.tools.pool" || slices.Contains(betweenAgents, strings.TrimPrefix(r.path, "collective.")) ||
			slices.Contains(unweighed, strings.TrimPrefix(r.path, "reward.")) {
			rules = append(rules, r)
		}
	}
	return readBy(variants, rules)
}

func unless(used bool, format string, args ...any) string {
	if used {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// checkInert reports the values of a variant that do nothing, and keeps
// those that do nothing under `simulate run` for RunInert. read holds the
// paths of the inertRules that some trial of the variant's sweep reads
// (nil without a sweep): those values count, though the variant's own
// spec leaves them inert. runRead holds the paths of the runInertRules
// whose value another variant shares and reads (runReadBy).
func (p *parse) checkInert(vs *variantState, read, runRead map[string]bool) {
	always, run := inertProblems(&vs.Spec, p.hasSweep(), func(path string) bool {
		return slices.ContainsFunc(vs.overrides, func(o override) bool { return related(o.path, path) })
	})
	// A value refused as it stands (out of its range) is reported once,
	// for that: that it would also go unused is a second error about it.
	invalid := map[string]bool{}
	for _, pr := range specProblems(&vs.Spec) {
		invalid[pr.path] = true
	}
	reported := map[string]bool{}
	for _, pr := range always {
		if !read[pr.path] && !invalid[pr.path] {
			p.report(pr.path, pr.msg, vs)
			reported[pr.path] = true
		}
	}
	for _, pr := range run {
		// One error a value: that it is never used says it all.
		if !runRead[pr.path] && !reported[pr.path] {
			p.reportTo(&p.runErrs, pr.path, pr.msg, vs, runInertCauses(pr.path))
		}
	}
}

// runReadBy returns, for each variant, the paths of the runInertRules
// whose value (not the default) some variant with the same value reads.
// Variants that differ in their organization compare them under one
// setting, as the trials of a sweep of command run do (checkRunTrials):
// a check's cost set once for sequential, independent and team means it
// for the two that check. A value that no variant holding it reads is
// silent, and so is one a variant sets apart from the others.
func runReadBy(variants []variantState) []map[string]bool {
	return readBy(variants, runInertRules)
}

// readBy returns, for each variant, the paths of rules whose value (not
// the default) some variant with the same value reads.
func readBy(variants []variantState, rules []inertRule) []map[string]bool {
	out := make([]map[string]bool, len(variants))
	for i := range out {
		out[i] = map[string]bool{}
	}
	for _, r := range rules {
		values := make([]any, len(variants))
		given := make([]bool, len(variants))
		reads := make([]bool, len(variants))
		for i := range variants {
			values[i], given[i] = r.value(&variants[i].Spec)
			reads[i] = r.inert(&variants[i].Spec) == ""
		}
		for i := range variants {
			if !given[i] {
				continue
			}
			for j := range variants {
				if reads[j] && reflect.DeepEqual(values[j], values[i]) {
					out[i][r.path] = true
					break
				}
			}
		}
	}
	return out
}

// inertProblems returns the values of spec that do nothing, and those
// that do nothing when it is evaluated rather than trained. In a scenario
// with a sweep (sweepy), those are about evaluating its variants: the
// sweep's trials are judged apart (checkRunTrials refuses a value that
// none of a sweep of command run reads).
//
// A value of a file the user cannot edit (a library scenario's, made
// unused by a --set) is removed by a --set of its default, which the
// message says, unless variantSets reports that the spec's variant sets
// the value itself (nil: none does): a --set never replaces a variant's
// own value.
func inertProblems(spec *Spec, sweepy bool, variantSets func(path string) bool) (always, run []problem) {
	always = inertValues(spec, inertRules, func(path, why string) string {
		remove := "remove it"
		if variantSets == nil || !variantSets(path) {
			remove = fmt.Sprintf("remove it (or --set %s=%s, its default)", path, defaultText(path))
		}
		return fmt.Sprintf("given but never used: %s; %s, or set what makes it count", why, remove)
	})
	where := "simulate run or trace, a sweep of command run"
	if sweepy {
		where = "simulate run or trace of the variants; the sweep's trials are judged apart"
	}
	run = inertValues(spec, runInertRules, func(_, why string) string {
		return "never acts when a fixed organization is evaluated (" + where + "): " + why + "; it acts under simulate train, or with a learned policy (--policy FILE, or policy.file)"
	})
	return always, run
}

// defaultText is the default of a rule's field as a --set gives it.
func defaultText(path string) string {
	if def := valueText(reflect.ValueOf(ruleFields()[path].def)); def != "" {
		return def
	}
	return "''" // as a shell reads it: the empty string
}

// inertValues returns a problem for every rule's field that spec changes
// from its default and that does nothing there, its message what msg
// makes of the field's path and why it does nothing.
func inertValues(spec *Spec, rules []inertRule, msg func(path, why string) string) []problem {
	var out []problem
	for _, r := range rules {
		if _, given := r.value(spec); !given {
			continue
		}
		if why := r.inert(spec); why != "" {
			out = append(out, problem{r.path, msg(r.path, why)})
		}
	}
	return out
}

// ruleField is a rule's field: where it is in a Spec, and its default.
type ruleField struct {
	index []int // for reflect.Value.FieldByIndex
	def   any
}

// ruleFields holds every rule's field, found once, when the first
// scenario is checked (after every init has added its rules): a parse
// checks each rule for each variant and trial.
var ruleFields = sync.OnceValue(func() map[string]ruleField {
	defaults := reflect.ValueOf(&defaultSpec).Elem()
	fields := map[string]ruleField{}
	for _, r := range slices.Concat(inertRules, runInertRules) {
		segs, err := parsePath(r.path)
		if err != nil {
			panic(err) // a rule's path is a constant
		}
		var index []int
		t := defaults.Type()
		for _, s := range segs {
			f, ok := lookupField(fieldsOf(t), s.key)
			if !ok || s.index >= 0 {
				panic(fmt.Sprintf("inert rule %s: no field %s in %s", r.path, s.key, t))
			}
			index = append(index, f.index...)
			t = t.FieldByIndex(f.index).Type
		}
		fields[r.path] = ruleField{index, defaults.FieldByIndex(index).Interface()}
	}
	return fields
})

// value returns the rule's field in spec, and whether spec changes it from
// its default.
func (r inertRule) value(spec *Spec) (v any, given bool) {
	f := ruleFields()[r.path]
	v = reflect.ValueOf(spec).Elem().FieldByIndex(f.index).Interface()
	return v, !reflect.DeepEqual(v, f.def)
}

// The commands other than evaluation (SweepRun) and training (SweepTrain)
// that read a scenario, for Unread.
const (
	// TraceCommand is simulate trace: one episode of a variant again
	// (--count more), recording what its agents did.
	TraceCommand = "trace"
	// GraphCommand is simulate graph: the task instance of one episode.
	GraphCommand = "graph"
	// EnvCommand is simulate env (package experiment/env): episodes that
	// an outside learner steps. It reads what an episode needs and, of the
	// train section, only train.actions, the actions its caller may
	// choose, so that it poses the problem simulate train poses.
	EnvCommand = "env"
	// EnvMainCommand is simulate env whose caller decides for the main
	// agent only (make's decide: main): it reads the policy section too,
	// the policy that decides for the other agents.
	EnvMainCommand = "env-main"
)

// Unread returns why the command never reads the field at path (a
// section, or a field in one), or "" when it may: SweepRun for an
// evaluation (simulate run, the trials of a sweep of command run),
// SweepTrain for training (simulate train, the trials of a sweep of
// command train), TraceCommand, GraphCommand, EnvCommand or EnvMainCommand. A value given there would
// change nothing.
func Unread(command, path string) string {
	key := topKey(path)
	if command == GraphCommand {
		switch key {
		case "task", "seed", "name":
			return ""
		}
		return fmt.Sprintf("graph draws only a task instance and reads nothing but task, seed and name (not %s)", key)
	}
	if command == EnvCommand || command == EnvMainCommand {
		switch key {
		case "policy":
			if command == EnvCommand {
				return "the environment's policy is its caller's, so it never reads the policy section (the organization or policy file that simulate run evaluates) unless make's decide is main, where it decides for the agents other than the main one"
			}
		case "train":
			if !related("train.actions", path) {
				return "the environment never trains (its caller learns), so of the train section it reads only train.actions, the actions its caller may choose"
			}
		case "episodes":
			return "the environment runs episodes until its caller stops, so it never reads episodes"
		case "sweep":
			return "only simulate sweep reads the sweep section"
		case "figures":
			return "the environment draws no charts, so it never reads the figures list"
		case "replay":
			return "only a replay (simulate replay, sweeps of command replay) reads the replay section"
		}
		return ""
	}
	if command == SweepReplay {
		switch key {
		case "task", "policy", "reward", "train", "episodes", "collective":
			if !related("collective.serving", path) && !related("collective.api", path) {
				return fmt.Sprintf("a replay replays recorded runs through collective.serving or collective.api under the replay section's load, and reads nothing else of the spec (not %s)", path)
			}
		}
		return ""
	}
	switch key {
	case "replay":
		return "only a replay (simulate replay, sweeps of command replay) reads the replay section"
	case "train":
		if command != SweepTrain {
			return "an evaluation never trains, so it never reads the train section (simulate train and sweeps of command train do)"
		}
	case "policy":
		if command == SweepTrain {
			return "training never reads the policy section (the organization or policy file that an evaluation uses): it learns the policy that train.policy names"
		}
	case "reward":
		if command == TraceCommand {
			return "a trace records what the agents did, not the reward: it never reads the reward section (simulate run and train do)"
		}
	case "figures":
		if command == TraceCommand {
			return "a trace draws no charts, so it never reads the figures list (the charts that --figures copies)"
		}
	case "episodes":
		switch command {
		case SweepTrain:
			return "training never reads episodes (the episodes of each variant in an evaluation): an iteration runs train.batch × train.group episodes"
		case TraceCommand:
			return "a trace runs the episode that --episode names (and --count more after it), not the scenario's episodes"
		}
	}
	return ""
}

// runInertRules say when a field does nothing in an evaluation
// (`simulate run`, or a sweep of command run): a variant without
// policy.file is evaluated with its fixed organization, whose decisions
// (package policy) delegate only ready subtasks, and only in the
// organizations that fan out; the rest of the rules (orgRules) are the
// fields that some fixed organizations never exercise. Training learns a
// policy that may do anything, so there these fields count.
var runInertRules = []inertRule{
	{"collective.handoff.duplicates", func(s *Spec) string {
		return unless(s.Policy.File != "", "every fixed organization (policy.organization) delegates only ready subtasks, so none hands out a duplicate")
	}},
	// A coupling acts where a join reconciles parts that two agents made
	// (and as a feature a learned policy observes): never where the
	// organization keeps every part of an attempt to one agent, nor where
	// one agent is all there is. (A drawn coupling still takes its draws
	// from the task's stream, so its episodes are another sample of the
	// same family, different by nothing the coupling does.)
	{"task.coupling", func(s *Spec) string {
		if s.Policy.File != "" {
			return ""
		}
		if org, err := policy.Organization(s.Policy.Organization); err == nil && !delegates(org) {
			return reconcileRule.why([]string{s.Policy.Organization})
		}
		return unless(s.Collective.Agents > 1, "collective.agents is 1, so the main agent makes every part and no join has parts made by two agents to reconcile")
	}},
}

// runInertCauses returns, for a field of the runInertRules, the fields
// of a spec that leave it without effect in an evaluation, most telling
// first: the fixed organization (which a learned policy would replace),
// or for task.coupling under one that delegates, collective.agents of 1.
// A problem that a --set brought is placed at the --set of one of them,
// not at the last --set given (--set collective.agents=5 after --set
// policy.organization=single was blamed for the coupling of the file).
func runInertCauses(path string) func(*Spec) []string {
	return func(s *Spec) []string {
		if path == "task.coupling" && s.Policy.File == "" {
			if org, err := policy.Organization(s.Policy.Organization); err == nil && delegates(org) {
				return []string{"collective.agents"}
			}
		}
		return []string{"policy.organization", "policy.file"}
	}
}

// runInertByOrganization gives, for the run rules whose reason names the
// spec's fixed organization, the reason for several at once: a sweep of
// command run over organizations names each once (checkRunTrials).
var runInertByOrganization = map[string]func(names []string) string{}

// orgRule is a run rule for fields that a fixed organization reads only
// when reads says so: the settings of what it never does.
type orgRule struct {
	paths []string
	reads func(f policy.Fixed) bool
	// never is what the organizations that do not read the fields never
	// do, for one organization and for several ("never delegates", "never
	// delegate"); so is what follows from it.
	never, nevers, so string
}

// delegates reports whether a fixed organization ever hands a part to a
// helper: only then do parts of one attempt have different makers.
func delegates(f policy.Fixed) bool { return f.Fanout || f.Orchestrates }

var orgRules = []orgRule{
	{paths: []string{"collective.handoff.miss"}, reads: delegates,
		never: "never delegates", nevers: "never delegate", so: "so no hand-off can be misunderstood"},
	{paths: []string{"collective.spawn"}, reads: func(f policy.Fixed) bool { return delegates(f) || f.Attempts },
		never: "never delegates nor starts an independent attempt", nevers: "never delegate nor start an independent attempt",
		so: "so no helper is spawned"},
	{paths: []string{"collective.comm.write", "collective.comm.read", "collective.comm.latency", "collective.comm.bandwidth", "collective.comm.message_tokens"},
		reads: delegates, never: "never delegates", nevers: "never delegate",
		so: "so every part of an attempt is one agent's and no message (hand-off, input or finding) is sent"},
	{paths: []string{"collective.comm.topology"}, reads: func(f policy.Fixed) bool { return f.Shares },
		never: "never shares findings", nevers: "never share findings", so: "so no finding is sent"},
	{paths: []string{"collective.select.cost", "collective.select.accuracy", "collective.select.merge"}, reads: func(f policy.Fixed) bool { return f.Attempts },
		never: "never starts independent attempts", nevers: "never start independent attempts",
		so: "so there are no candidates to select among or merge"},
	{paths: []string{"collective.check.by"}, reads: func(f policy.Fixed) bool { return delegates(f) && f.Checks },
		never: "has no helper check a part", nevers: "have no helper check a part",
		so: "so none is handed back for the orchestrator's check"},
	{paths: []string{"collective.check.cost", "collective.check.accuracy", "collective.check.retries"}, reads: func(f policy.Fixed) bool { return f.Checks },
		never: "never checks a part", nevers: "never check a part", so: "so no check is priced, judged or retried"},
	reconcileRule,
}

// reconcileRule is orgRules' rule for the settings of reconciling the
// parts that two agents made, which task.coupling's run rule shares.
var reconcileRule = orgRule{paths: []string{"collective.reconcile.mode", "collective.reconcile.rework"}, reads: delegates,
	never: "never delegates", nevers: "never delegate",
	so: "so every part of an attempt is one agent's and no join has parts to reconcile"}

func init() {
	for _, r := range orgRules {
		why := r.why
		for _, path := range r.paths {
			runInertRules = append(runInertRules, inertRule{path, func(s *Spec) string {
				if s.Policy.File != "" || namedDefault(s, path) {
					return ""
				}
				org, err := policy.Organization(s.Policy.Organization)
				if err != nil || r.reads(org) {
					return ""
				}
				return why([]string{s.Policy.Organization})
			}})
			runInertByOrganization[path] = why
		}
	}
	runInertByOrganization["task.coupling"] = reconcileRule.why
}

// namedDefault reports whether the spec's value at path names what the
// field's default (its empty value) does: no mistake wherever it is given.
func namedDefault(s *Spec, path string) bool {
	switch path {
	case "collective.check.by":
		return s.Collective.Check.By == collective.ByMaker
	case "collective.select.merge":
		return s.Collective.Select.Merge == collective.MergeVerify
	}
	return false
}

// why is the reason the rule's fields do nothing under the named fixed
// organizations: what they never do, what follows, and which do.
func (r orgRule) why(names []string) string {
	who := "organization " + quoteList(names) + " " + r.never
	if len(names) > 1 {
		who = "organizations " + quoteList(names) + " " + r.nevers
	}
	var do []string
	for _, n := range sortedKeys(policy.Organizations()) {
		if org, _ := policy.Organization(n); r.reads(org) {
			do = append(do, n)
		}
	}
	verb := "does"
	if len(do) > 1 {
		verb = "do"
	}
	return "the fixed " + who + ", " + r.so + " (" + list(do) + " " + verb + ")"
}

// neverDelegate is why a hand-off setting does nothing under the named
// fixed organizations (the first of orgRules is collective.handoff.miss).
func neverDelegate(names []string) string { return orgRules[0].why(names) }

// quoteList is list of the names quoted.
func quoteList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return list(quoted)
}

// list joins items as read aloud: "a", "a and b", "a, b and c".
func list(items []string) string {
	if n := len(items); n > 1 {
		return strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	}
	return strings.Join(items, "")
}

// checkTrialsInert is checkInert for the variants of a scenario with a
// sweep: a value is inert only if no trial of its variant reads it (a
// sweep of train.advantage over ppo-gae reads train.clip_ratio in those
// trials). It reports at the value, with the variant's own reason, as
// without a sweep; a value that the variant's own spec reads is not
// judged. Grid axes are judged at every point; random axes at their draws
// for the scenario's seed, as checkTrials checks them: they draw numbers,
// so they decide only rules that compare numbers (train.lr_end against a
// drawn train.lr under a constant schedule), where a draw practically
// never hits the one value that makes the field count. The run rules stay
// the variant's: simulate run and trace evaluate the variants, not the
// trials, and checkRunTrials judges the trials of a sweep of command run.
//
// An axis that sweeps a field no trial reads is refused at the axis: its
// values would make every trial the same.
func (p *parse) checkTrialsInert(sc *Scenario, variants []variantState) {
	vis := make([]int, len(sc.Variants))
	read := make([]map[string]bool, len(sc.Variants))
	for i := range vis {
		vis[i] = i
		read[i] = map[string]bool{}
	}
	readBy := map[string]bool{} // by any trial of any variant
	why := map[string]string{}  // why a trial does not read it, the first seen
	// The trials were checked before (checkTrials): eachSpec has no error
	// left to return.
	_ = sc.eachSpec(sc.Seed, vis, func(vi int, _ []int, _ int, _ []Param, spec Spec) {
		for _, r := range inertRules {
			switch w := r.inert(&spec); {
			case w == "":
				read[vi][r.path], readBy[r.path] = true, true
			case why[r.path] == "":
				why[r.path] = w
			}
		}
	})
	runRead := runReadBy(variants)
	for i, shared := range sharedReadBy(variants) {
		maps.Copy(read[i], shared)
	}
	for i := range variants {
		p.checkInert(&variants[i], read[i], runRead[i])
	}
	for _, ax := range p.axes {
		if w := why[ax.path]; w != "" && !readBy[ax.path] {
			p.axisError(ax.section, ax.key, "sweep."+ax.section, "%s: no trial reads it: %s; sweep another field, or set what makes it count", ax.path, w)
		}
	}
}

// checkRunTrials reports the values that a sweep of command run leaves
// inert in every trial of their variant: a trial is evaluated, never
// trained. As for a training sweep (checkTrialsInert), a value that acts
// in some trials is not silent: a comparison of organizations under one
// hand-off setting (exp-scaling) means it for those that delegate. The
// reasons the trials give are each named once.
func (p *parse) checkRunTrials(sc *Scenario, variants []variantState) {
	vis := make([]int, len(sc.Variants))
	for i := range vis {
		vis[i] = i
	}
	type inert struct {
		reasons []string // distinct, in the order the trials give them
		orgs    []string // the same, by organization (runInertByOrganization)
		// other is set where a reason is not its organization's alone
		// (task.coupling's where collective.agents is 1): then the reasons
		// are listed, not the organizations.
		other  bool
		trials int
	}
	byVariant := make([]map[string]*inert, len(sc.Variants))
	trials := make([]int, len(sc.Variants))
	// The trials were checked before (checkTrials): eachSpec has no error
	// left to return.
	_ = sc.eachSpec(sc.Seed, vis, func(vi int, _ []int, _ int, _ []Param, spec Spec) {
		trials[vi]++
		if byVariant[vi] == nil {
			byVariant[vi] = map[string]*inert{}
		}
		for _, pr := range inertValues(&spec, runInertRules, func(_, why string) string { return why }) {
			in := byVariant[vi][pr.path]
			if in == nil {
				in = &inert{}
				byVariant[vi][pr.path] = in
			}
			in.trials++
			if !slices.Contains(in.reasons, pr.msg) {
				in.reasons = append(in.reasons, pr.msg)
				in.orgs = append(in.orgs, spec.Policy.Organization)
				byOrg := runInertByOrganization[pr.path]
				in.other = in.other || byOrg == nil || pr.msg != byOrg([]string{spec.Policy.Organization})
			}
		}
	})
	for vi, found := range byVariant {
		for _, r := range runInertRules {
			in := found[r.path]
			if in == nil || in.trials < trials[vi] {
				continue
			}
			why := strings.Join(in.reasons, "; ")
			if !in.other {
				why = runInertByOrganization[r.path](in.orgs)
			}
			msg := fmt.Sprintf("never acts in a sweep of command run: %s; it acts with sweep.command train, or with policy.file (a learned policy)", why)
			// The problem is the value's wherever it was written: at the
			// override that set it, else in the file, not at whichever
			// --set or variant override came last.
			pr := problem{r.path, msg}
			for _, set := range []map[problem]bool{p.fileProblems, p.baseProblems} {
				if set != nil {
					set[pr] = true
				}
			}
			p.report(r.path, msg, &variants[vi])
		}
	}
}

// RunInert returns the errors of values that an evaluation of the
// scenario's variants (`simulate run`, `simulate trace`) would leave
// without effect, though training would use them: a setting of what the
// variant's fixed organization never does (a hand-off, a message, a
// finding, a spawn, a selection among attempts, a check), unless another
// variant holding the same value reads it (runReadBy). Load accepts them, since the same file trains; the run and trace commands
// refuse them. Errors are *Error values, joined when there are several;
// nil when there are none.
func (sc *Scenario) RunInert() error { return sc.runInert }

// A Warning is something a scenario does that is probably not meant but
// not wrong either.
type Warning struct {
	Msg string
	// Variants are the variants it concerns, all of them when empty: a
	// command that plays one variant (Scenario.Only) leaves out the
	// warnings of the others, which would say that a --set it applies
	// does not apply.
	Variants []string

	// flag is the --set whose value Variants replace with another, if the
	// warning is about one: for a command that plays one of them, Only
	// refuses it, since it changes nothing there. lost[i] are the paths
	// of the --set that Variants[i] sets to another value: the --set's
	// own, or for a mapping the keys that the variant replaces.
	flag override
	lost [][]string
}

// shadowedFlags returns an error for every --set that every variant
// overrides, all it sets, with another value of its own set:, since it
// then changes nothing, and a warning for one that some variants
// override in part or whole with another value than its own (base, the
// file with the --sets applied), concerning those variants; a variant
// that sets the --set's own value loses nothing.
func (p *parse) shadowedFlags(variants []variantState, base *file) []Warning {
	if len(variants) == 0 || variants[0].implicit {
		return nil
	}
	var warnings []Warning
	for _, f := range p.flags {
		var other []string
		var leaves [][]string
		whole := 0 // variants that lose all of it
		for i := range variants {
			if which, all := lost(f, &variants[i], base); len(which) > 0 {
				other = append(other, variants[i].Name)
				leaves = append(leaves, which)
				if all {
					whole++
				}
			}
		}
		switch {
		case whole == len(variants):
			p.errs.add(&Error{Source: f.source, Path: f.path, Msg: fmt.Sprintf("changes nothing: every variant sets %s itself (%s); edit the variants, or give --set variants' own values in the file", strings.Join(f.leaves, ", "), strings.Join(other, ", "))})
		case len(other) > 0:
			// The keys lost, not a mapping's section, some of whose
			// keys still apply.
			var lost []string
			for _, l := range leaves {
				for _, k := range l {
					if !slices.Contains(lost, k) {
						lost = append(lost, k)
					}
				}
			}
			warnings = append(warnings, Warning{Msg: fmt.Sprintf("%s applies only to the variants that do not set %s to another value themselves: not to %s", f.source, strings.Join(lost, ", "), list(other)), Variants: other, flag: f, lost: leaves})
		}
	}
	return warnings
}

// lost returns the paths that the --set f sets (its leaves) which
// variant vs sets (there, or in a section or list around one) to another
// value than f's, as base holds it, and whether that is all of them: there
// f acts in part, or not at all. A variant's section set as a mapping
// sets only the keys it names, so it loses a leaf only where its value
// differs.
func lost(f override, vs *variantState, base *file) (which []string, all bool) {
	all = true
	for _, leaf := range f.leaves {
		touched := slices.ContainsFunc(vs.overrides, func(o override) bool { return related(o.path, leaf) })
		if touched && !sameAt(leaf, base, &file{Spec: vs.Spec}) {
			which = append(which, leaf)
		} else {
			all = false
		}
	}
	return which, all
}

// sameAt reports whether a and b hold the same value at path, a --set's.
func sameAt(path string, a, b *file) bool {
	segs, err := parsePath(path)
	if err != nil {
		return false
	}
	va, errA := findField(reflect.ValueOf(a).Elem(), segs, nil)
	vb, errB := findField(reflect.ValueOf(b).Elem(), segs, nil)
	return errA == nil && errB == nil && reflect.DeepEqual(va.Interface(), vb.Interface())
}
