#!/usr/bin/env python3
"""layered_peer.py: the hand-written peer of `simulate train layered-peer`.

The second model the SimPy + Python REINFORCE loop (bench/peerlib.py) is
measured on, of another shape than rlcr_peer.py's fork-join: a random
layered DAG, whose subtasks become ready a few at a time as their own
predecessors finish, not all at once after a root. bench/peer.sh layered
compares `simulate train layered-peer` against it; docs/performance.md
describes it.

The model (the same as scenarios/library/layered-peer.yaml):
  - Task: 4 layers of 4 subtasks; each pair of subtasks in consecutive
    layers is joined with probability 0.5, and a subtask of layer 1 or
    below left without a parent gets one uniformly from the layer above;
    one final subtask joins every subtask without children. 17 subtasks,
    numbered layer by layer, the final one last; every subtask's work is
    Exp(mean 10 min). Drawn anew for each task instance.
  - Up to 6 agents; helpers spawn in 2 min.
  - Acceptable iff the final subtask is done by 300 min.
  - Features: ready unclaimed subtasks over 4.
  - 150 iterations for each latency weight: 600 iterations, 19,200
    episodes of 17 decisions.

Usage: layered_peer.py [--iterations N] [--seed S]
"""

import sys

import peerlib

WIDTH, DEPTH, EDGE_PROB = 4, 4, 0.5
NODES = WIDTH * DEPTH + 1  # the layers and the final subtask
MEAN_WORK = 10.0  # minutes


def draw(rng):
    succ = [[] for _ in range(NODES)]
    npred = [0] * NODES
    for layer in range(1, DEPTH):
        above, here = (layer - 1) * WIDTH, layer * WIDTH
        for v in range(here, here + WIDTH):
            for u in range(above, above + WIDTH):
                if rng.random() < EDGE_PROB:
                    succ[u].append(v)
                    npred[v] += 1
            if npred[v] == 0:
                u = above + rng.randrange(WIDTH)
                succ[u].append(v)
                npred[v] = 1
    sink = NODES - 1
    for u in range(sink):
        if not succ[u]:
            succ[u].append(sink)
            npred[sink] += 1
    work = [rng.expovariate(1 / MEAN_WORK) for _ in range(NODES)]
    return succ, npred, work


MODEL = peerlib.Model(agents=6, spawn=2.0, limit=300.0, ready_scale=WIDTH, draw=draw)

if __name__ == "__main__":
    sys.exit(peerlib.main(MODEL, __doc__.split("\n")[0]))
