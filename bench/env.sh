#!/usr/bin/env bash
# env.sh: decisions per second of latency-pressure three ways, in one run:
#   (a) VecEnv at num_envs=256 (group GROUP, default 1) with a numpy linear softmax policy
#       (bench/env_vec.py, through `simulate env`),
#   (b) `simulate train latency-pressure` on one worker (decisions from its
#       own iterations.csv, time = the whole process; --baseline=false, as
#       the fixed rows' episodes would take 6.9% of its instructions and
#       add no decision to iterations.csv),
#   (c) the SimPy peer of the same model with the same numpy policy
#       (bench/env_peer.py),
# then the ratios the issue asks for: (a)/(b) (target >= 0.5) and (a)/(c)
# (target >= 20).
#
#   bench/env.sh                                   # the full sizes
#   ITER=3 VEC_STEPS=200 PEER_EPISODES=3 bench/env.sh  # a smoke run
#   SIMULATE=/path/to/simulate bench/env.sh        # a built binary, on a machine without Go
#   WORKERS=2 bench/env.sh                         # (a) steps its rows on 2 server threads
#   GROUP=8 bench/env.sh                           # (a) in groups of 8 rows, as (b) trains
#   SPLIT=2 bench/env.sh                           # (a) steps two halves with step_async, one while the policy chooses the other's actions
#
# Decisions are counted alike everywhere: every decision with a valid
# action, those with a single one included (what `simulate train` counts
# in iterations.csv and collective.Metrics.Actions in actions_*); VecEnv
# pauses only at decisions with a choice, which it reports apart. Rates
# are per second of wall time and of CPU time (user + system, the Go child
# included): on a shared machine other load inflates wall time, not CPU
# time. "per s (loop)" is the stepping loop's own time, start-up excluded,
# for (a) and (c). (a) steps its rows on one server thread (make's workers
# 1; WORKERS sets it), as (b) trains on one worker. (a) and (c) use the
# uniform policy (zero parameters); (b) learns, which changes its
# decisions per episode, not what a decision costs. (b) trains in groups of
# train.group = 8 rollouts that share a task instance and the random
# streams; (a) steps rows of GROUP (default 1, VecEnv's default) alike,
# resetting when every row has ended, as a group baseline needs.
#
# numpy and SimPy come from Debian (python3-numpy, python3-simpy3, into
# /usr/bin/python3); the script installs them with apt-get when missing.
set -euo pipefail

cd "$(dirname "$0")/.."
ITER=${ITER:-150}
VEC_STEPS=${VEC_STEPS:-3000}
PEER_EPISODES=${PEER_EPISODES:-200}
NUM_ENVS=${NUM_ENVS:-256}
WORKERS=${WORKERS:-1}
GROUP=${GROUP:-1}
SPLIT=${SPLIT:-1}
PY=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-env.XXXXXX")}
mkdir -p "$OUT"

. bench/lib.sh
debian "$PY -c 'import numpy, simpy'" python3-numpy python3-simpy3

# The one documented build step, unless SIMULATE names a built binary;
# VecEnv finds the binary through SWARMSIM_SIMULATE (set here so that no
# other simulate is picked up).
if [[ -n ${SIMULATE:-} ]]; then
	SWARMSIM_SIMULATE=$(realpath "$SIMULATE")
else
	build_simulate python/swarmsim/bin/simulate
	SWARMSIM_SIMULATE=$PWD/python/swarmsim/bin/simulate
fi
export SWARMSIM_SIMULATE
export PYTHONPATH=$PWD/python

# timed NAME CMD...: runs CMD, its stdout into $OUT/NAME.txt, and prints
# "wall cpu" in seconds (CPU = user + system of the process and children).
timed() {
	local name=$1 t rc=0
	shift
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"; } 2>&1 ) || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "env.sh: ($name) failed (exit $rc): $*" >&2
		echo "its standard error ($OUT/$name.err) ends:" >&2
		tail -n 15 "$OUT/$name.err" | sed 's/^/  /' >&2
		return "$rc"
	fi
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}
field() { grep -o "$1=[0-9.]*" "$OUT/$2.txt" | tail -1 | cut -d= -f2; }

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go version 2>/dev/null | cut -d' ' -f3- || echo "none ($SWARMSIM_SIMULATE)"), python: $("$PY" --version 2>&1), numpy $("$PY" -c 'import numpy; print(numpy.__version__)'), simpy $("$PY" -c 'import simpy; print(simpy.__version__)')"

read -r vw vc < <(timed vec "$PY" bench/env_vec.py --num-envs "$NUM_ENVS" --steps "$VEC_STEPS" --workers "$WORKERS" --group "$GROUP" --split "$SPLIT")
vd=$(field decisions vec)
vch=$(field choices vec)
vs=$(field seconds vec)

read -r tw tc < <(timed train "$SWARMSIM_SIMULATE" train latency-pressure --seeds 1 --workers 1 --charts=false --baseline=false --force \
	--set train.iterations="$ITER" --out "$OUT/train")
td=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decisions") c = i; next } { s += $c } END { print s }' "$OUT/train/iterations.csv")

read -r pw pc < <(timed peer "$PY" bench/env_peer.py --episodes "$PEER_EPISODES")
pd=$(field decisions peer)
ps=$(field seconds peer)

awk -v vd="$vd" -v vch="$vch" -v vs="$vs" -v vw="$vw" -v vc="$vc" -v td="$td" -v tw="$tw" -v tc="$tc" \
	-v pd="$pd" -v ps="$ps" -v pw="$pw" -v pc="$pc" -v n="$NUM_ENVS" -v w="$WORKERS" -v g="$GROUP" -v sp="$SPLIT" 'BEGIN {
	a = "(a) VecEnv, " n " rows, group " g ", workers " w
	if (sp > 1)
		a = a ", split " sp
	printf "%-44s %10s %14s %14s %14s\n", "", "decisions", "per s (loop)", "per s (wall)", "per s (cpu)"
	printf "%-44s %10d %14.0f %14.0f %14.0f   (choices %d)\n", a, vd, vd / vs, vd / vw, vd / vc, vch
	printf "%-44s %10d %14s %14.0f %14.0f\n", "(b) simulate train, 1 worker", td, "-", td / tw, td / tc
	printf "%-44s %10d %14.0f %14.0f %14.0f\n", "(c) SimPy peer, numpy", pd, pd / ps, pd / pw, pd / pc
	printf "(a)/(b): %.2f wall, %.2f cpu (target >= 0.5)\n", (vd / vw) / (td / tw), (vd / vc) / (td / tc)
	printf "(a)/(c): %.1f wall, %.1f cpu, %.1f loop (target >= 20)\n", (vd / vw) / (pd / pw), (vd / vc) / (pd / pc), (vd / vs) / (pd / ps)
}'
echo "outputs in $OUT"
