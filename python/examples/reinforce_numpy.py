#!/usr/bin/env python3
"""RLCR in numpy through swarmsim's VecEnv: the flagship's dose-response.

Trains one shared linear softmax policy for every agent of the collective on
`latency-pressure` (docs/rlcr.md), once per latency weight (none, low,
medium, high) and seed, the way `simulate train` does:

  - each iteration, B task instances x G rollouts: a VecEnv with
    num_envs = B*G and group = G, whose groups share their instance and its
    random streams (common random numbers, train.crn);
  - the reward is the scenario's collective reward, paid when a rollout
    ends; the flat collective advantage A = (R - group mean) / (group std +
    1e-8) is given to every decision of every agent of the rollout;
  - the surrogate sum_d w_d (A_d log pi(a_d|x_d) + beta H(pi(.|x_d))), with
    w_d = 1/(decisions in the batch, counting those with a single valid
    action, which VecEnv takes without pausing and which carry no gradient,
    from the episodes' actions_* metrics), masked softmax, the gradient's global
    norm clipped to 1, one Adam step per iteration at a learning rate
    decaying linearly from 0.1 to 0.02 (entropy 0.01 to 0.001): the
    flagship's hyper-parameters.

It writes one CSV row per (seed, variant): the last tenth of training's mean
parallelism, finish time, success and reward. dose_response.py reads those
rows and tests the ordering none < low < medium < high.

    PYTHONPATH=python /usr/bin/python3 python/examples/reinforce_numpy.py --seeds 1-10 --out /tmp/np.csv
"""

import argparse
import csv
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from swarmsim import EnvError, VecEnv


@dataclass
class Args:
    scenario: str = "latency-pressure"
    variants: str = "none,low,medium,high"
    seeds: str = "1"
    iterations: int = 150
    batch: int = 8
    group: int = 8
    lr: float = 0.1
    lr_end: float = 0.02
    entropy: float = 0.01
    entropy_end: float = 0.001
    clip_grad: float = 1.0
    out: str = ""


# What each option of Args is, for --help.
HELP = {
    "scenario": "a library scenario's name (simulate list) or a YAML file",
    "variants": "the variants to train, comma-separated",
    "seeds": "seeds as a list such as 1,2,5, a range such as 1-10, or both",
    "iterations": "iterations of training per seed and variant",
    "batch": "task instances per iteration (B)",
    "group": "rollouts per task instance (G), sharing its random streams",
    "lr": "Adam's learning rate at the first iteration",
    "lr_end": "the learning rate at the last iteration (linear in between)",
    "entropy": "the entropy bonus's weight at the first iteration",
    "entropy_end": "the entropy bonus's weight at the last iteration",
    "clip_grad": "the largest global norm of a gradient",
    "out": "a CSV file for the last tenth's metrics per seed and variant, written once all are done (default, or -: standard output)",
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for name, default in vars(Args()).items():
        p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default, help=HELP[name])
    args = Args(**vars(p.parse_args()))
    try:
        seed_list(args.seeds)
    except ValueError as e:
        p.error(f"--seeds {args.seeds}: {e}")
    for name in ("iterations", "batch", "group"):
        if getattr(args, name) < 1:
            p.error(f"--{name} {getattr(args, name)}: want a whole number of 1 or more")
    for name in ("lr", "lr_end", "entropy", "entropy_end", "clip_grad"):
        v, least = getattr(args, name), "above 0" if name == "lr" else "of 0 or more"
        if not (0 <= v < float("inf")) or name == "lr" and v == 0:
            p.error(f"--{name.replace('_', '-')} {v}: want a finite number {least}")
    return args


def seed_list(spec):
    """The seeds a --seeds value names: a comma-separated list of seeds and
    ranges lo-hi (both ends included). Raises ValueError, saying what is
    wrong, for anything else."""
    out = []
    for part in spec.split(","):
        lo, dash, hi = part.partition("-")
        if not lo.strip().isdigit() or dash and not hi.strip().isdigit():
            raise ValueError(f"{part!r} is not a seed or a range such as 1-10 (seeds are whole numbers from 0)")
        lo, hi = int(lo), int(hi or lo)
        if hi < lo:
            raise ValueError(f"{part!r} is a range that ends before it starts")
        out.extend(range(lo, hi + 1))
    return out


def linear(start, end, i, n):
    """A linear schedule from start (iteration 0) to end (the last)."""
    return start if n <= 1 else start + (end - start) * i / (n - 1)


class Adam:
    """Adam, ascending."""

    def __init__(self, shape, beta1=0.9, beta2=0.999, eps=1e-8):
        self.m, self.v, self.t = np.zeros(shape), np.zeros(shape), 0
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def step(self, params, grad, lr):
        self.t += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * grad
        self.v = self.beta2 * self.v + (1 - self.beta2) * grad * grad
        mhat = self.m / (1 - self.beta1**self.t)
        vhat = self.v / (1 - self.beta2**self.t)
        params += lr * mhat / (np.sqrt(vhat) + self.eps)


def masked_log_softmax(logits, mask):
    """log pi over the valid actions; -inf where masked."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


class Batch(NamedTuple):
    """The decisions of one iteration's rollouts that had a choice (those
    without one carry no gradient, and VecEnv takes them itself)."""

    x: np.ndarray  # features of each decision with a choice
    mask: np.ndarray  # its valid actions
    action: np.ndarray  # the action taken
    row: np.ndarray  # the rollout (row) it belongs to
    count: int  # every decision of the batch, those without a choice too


def rollouts(env, theta, rng):
    """Runs every row of env to the end of its episode under the policy
    theta. Returns the Batch of decisions and per row the reward and the
    episode's metrics."""
    n = env.num_envs
    xs, masks, acts, rows = [], [], [], []
    reward = np.zeros(n)
    metrics = {}
    obs, info = env.reset()
    active = info["active"].copy()
    while active.any():
        idx = np.flatnonzero(active)  # finished rows wait for the next reset
        x, mask = obs[idx].astype(np.float64), info["action_mask"][idx]
        logp = masked_log_softmax(x @ theta.T, mask)
        # Gumbel-max draws from pi; masked actions (-inf) are never drawn.
        a = np.argmax(logp - np.log(-np.log(rng.random(logp.shape))), axis=1)
        xs.append(x)
        masks.append(mask.copy())
        acts.append(a)
        rows.append(idx)
        actions = np.zeros(n, dtype=np.int32)  # inactive rows' are ignored
        actions[idx] = a
        obs, r, term, trunc, info = env.step(actions)
        ended = term | trunc
        # A row's reward comes once, in the step its episode ends or, with
        # reward.penalty group-relative, in the step its group's last row
        # ends (the row then inactive): summed, it is caught either way.
        reward += r
        for k, v in info["episode"].items():
            metrics.setdefault(k, np.full(n, np.nan))[ended] = v[ended]
        active = info["active"].copy()
    count = int(sum(np.nansum(v) for k, v in metrics.items() if k.startswith("actions_")))
    return Batch(np.concatenate(xs), np.concatenate(masks), np.concatenate(acts), np.concatenate(rows), count), reward, metrics


def group_advantage(reward, g):
    """GRPO's flat collective advantage: (R - group mean) / (group std + 1e-8)."""
    r = reward.reshape(-1, g)
    return ((r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, keepdims=True) + 1e-8)).ravel()


def policy_gradient(theta, batch, adv, ent_coef):
    """The gradient of sum_d w_d (A_d log pi(a_d|x_d) + beta H(pi(.|x_d))),
    over the decisions with a choice (the ones VecEnv pauses at), w_d =
    1/batch.count."""
    x, mask, a, row = batch.x, batch.mask, batch.action, batch.row
    logp = masked_log_softmax(x @ theta.T, mask)
    p = np.exp(logp)
    logp0 = np.where(mask, logp, 0.0)
    entropy = -(p * logp0).sum(axis=1, keepdims=True)
    onehot = np.zeros_like(p)
    onehot[np.arange(len(a)), a] = 1
    dz = adv[row][:, None] * (onehot - p) - ent_coef * p * (logp0 + entropy)
    return (dz / batch.count).T @ x


class NumpyLearner:
    """The linear policy's parameters and their update: the gradient above,
    clipped, and one Adam step."""

    def __init__(self, num_actions, num_features, args):
        self.args = args
        self.params = np.zeros((num_actions, num_features))
        self.opt = Adam(self.params.shape)

    def theta(self):
        return self.params

    def update(self, batch, adv, it):
        a = self.args
        grad = policy_gradient(self.params, batch, adv, linear(a.entropy, a.entropy_end, it, a.iterations))
        norm = np.linalg.norm(grad)
        if a.clip_grad > 0 and norm > a.clip_grad:
            grad *= a.clip_grad / norm
        self.opt.step(self.params, grad, linear(a.lr, a.lr_end, it, a.iterations))


def train(args, variant, seed, learner):
    """Trains one policy; returns the per-iteration means of the metrics."""
    rng = np.random.default_rng(seed)
    curve = []
    with VecEnv(args.scenario, variant=variant, num_envs=args.batch * args.group, group=args.group, seed=seed) as env:
        pol = learner(env.num_actions, env.num_features, args)
        for it in range(args.iterations):
            batch, reward, metrics = rollouts(env, pol.theta(), rng)
            pol.update(batch, group_advantage(reward, args.group), it)
            curve.append({
                "reward": reward.mean(),
                "parallelism": np.nanmean(metrics["parallelism_mean"]),
                "finish_time": np.nanmean(metrics["finish_time"]),
                "success": np.nanmean(metrics["acceptable"]),
                "decisions": batch.count,
            })
    return curve


def main(learner=NumpyLearner):
    args = parse_args()
    try:
        run(args, learner)
    except EnvError as e:  # a scenario, variant or setting the environment refused: its message says which
        sys.exit(f"{os.path.basename(sys.argv[0])}: {e}")


def run(args, learner):
    """Trains every seed and variant of args and writes their rows: to
    standard output (no --out, or -), or to args.out once all are done
    (meanwhile to a file beside it, which a failure removes), so that an
    error leaves an earlier file of that name as it was."""
    if args.out in ("", "-"):
        write_rows(args, learner, sys.stdout)
        return
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    # A name of its own, so that two runs writing one --out do not share it.
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(args.out) or ".", prefix=os.path.basename(args.out) + ".", suffix=".partial")
    try:
        with os.fdopen(fd, "w", newline="") as out:
            write_rows(args, learner, out)
        os.replace(partial, args.out)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    print(f"wrote {args.out}; python/examples/dose_response.py {args.out} tests the ordering", file=sys.stderr)


def write_rows(args, learner, out):
    """Trains every seed and variant of args, writing a row to out as each
    ends."""
    variants = args.variants.split(",")
    w = csv.writer(out)
    w.writerow(["seed", "variant", "parallelism", "finish_time", "success", "reward", "decisions", "seconds"])
    for seed in seed_list(args.seeds):
        for v in variants:
            start = time.perf_counter()
            curve = train(args, v, seed, learner)
            tail = curve[-max(1, len(curve) // 10):]
            mean = {k: float(np.mean([c[k] for c in tail])) for k in tail[0]}
            w.writerow([seed, v, f"{mean['parallelism']:.4f}", f"{mean['finish_time']:.1f}", f"{mean['success']:.4f}",
                        f"{mean['reward']:.5f}", sum(c["decisions"] for c in curve), f"{time.perf_counter() - start:.1f}"])
            out.flush()
            print(f"seed {seed} {v}: last-tenth parallelism {mean['parallelism']:.2f}, finish {mean['finish_time']:.0f} s",
                  file=sys.stderr)


if __name__ == "__main__":
    main()
