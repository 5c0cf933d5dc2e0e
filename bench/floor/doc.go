// Package floor is the rlcr-peer model and its learner written as directly
// as Go allows: the floor that `simulate train rlcr-peer` is measured
// against (bench/floor.sh, docs/performance.md).
//
// It is the same model and the same learner as the product's, and shares
// no code with it:
//
//   - a fork-join task, a root, eight parts and a join, each Exp(10 min) of
//     work, drawn once per task instance and shared by its G rollouts;
//   - up to eight agents: agent 0 starts, helpers start 2 min after their
//     first delegation; model calls and messages are free; an episode
//     stopped by the 200 min limit is not acceptable;
//   - the collective's rules for who decides when (a finished part is held
//     until its maker's next action, the longest-waiting helper is woken
//     first, a finished result is submitted without a decision) and its
//     observation, of which the 18 features the product's linear policy
//     sees as non-zero in this model (the other ten are 0 at every
//     decision: see live);
//   - a linear softmax over work and delegate from zero, a decision with
//     one valid action counted but neither evaluated nor learned from;
//   - R = [acceptable] − w·T/200 min, the flat collective advantage
//     A = R − the group's mean, the loss averaged over all decisions of the
//     batch, Adam (β = 0.9, 0.999, ε = 1e-8) at 0.05, B = 4 task instances
//     of G = 8 rollouts an iteration.
//
// What it leaves out is everything a general simulator needs and this
// model does not: no event engine (each agent has at most one pending
// event, so the next one is a scan of eight slots), no interfaces, no task
// graph (the fork-join's successors are arithmetic), no stored decisions
// (each rollout keeps Σ ∇log π as it goes, and the update weighs the 32
// sums by their advantages), the logit difference of two actions instead
// of two logits, and no allocation after a Trainer is made.
//
// crosscheck_test.go runs the product's collective and this episode on the
// same tasks with deterministic policies and finds the same decisions,
// features and finish times; that test imports the product, the package
// does not.
package floor
