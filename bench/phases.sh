#!/usr/bin/env bash
# phases.sh: where a whole `simulate train rlcr-peer` process's time goes,
# by phase (start-up, the scenario, the training, the checkpoints, the
# tables, the report, the run directory, the rest): the table of
# docs/performance.md's "A whole process". perf samples the process's
# CPU time (every thread, kernel included) with call stacks, RUNS times,
# and bench/phases.py sorts the samples by the first phase found on each
# stack. Also prints the processes' wall and CPU time and page faults.
#
#   bench/phases.sh               # --seeds 1, as bench/peer.sh runs it
#   SEEDS=5 bench/phases.sh       # as bench/floor.sh runs it
#
# The command is floor.sh's and peer.sh's: one worker, no charts, no
# baselines, --force over the last run's directory. perf comes from
# Debian's linux-perf (installed with apt-get when missing); it needs
# perf_event_paranoid <= 2, as a root shell or the default allows.
set -euo pipefail

cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-1}
RUNS=${RUNS:-4}
FREQ=${FREQ:-10000}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-phases.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh
debian 'perf --version' linux-perf
perf stat -e task-clock true >/dev/null 2>&1 || {
	echo "phases.sh: perf cannot count this process's events (see /proc/sys/kernel/perf_event_paranoid: at most 2 is needed)" >&2
	exit 1
}

build_simulate "$OUT/simulate"
cmd=("$OUT/simulate" train rlcr-peer --seeds "$SEEDS" --workers 1 --charts=false --baseline=false --force --out "$OUT/train")
"${cmd[@]}" >/dev/null 2>&1 # the first run after a build is not counted
machine_line
perf stat -r "$RUNS" -e task-clock,page-faults "${cmd[@]}" 2>&1 >/dev/null | grep -E 'task-clock|page-faults|elapsed' | sed 's/^ *//'
: >"$OUT/samples.txt"
for r in $(seq 1 "$RUNS"); do
	perf record -q -F "$FREQ" -g -o "$OUT/perf.data" "${cmd[@]}" >/dev/null 2>&1
	perf script -i "$OUT/perf.data" -F comm,tid,ip,sym 2>/dev/null >>"$OUT/samples.txt"
	echo >>"$OUT/samples.txt"
done
echo "simulate train rlcr-peer --seeds $SEEDS --workers 1, $RUNS runs sampled at $FREQ Hz; outputs in $OUT"
python3 bench/phases.py "$OUT/samples.txt"
