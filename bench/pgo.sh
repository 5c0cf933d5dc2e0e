#!/usr/bin/env bash
# pgo.sh: regenerate cmd/simulate/default.pgo, the CPU profile that the go
# command uses for profile-guided optimisation whenever it builds, runs or
# tests the simulate command (-pgo=auto, the default since Go 1.21).
#
#   bench/pgo.sh                 # about a minute
#   BENCHTIME=10s bench/pgo.sh   # a longer, steadier profile
#
# The profile is the merge of the benchmarks of what the command spends its
# time on: training on the flagship's problem in steady state
# (BenchmarkTrainIteration), fresh one-iteration trainings as a sweep runs
# them (BenchmarkTrainIssue9), the SimPy peer's model (BenchmarkTrainPeer),
# episodes on shared servers, a hosted API and a tool pool
# (BenchmarkShared), and `simulate env` stepping 256 rows through the
# protocol (BenchmarkServe). Regenerate it after a change that moves the hot path;
# a stale profile costs speed, never correctness (the compiler only inlines
# and lays out code differently), and docs/performance.md says how much it
# gains.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-4s}
work=$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-pgo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Profiles are collected without PGO, so that the new profile does not
# depend on the old one.
profile() { # package, benchmark pattern, output name
	go test -pgo=off -c -o "$work/$3.test" "./$1"
	(cd "$1" && "$work/$3.test" -test.run '^$' -test.bench "$2" \
		-test.benchtime "$BENCHTIME" -test.cpuprofile "$work/$3.pprof" >/dev/null)
	echo "profiled $1 $2" >&2
}
profile models/rlcr '^BenchmarkTrainIteration$' iteration
profile models/rlcr '^BenchmarkTrainIssue9$' fresh
profile models/rlcr '^BenchmarkTrainPeer$' peer
profile models/collective '^BenchmarkShared$' shared
profile experiment/env '^BenchmarkServe$' env

go tool pprof -proto "$work"/*.pprof >cmd/simulate/default.pgo 2>/dev/null
echo "wrote cmd/simulate/default.pgo ($(wc -c <cmd/simulate/default.pgo) bytes)"
