#!/usr/bin/env python3
"""env_peer.py: latency-pressure's episode model in SimPy, driven by a numpy
linear softmax policy: the peer that bench/env.sh compares VecEnv against.

What a researcher would write instead of swarmsim's environment: the
flagship's collective (scenarios/library/latency-pressure.yaml), written from
docs/model.md, as SimPy processes, one agent per process, asking the policy
at every decision.

The model:
  - Task: a plan step, 12 independent parts, an assembly step (fork-join,
    width 12, coupling 0); each subtask's work is lognormal(mean 10 min,
    cv 0.3); an attempt is acceptable with probability 0.99 (difficulty
    0.01); results of 500 tokens flow along the edges.
  - Agents (at most 12): the main agent starts; a helper is spawned (2 min)
    by a delegation, or an idle helper is reused; the hand-off message (300
    tokens) costs its writer 6 ms per token and arrives 50 ms later.
  - Work is done in model calls of at most 30 s of work, each costing 21 ms,
    17 us per prompt token (system prompt 500 + messages read + inputs) and
    the call's work.
  - Decisions: work, delegate, attempt (an independent copy of the whole
    task by a new agent), share (findings to the makers of sibling parts),
    check (0.2 x the part's work; right with probability 0.9; a flagged part
    is redone, at most 3 retries), wait, submit (with several candidates a
    verifier takes 30 s per candidate, right with probability 0.9).
    The observation, its 28 features and the mask of valid actions are
    models/collective/observe.go's and models/policy/features.go's.
  - The episode ends at the main agent's submit, when nothing can happen
    any more (stalled), or at the 6 h limit. R = [acceptable] -
    w * T / 6 h - agent time / 6 h (w = 1: the high variant).

Usage: env_peer.py [--episodes N] [--seed S] [--theta FILE.npy]
It prints one line:
  episodes=E decisions=D choices=C seconds=S decisions_per_s=R
where decisions counts every decision with a valid action, choices those
with two or more (the ones the policy evaluates), and seconds is the time of
the episodes only.
"""

import argparse
import heapq
import math
import sys
import time

import numpy as np
import simpy

WORK, DELEGATE, ATTEMPT, SHARE, CHECK, WAIT, SUBMIT = range(7)
NUM_ACTIONS, NUM_FEATURES = 7, 28
ACTION_NAMES = ["work", "delegate", "attempt", "share", "check", "wait", "submit"]

WIDTH = 12
NODES = WIDTH + 2  # plan, parts, assembly
AGENTS = 12
MEAN_WORK, CV = 600.0, 0.3
P_OK = 0.99
TOKENS_OUT = 500
SPAWN = 120.0
LIMIT = 6 * 3600.0
SPAN, OVERHEAD, PROMPT_TOKEN, SYSTEM_PROMPT = 30.0, 0.021, 17e-6, 500
WRITE, READ, LATENCY, MESSAGE = 6e-3, 17e-6, 0.05, 300
CHECK_COST, CHECK_ACC, RETRIES = 0.2, 0.9, 3
SELECT_COST, SELECT_ACC = 30.0, 0.9
LATENCY_WEIGHT, COST_WEIGHT = 1.0, 1.0

PREDS = [[]] + [[0]] * WIDTH + [list(range(1, WIDTH + 1))]
SUCCS = [list(range(1, WIDTH + 1))] + [[NODES - 1]] * WIDTH + [[]]

BLOCKED, READY, TAKEN, HELD, RELEASED = range(5)


class Attempt:
    """A copy of the task being worked: the main team's, or an independent
    attempt's."""

    def __init__(self, alone):
        self.alone = alone
        self.status = [READY] + [BLOCKED] * (NODES - 1)
        self.left_preds = [len(p) for p in PREDS]
        self.ok = [False] * NODES
        self.maker = [-1] * NODES
        self.tries = [0] * NODES
        self.checks = [0] * NODES
        self.ready = [0]  # a heap of node ids
        self.n_ready = 1
        self.left = NODES
        self.progress = 0.0
        self.members = []
        self.waiting = []  # FIFO of idle helpers
        self.n_waiting = 0
        self.busy = 0
        self.complete = False
        self.result_ok = False


class Agent:
    def __init__(self, ep, at, main):
        self.ep, self.at, self.main = ep, at, main
        self.id = len(ep.agents)
        self.busy = False
        self.since = 0.0
        self.held = -1
        self.checked = self.shared = False
        self.context = 0
        self.inbox = []  # (available at, tokens)
        self.waiting = False
        self.wake_ev = None
        self.handed = None  # (part, delay) given while waiting
        self.gone = False
        ep.agents.append(self)
        at.members.append(self)
        ep.live += 1

    def become_busy(self):
        if not self.busy:
            self.busy, self.since = True, self.ep.env.now
            self.at.busy += 1

    def become_free(self):
        if self.busy:
            self.busy = False
            self.ep.agent_time += self.ep.env.now - self.since
            self.at.busy -= 1

    # --- what the agent sees ---------------------------------------------

    def observe(self):
        ep, at = self.ep, self.at
        now = ep.env.now
        unread = sum(1 for t, _ in self.inbox if t <= now)
        unchecked = self.held >= 0 and not self.checked
        unshared = self.held >= 0 and not self.shared and self.has_partners(self.held)
        retries = at.tries[self.held] - 1 if self.held >= 0 else 0
        nxt = self.peek()
        next_work = ep.work[nxt] / ep.mean_work if nxt >= 0 else 0.0
        complete = at.complete or (self.held >= 0 and at.left == 1)
        free = AGENTS - ep.live
        ready, idle = at.n_ready, at.n_waiting

        mask = 0
        if ready > 0:
            mask |= 1 << WORK
            idle_helpers = idle - (1 if ep.main.at is at and ep.main.waiting else 0)
            if not at.alone and (idle_helpers > 0 or free > 0):
                mask |= 1 << DELEGATE
        if self.main and not at.alone and free > 0:
            mask |= 1 << ATTEMPT
        if unshared:
            mask |= 1 << SHARE
        if unchecked and at.checks[self.held] <= RETRIES:
            mask |= 1 << CHECK
        if ready == 0:
            if self.held >= 0 or (self.main and (at.busy > 0 or ep.pending > 0)) or (not self.main and not at.alone):
                mask |= 1 << WAIT
        if (complete and (self.main or at.alone)) or (self.main and (ep.candidates or mask == 0)):
            mask |= 1 << SUBMIT

        # features.go's 28 features, in order.
        time_used = min(max(now / LIMIT, 0.0), 2.0)
        ready2 = 1.0 if ready > 1 else 0.0
        x = [
            1.0, float(self.main), float(at.alone), time_used,
            min(math.log1p(now / 60) / 5, 4.0), min(at.progress / ep.total_work, 1.0),
            min(ready, 8) / 8, math.log1p(ready) / 3, math.log1p(at.busy) / 3,
            math.log1p(idle) / 3, math.log1p(free) / 3, float(unread > 0),
            math.log1p(ep.attempts) / 3, math.log1p(ep.pending) / 3,
            float(unchecked), float(unshared), 0.0, min(math.log1p(next_work), 4.0),
            math.log1p(max(retries, 0)) / 2, float(complete), float(ready > 0),
            ready2 * float(idle + free > 0), ready2 * time_used, 0.0, 0.0,
            float(unchecked) * time_used, float(self.main and now == 0), float(complete and ep.pending == 0),
        ]
        return x, mask, complete

    def has_partners(self, v):
        return any(self.at.left_preds[w] > 1 for w in SUCCS[v] if len(PREDS[w]) > 1)

    def peek(self):
        at = self.at
        while at.ready and at.status[at.ready[0]] != READY:
            heapq.heappop(at.ready)
        return at.ready[0] if at.ready else -1

    def pop(self):
        at = self.at
        while True:
            v = heapq.heappop(at.ready)
            if at.status[v] == READY:
                at.n_ready -= 1
                return v

    # --- the agent's life ---------------------------------------------------

    def live(self, first_part=-1, delay=0.0):
        """The agent's process: an optional first part (a delegation or an
        independent attempt's start-up), then decisions until it leaves."""
        ep = self.ep
        if first_part >= 0:
            yield from self.do_part(first_part, delay)
        elif delay > 0:
            self.become_busy()
            yield ep.env.timeout(delay)
        while not ep.done and not self.gone:
            yield from self.decide()

    def decide(self):
        ep = self.ep
        self.become_free()
        x, mask, complete = self.observe()
        if mask == 0:
            act = SUBMIT  # nothing valid: give up (main agent)
        else:
            ep.decisions += 1
            if mask & (mask - 1) == 0:
                act = mask.bit_length() - 1
            else:
                ep.choices += 1
                act = ep.policy(x, mask)
            ep.actions[act] += 1
        if act in (WORK, DELEGATE, ATTEMPT, WAIT, SUBMIT):
            self.release()
        if act == WORK:
            yield from self.do_part(self.pop(), 0.0)
        elif act == DELEGATE:
            yield from self.delegate()
        elif act == ATTEMPT:
            self.start_attempt()
            yield ep.env.timeout(0)
        elif act == SHARE:
            yield from self.share()
        elif act == CHECK:
            yield from self.check()
        elif act == WAIT:
            yield from self.wait()
        else:
            yield from self.submit()

    def release(self):
        v = self.held
        if v < 0:
            return
        self.held = -1
        ep, at = self.ep, self.at
        at.status[v] = RELEASED
        at.left -= 1
        at.progress += ep.work[v]
        for w in SUCCS[v]:
            at.left_preds[w] -= 1
            if at.left_preds[w] == 0:
                at.status[w] = READY
                heapq.heappush(at.ready, w)
                at.n_ready += 1
                self.wake_one()
        if not SUCCS[v]:
            at.complete, at.result_ok = True, at.ok[v]
            for a in ([ep.main] if at is ep.main.at else at.members):
                a.wake()

    def wake_one(self):
        at = self.at
        while at.waiting:
            h = at.waiting.pop(0)
            if h.waiting:
                h.wake()
                return
        if at.members and at.members[0].main:
            at.members[0].wake()

    def wake(self):
        if self.waiting:
            self.waiting = False
            self.at.n_waiting -= 1
            self.become_busy()
            self.wake_ev.succeed()

    def wait(self):
        at = self.at
        if at.n_ready > 0:
            self.become_busy()
            yield self.ep.env.timeout(0)
            return
        self.waiting = True
        at.n_waiting += 1
        if not self.main:
            at.waiting.append(self)
        self.wake_ev = self.ep.env.event()
        yield self.wake_ev
        if self.handed is not None:  # delegated to while idle
            v, delay = self.handed
            self.handed = None
            yield from self.do_part(v, delay)

    def delegate(self):
        ep, at = self.ep, self.at
        v = self.pop()
        h = None
        while at.waiting:
            c = at.waiting.pop(0)
            if c.waiting:
                h = c
                break
        spawn = 0.0
        if h is not None:
            h.waiting = False
            at.n_waiting -= 1
        else:
            h = Agent(ep, at, False)
            ep.spawned += 1
            spawn = SPAWN
        write = WRITE * MESSAGE
        start = max(spawn, write + LATENCY) + READ * MESSAGE
        h.context += MESSAGE
        h.become_busy()
        if spawn == 0:
            h.handed = (v, start)
            h.wake_ev.succeed()
        else:
            ep.env.process(h.live(v, start))
        self.become_busy()
        yield ep.env.timeout(write)

    def start_attempt(self):
        ep = self.ep
        h = Agent(ep, Attempt(alone=True), False)
        ep.spawned += 1
        ep.attempts += 1
        ep.pending += 1
        h.become_busy()
        ep.env.process(h.live(-1, SPAWN))

    def do_part(self, v, delay):
        ep, at = self.ep, self.at
        at.status[v] = TAKEN
        at.maker[v] = self.id
        self.become_busy()
        inputs_ok = all(at.ok[u] for u in PREDS[v])
        inputs = sum(TOKENS_OUT for u in PREDS[v] if at.maker[u] != self.id)
        arrive = delay + (LATENCY if inputs else 0.0)
        yield ep.env.timeout(arrive + READ * inputs)
        work = ep.work[v]
        calls = max(1, math.ceil(work / SPAN))
        for _ in range(calls):
            now = ep.env.now
            read = 0
            keep = []
            for t, tok in self.inbox:
                if t <= now:
                    read += tok
                else:
                    keep.append((t, tok))
            self.inbox = keep
            self.context += read
            prompt = SYSTEM_PROMPT + self.context + inputs
            yield ep.env.timeout(READ * read + OVERHEAD + PROMPT_TOKEN * prompt + work / calls)
        at.tries[v] += 1
        at.ok[v] = ep.rng.random() < P_OK and inputs_ok
        at.status[v] = HELD
        self.held, self.checked, self.shared = v, False, False

    def share(self):
        ep, at = self.ep, self.at
        self.shared = True
        write = WRITE * MESSAGE
        avail = ep.env.now + write + LATENCY
        makers = {at.maker[q] for w in SUCCS[self.held] if len(PREDS[w]) > 1
                  for q in PREDS[w] if q != self.held and at.status[q] == TAKEN and at.maker[q] != self.id}
        for m in makers:
            ep.agents[m].inbox.append((avail, MESSAGE))
        self.become_busy()
        yield ep.env.timeout(write)

    def check(self):
        ep, at = self.ep, self.at
        v = self.held
        at.checks[v] += 1
        self.become_busy()
        yield ep.env.timeout(ep.work[v] * CHECK_COST + OVERHEAD)
        right = ep.rng.random() < CHECK_ACC
        flagged = at.ok[v] != right
        if flagged and at.tries[v] <= RETRIES:
            self.held = -1
            yield from self.do_part(v, 0.0)
            return
        self.checked = True
        if not flagged:
            self.release()

    def submit(self):
        ep, at = self.ep, self.at
        if not self.main:
            ep.pending -= 1
            ep.candidates.append(at)
            self.gone = True
            ep.live -= 1
            ep.main.wake()
            return
        cands = ([at] if at.complete else []) + ep.candidates
        if not cands:
            ep.end(False)
            return
        if len(cands) == 1:
            ep.end(cands[0].result_ok)
            return
        chosen, d = cands[0], 0.0
        for c in cands:
            d += SELECT_COST
            if c.result_ok == (ep.rng.random() < SELECT_ACC):
                chosen = c
                break
        self.become_busy()
        yield ep.env.timeout(d)
        ep.end(chosen.result_ok)


class Episode:
    def __init__(self, rng, policy):
        self.rng, self.policy = rng, policy
        sigma2 = math.log1p(CV * CV)
        self.work = rng.lognormal(math.log(MEAN_WORK) - sigma2 / 2, math.sqrt(sigma2), NODES).tolist()
        self.total_work = sum(self.work)
        self.mean_work = self.total_work / NODES
        self.env = simpy.Environment()
        self.agents, self.live = [], 0
        self.candidates, self.pending, self.attempts, self.spawned = [], 0, 0, 0
        self.agent_time = 0.0
        self.decisions = self.choices = 0
        self.actions = [0] * NUM_ACTIONS
        self.done, self.acceptable, self.finish = False, False, LIMIT
        self.main = Agent(self, Attempt(alone=False), True)

    def end(self, acceptable):
        if not self.done:
            self.done, self.acceptable, self.finish = True, acceptable, self.env.now
            for a in self.agents:
                a.become_free()
            self.stop.succeed()

    def run(self):
        self.stop = self.env.event()
        self.env.process(self.main.live())
        self.env.run(until=simpy.AnyOf(self.env, [self.stop, self.env.timeout(LIMIT)]))
        if not self.done:
            self.end(False)  # the time limit (or a stall, which runs to it)
            self.finish = LIMIT
        reward = float(self.acceptable) - LATENCY_WEIGHT * self.finish / LIMIT - COST_WEIGHT * self.agent_time / LIMIT
        return reward


def linear_policy(theta, rng):
    """The numpy linear softmax policy over the valid actions."""
    bits = np.array([1 << a for a in range(NUM_ACTIONS)])

    def decide(x, mask):
        logits = theta @ np.asarray(x)
        valid = (mask & bits) != 0
        z = np.where(valid, logits, -np.inf)
        p = np.exp(z - z.max())
        p /= p.sum()
        a = int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"))
        return a if a < NUM_ACTIONS and valid[a] else int(np.flatnonzero(valid)[-1])  # rounding at the top

    return decide


def main():
    ap = argparse.ArgumentParser(description="latency-pressure in SimPy with a numpy linear policy")
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--theta", default="", help="policy parameters (.npy, shape 7x28); default zeros (uniform)")
    args = ap.parse_args()
    theta = np.load(args.theta) if args.theta else np.zeros((NUM_ACTIONS, NUM_FEATURES))
    rng = np.random.default_rng(args.seed)
    policy = linear_policy(theta, rng)
    decisions = choices = 0
    rewards, finishes, par, success, per_episode = [], [], [], [], []
    actions = np.zeros(NUM_ACTIONS)
    start = time.perf_counter()
    for _ in range(args.episodes):
        ep = Episode(rng, policy)
        rewards.append(ep.run())
        decisions += ep.decisions
        per_episode.append(ep.decisions)
        choices += ep.choices
        finishes.append(ep.finish)
        par.append(ep.agent_time / ep.finish)
        success.append(ep.acceptable)
        actions += ep.actions
    secs = time.perf_counter() - start
    print(f"mean reward {np.mean(rewards):.4f}, finish {np.mean(finishes):.0f} s, parallelism {np.mean(par):.2f}, "
          f"success {np.mean(success):.3f}, decisions per episode {decisions / args.episodes:.2f} "
          f"(se {np.std(per_episode) / math.sqrt(args.episodes):.2f}; choices {choices / args.episodes:.2f}); "
          "by action " + ", ".join(f"{n} {c / args.episodes:.2f}" for n, c in zip(ACTION_NAMES, actions)), file=sys.stderr)
    print(f"episodes={args.episodes} decisions={decisions} choices={choices} seconds={secs:.3f} "
          f"decisions_per_s={decisions / secs:.0f}")


if __name__ == "__main__":
    main()
