#!/usr/bin/env python3
"""SimPy peer of BenchmarkHold in sim/bench_test.go.

The hold model: N processes, each repeatedly waiting an Exp(1) time
(``yield env.timeout(random.expovariate(1.0))``). After a warm-up that starts
every process, the model runs in slices of virtual time until at least
--seconds of wall time have passed, and the events processed in that window
are counted.

One line per N (and per repetition, with --count), machine-readable
(key=value), for bench/compare.sh:

    simpy_hold procs=100 events=1523441 seconds=1.502 events_per_s=1014274

Lines starting with '#' are comments (versions).
"""

import argparse
import platform
import random
import sys
import time

import simpy


def hold(env, rng):
    timeout = env.timeout
    expo = rng.expovariate
    while True:
        yield timeout(expo(1.0))


def measure(n, seconds, seed):
    rng = random.Random(seed)
    env = simpy.Environment()
    for _ in range(n):
        env.process(hold(env, rng))
    # Warm-up: every process has started and waited a few times.
    env.run(until=5.0)

    # Each process fires about once per unit of virtual time, so a slice of
    # 20000/n units is about 20000 events: small enough to stop near the
    # target, large enough that the run() calls cost nothing.
    step = max(20000.0 / n, 0.01)
    # Every event SimPy schedules takes a number from env._eid; the events
    # processed in the window are the numbers taken in it. Fall back to
    # n per unit of virtual time (the model's rate) if the field moves.
    eid = getattr(env, "_eid", None)
    start_eid = next(eid) if eid is not None else None
    start_now = env.now
    t0 = time.perf_counter()
    while True:
        env.run(until=env.now + step)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    if eid is not None:
        events = next(eid) - start_eid - 1
    else:
        events = int(round(n * (env.now - start_now)))
    return events, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", default="10,100,1000,10000",
                    help="comma-separated process counts (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=1.5,
                    help="wall time to measure per process count (default %(default)s)")
    ap.add_argument("--count", type=int, default=1,
                    help="measurements per process count, one line each (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    print(f"# python {platform.python_version()} ({sys.executable}), simpy {simpy.__version__}")
    for _ in range(args.count):
        for n in (int(x) for x in args.procs.split(",")):
            events, elapsed = measure(n, args.seconds, args.seed)
            print(f"simpy_hold procs={n} events={events} seconds={elapsed:.3f} "
                  f"events_per_s={events / elapsed:.0f}", flush=True)


if __name__ == "__main__":
    main()
