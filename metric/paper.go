package metric

// The coordination metrics of Kim et al. 2025, "Towards a Science of
// Scaling Agent Systems" (arXiv 2512.08296), as the simulator measures
// them. The paper counts reasoning turns T, the inter-agent messages, and
// the success S of a configuration, and relates a multi-agent system (MAS)
// to the single-agent system (SAS) at the same other settings:
//
//	overhead            O = (T_MAS − T_SAS) / T_SAS   (the paper prints it ×100, in %)
//	efficiency          E_c = S_MAS / (T_MAS / T_SAS)
//	error amplification A_e = E_MAS / E_SAS, E the failure rate 1 − S
//	message density     c = messages / T
//
// The paper's redundancy is the mean cosine similarity of the agents'
// output embeddings; the simulator has no text, and Redundancy is its
// analogue in work: the share of the work handed to other agents that
// repeated work another agent also did. docs/statistics.md ("The scaling
// metrics of Kim et al.") sets the paper's formulas beside these.

// Turns returns the reasoning turns of an episode: its model calls, the
// work, checks and decisions of all agents. The paper counts one turn per
// model call of any agent, the orchestrator's included.
func Turns(modelCalls int) float64 { return float64(modelCalls) }

// MessageDensity returns the messages per reasoning turn; NaN without
// turns or messages (an episode that made no call), +Inf for messages
// without turns.
func MessageDensity(messages, turns float64) float64 { return messages / turns }

// Redundancy returns the share of the tasks given to other agents
// (subagentTasks: delegations and independent attempts) that repeated
// work another agent also did: every independent attempt beyond the
// first (each attempt works the whole task) and every delegation of a
// part already in progress (duplicates). An episode that gave no work
// away repeated none: 0.
func Redundancy(attempts, duplicates, subagentTasks int) float64 {
	if subagentTasks == 0 {
		return 0
	}
	return float64(max(attempts-1, 0)+duplicates) / float64(subagentTasks)
}

// ErrorAmplification returns the failure rate over the reference's,
// (1 − success) / (1 − refSuccess): 1 where the system fails as often as
// the single agent, above 1 where it fails more. It is +Inf where the
// reference never failed and the system did, NaN where neither failed.
func ErrorAmplification(success, refSuccess float64) float64 {
	return (1 - success) / (1 - refSuccess)
}

// CoordinationOverhead returns the turns beyond the reference's as a
// fraction of them, (turns − refTurns) / refTurns: 0 for as many turns as
// the single agent, 2.85 for the paper's 285%.
func CoordinationOverhead(turns, refTurns float64) float64 {
	return (turns - refTurns) / refTurns
}

// Efficiency returns the success normalised by the relative turns,
// success / (turns / refTurns): the single agent's own efficiency is its
// success rate. The relative metrics follow IEEE division where the
// reference is 0: NaN for 0/0, ±Inf for the rest.
func Efficiency(success, turns, refTurns float64) float64 {
	return success / (turns / refTurns)
}

// SuccessGain returns the relative change of the success rate over the
// reference's, (success − refSuccess) / refSuccess: the paper's "+80.9%"
// is 0.809.
func SuccessGain(success, refSuccess float64) float64 {
	return (success - refSuccess) / refSuccess
}
