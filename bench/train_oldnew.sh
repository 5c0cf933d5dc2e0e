#!/usr/bin/env bash
# train_oldnew.sh: issue 9's training benchmark, the code before the work
# (95acbed, whose BenchmarkTrainIteration is the issue's workload: one
# one-iteration Train from scratch per loop) against this tree's
# BenchmarkTrainIssue9 (the same workload, kept under its own name), run
# interleaved in one session and compared with benchstat.
#
#   bench/train_oldnew.sh                # COUNT=10 BENCHTIME=40x
#   OLD=<commit> COUNT=20 bench/train_oldnew.sh
#
# The old tree is checked out into a temporary git worktree and removed
# afterwards. The old benchmark's name is rewritten to the new one so that
# benchstat pairs them. Needs benchstat
# (go install golang.org/x/perf/cmd/benchstat@latest).
set -euo pipefail

cd "$(dirname "$0")/.."
# benchstat is needed only at the end: look for it first, not after the runs.
BENCHSTAT=$(command -v benchstat || true)
[ -n "$BENCHSTAT" ] || { [ -x "$(go env GOPATH)/bin/benchstat" ] && BENCHSTAT=$(go env GOPATH)/bin/benchstat; } || {
	echo "train_oldnew.sh: benchstat not found; install it with" >&2
	echo "  go install golang.org/x/perf/cmd/benchstat@latest   (into \$(go env GOPATH)/bin)" >&2
	exit 1
}
OLD=${OLD:-95acbed}
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-40x}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-oldnew.XXXXXX")}
tree="$OUT/old-tree"

git worktree add --detach "$tree" "$OLD" >/dev/null
trap 'git worktree remove --force "$tree"' EXIT
(cd "$tree" && go test -c -o "$OUT/old.test" ./models/rlcr)
go test -c -o "$OUT/new.test" ./models/rlcr

: >"$OUT/old.txt"
: >"$OUT/new.txt"
cd models/rlcr # the benchmarks read nothing, but run where go test would
for i in $(seq "$COUNT"); do
	"$OUT/old.test" -test.run '^$' -test.bench '^BenchmarkTrainIteration$' -test.benchmem -test.benchtime "$BENCHTIME" |
		sed 's/BenchmarkTrainIteration/BenchmarkTrainIssue9/' >>"$OUT/old.txt"
	"$OUT/new.test" -test.run '^$' -test.bench '^BenchmarkTrainIssue9$' -test.benchmem -test.benchtime "$BENCHTIME" >>"$OUT/new.txt"
	echo "run $i of $COUNT done" >&2
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BENCHSTAT" "$OUT/old.txt" "$OUT/new.txt"
echo "raw output in $OUT"
