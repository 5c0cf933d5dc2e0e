#!/usr/bin/env bash
# floor.sh: the floor (bench/floor: the rlcr-peer model and learner written
# as directly as Go allows) and `simulate train rlcr-peer`, side by side,
# several times, and their rates and ratio.
#
#   bench/floor.sh              # RUNS=5 SEEDS=5
#   RUNS=9 SEEDS=10 bench/floor.sh
#
# Each run times two whole processes one after the other (which goes first
# alternates from run to run): the floor's test binary running
# BenchmarkFloor SEEDS times (each a training of the scenario's 19,200
# episodes: 4 latency weights x 150 iterations x 4 tasks x 8 rollouts, from
# a fresh seed), and `simulate train rlcr-peer --seeds SEEDS --workers 1
# --charts=false --baseline=false` (the same 19,200 episodes per seed, with
# the start-up, the scenario's parsing and the outputs written; without
# --baseline=false it would also score the fixed organization on the last
# tenth's 1,920 episodes a seed, 7.8% of its instructions, which no
# episode count here includes and the floor does not do). Rates are episodes per
# second of wall time and of CPU time (user + system) of each process; the
# floor's in-process rate (the benchmark's own episodes/s, no start-up) is
# listed too. The figures to report are the medians over RUNS of the wall
# rates; the last line is exactly
#   floor F episodes/s, simulate S episodes/s, ratio F/S
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SEEDS=${SEEDS:-5}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-floor.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh

build_simulate "$OUT/simulate"
CGO_ENABLED=0 go test -c -o "$OUT/floor.test" ./bench/floor # static, as simulate

EPISODES=$((SEEDS * 19200))
machine_line
echo "go: $(go version | cut -d' ' -f3-)"
echo "episodes per process: $EPISODES ($SEEDS seeds x 4 latency weights x 150 iterations x 4 tasks x 8 rollouts)"
printf '%4s %12s %12s %13s %13s %15s %7s\n' run floor_ep/s swarm_ep/s floor_cpu_ep/s swarm_cpu_ep/s floor_inproc_ep/s ratio
: >"$OUT/runs.txt"
floor_run() {
	read -r fw fc < <(timed "$OUT/floor.test" -test.run '^$' -test.bench '^BenchmarkFloor$' -test.benchtime "${SEEDS}x")
	fi=$(awk '/^BenchmarkFloor/ { for (i = 1; i < NF; i++) if ($(i + 1) == "episodes/s") print $i }' "$OUT/last.txt")
	[ -n "$fi" ] || { echo "floor.sh: the floor's benchmark failed:" >&2; cat "$OUT/last.txt" >&2; exit 1; }
	cp "$OUT/last.txt" "$OUT/floor-$r.txt"
}
swarm_run() {
	read -r sw sc < <(timed "$OUT/simulate" train rlcr-peer --seeds "$SEEDS" --workers 1 --charts=false --baseline=false --force --out "$OUT/train")
	cp "$OUT/last.txt" "$OUT/simulate-$r.txt"
}
for r in $(seq 1 "$RUNS"); do
	if [ $((r % 2)) -eq 1 ]; then
		floor_run
		swarm_run
	else
		swarm_run
		floor_run
	fi
	awk -v r="$r" -v n="$EPISODES" -v fw="$fw" -v fc="$fc" -v sw="$sw" -v sc="$sc" -v fi="$fi" 'BEGIN {
		printf "%4d %12.0f %12.0f %13.0f %13.0f %15.0f %7.2f\n", r, n/fw, n/sw, n/fc, n/sc, fi, sw/fw
	}' | tee -a "$OUT/runs.txt"
done
echo "median ratio of each run (wall): $(median 7 "$OUT/runs.txt")"
echo "median CPU rates: floor $(median 4 "$OUT/runs.txt"), simulate $(median 5 "$OUT/runs.txt") episodes/s; floor in-process $(median 6 "$OUT/runs.txt")"
echo "outputs in $OUT"
F=$(median 2 "$OUT/runs.txt")
S=$(median 3 "$OUT/runs.txt")
awk -v f="$F" -v s="$S" 'BEGIN { printf "floor %.0f episodes/s, simulate %.0f episodes/s, ratio %.2f\n", f, s, f / s }'
