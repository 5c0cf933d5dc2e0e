#!/usr/bin/env bash
# layers.sh: where an rlcr-peer training episode's instructions go, by layer
# (the collective, the engine, the policy at decision time, the update, the
# random streams, the task draws, the rest): the table of
# docs/performance.md's "Where the time goes". callgrind counts
# BenchmarkTrainPeer's instructions (400 iterations of 32 episodes, set-up
# included, GOGC=off, GOMAXPROCS=1) and bench/layers.py sorts them into rows.
#
#   bench/layers.sh              # about two minutes
#   ITER=100 bench/layers.sh     # a quicker, less steady count
#
# valgrind comes from Debian (installed with apt-get when missing).
set -euo pipefail

cd "$(dirname "$0")/.."
ITER=${ITER:-400}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-layers.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh
debian 'command -v valgrind' valgrind

go test -c -o "$OUT/rlcr.test" ./models/rlcr
# GODEBUG: the preemption signal crashes Go binaries under callgrind, and
# valgrind 3.19 cannot run RDTSCP, with which the runtime times its lock
# waits where the CPU has it (cpu.rdtscp=off: RDTSC instead).
GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
	--callgrind-out-file="$OUT/callgrind.out" "$OUT/rlcr.test" \
	-test.run '^$' -test.bench 'TrainPeer$' -test.benchtime "${ITER}x" >"$OUT/bench.txt" 2>&1
# Run outside the source tree: there callgrind_annotate shortens the
# module's paths and its caller tree leaves their callers out.
(cd "$OUT" && callgrind_annotate --auto=no --threshold=100 callgrind.out >self.txt &&
	callgrind_annotate --tree=caller --threshold=100 callgrind.out >tree.txt)
echo "BenchmarkTrainPeer, $ITER iterations of 32 episodes and the benchmark's first round, set-up included; outputs in $OUT"
python3 bench/layers.py "$OUT/self.txt" "$OUT/tree.txt"
