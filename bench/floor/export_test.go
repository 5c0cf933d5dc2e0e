package floor

// Nodes is the number of subtasks of the model's task.
const Nodes = nodes

// TraceEpisode plays one episode of a task whose subtasks take work
// seconds, with the policy whose delegate logit less work logit is delta·x,
// drawing from seed, and returns its decisions, finish time and whether it
// was acceptable.
func TraceEpisode(work [Nodes]float64, delta [NF]float64, seed uint64) ([]Decision, float64, bool) {
	var total float64
	for _, w := range work {
		total += w
	}
	var score [NF]float64
	e := episode{work: &work, total: total, mean: total / nodes, delta: &delta, score: &score, r: &rng{s: seed}, trace: []Decision{}}
	e.run()
	return e.trace, e.finish, e.ok
}
