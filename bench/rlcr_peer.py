#!/usr/bin/env python3
"""rlcr_peer.py: the hand-written peer of `simulate train rlcr-peer`.

What a new user would write instead of swarmsim: a SimPy model of a
fork-join collective and a plain-Python REINFORCE loop with a flat
collective advantage and Adam. It is the reference that bench/rlcr_peer.sh
compares `simulate train` against; docs/performance.md describes it.

The model (the same as scenarios/library/rlcr-peer.yaml):
  - Task: a root, 8 parallel parts, a join; every subtask's work is
    Exp(mean 10 min), drawn once per task instance and shared by its G
    rollouts.
  - Up to 8 agents. Agent 0 starts; the others are idle and start only when
    delegated to, after a 2 min spawn (once: a helper that has worked
    before starts at once).
  - A free agent with ready unclaimed subtasks asks the shared policy:
    WORK (claim the next one itself; it stops deciding) or DELEGATE (hand
    it to an idle agent; the decider stays free and decides again).
    DELEGATE is masked when no agent is idle; such a forced decision is
    counted but evaluates no policy and carries no gradient. A free agent
    with nothing ready goes idle; when a subtask becomes ready, the
    longest-idle started helper (else agent 0) wakes to decide.
  - Acceptable iff the join is done by 200 min;
    R = 1[acceptable] - w * T / 200 min, with T capped at the limit.
  - Linear softmax policy from zero over features: bias, fraction of
    subtasks done, ready unclaimed / 8, idle agents / 8, elapsed / 200 min.
  - Each iteration: B = 4 task instances x G = 8 rollouts; A = R - group
    mean for every decision; the loss is averaged over all decisions; Adam
    (lr 0.05); no entropy bonus; 150 iterations for each latency weight
    w in {0, 0.25, 0.5, 1}: 600 iterations, 19,200 episodes.

Usage: rlcr_peer.py [--iterations N] [--seed S]
It prints one line per weight (final mean reward, success rate, mean finish
time, P(delegate)) and a last line:
  episodes=E decisions=D seconds=S episodes_per_s=R
where seconds is the wall time of the whole script, interpreter start-up
excepted (bench/rlcr_peer.sh times the whole process itself).
"""

import argparse
import math
import random
import sys
import time

import simpy

WORK, DELEGATE = 0, 1
PARTS = 8
NODES = PARTS + 2  # root, parts, join
AGENTS = 8
MEAN_WORK = 10.0  # minutes
SPAWN = 2.0
LIMIT = 200.0
B, G = 4, 8
LR, BETA1, BETA2, EPS = 0.05, 0.9, 0.999, 1e-8
NFEAT = 5


class Episode:
    """One rollout: the task's progress, the agents and the decisions."""

    def __init__(self, env, work, theta, rng):
        self.env = env
        self.work = work
        self.theta = theta
        self.rng = rng
        self.ready = [0]  # unclaimed ready subtasks, in ID order
        self.done = 0  # subtasks finished
        self.parts_left = PARTS
        self.unspawned = AGENTS - 1  # helpers not started yet
        self.waiting = []  # idle started helpers, longest-idle first
        self.main_idle = False
        self.wake = [None] * AGENTS
        self.finish = None
        self.end = env.event()
        self.decisions = 0
        self.samples = []  # (features, action) of the unforced decisions

    def policy(self, x):
        """Samples WORK or DELEGATE from the linear softmax."""
        z0 = sum(w * v for w, v in zip(self.theta[0], x))
        z1 = sum(w * v for w, v in zip(self.theta[1], x))
        m = max(z0, z1)
        e0, e1 = math.exp(z0 - m), math.exp(z1 - m)
        return WORK if self.rng.random() < e0 / (e0 + e1) else DELEGATE

    def features(self):
        return [1.0, self.done / NODES, len(self.ready) / PARTS,
                self.idle() / AGENTS, self.env.now / LIMIT]

    def idle(self):
        """Agents that may be delegated to: idle helpers and unstarted ones."""
        return len(self.waiting) + self.unspawned

    def complete(self, v):
        """Subtask v is done: release its successors."""
        self.done += 1
        if v == 0:
            self.make_ready(list(range(1, PARTS + 1)))
        elif v <= PARTS:
            self.parts_left -= 1
            if self.parts_left == 0:
                self.make_ready([NODES - 1])
        else:
            self.finish = self.env.now
            self.end.succeed()

    def make_ready(self, vs):
        self.ready.extend(vs)
        for _ in vs:
            self.wake_one(None)

    def wake_one(self, task):
        """Wakes the longest-idle started helper, else agent 0, to decide
        (task None) or to work on a delegated task."""
        if self.waiting:
            self.wake[self.waiting.pop(0)].succeed(task)
        elif self.main_idle:
            self.main_idle = False
            self.wake[0].succeed(task)

    def agent(self, i, task):
        """Agent i's process: decide while free, work, go idle."""
        env = self.env
        if task is not None:  # delegated before it existed: spawn first
            yield env.timeout(SPAWN)
        while True:
            if task is None and self.ready:
                self.decisions += 1
                act = WORK
                if self.idle():
                    x = self.features()
                    act = self.policy(x)
                    self.samples.append((x, act))
                task = self.ready.pop(0)
                if act == DELEGATE:
                    self.delegate(task)
                    task = None
                    continue
            if task is not None:
                yield env.timeout(self.work[task])
                self.complete(task)
                task = None
                continue
            if i == 0:
                self.main_idle = True
            else:
                self.waiting.append(i)
            self.wake[i] = env.event()
            task = yield self.wake[i]

    def delegate(self, task):
        """Hands task to the longest-idle helper, else spawns one."""
        if self.waiting:
            self.wake[self.waiting.pop(0)].succeed(task)
            return
        h = AGENTS - self.unspawned
        self.unspawned -= 1
        self.env.process(self.agent(h, task))


def rollout(work, theta, rng):
    env = simpy.Environment()
    ep = Episode(env, work, theta, rng)
    env.process(ep.agent(0, None))
    limit = env.timeout(LIMIT)
    env.run(until=simpy.events.AnyOf(env, [ep.end, limit]))
    ok = ep.finish is not None
    return ok, (ep.finish if ok else LIMIT), ep


def train(weight, iterations, rng):
    theta = [[0.0] * NFEAT for _ in range(2)]
    m = [[0.0] * NFEAT for _ in range(2)]
    v = [[0.0] * NFEAT for _ in range(2)]
    episodes = decisions = 0
    last = []
    for it in range(iterations):
        grad = [[0.0] * NFEAT for _ in range(2)]
        n = 0
        stats = []
        for _ in range(B):
            work = [rng.expovariate(1 / MEAN_WORK) for _ in range(NODES)]
            group = []
            for _ in range(G):
                ok, t, ep = rollout(work, theta, rng)
                group.append((1.0 if ok else 0.0) - weight * t / LIMIT)
                stats.append((ok, t, ep))
                n += ep.decisions
            mean = sum(group) / G
            for R, (_, _, ep) in zip(group, stats[-G:]):
                adv = R - mean
                for x, a in ep.samples:
                    z = [sum(w * f for w, f in zip(theta[k], x)) for k in range(2)]
                    mx = max(z)
                    e = [math.exp(zk - mx) for zk in z]
                    s = e[0] + e[1]
                    for k in range(2):
                        d = (1.0 if k == a else 0.0) - e[k] / s
                        for j in range(NFEAT):
                            grad[k][j] += adv * d * x[j]
        episodes += B * G
        decisions += n
        # Adam ascent on the per-decision average.
        t = it + 1
        for k in range(2):
            for j in range(NFEAT):
                g = grad[k][j] / max(n, 1)
                m[k][j] = BETA1 * m[k][j] + (1 - BETA1) * g
                v[k][j] = BETA2 * v[k][j] + (1 - BETA2) * g * g
                mh = m[k][j] / (1 - BETA1 ** t)
                vh = v[k][j] / (1 - BETA2 ** t)
                theta[k][j] += LR * mh / (math.sqrt(vh) + EPS)
        if it >= iterations - max(1, iterations // 10):
            last.extend(stats)
    ok = sum(1 for s in last if s[0]) / len(last)
    t = sum(s[1] for s in last) / len(last)
    dele = sum(1 for s in last for _, a in s[2].samples if a == DELEGATE)
    nsam = sum(len(s[2].samples) for s in last)
    print(f"w={weight:<5} success={ok:.3f} finish_min={t:.1f} "
          f"p_delegate={dele / max(nsam, 1):.3f} decisions_per_episode={decisions / episodes:.1f}")
    return episodes, decisions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=150, help="iterations per latency weight")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    episodes = decisions = 0
    for w in (0.0, 0.25, 0.5, 1.0):
        e, d = train(w, args.iterations, rng)
        episodes += e
        decisions += d
    sec = time.perf_counter() - start
    print(f"episodes={episodes} decisions={decisions} seconds={sec:.3f} episodes_per_s={episodes / sec:.0f}")


if __name__ == "__main__":
    sys.exit(main())
