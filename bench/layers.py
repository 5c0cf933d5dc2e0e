#!/usr/bin/env python3
"""layers.py: the by-layer table of docs/performance.md ("Where the time
goes") from callgrind_annotate's output: instructions per episode in the
collective, the engine, the policy at decision time, the update, the random
streams, the task draws and the rest.

Usage: layers.py SELF TREE
  SELF  callgrind_annotate --auto=no --threshold=100 (each function's own
        instructions, with what is inlined into it)
  TREE  callgrind_annotate --tree=caller --threshold=100 (who calls whom,
        and how often)

Episodes are the calls of collective.(*Runner).start by Runner.Run. A function counts in
its package's row, with these exceptions: the policy's gradient
(AddGradProbs, addOuter, axpy2, logitGradFrom) counts in the update; the
features count where they are called from (the recorder, at decision
time, or collect, in the update); the trainer's rollout plumbing (the
rollouts' loop and scoring) counts with the rest, its streams with the
random streams. The math package's functions count in their callers' rows,
in proportion to the calls' instructions (log1p from the features, log and
exp from the softmax).
"""

import collections
import re
import sys

MODULE = "github.com/swarmsim/swarmsim/"
GRADIENT = ("AddGradProbs", "addOuter", "axpy2", "logitGradFrom")
RANDOM = ("Key", "fnv", "Streams", "splitmix")
PLUMBING = ("rollouts", "scored", "Reward")
COST = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(\S+?):(\S+)")
CALLER = re.compile(r"^\s*([\d,]+) .*?<\s+\S+?:(\S+) \(([\d,]+)x\)")


def number(s):
    return int(s.replace(",", ""))


def own_costs(path):
    """Each function's own instructions, over the files it takes code from."""
    out = collections.Counter()
    for line in open(path):
        m = COST.match(line)
        if m and "PROGRAM TOTALS" not in line:
            out[m.group(3)] += number(m.group(1))
    return out


def callers_of(tree, fn):
    """fn's instructions and calls by each of its callers. callgrind names a
    function called within a cycle of calls fn'2, fn'3, ...: those count as fn."""
    cost, calls = collections.Counter(), collections.Counter()
    header = re.compile(r"\*\s+\S+?:" + re.escape(fn) + r"(?:'\d+)? \[")
    for i, line in enumerate(tree):
        if header.search(line):
            j = i - 1
            while j >= 0 and "<" in tree[j]:
                m = CALLER.match(tree[j])
                if m:
                    cost[m.group(2)] += number(m.group(1))
                    calls[m.group(2)] += number(m.group(3))
                j -= 1
    return cost, calls


def row(fn):
    f = fn.replace(MODULE, "")
    if f.startswith("models/collective"):
        return "collective"
    if f.startswith("sim."):
        return "random streams" if any(k in f for k in RANDOM) else "engine"
    if f.startswith("models/task"):
        return "task draws"
    if f.startswith("models/policy"):
        return "update" if any(f".{g}" in f for g in GRADIENT) else "policy"
    if f.startswith("models/rlcr"):
        if "recorder" in f:
            return "policy"
        if "rolloutStreams" in f:
            return "random streams"
        if any(p in f for p in PLUMBING):
            return "other"
        return "update"
    return "other"


def main():
    own = own_costs(sys.argv[1])
    tree = open(sys.argv[2]).read().split("\n")
    # By Run only: callgrind puts a call of start under a caller inlined into Run now and then.
    starts = callers_of(tree, MODULE + "models/collective.(*Runner).start")[1]
    episodes = sum(n for caller, n in starts.items() if "(*Runner).Run" in caller)
    features = callers_of(tree, MODULE + "models/policy.Features")[0]
    if not episodes or not features:
        sys.exit("layers.py: the caller tree names no caller of Runner.start or policy.Features (callgrind_annotate leaves callers out when run inside the source tree)")
    rows = collections.Counter()

    def add(fn, n):
        if "policy.Features" not in fn:
            rows[row(fn)] += n
            return
        total = sum(features.values())
        for caller, v in features.items():
            rows["update" if "collect" in caller else "policy"] += n * v / total

    unplaced = 0
    for fn, n in own.items():
        if not fn.startswith("math."):
            add(fn, n)
            continue
        shares = {c: v for c, v in callers_of(tree, fn)[0].items() if not c.startswith("math.")}
        total = sum(shares.values())
        if not total:  # called by other math functions only, or not at all
            rows["other"] += n
            unplaced += n
            continue
        for caller, v in shares.items():
            add(caller, n * v / total)
    if unplaced > 1e-3 * sum(own.values()):
        sys.exit(f"layers.py: {unplaced} instructions of math functions with no caller outside math")
    print(f"instructions per episode over {episodes} episodes")
    for name, n in sorted(rows.items(), key=lambda kv: -kv[1]):
        print(f"{name:16s} {n / episodes:8.0f}")
    print(f"{'total':16s} {sum(rows.values()) / episodes:8.0f}")


if __name__ == "__main__":
    main()
