#!/usr/bin/env python3
"""phases.py: the by-phase table of docs/performance.md ("A whole
process") from `perf script -F comm,tid,ip,sym` of perf record -g runs of
`simulate train`: each sample counts in the first phase whose function is
on its stack, in the order below (so the checkpoint writer's goroutine is
apart from the training, and the summary apart from the other tables).

Usage: phases.py SAMPLES
"""

import collections
import sys

# (a substring of a function on the stack, the phase it marks), first match wins.
PHASES = [
    ("train.(*Checkpoints).run", "checkpoints (their goroutine)"),
    ("runtime.doInit", "start-up: package initialisation"),
    ("runtime.rt0_go", "start-up: the runtime"),
    ("runtime.schedinit", "start-up: the runtime"),
    ("results.TrainSummary", "tables: summary.csv"),
    ("train.WriteTables", "tables: iterations.csv, policies"),
    ("report.", "report.html"),
    ("scenarios.", "the scenario: parse and resolve"),
    ("rlcr.(*training).run", "the training"),
    ("train.OpenDir", "the run directory: claim, clear, commit"),
    ("rundir.", "the run directory: claim, clear, commit"),
    ("os.RemoveAll", "the run directory: claim, clear, commit"),
    ("runtime.gcBgMarkWorker", "the garbage collector"),
    ("main.", "the command's other work"),
]
OTHER = "the rest (kernel without a Go stack, runtime threads)"


def is_frame(line):
    """A stack frame of perf script: an address in hex, then a symbol."""
    ip = line.split(None, 1)[0] if line.strip() else ""
    return all(c in "0123456789abcdef" for c in ip) and ip != ""


def main(path):
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        sys.exit(f"phases.py: {e}")
    counts = collections.Counter()
    total = 0
    for sample in text.split("\n\n"):
        frames = sample.strip().split("\n")[1:]
        if not frames or not all(is_frame(f) for f in frames):
            continue
        total += 1
        stack = "\n".join(frames)
        counts[next((phase for needle, phase in PHASES if needle in stack), OTHER)] += 1
    if total == 0:
        sys.exit(f"phases.py: no perf samples with call stacks in {path} (perf script -F comm,tid,ip,sym of a perf record -g)")
    print(f"{'phase':<56} {'share':>6}")
    for phase, n in counts.most_common():
        print(f"{phase:<56} {100 * n / total:5.1f}%")
    print(f"({total} samples)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
