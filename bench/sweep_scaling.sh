#!/usr/bin/env bash
# sweep_scaling.sh: how 'simulate sweep' scales with workers. It builds
# simulate, runs the same sweep with --workers 1, 2, 4, 8 and 16 (those up
# to the number of CPUs) into fresh directories, and prints the wall time,
# trials per second and the speedup over one worker. It also checks that
# every worker count wrote the same trials.csv, byte for byte.
#
#   bench/sweep_scaling.sh                               # pressure-sweep, 36 trials
#   bench/sweep_scaling.sh --set sweep.seeds=16          # 192 trials: enough for 16 workers
#   WORKERS="1 2" bench/sweep_scaling.sh                 # only these counts
#   SCENARIO=my.yaml bench/sweep_scaling.sh --set train.iterations=50
#   SIMULATE=/path/to/simulate bench/sweep_scaling.sh    # a built binary, on a machine without Go
#
# Arguments are passed to 'simulate sweep' (--set overrides, --variant).
# Charts are not drawn (--charts=false): they are drawn once, serially,
# at the end of a sweep and are not what scales. The speedup is bounded by
# the number of trials over the number of workers (the last round of
# trials may leave workers idle) and by the slowest trial.
set -euo pipefail

cd "$(dirname "$0")/.."
SCENARIO=${SCENARIO:-pressure-sweep}
WORKERS=${WORKERS:-"1 2 4 8 16"}
NPROC=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)

. bench/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -n ${SIMULATE:-} ]]; then
	cp "$SIMULATE" "$tmp/simulate"
else
	build_simulate "$tmp/simulate"
fi

now() { date +%s.%N; }

printf '%s: %s %s on %s CPUs (%s)\n' "$(basename "$0")" "$SCENARIO" "$*" "$NPROC" "$(uname -s)/$(uname -m), $("$tmp/simulate" version | head -1)"
printf '%8s %8s %10s %10s %8s\n' workers trials seconds trials/s speedup
base=""
ref=""
for w in $WORKERS; do
	if (( w > NPROC )); then
		continue
	fi
	out="$tmp/w$w"
	start=$(now)
	"$tmp/simulate" sweep "$SCENARIO" --workers "$w" --charts=false --out "$out" "$@" >/dev/null
	end=$(now)
	trials=$(find "$out/trials" -maxdepth 1 -name '????????????????.json' | wc -l)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
	rate=$(awk -v n="$trials" -v s="$secs" 'BEGIN { printf "%.2f", n / s }')
	if [[ -z $base ]]; then
		base=$secs
	fi
	speedup=$(awk -v a="$base" -v s="$secs" 'BEGIN { printf "%.2f", a / s }')
	printf '%8d %8d %10s %10s %8s\n' "$w" "$trials" "$secs" "$rate" "$speedup"
	if [[ -z $ref ]]; then
		ref="$out/trials.csv"
	elif ! cmp -s "$ref" "$out/trials.csv"; then
		echo "error: trials.csv with $w workers differs from the first run's" >&2
		exit 1
	fi
done
echo "trials.csv identical for every worker count"
