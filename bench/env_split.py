#!/usr/bin/env python3
"""env_split.py: where a step of bench/env_vec.py's loop spends its time,
the split docs/performance.md gives under "Where the time goes".

Steps VecEnv("latency-pressure", variant="high", num_envs=256) with
env_vec.py's policy (zero parameters: uniform over the valid actions) and
prints, per step:
  wall        the loop's wall time
  server cpu  the `simulate env` child's user + system time (/proc)
  client cpu  this process's user + system time (getrusage)
then records the server's replies to a number of steps and replays them
from memory, so that the client's parts are timed without the pipe or
the server:
  library     VecEnv.step with the reply read from memory
  bookkeeping env_vec.py's counting of decisions and episodes
  policy      env_vec.py's policy (an einsum and a Gumbel-max draw)

Usage (after the build step of README.md):
  PYTHONPATH=python /usr/bin/python3 bench/env_split.py [--steps 3000] [--replay 200]
Linux only (/proc).
"""

import argparse
import io
import os
import resource
import time

import numpy as np

from env_vec import Counter, linear_policy  # the bench's own policy and counting
from swarmsim import VecEnv


def server_cpu(pid):
    """The process's user + system time in seconds, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Recorder(io.RawIOBase):
    """A reader that keeps a copy of what it reads from the server."""

    def __init__(self, stream):
        self.stream, self.data = stream, bytearray()

    def readable(self):
        return True

    def readinto(self, b):
        n = self.stream.readinto1(b)  # at most one read: readinto would wait for len(b) bytes
        self.data += bytes(b[:n])
        return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--replay", type=int, default=200, help="steps recorded and replayed from memory")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    with VecEnv("latency-pressure", variant="high", num_envs=256, seed=1) as env:
        theta = np.zeros((env.num_actions, env.num_features), dtype=np.float32)
        policy = linear_policy(theta, rng)
        bookkeeping = Counter(env)

        obs, info = env.reset()
        proc = env._proc
        s0, c0, t0 = server_cpu(proc.pid), client_cpu(), time.perf_counter()
        for _ in range(args.steps):
            active = info["active"]
            obs, _, term, trunc, info = env.step(policy(obs, info["action_mask"]))
            bookkeeping(active, term, trunc, info)
        wall = time.perf_counter() - t0
        server, client = server_cpu(proc.pid) - s0, client_cpu() - c0

        # Record replies: the same step requests, the replies copied as read.
        replies = []
        stdout = proc.stdout
        for _ in range(args.replay):
            mask, active = info["action_mask"], info["active"]
            a = policy(obs, mask)
            rec = Recorder(stdout)
            proc.stdout = io.BufferedReader(rec, 1 << 16)
            step = env.step(a)
            replies.append({"data": bytes(rec.data), "actions": a, "obs": obs, "mask": mask, "active": active, "step": step})
            obs, info = step[0], step[4]
        proc.stdout = stdout

        class Sink:
            def write(self, b):
                return len(b)

            def flush(self):
                pass

        stdin, proc.stdin = proc.stdin, Sink()
        t = time.perf_counter()
        for r in replies:
            proc.stdout = io.BufferedReader(io.BytesIO(r["data"]), 1 << 16)
            env.step(r["actions"])
        library = time.perf_counter() - t
        proc.stdin, proc.stdout = stdin, stdout
        t = time.perf_counter()
        for r in replies:
            _, _, term, trunc, inf = r["step"]
            bookkeeping(r["active"], term, trunc, inf)
        books = time.perf_counter() - t
        t = time.perf_counter()
        for r in replies:
            policy(r["obs"], r["mask"])
        pol = time.perf_counter() - t
    us = 1e6
    print(f"per step of 256 rows over {args.steps} steps: wall {wall / args.steps * us:.0f} us, "
          f"server cpu {server / args.steps * us:.0f} us, client cpu {client / args.steps * us:.0f} us")
    n = len(replies)
    print(f"client parts over {n} replayed steps: library {library / n * us:.1f} us, "
          f"bookkeeping {books / n * us:.1f} us, policy {pol / n * us:.1f} us")


if __name__ == "__main__":
    main()
