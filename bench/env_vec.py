#!/usr/bin/env python3
"""env_vec.py: decisions per second through swarmsim's VecEnv with a numpy
linear softmax policy (bench/env.sh's first contender).

Steps VecEnv("latency-pressure", variant=high, num_envs=N, group=G) for a
number of steps, choosing every row's action with one matrix product and a
Gumbel-max draw over the valid actions, the same policy as env_peer.py's
(zero parameters by default: uniform over the valid actions).

With --split K the rows are stepped in K slices of whole groups, each
sent with step_async as soon as the policy has chosen its actions, so that
the policy works on one slice while the server steps another (the client
and the server then run at once, on two cores); a step is K slice steps.

Usage: env_vec.py [--num-envs 256] [--group 1] [--steps 2000] [--seed 1] [--workers 1] [--split 1] [--theta FILE.npy] [--first]
It prints one line:
  episodes=E decisions=D choices=C seconds=S decisions_per_s=R
where choices are the decisions the environment paused at (two or more
valid actions), decisions those and the decisions with a single valid
action, counted from the finished episodes' actions_* metrics (the count
`simulate train` reports, and env_peer.py's), and seconds the time of the
steps (start-up and reset excepted). The episodes still running at the
end add their choices at the finished episodes' ratio of decisions to
choices.

With --first it runs instead until every row has finished its first
episode and prints the mean decisions per episode with its standard error
(the check that env_peer.py makes as many).
"""

import argparse
import time

import numpy as np

from swarmsim import VecEnv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-envs", type=int, default=256)
    ap.add_argument("--group", type=int, default=1)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="goroutines that step the rows (make's workers)")
    ap.add_argument("--split", type=int, default=1, help="slices of whole groups stepped one behind the other with step_async")
    ap.add_argument("--theta", default="")
    ap.add_argument("--first", action="store_true", help="decisions per episode over every row's first episode")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    with VecEnv("latency-pressure", variant="high", num_envs=args.num_envs, group=args.group, seed=args.seed, workers=args.workers) as env:
        theta = np.load(args.theta) if args.theta else np.zeros((env.num_actions, env.num_features), dtype=np.float32)
        acts = [k for k in env.episode_metrics if k.startswith("actions_")]

        policy = linear_policy(theta, rng)

        obs, info = env.reset()
        if args.first:
            first = np.full(args.num_envs, np.nan)
            while np.isnan(first).any():
                obs, reward, term, trunc, info = env.step(policy(obs, info["action_mask"]))
                ended = (term | trunc) & np.isnan(first)
                first[ended] = sum(info["episode"][k][ended] for k in acts)
            print(f"episodes={len(first)} decisions_per_episode={first.mean():.2f} se={first.std() / np.sqrt(len(first)):.2f}")
            return
        count = Counter(env)
        start = time.perf_counter()
        if args.split > 1:
            pipelined(env, policy, count, obs, info, args.split, args.steps)
        else:
            for _ in range(args.steps):
                active = info["active"]
                if not active.any():
                    obs, info = env.reset()
                    continue
                obs, reward, term, trunc, info = env.step(policy(obs, info["action_mask"]))
                count(active, term, trunc, info)
        secs = time.perf_counter() - start
    decisions = count.decisions_all()
    print(f"episodes={count.episodes} decisions={decisions} choices={count.choices} seconds={secs:.3f} "
          f"decisions_per_s={decisions / secs:.0f}")


def pipelined(env, policy, count, obs, info, k, steps):
    """Takes steps steps in k slices of whole groups: a slice's actions
    are sent as soon as its reply is read, while the server steps the
    slices sent before it. A slice whose rows all wait for a reset (groups
    above 1) rests until every slice does; then the rows reset."""
    groups = env.num_envs // env.group
    if not 1 < k <= groups:
        raise SystemExit(f"env_vec.py: --split {k}: want 2 to {groups} slices of whole groups")
    slices = [slice(env.group * (groups * j // k), env.group * (groups * (j + 1) // k)) for j in range(k)]
    acting = {}  # the rows' active flags when their actions were sent
    resting = []

    def send(rows, obs, mask, active):
        if not active.any():
            resting.append(rows)
            return
        acting[rows.start] = active
        env.step_async(policy(obs, mask), rows=rows)

    def send_all(obs, info):
        for rows in slices:
            send(rows, obs[rows], info["action_mask"][rows], info["active"][rows])

    send_all(obs, info)
    for _ in range(steps * k):
        if len(resting) == k:
            resting.clear()
            send_all(*env.reset())
            continue
        obs, reward, term, trunc, info = env.step_wait()
        rows = info["rows"]
        count(acting.pop(rows.start), term, trunc, info, rows)
        send(rows, obs, info["action_mask"], info["active"])
    for _ in range(k - len(resting)):
        env.step_wait()  # the slices still in flight, not counted


def linear_policy(theta, rng):
    """Returns the bench's policy: the linear softmax's action per row, by
    Gumbel-max over the valid actions: -log(E) with E ~ Exp(1) is a Gumbel
    draw, one log where -log(-log(U)) takes two. The logits come from
    einsum, which Debian's numpy (reference BLAS, no SIMD sgemm) runs in
    about half the instructions of obs @ theta.T."""

    def policy(obs, mask):
        z = np.einsum("nf,af->na", obs, theta)
        z -= np.log(rng.standard_exponential(mask.shape))
        z[~mask] = -np.inf
        return z.argmax(axis=1)

    return policy


class Counter:
    """Counts what the loop did, step by step: choices (the decisions
    VecEnv paused at), finished episodes and their decisions (the
    actions_* metrics, single-choice decisions included)."""

    def __init__(self, env):
        self.acts = [k for k in env.episode_metrics if k.startswith("actions_")]
        self.episodes = self.decisions = self.choices = self.done_choices = 0
        self.ep_choices = np.zeros(env.num_envs, dtype=np.int64)  # of each row's episode so far

    def __call__(self, active, term, trunc, info, rows=slice(None)):
        """Counts one step of the rows: active those that chose, the rest
        the step's."""
        self.choices += int(active.sum())
        ep_choices = self.ep_choices[rows]
        ep_choices += active
        ended = term | trunc
        if ended.any():
            self.episodes += int(ended.sum())
            self.decisions += int(sum(info["episode"][k][ended].sum() for k in self.acts))
            self.done_choices += int(ep_choices[ended].sum())
            ep_choices[ended] = 0

    def decisions_all(self):
        """The decisions, those of the episodes still running at the end
        counted as their choices at the finished episodes' ratio of
        decisions to choices."""
        if not self.done_choices:
            return self.choices  # no episode ended (a smoke run): the choices at least
        return self.decisions + round((self.choices - self.done_choices) * self.decisions / self.done_choices)


if __name__ == "__main__":
    main()
