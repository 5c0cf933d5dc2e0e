// Package rlcr trains the shared policy of an agent collective with
// reinforcement learning from collective rewards.
//
// Each iteration draws B task instances and runs G rollouts of each (a
// group) in which every agent decides with the same parameters. Each
// rollout gets one collective reward (Reward): success, minus a latency
// penalty of a named shape, minus compute cost, plus optional annealed PARL
// terms. The flat collective advantage A = R − mean of the group is then
// given to every decision of every agent in the rollout, and the policy
// takes an Adam step along Σ w·A·∇log π(a|x) plus an entropy bonus.
// Alternatives for ablations: no baseline, a moving-average baseline,
// per-agent difference rewards from counterfactual replays, and PPO-clip
// with GAE and a learned value.
//
// Train, in train.go, reads top to bottom like a CleanRL script: the
// hyperparameters in one documented Config, the run (problem, seed,
// workers, the checkpoint to resume from, the callbacks) in one Run, then
// rollouts, rewards, advantages, the update and the report. Beside it: config.go (the
// options' names and Validate), reward.go (the collective reward),
// credit.go (per-agent difference rewards), gae.go (GAE and the learned
// value), adam.go (the optimiser and schedules), report.go (the Iteration
// rows), checkpoint.go (resuming), warmstart.go (behaviour cloning), and
// memory.go, the plumbing that lets an iteration allocate nothing for its
// rollouts. docs/rlcr.md gives the equations.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and every machine
// computes the same bits (internal/portable checks it).
package rlcr
