#!/usr/bin/env bash
# peer.sh: train a model with its hand-written SimPy + Python REINFORCE peer
# (bench/MODEL_peer.py) and with `simulate train MODEL-peer`, side by side,
# several times, and print both rates and their ratio.
#
#   bench/peer.sh rlcr              # the fork-join of 8 (RUNS=5)
#   bench/peer.sh layered           # the layered DAG of 4x4 and a sink
#   RUNS=9 bench/peer.sh rlcr
#   PYTHON=/path/to/python3 bench/peer.sh layered
#   RUNS=1 ITERATIONS=5 bench/peer.sh layered   # a quick check that it runs
#   WORKERS=2 bench/peer.sh rlcr    # swarmsim on two workers (the default
#                                   # of `simulate train` is one per CPU)
#
# Each run times both whole processes (start-up, training, writing the
# outputs) one after the other, peer first, then swarmsim on WORKERS
# workers (default 1: one core, as the peer) with --charts=false (the peer draws none either) and --baseline=false
# (the peer scores no fixed organization either). Both train 19,200
# episodes: 150 iterations of 4 tasks x 8 rollouts for each of 4 latency
# weights. Rates are episodes per second of wall time and of CPU time
# (user + system: on a shared machine other load inflates wall time but not
# CPU time). The ratio of each run compares two measurements taken seconds
# apart; the medians over RUNS are the figures to report. Every run checks
# that both sides made the same number of decisions per episode (the
# model's subtasks: each is claimed by one decision) and stops if not.
#
# SimPy comes from Debian's python3-simpy3 (into /usr/bin/python3); the
# script installs it with apt-get when no python has it and it may.
set -euo pipefail

cd "$(dirname "$0")/.."
MODEL=${1:?usage: bench/peer.sh MODEL (rlcr or layered)}
# A model is a bench/MODEL_peer.py with a library scenario MODEL-peer
# (bench/env_peer.py is env.sh's, not one of these).
models() { for f in bench/*_peer.py; do m=${f#bench/}; m=${m%_peer.py}; [ -f "scenarios/library/$m-peer.yaml" ] && printf '%s ' "$m"; done; }
[ -f "bench/${MODEL}_peer.py" ] && [ -f "scenarios/library/$MODEL-peer.yaml" ] ||
	{ echo "peer.sh: no model $MODEL (models: $(models))" >&2; exit 2; }
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-150} # per latency weight
WORKERS=${WORKERS:-1}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-peer.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh

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
	debian '/usr/bin/python3 -c "import simpy"' python3-simpy3
	PY=$(pick_python)
fi

build_simulate "$OUT/simulate"

EPISODES=$((4 * ITERATIONS * 32))
machine_line
echo "go: $(go version | cut -d' ' -f3-), python: $("$PY" --version 2>&1), simpy: $("$PY" -c 'import simpy; print(simpy.__version__)')"
echo "model: $MODEL; episodes per process: $EPISODES (4 latency weights x $ITERATIONS iterations x 4 tasks x 8 rollouts); swarmsim on $WORKERS worker(s)"
printf '%4s %12s %12s %12s %12s %9s %9s\n' run peer_ep/s swarm_ep/s peer_cpu_ep/s swarm_cpu_ep/s ratio cpu_ratio
: >"$OUT/runs.txt"
for r in $(seq 1 "$RUNS"); do
	read -r pw pc < <(timed "$PY" "bench/${MODEL}_peer.py" --iterations "$ITERATIONS")
	cp "$OUT/last.txt" "$OUT/peer-$r.txt"
	read -r sw sc < <(timed "$OUT/simulate" train "$MODEL-peer" --seeds 1 --workers "$WORKERS" --charts=false --baseline=false --force --out "$OUT/train" --set "train.iterations=$ITERATIONS")
	cp "$OUT/last.txt" "$OUT/swarmsim-$r.txt"
	# The same decisions per episode on both sides, over all iterations.
	peer_dpe=$(awk '/^episodes=/ { split($1, e, "="); split($2, d, "="); printf "%.1f", d[2] / e[2] }' "$OUT/peer-$r.txt")
	swarm_dpe=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { e += $c["episodes"]; d += $c["decisions"] } END { printf "%.1f", d / e }' "$OUT/train/iterations.csv")
	if [ "$peer_dpe" != "$swarm_dpe" ]; then
		echo "peer.sh: decisions per episode differ: peer $peer_dpe, swarmsim $swarm_dpe" >&2
		exit 1
	fi
	awk -v r="$r" -v n="$EPISODES" -v pw="$pw" -v pc="$pc" -v sw="$sw" -v sc="$sc" 'BEGIN {
		printf "%4d %12.0f %12.0f %12.0f %12.0f %9.1f %9.1f\n", r, n/pw, n/sw, n/pc, n/sc, pw/sw, pc/sc
	}' | tee -a "$OUT/runs.txt"
done
echo "decisions per episode: $swarm_dpe on both sides"
echo "median ratio (wall): $(median 6 "$OUT/runs.txt")"
echo "median ratio (cpu):  $(median 7 "$OUT/runs.txt")"
echo "median peer episodes/s (wall): $(median 2 "$OUT/runs.txt")"
echo "median swarmsim episodes/s (wall): $(median 3 "$OUT/runs.txt")"
echo "target: ratio >= 20; outputs in $OUT"
echo "peer's last run:"
sed 's/^/  /' "$OUT/peer-$RUNS.txt"
