#!/usr/bin/env bash
# env_instr.sh: instructions per step of bench/env_vec.py (VecEnv, 256 rows,
# numpy policy) in the Go server and in the Python client, and per decision
# beside `simulate train` on one worker: figures that, unlike times, do not
# depend on the machine's load (valgrind --tool=cachegrind, GOMAXPROCS=1).
# Each count is the difference between a long and a short run, so that
# start-up (imports, loading the scenario) drops out.
#
#   bench/env_instr.sh                      # 100 and 600 steps; train iterations 2 and 6
#   SIMULATE=/path/to/simulate bench/env_instr.sh
#
# It takes a few minutes (valgrind runs code about 50 times slower).
# valgrind and numpy come from Debian (installed with apt-get when missing).
set -euo pipefail
# The measured commands' own messages are thrown away; say which one failed.
trap 'echo "env_instr.sh: failed (exit $?): $BASH_COMMAND" >&2' ERR

cd "$(dirname "$0")/.."
LO=${LO:-100}
HI=${HI:-600}
PY=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-env-instr.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh
debian 'command -v valgrind' valgrind
debian "$PY -c 'import numpy'" python3-numpy
if [[ -n ${SIMULATE:-} ]]; then
	sim=$(realpath "$SIMULATE")
else
	build_simulate python/swarmsim/bin/simulate
	sim=$PWD/python/swarmsim/bin/simulate
fi
# Go's runtime times waits on its own locks with RDTSCP where the CPU has
# it, an instruction valgrind 3.19 cannot run (the server dies of SIGILL
# now and then); cpu.rdtscp=off makes it use RDTSC, which valgrind runs.
export GOMAXPROCS=1 PYTHONPATH=$PWD/python GODEBUG=cpu.rdtscp=off

# The server runs under cachegrind too: VecEnv starts this wrapper.
cat >"$OUT/simulate" <<WRAP
#!/bin/sh
exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="\$IR_OUT" "$sim" "\$@" 2>/dev/null
WRAP
chmod +x "$OUT/simulate"

# instructions FILE: the total a cachegrind output counted.
instructions() { awk '/^summary:/ { print $2 }' "$1"; }

for steps in "$LO" "$HI"; do
	IR_OUT=$OUT/server-$steps.out SWARMSIM_SIMULATE=$OUT/simulate \
		valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$OUT/client-$steps.out" \
		"$PY" bench/env_vec.py --steps "$steps" >"$OUT/vec-$steps.txt" 2>/dev/null
done
decisions() { grep -o 'decisions=[0-9]*' "$OUT/vec-$1.txt" | cut -d= -f2; }
for it in 2 6; do
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$OUT/train-$it.out" \
		"$sim" train latency-pressure --seeds 1 --workers 1 --charts=false --baseline=false --force \
		--set train.iterations="$it" --out "$OUT/train-$it" >/dev/null 2>&1
done
td() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decisions") c = i; next } { s += $c } END { print s }' "$OUT/train-$1/iterations.csv"; }

awk -v s1="$(instructions "$OUT/server-$LO.out")" -v s2="$(instructions "$OUT/server-$HI.out")" \
	-v c1="$(instructions "$OUT/client-$LO.out")" -v c2="$(instructions "$OUT/client-$HI.out")" \
	-v d1="$(decisions "$LO")" -v d2="$(decisions "$HI")" -v steps=$((HI - LO)) \
	-v t1="$(instructions "$OUT/train-2.out")" -v t2="$(instructions "$OUT/train-6.out")" \
	-v td1="$(td 2)" -v td2="$(td 6)" 'BEGIN {
	per = (d2 - d1) / steps
	printf "VecEnv, 256 rows: %.0f decisions a step\n", per
	printf "  server %10.0f instructions a step, %6.0f a decision\n", (s2 - s1) / steps, (s2 - s1) / (d2 - d1)
	printf "  client %10.0f instructions a step, %6.0f a decision\n", (c2 - c1) / steps, (c2 - c1) / (d2 - d1)
	printf "  both                                  %6.0f a decision\n", (s2 - s1 + c2 - c1) / (d2 - d1)
	printf "simulate train, 1 worker:               %6.0f a decision\n", (t2 - t1) / (td2 - td1)
	printf "train / VecEnv: %.2f (instructions; times differ by cache misses and the pipe)\n", ((t2 - t1) / (td2 - td1)) / ((s2 - s1 + c2 - c1) / (d2 - d1))
}'
echo "outputs in $OUT"
