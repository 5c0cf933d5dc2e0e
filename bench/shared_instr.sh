#!/usr/bin/env bash
# shared_instr.sh: where BenchmarkShared's episode spends its instructions
# with every agent on its own server (own), on one shared replica (serving)
# and on a hosted API (api), by package: the table of docs/performance.md's
# "Shared inference". cachegrind counts each kind's benchmark at two
# episode counts; the difference over the episodes between is one steady
# episode, set-up and the benchmark's own rounds cancelled.
#
#   bench/shared_instr.sh              # about three minutes
#   LO=50 HI=200 bench/shared_instr.sh # quicker
#
# valgrind comes from Debian (installed with apt-get when missing).
set -euo pipefail

cd "$(dirname "$0")/.."
LO=${LO:-100}
HI=${HI:-400}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-shared.XXXXXX")}
mkdir -p "$OUT"
. bench/lib.sh
debian 'command -v valgrind' valgrind

go test -c -o "$OUT/collective.test" ./models/collective
for kind in own serving api; do
	for n in "$LO" "$HI"; do
		# GOGC=off keeps the collector's share out; valgrind 3.19 cannot
		# run RDTSCP, with which the runtime times its lock waits.
		GOGC=off GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
			--cachegrind-out-file="$OUT/$kind-$n.cg" "$OUT/collective.test" \
			-test.run '^$' -test.bench "^BenchmarkShared\$/^$kind\$" -test.benchtime "${n}x" >"$OUT/$kind-$n.txt" 2>&1
		cg_annotate --auto=no --threshold=0 "$OUT/$kind-$n.cg" >"$OUT/$kind-$n.ann"
	done
done
echo "BenchmarkShared, instructions an episode ((count at ${HI}x - count at ${LO}x) / $((HI - LO))), by package; outputs in $OUT"
python3 - "$OUT" "$LO" "$HI" <<'EOF'
import collections, re, sys

out, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# Rows by the file a function is in (cg_annotate's file:function), first match.
ROWS = [
    ("the collective (models/collective)", r"/models/collective/"),
    ("the server (models/serving)", r"/models/serving/"),
    ("random streams and draws (sim, math/rand)", r"/sim/(rand|dist|sampler)\.go:|/math/rand/"),
    ("the engine (sim: queue, timers, callbacks)", r"/sim/"),
    ("math", r"/src/math/"),
    ("task, runtime, other", r""),
]

def rows(path):
    counts = collections.Counter()
    for line in open(path):
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        row = next(name for name, pat in ROWS if re.search(pat, m.group(2)))
        counts[row] += int(m.group(1).replace(",", ""))
    return counts

kinds = ("own", "serving", "api")
per = {}
for k in kinds:
    a, b = rows(f"{out}/{k}-{hi}.ann"), rows(f"{out}/{k}-{lo}.ann")
    per[k] = {name: a[name] - b[name] for name, _ in ROWS}
print(f"{'':44s}" + "".join(f"{k:>12s}" for k in kinds))
for name, _ in ROWS:
    print(f"{name:44s}" + "".join(f"{per[k][name] / (hi - lo):12,.0f}" for k in kinds))
tot = {k: sum(per[k].values()) / (hi - lo) for k in kinds}
print(f"{'total':44s}" + "".join(f"{tot[k]:12,.0f}" for k in kinds))
print(f"serving/own {tot['serving'] / tot['own']:.2f}x, api/own {tot['api'] / tot['own']:.2f}x")
EOF
