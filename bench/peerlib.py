"""peerlib.py: what the hand-written SimPy + Python REINFORCE peers share.

The peers (bench/rlcr_peer.py, bench/layered_peer.py) are what a new user
would write instead of swarmsim: a SimPy model of a collective working on a
task graph and a plain-Python REINFORCE loop with a flat collective
advantage and Adam. Each peer file gives its model (the task it draws, the
collective's size and limits); this file is the collective and the learner:

  - A task is a DAG: succ[v] lists v's successors, npred[v] counts its
    predecessors, work[v] is its work in minutes (drawn once per task
    instance and shared by its G rollouts). A subtask is ready when all its
    predecessors are done; the task is done when every subtask is.
  - Up to `agents` agents. Agent 0 starts; the others are idle and start
    only when delegated to, after `spawn` minutes (once: a helper that has
    worked before starts at once).
  - A free agent with ready unclaimed subtasks asks the shared policy:
    WORK (claim the ready one with the smallest number itself; it stops
    deciding) or DELEGATE (hand it to an idle agent; the decider stays free
    and decides again). DELEGATE is masked when no agent is idle; such a
    forced decision is counted but evaluates no policy and carries no
    gradient. A free agent with nothing ready goes idle; when a subtask
    becomes ready, the longest-idle started helper (else agent 0) wakes to
    decide.
  - Acceptable iff the task is done by `limit` minutes;
    R = 1[acceptable] - w * T / limit, with T capped at the limit.
  - Linear softmax policy from zero over features: bias, fraction of
    subtasks done, ready unclaimed / ready_scale, idle agents / agents,
    elapsed / limit.
  - Each iteration: B = 4 task instances x G = 8 rollouts; A = R - group
    mean for every decision; the loss is averaged over all decisions; Adam
    (lr 0.05); no entropy bonus; `iterations` iterations for each latency
    weight w in {0, 0.25, 0.5, 1}.

A peer prints one line per weight (final mean reward, success rate, mean
finish time, P(delegate)) and a last line:
  episodes=E decisions=D seconds=S episodes_per_s=R
where seconds is the wall time of the whole training, interpreter start-up
excepted (bench/peer.sh times the whole process itself).
"""

import argparse
import heapq
import math
import random
import time
from collections import namedtuple

import simpy

WORK, DELEGATE = 0, 1
B, G = 4, 8
LR, BETA1, BETA2, EPS = 0.05, 0.9, 0.999, 1e-8
NFEAT = 5
WEIGHTS = (0.0, 0.25, 0.5, 1.0)

# Model is a peer's model: draw(rng) returns a task (succ, npred, work).
Model = namedtuple("Model", "agents spawn limit ready_scale draw")


class Episode:
    """One rollout: the task's progress, the agents and the decisions."""

    def __init__(self, env, model, task, theta, rng):
        self.env = env
        self.model = model
        self.succ, npred, self.work = task
        self.theta = theta
        self.rng = rng
        self.left = list(npred)  # predecessors not done yet
        self.ready = [v for v, n in enumerate(npred) if n == 0]  # a heap: unclaimed ready subtasks
        self.done = 0  # subtasks finished
        self.unspawned = model.agents - 1  # helpers not started yet
        self.waiting = []  # idle started helpers, longest-idle first
        self.main_idle = False
        self.wake = [None] * model.agents
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
        m = self.model
        return [1.0, self.done / len(self.work), len(self.ready) / m.ready_scale,
                self.idle() / m.agents, self.env.now / m.limit]

    def idle(self):
        """Agents that may be delegated to: idle helpers and unstarted ones."""
        return len(self.waiting) + self.unspawned

    def complete(self, v):
        """Subtask v is done: release its successors."""
        self.done += 1
        new = []
        for w in self.succ[v]:
            self.left[w] -= 1
            if self.left[w] == 0:
                new.append(w)
        if new:
            self.make_ready(new)
        if self.done == len(self.work):
            self.finish = self.env.now
            self.end.succeed()

    def make_ready(self, vs):
        for v in vs:
            heapq.heappush(self.ready, v)
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
            yield env.timeout(self.model.spawn)
        while True:
            if task is None and self.ready:
                self.decisions += 1
                act = WORK
                if self.idle():
                    x = self.features()
                    act = self.policy(x)
                    self.samples.append((x, act))
                task = heapq.heappop(self.ready)
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
        h = self.model.agents - self.unspawned
        self.unspawned -= 1
        self.env.process(self.agent(h, task))


def rollout(model, task, theta, rng):
    env = simpy.Environment()
    ep = Episode(env, model, task, theta, rng)
    env.process(ep.agent(0, None))
    limit = env.timeout(model.limit)
    env.run(until=simpy.events.AnyOf(env, [ep.end, limit]))
    ok = ep.finish is not None
    return ok, (ep.finish if ok else model.limit), ep


def train(model, weight, iterations, rng):
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
            task = model.draw(rng)
            group = []
            for _ in range(G):
                ok, t, ep = rollout(model, task, theta, rng)
                group.append((1.0 if ok else 0.0) - weight * t / model.limit)
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


def main(model, description):
    """Trains model for every latency weight, as the peer's command line
    asks, and prints the figures."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--iterations", type=int, default=150, help="iterations per latency weight")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    episodes = decisions = 0
    for w in WEIGHTS:
        e, d = train(model, w, args.iterations, rng)
        episodes += e
        decisions += d
    sec = time.perf_counter() - start
    print(f"episodes={episodes} decisions={decisions} seconds={sec:.3f} episodes_per_s={episodes / sec:.0f}")
