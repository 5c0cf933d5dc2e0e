#!/usr/bin/env python3
"""rlcr_peer.py: the hand-written peer of `simulate train rlcr-peer`.

What a new user would write instead of swarmsim: a SimPy model of a
fork-join collective and a plain-Python REINFORCE loop with a flat
collective advantage and Adam (bench/peerlib.py: the collective, the
policy and the learner, shared with the other peers). It is the reference
that bench/peer.sh rlcr compares `simulate train` against;
docs/performance.md describes it.

The model (the same as scenarios/library/rlcr-peer.yaml):
  - Task: a root, 8 parallel parts, a join; every subtask's work is
    Exp(mean 10 min).
  - Up to 8 agents; helpers spawn in 2 min.
  - Acceptable iff the join is done by 200 min.
  - Features: ready unclaimed subtasks over 8.
  - 150 iterations for each latency weight: 600 iterations, 19,200
    episodes of 10 decisions.

Usage: rlcr_peer.py [--iterations N] [--seed S]
"""

import sys

import peerlib

PARTS = 8
NODES = PARTS + 2  # root, parts, join
MEAN_WORK = 10.0  # minutes

# The fork-join's graph: the root precedes every part, every part the join.
SUCC = [list(range(1, PARTS + 1))] + [[NODES - 1]] * PARTS + [[]]
NPRED = [0] + [1] * PARTS + [PARTS]


def draw(rng):
    return SUCC, NPRED, [rng.expovariate(1 / MEAN_WORK) for _ in range(NODES)]


MODEL = peerlib.Model(agents=8, spawn=2.0, limit=200.0, ready_scale=PARTS, draw=draw)

if __name__ == "__main__":
    sys.exit(peerlib.main(MODEL, __doc__.split("\n")[0]))
