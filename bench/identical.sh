#!/usr/bin/env bash
# identical.sh: every library scenario's run, train, sweep, compare, trace and
# graph outputs from two builds of simulate, compared file by file.
#
#   bench/identical.sh                 # BASE=HEAD~1 against the working tree
#   BASE=852081b bench/identical.sh
#
# A refactoring that promises "outputs byte-identical" is checked with it: the
# old tree is built from a temporary git worktree, both binaries run the same
# commands (training and sweeps cut short with --set, so the whole library
# takes minutes, not hours), and the directories are compared with diff -r.
# The manifests' swarmsim_version (the commit) is the one field allowed to
# differ; it is blanked before the comparison. PNGs are compared too. The
# terminal output (stdout) and exit status of every command are part of the
# comparison, but for the progress lines of long commands, which come by the
# wall clock. Exit status 0 means identical.
set -euo pipefail

cd "$(dirname "$0")/.."
BASE=${BASE:-HEAD~1}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-identical.XXXXXX")}
tree="$OUT/base-tree"

git worktree add --detach "$tree" "$BASE" >/dev/null
trap 'git worktree remove --force "$tree"' EXIT
(cd "$tree" && go build -o "$OUT/base" ./cmd/simulate)
go build -o "$OUT/head" ./cmd/simulate

# Training cut to a few iterations and seeds; sweeps to one seed.
short=(--set train.iterations=4)

produce() { # produce BINARY DIR
	local bin=$1 dir=$2
	mkdir -p "$dir"
	cd "$dir"
	for s in $("$bin" list | awk '{print $1}'); do
		{
			echo "## run $s"
			"$bin" run "$s" --episodes 40 --out "run-$s" 2>&1 || echo "exit $?"
			echo "## train $s"
			"$bin" train "$s" --seeds 2 --workers 2 "${short[@]}" --out "train-$s" 2>&1 || echo "exit $?"
			echo "## sweep $s"
			# A sweep of command run reads no train section.
			"$bin" sweep "$s" --workers 2 "${short[@]}" --set sweep.seeds=1 --out "sweep-$s" 2>&1 ||
				"$bin" sweep "$s" --workers 2 --set sweep.seeds=1 --out "sweep-$s" 2>&1 || echo "exit $?"
			echo "## graph $s"
			"$bin" graph "$s" 2>&1 || echo "exit $?"
			echo "## trace $s"
			"$bin" trace "$s" --out "trace-$s.json" 2>&1 || echo "exit $?"
		} >"stdout-$s.txt"
	done
	{
		echo "## compare"
		"$bin" train latency-pressure --seeds 2 "${short[@]}" --set train.std_norm=false --out train-lp-nostd 2>&1 || echo "exit $?"
		"$bin" compare train-latency-pressure train-lp-nostd --out compare-trains 2>&1 || echo "exit $?"
		"$bin" run organizations --episodes 40 --seed 2 --out run-organizations-seed2 2>&1 || echo "exit $?"
		"$bin" compare run-organizations run-organizations-seed2 --out compare-runs 2>&1 || echo "exit $?"
		"$bin" sweep exp-pressure --workers 2 "${short[@]}" --set sweep.seeds=1 --seed 2 --out sweep-exp-pressure-seed2 2>&1 || echo "exit $?"
		"$bin" compare sweep-exp-pressure sweep-exp-pressure-seed2 --out compare-sweeps 2>&1 || echo "exit $?"
	} >stdout-compare.txt
	# Progress lines come every 30 s of wall time, so where a long sweep is
	# when they come is the machine's load, not an output.
	sed -i '/^progress: /d' stdout-*.txt
	# The commit that built the binary is the one thing allowed to differ.
	find . -name manifest.json -exec sed -i 's/"swarmsim_version": "[^"]*"/"swarmsim_version": "X"/' {} +
	cd - >/dev/null
}

produce "$OUT/base" "$OUT/a" &
produce "$OUT/head" "$OUT/b" &
wait
if diff -r "$OUT/a" "$OUT/b" >"$OUT/diff.txt"; then
	echo "identical: $(find "$OUT/a" -type f | wc -l) files ($OUT)"
else
	head -50 "$OUT/diff.txt"
	echo "DIFFERENT: see $OUT/diff.txt"
	exit 1
fi
