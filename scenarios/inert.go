package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
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
	{"train.baseline_rate", func(s *Spec) string {
		return unless(s.Train.Advantage == rlcr.MovingAverage, "only the moving-average advantage has a baseline rate (train.advantage is %q)", s.Train.Advantage)
	}},
	{"collective.reconcile.rework", func(s *Spec) string {
		return unless(s.Collective.Reconcile.Mode == collective.ConflictRework, "only reconcile.mode rework redoes work (the mode is %q)", s.Collective.Reconcile.Mode)
	}},
}

func init() {
	for _, f := range []string{"epochs", "clip_ratio", "gamma", "lambda", "value_lr", "value_epochs"} {
		inertRules = append(inertRules, inertRule{"train." + f, func(s *Spec) string {
			return unless(s.Train.Advantage == rlcr.PPOGAE, "only the ppo-gae advantage reads it (train.advantage is %q)", s.Train.Advantage)
		}})
	}
}

func unless(used bool, format string, args ...any) string {
	if used {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// checkInert reports the values of a variant that do nothing.
func (p *parse) checkInert(vs *variantState) {
	defaults := reflect.ValueOf(&defaultSpec).Elem()
	spec := reflect.ValueOf(&vs.Spec).Elem()
	for _, r := range inertRules {
		segs, err := parsePath(r.path)
		if err != nil {
			panic(err) // a rule's path is a constant
		}
		v, err1 := findField(spec, segs, nil)
		d, err2 := findField(defaults, segs, nil)
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("inert rule %s: %v %v", r.path, err1, err2))
		}
		if reflect.DeepEqual(v.Interface(), d.Interface()) {
			continue
		}
		if why := r.inert(&vs.Spec); why != "" {
			p.report(r.path, "given but never used: "+why+"; remove it, or set what makes it count", vs)
		}
	}
}

// shadowedFlags returns a warning for every --set that some variants
// override with their own set:, and an error for one that every variant
// overrides, since it then changes nothing.
func (p *parse) shadowedFlags(variants []variantState) []string {
	if len(variants) == 0 || variants[0].implicit {
		return nil
	}
	var warnings []string
	for _, f := range p.flags {
		var by []string
		for i := range variants {
			for _, o := range variants[i].overrides {
				if o.path == f.path || strings.HasPrefix(f.path, o.path+".") {
					by = append(by, variants[i].Name)
					break
				}
			}
		}
		switch {
		case len(by) == 0:
		case len(by) == len(variants):
			p.errs.add(&Error{Source: f.source, Path: f.path, Msg: fmt.Sprintf("changes nothing: every variant sets %s itself (%s); edit the variants, or give --set variants' own values in the file", f.path, strings.Join(by, ", "))})
		default:
			warnings = append(warnings, fmt.Sprintf("%s applies only to the variants that do not set %s themselves: not to %s", f.source, f.path, strings.Join(by, ", ")))
		}
	}
	return warnings
}
