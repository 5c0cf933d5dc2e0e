package policy

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
	c "github.com/swarmsim/swarmsim/models/collective"
)

// Fixed is a fixed organization: a deterministic policy over the shared
// action set. Every organization runs through the same episode code and
// differs from the others only in these decisions; who verifies a
// delegated part and how independent attempts are merged are the
// collective's settings (collective.check.by, collective.select.merge),
// so that a learned policy reaches every organization through the same
// actions.
type Fixed struct {
	// Name is the organization, as policy.organization names it.
	Name string
	// Checks makes agents verify each part before handing it on.
	Checks bool
	// Fanout delegates ready subtasks to helpers when more than one is
	// ready, so that the agents divide the work.
	Fanout bool
	// Orchestrates makes the main agent an orchestrator: it delegates
	// every ready subtask it can, one at a time too, and works a part
	// itself only when no helper is idle and none may be spawned; helpers
	// work what is ready and never delegate. With collective.check.by:
	// orchestrator every step of a chain is then a hand-off, with what a
	// hand-off risks (collective.handoff.miss); with checks by their
	// makers a helper goes on with the chain itself.
	Orchestrates bool
	// Attempts starts independent attempts (independent).
	Attempts bool
	// Shares sends findings to partners after each coupled part.
	Shares bool
}

// Organizations returns the fixed organizations by name, with their
// default settings:
//
//   - sequential: one agent works through the task, checking each part and
//     retrying flagged ones;
//   - independent: the main agent starts an independent attempt for every
//     free agent and makes one itself; nobody checks; the candidates are
//     merged as collective.select.merge says (a verifier selects one, or a
//     synthesis merges them all without verification);
//   - split: agents divide the ready subtasks; results flow along edges;
//     each part is checked before it is handed on; nobody shares findings;
//   - team: as split, and each agent shares its findings with the agents
//     whose parts must be reconciled with its own;
//   - centralized: an orchestrator (the main agent) hands every ready
//     subtask it can to a helper, one at a time too, and each part is
//     checked before it is handed on (with collective.check.by:
//     orchestrator the orchestrator verifies the parts it delegated, at
//     its own time; by default their makers do);
//   - hybrid: as centralized, and findings are shared as in team;
//   - decentralized: as team without checks: peers divide the work and
//     exchange findings, and nobody verifies.
//
// The five architectures of Kim et al. 2025 are these under their names:
// single is sequential (one agent, whatever collective.agents allows:
// it never delegates nor starts attempts), independent is independent
// (the paper's synthesis with collective.select.merge: synthesis), and
// centralized, hybrid and decentralized are their own. Split and team
// delegate only when more than one subtask is ready, so they keep a
// chain with one agent; the paper's orchestrator hands each step on.
func Organizations() map[string]Fixed { return maps.Clone(organizations) }

// organizations are the fixed organizations by name: Organization looks
// one up for every variant and trial a scenario's checks judge.
var organizations = map[string]Fixed{
	"sequential":    {Name: "sequential", Checks: true},
	"single":        {Name: "single", Checks: true},
	"independent":   {Name: "independent", Attempts: true},
	"split":         {Name: "split", Checks: true, Fanout: true},
	"centralized":   {Name: "centralized", Checks: true, Orchestrates: true},
	"team":          {Name: "team", Checks: true, Fanout: true, Shares: true},
	"hybrid":        {Name: "hybrid", Checks: true, Orchestrates: true, Shares: true},
	"decentralized": {Name: "decentralized", Fanout: true, Shares: true},
}

// Organization returns the named fixed organization.
func Organization(name string) (Fixed, error) {
	if f, ok := organizations[name]; ok {
		return f, nil
	}
	names := make([]string, 0, len(organizations))
	for n := range organizations {
		names = append(names, n)
	}
	sort.Strings(names)
	return Fixed{}, fmt.Errorf("unknown organization %q (allowed: %s)%s", name, strings.Join(names, ", "), spelling.DidYouMean(name, names))
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
			// An organization that never checks does not fall back on a
			// check either (a helper holding the last part, say).
			if m.Has(a) && (a != c.Check || f.Checks) {
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
	case o.Ready > 0 && f.Orchestrates && o.Main && m.Has(c.Delegate):
		return c.Delegate
	case o.Ready > 1 && f.Fanout && m.Has(c.Delegate):
		return c.Delegate
	case o.Ready > 0:
		return c.Work
	case o.Complete && (!o.Main || o.Pending == 0):
		return pick(c.Submit)
	}
	return pick(c.Wait, c.Submit)
}
