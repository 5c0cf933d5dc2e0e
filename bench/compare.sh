#!/usr/bin/env bash
# compare.sh: measure the engine's hold benchmarks against their floors and
# against SimPy, in one run, and print a table.
#
#   bench/compare.sh                    # defaults: COUNT=5 BENCHTIME=1s
#   COUNT=10 BENCHTIME=2s bench/compare.sh
#   PYTHON=/path/to/python3 bench/compare.sh
#   STAT=min bench/compare.sh           # best of COUNT instead of the median
#
# Needs go, and python3 with SimPy for the SimPy columns (without it the
# table is printed with those columns empty). It installs nothing. The raw
# `go test -bench` output is kept (path printed at the end) for benchstat.
#
# Columns (medians over COUNT runs, or minima with STAT=min, which suits a
# shared machine where other load only ever adds time; events/s = 1e9 / ns
# per event):
#   hold ev/s    BenchmarkHold/procs=N: N processes each waiting Exp(1)
#   floor ev/s   BenchmarkHoldFloor/procs=N: bare 4-ary heap + iter.Pull
#   hold/floor   ns per event of hold over floor (target <= 1.3, N <= 1000)
#   cb/heap      BenchmarkHoldCallback/pending=N over BenchmarkHeapFloor/
#                pending=N, ns per event (target <= 1.5, N <= 1000)
#   simpy ev/s   bench/simpy_hold.py, the same model in SimPy (SIMPY_COUNT
#                measurements of SIMPY_SECONDS each per N)
#   hold/simpy   hold ev/s over SimPy ev/s (target >= 6 at N = 100, 1000)
#   allocs       allocs per event of hold (target 0)
# A dash means that size is not measured by that benchmark.
set -euo pipefail

cd "$(dirname "$0")/.."
COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-1s}
STAT=${STAT:-median}
SIMPY_SECONDS=${SIMPY_SECONDS:-1}
SIMPY_COUNT=${SIMPY_COUNT:-3}
SIMPY_PROCS=${SIMPY_PROCS:-10,100,1000,10000}
RAW=${RAW:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-bench.XXXXXX")}
mkdir -p "$RAW"

command -v go >/dev/null 2>&1 || { echo "compare.sh: go is not on PATH" >&2; exit 1; }

# A Python with SimPy: $PYTHON if set, else the system python3 (where the
# Debian package installs SimPy), else python3 on PATH.
find_python() {
	local py
	for py in "${PYTHON:-}" /usr/bin/python3 python3; do
		[ -n "$py" ] || continue
		command -v "$py" >/dev/null 2>&1 || continue
		if "$py" -c 'import simpy' >/dev/null 2>&1; then
			echo "$py"
			return 0
		fi
	done
	return 1
}
if PY=$(find_python); then
	SIMPY_VERSION=$("$PY" -c 'import simpy; print(simpy.__version__)')
else
	PY=""
	cat >&2 <<'EOF'
compare.sh: no python3 with SimPy found; the SimPy columns stay empty.
  Debian/Ubuntu:  sudo apt-get install python3-simpy3   (then it is found in /usr/bin/python3)
  elsewhere:      python3 -m pip install simpy           (or set PYTHON=/path/to/python3)
EOF
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo "# date:   $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# cpu:    ${cpu:-unknown} ($(nproc 2>/dev/null || echo ?) cores)"
echo "# go:     $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"
if [ -n "$PY" ]; then
	echo "# python: $("$PY" -c 'import platform; print(platform.python_version())') ($PY), simpy $SIMPY_VERSION"
fi
echo "# load:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?) at start; COUNT=$COUNT BENCHTIME=$BENCHTIME STAT=$STAT"

go test -run '^$' -bench 'Hold|HeapFloor' -benchmem -benchtime "$BENCHTIME" -count "$COUNT" ./sim >"$RAW/go.txt"
if [ -n "$PY" ]; then
	"$PY" bench/simpy_hold.py --procs "$SIMPY_PROCS" --seconds "$SIMPY_SECONDS" --count "$SIMPY_COUNT" >"$RAW/simpy.txt"
else
	: >"$RAW/simpy.txt"
fi
echo "# load:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?) at end (a load above the core count means the figures are noisy)"
echo

awk -v stat="$STAT" '
function median(key,    n, i, j, v, tmp) {
	n = cnt[key]
	if (n == 0) return ""
	for (i = 1; i <= n; i++) v[i] = val[key, i]
	for (i = 2; i <= n; i++) {
		tmp = v[i]
		for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]
		v[j + 1] = tmp
	}
	if (stat == "min") return v[1]
	if (n % 2) return v[(n + 1) / 2]
	return (v[n / 2] + v[n / 2 + 1]) / 2
}
function evs(ns) { return ns == "" ? "-" : sprintf("%.2fM", 1000 / ns) }
function ratio(a, b, fmt) { return (a == "" || b == "" || b == 0) ? "-" : sprintf(fmt, a / b) }
function add(key, x) { cnt[key]++; val[key, cnt[key]] = x + 0 }
function addsize(n) { if (!(n in seen)) { seen[n] = 1; sizes[++nsizes] = n + 0 } }

# go test -bench lines: BenchmarkHold/procs=100-2  N  154.3 ns/op  0 B/op  0 allocs/op
FNR == NR && /^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)
	split(name, parts, "=")
	size = parts[2]
	add(name, $3)
	for (i = 4; i <= NF; i++) if ($i == "allocs/op") allocs[name] = $(i - 1)
	if (name ~ /^BenchmarkHold\/procs=/ || name ~ /^BenchmarkHoldCallback\/pending=/) addsize(size)
	next
}
# simpy_hold procs=100 events=... seconds=... events_per_s=...
FNR != NR && /^simpy_hold/ {
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		f[kv[1]] = kv[2]
	}
	# Stored as ns per event, so that median() treats both tools alike.
	add("simpy/procs=" f["procs"], 1e9 / f["events_per_s"])
	addsize(f["procs"])
}
END {
	for (i = 2; i <= nsizes; i++) {
		tmp = sizes[i]
		for (j = i - 1; j >= 1 && sizes[j] > tmp; j--) sizes[j + 1] = sizes[j]
		sizes[j + 1] = tmp
	}
	printf "%8s  %10s  %10s  %10s  %8s  %8s  %8s  %10s  %10s  %6s\n", \
		"N", "hold ev/s", "floor ev/s", "hold/floor", "cb ns", "heap ns", "cb/heap", "simpy ev/s", "hold/simpy", "allocs"
	for (i = 1; i <= nsizes; i++) {
		n = sizes[i]
		hold = median("BenchmarkHold/procs=" n)
		floor = median("BenchmarkHoldFloor/procs=" n)
		cb = median("BenchmarkHoldCallback/pending=" n)
		heap = median("BenchmarkHeapFloor/pending=" n)
		sp = median("simpy/procs=" n)
		if (sp != "") sp = 1000 / sp # millions of events per second
		al = allocs["BenchmarkHold/procs=" n]
		if (al == "") al = allocs["BenchmarkHoldCallback/pending=" n]
		printf "%8d  %10s  %10s  %10s  %8s  %8s  %8s  %10s  %10s  %6s\n", n, \
			evs(hold), evs(floor), ratio(hold, floor, "x%.2f"), \
			cb == "" ? "-" : sprintf("%.1f", cb), heap == "" ? "-" : sprintf("%.1f", heap), \
			ratio(cb, heap, "x%.2f"), sp == "" ? "-" : sprintf("%.3fM", sp), \
			(hold == "" || sp == "") ? "-" : sprintf("x%.1f", 1000 / hold / sp), al == "" ? "-" : al

		# The targets of DESIGN.md section 7 and the performance issue.
		if (hold != "" && floor != "" && n <= 1000) \
			check(sprintf("hold/floor <= 1.3 at N=%d", n), hold / floor <= 1.3, sprintf("x%.2f", hold / floor))
		if (cb != "" && heap != "" && n <= 1000) \
			check(sprintf("callback/heap <= 1.5 at N=%d", n), cb / heap <= 1.5, sprintf("x%.2f", cb / heap))
		if (hold != "" && sp != "" && (n == 100 || n == 1000)) \
			check(sprintf("hold/SimPy >= 6 at N=%d", n), 1000 / hold / sp >= 6, sprintf("x%.1f", 1000 / hold / sp))
		if (al != "") check(sprintf("0 allocs/event at N=%d", n), al + 0 == 0, al)
	}
	print ""
	for (i = 1; i <= nchecks; i++) print checks[i]
}
function check(what, ok, got) { checks[++nchecks] = sprintf("%-8s %-32s %s", ok ? "ok" : "MISSED", what, got) }
' "$RAW/go.txt" "$RAW/simpy.txt"

echo
echo "# raw output: $RAW/go.txt (benchstat $RAW/go.txt), $RAW/simpy.txt"
