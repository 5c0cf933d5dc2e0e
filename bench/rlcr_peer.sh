#!/usr/bin/env bash
# rlcr_peer.sh: train the same model with the hand-written SimPy + Python
# REINFORCE peer (bench/rlcr_peer.py) and with `simulate train rlcr-peer`,
# side by side, several times, and print both rates and their ratio.
#
#   bench/rlcr_peer.sh              # RUNS=5
#   RUNS=9 bench/rlcr_peer.sh
#   PYTHON=/path/to/python3 bench/rlcr_peer.sh
#
# Each run times both whole processes (start-up, training, writing the
# outputs) one after the other, peer first, then swarmsim on one worker
# with --charts=false (the peer draws none either). Both train 19,200
# episodes: 150 iterations of 4 tasks x 8 rollouts for each of 4 latency
# weights. Rates are episodes per second of wall time and of CPU time
# (user + system: on a shared machine other load inflates wall time but not
# CPU time). The ratio of each run compares two measurements taken seconds
# apart; the medians over RUNS are the figures to report.
#
# SimPy comes from Debian's python3-simpy3 (into /usr/bin/python3); the
# script installs it with apt-get when no python has it and it may.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-peer.XXXXXX")}
mkdir -p "$OUT"

pick_python() {
	for p in "${PYTHON:-}" /usr/bin/python3 python3; do
		if [ -n "$p" ] && "$p" -c 'import simpy' 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
if ! PY=$(pick_python); then
	echo "rlcr_peer.sh: no python3 with SimPy; installing python3-simpy3" >&2
	if [ "$(id -u)" -eq 0 ]; then
		apt-get install -y python3-simpy3 >&2
	else
		sudo apt-get install -y python3-simpy3 >&2
	fi
	PY=$(pick_python) || { echo "rlcr_peer.sh: SimPy still missing" >&2; exit 1; }
fi

go build -o "$OUT/simulate" ./cmd/simulate

# timed CMD...: runs CMD, its output into $OUT/last.txt, and prints
# "wall cpu" in seconds (CPU = user + system of the process and children).
timed() {
	local t
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$OUT/last.txt" 2>&1; } 2>&1 )
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}

EPISODES=19200
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version | cut -d' ' -f3-), python: $("$PY" --version 2>&1), simpy: $("$PY" -c 'import simpy; print(simpy.__version__)')"
echo "episodes per process: $EPISODES (4 latency weights x 150 iterations x 4 tasks x 8 rollouts)"
printf '%4s %12s %12s %12s %12s %9s %9s\n' run peer_ep/s swarm_ep/s peer_cpu_ep/s swarm_cpu_ep/s ratio cpu_ratio
: >"$OUT/runs.txt"
for r in $(seq 1 "$RUNS"); do
	read -r pw pc < <(timed "$PY" bench/rlcr_peer.py)
	cp "$OUT/last.txt" "$OUT/peer-$r.txt"
	read -r sw sc < <(timed "$OUT/simulate" train rlcr-peer --seeds 1 --workers 1 --charts=false --force --out "$OUT/train")
	cp "$OUT/last.txt" "$OUT/swarmsim-$r.txt"
	awk -v r="$r" -v n="$EPISODES" -v pw="$pw" -v pc="$pc" -v sw="$sw" -v sc="$sc" 'BEGIN {
		printf "%4d %12.0f %12.0f %12.0f %12.0f %9.1f %9.1f\n", r, n/pw, n/sw, n/pc, n/sc, pw/sw, pc/sc
	}' | tee -a "$OUT/runs.txt"
done
sort -n -k6 "$OUT/runs.txt" | awk -v runs="$RUNS" '{ratio[NR] = $6} END { m = ratio[int((runs + 1) / 2)]; printf "median ratio (wall): %.1f\n", m }'
sort -n -k7 "$OUT/runs.txt" | awk -v runs="$RUNS" '{ratio[NR] = $7} END { m = ratio[int((runs + 1) / 2)]; printf "median ratio (cpu):  %.1f\n", m }'
for k in 2 3; do
	sort -n -k$k "$OUT/runs.txt" | awk -v runs="$RUNS" -v k="$k" '{v[NR] = $k} END { printf "median %s episodes/s (wall): %.0f\n", (k == 2 ? "peer" : "swarmsim"), v[int((runs + 1) / 2)] }'
done
echo "targets: ratio >= 10 (goal 20); outputs in $OUT"
echo "peer's last run:"
sed 's/^/  /' "$OUT/peer-$RUNS.txt"
