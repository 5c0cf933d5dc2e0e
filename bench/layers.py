#!/usr/bin/env python3
"""layers.py: the by-layer table of docs/performance.md ("Where the time
goes") from callgrind_annotate's output: instructions per episode in the
collective, the engine, the policy at decision time, the update, the random
streams, the task draws and the rest.

Usage: layers.py SELF TREE EPISODES
  SELF      callgrind_annotate --auto=no --threshold=100 (each function's own
            instructions, with what is inlined into it)
  TREE      callgrind_annotate --tree=caller --threshold=100 (who calls whom)
  EPISODES  episodes in the profiled run

A function counts in its package's row, but for the policy's functions,
which count in the update's row when they make the gradient
(AddGradProbs, addOuter, axpy2, logitGradFrom) and in the policy's
otherwise; the features count where they are called from (the recorder,
at decision time, or collect, in the update). The math package's
functions count in their callers' rows, in proportion to the calls'
instructions (log1p from the features, log and exp from the softmax).
"""

import collections
import re
import sys

MODULE = "github.com/swarmsim/swarmsim/"
GRADIENT = ("AddGradProbs", "addOuter", "axpy2", "logitGradFrom")
RANDOM = ("Key", "fnv", "Streams", "splitmix")
COST = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(\S+?):(\S+)")
CALLER = re.compile(r"^\s*([\d,]+) .*?<\s+\S+?:(\S+)")


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
    """The instructions that fn spends for each of its callers."""
    out = collections.Counter()
    for i, line in enumerate(tree):
        if f"*  " in line and f":{fn} [" in line:
            j = i - 1
            while j >= 0 and "<" in tree[j]:
                m = CALLER.match(tree[j])
                if m:
                    out[m.group(2)] += number(m.group(1))
                j -= 1
            break
    return out


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
        return "update"
    return "other"


def main():
    self_path, tree_path, episodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    own = own_costs(self_path)
    tree = open(tree_path).read().split("\n")
    rows = collections.Counter()
    features = callers_of(tree, MODULE + "models/policy.Features")
    if not features:
        sys.exit("layers.py: the caller tree names no caller of policy.Features (callgrind_annotate leaves callers out when run inside the source tree)")

    def add(caller, n):
        if "policy.Features" not in caller:
            rows[row(caller)] += n
            return
        total = sum(features.values())
        for c, v in features.items():
            rows["update" if "collect" in c else "policy"] += n * v / total

    for fn, n in own.items():
        if not fn.startswith("math."):
            add(fn, n)
            continue
        shares = callers_of(tree, fn)
        total = sum(shares.values())
        if not total:
            rows["other"] += n
        for caller, v in shares.items():
            add(caller, n * v / total)
    lost = sum(own.values()) - sum(rows.values())
    if abs(lost) > 1e-6 * sum(own.values()):
        sys.exit(f"layers.py: {lost:.0f} instructions in no row (a math function's callers missing from the tree)")
    for name, n in sorted(rows.items(), key=lambda kv: -kv[1]):
        print(f"{name:16s} {n / episodes:8.0f}")
    print(f"{'total':16s} {sum(rows.values()) / episodes:8.0f}")


if __name__ == "__main__":
    main()
