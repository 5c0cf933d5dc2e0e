package collective

import (
	"math"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// reconcile draws conflicts at a coupled join v and returns the rework time
// (rework mode) or clears ok (fail mode).
func (a *agent) reconcile(v task.ID, ok *bool) sim.Time {
	ep, at, g := a.ep, a.at, a.ep.g
	nd := &g.Nodes[v]
	preds := g.Pred(v)
	if nd.Join != task.JoinAll || nd.Coupling == 0 || len(preds) < 2 {
		return 0
	}
	unreconciled := 0
	var reworkWork sim.Time
	for i, p := range preds {
		for _, q := range preds[i+1:] {
			sp, sq := &at.nodes[p], &at.nodes[q]
			if sp.maker == sq.maker {
				continue
			}
			early, late := p, q
			if sq.finish < sp.finish {
				early, late = q, p
			}
			if ep.knew(late, early, at) {
				continue
			}
			unreconciled++
			reworkWork += min(g.Nodes[p].Work, g.Nodes[q].Work)
		}
	}
	if unreconciled == 0 {
		return 0
	}
	noConflict := math.Pow(1-nd.Coupling, float64(unreconciled))
	if ep.conflict.Float64(uint64(at.id), uint64(v), uint64(at.nodes[v].tries)) < noConflict {
		return 0
	}
	ep.res.Conflicts++
	if ep.cfg.Reconcile.Mode == ConflictFail {
		*ok = false
		return 0
	}
	return scale(reworkWork, ep.cfg.Reconcile.Rework/ep.cfg.Speed)
}

// knew reports whether the maker of part late had read a finding about part
// early before the last model call of late began; in a silent replay
// nobody ever knew.
func (ep *episode) knew(late, early task.ID, at *attempt) bool {
	if ep.opts.Silent {
		return false
	}
	maker := ep.agents[at.nodes[late].maker]
	t, ok := maker.reads[early]
	return ok && t <= at.nodes[late].lastCall
}
