package policy

import (
	"fmt"
	"sort"
	"strings"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// Fixed is a fixed organization: a deterministic policy over the shared
// action set. Every organization runs through the same episode code and
// differs from the others only in these decisions.
type Fixed struct {
	// Name is the organization: sequential, independent, split or team.
	Name string
	// Checks makes agents verify each part before handing it on.
	Checks bool
	// Fanout delegates ready subtasks to helpers (split and team).
	Fanout bool
	// Attempts starts independent attempts (independent).
	Attempts bool
	// Shares sends findings to partners after each coupled part (team).
	Shares bool
}

// Organizations returns the fixed organizations by name, with their
// default settings:
//
//   - sequential: one agent works through the task, checking each part and
//     retrying flagged ones;
//   - independent: the main agent starts an independent attempt for every
//     free agent and makes one itself; nobody checks; a verifier selects;
//   - split: agents divide the ready subtasks; results flow along edges;
//     nobody shares findings;
//   - team: as split, and each agent shares its findings with the agents
//     whose parts must be reconciled with its own.
func Organizations() map[string]Fixed {
	return map[string]Fixed{
		"sequential":  {Name: "sequential", Checks: true},
		"independent": {Name: "independent", Attempts: true},
		"split":       {Name: "split", Checks: true, Fanout: true},
		"team":        {Name: "team", Checks: true, Fanout: true, Shares: true},
	}
}

// Organization returns the named fixed organization.
func Organization(name string) (Fixed, error) {
	orgs := Organizations()
	if f, ok := orgs[name]; ok {
		return f, nil
	}
	names := make([]string, 0, len(orgs))
	for n := range orgs {
		names = append(names, n)
	}
	sort.Strings(names)
	return Fixed{}, fmt.Errorf("unknown organization %q (allowed: %s)", name, strings.Join(names, ", "))
}

// Decide implements collective.Policy.
func (f Fixed) Decide(o *c.Observation, m c.Mask, _ float64) c.Action {
	pick := func(prefs ...c.Action) c.Action {
		for _, a := range prefs {
			if m.Has(a) {
				return a
			}
		}
		for a := range c.Action(c.NumActions) {
			if m.Has(a) {
				return a
			}
		}
		return c.Submit
	}
	switch {
	case f.Shares && o.Unshared && m.Has(c.Share):
		return c.Share
	case f.Checks && o.Unchecked && m.Has(c.Check):
		return c.Check
	case f.Attempts && o.Main && o.Elapsed == 0 && m.Has(c.Attempt):
		return c.Attempt
	case o.Ready > 1 && f.Fanout && m.Has(c.Delegate):
		return c.Delegate
	case o.Ready > 0:
		return c.Work
	case o.Complete && (!o.Main || o.Pending == 0):
		return pick(c.Submit)
	}
	return pick(c.Wait, c.Submit)
}
