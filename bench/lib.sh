# lib.sh: what the side-by-side scripts in bench/ share; source it after
# `set -euo pipefail` and setting OUT (a directory for outputs).

# build_simulate DEST: builds cmd/simulate into DEST as the README's build
# step does: static (CGO_ENABLED=0), the binary a user copies or installs.
build_simulate() {
	CGO_ENABLED=0 go build -o "$1" ./cmd/simulate
}

# timed CMD...: runs CMD with its output in $OUT/last.txt and prints
# "wall cpu" in seconds (CPU = user + system of the process and children).
# If CMD fails it says so on standard error, with the end of its output,
# and prints nothing (so that the caller's read fails and the script stops).
timed() {
	local t rc=0
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$OUT/last.txt" 2>&1; } 2>&1 ) || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "${0##*/}: failed (exit $rc): $*" >&2
		echo "its output ($OUT/last.txt) ends:" >&2
		tail -n 15 "$OUT/last.txt" | sed 's/^/  /' >&2
		return "$rc"
	fi
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}

# median COLUMN FILE: the median of a column of numbers (the lower middle
# one of an even count).
median() {
	sort -g -k"$1" "$2" | awk -v k="$1" '{v[NR] = $k} END { print v[int((NR + 1) / 2)] }'
}

# machine_line: the CPUs, their model and the load, for the record.
machine_line() {
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# debian CHECK PACKAGE...: unless the shell command CHECK succeeds, installs
# the Debian packages with apt-get (through sudo when not root), refreshing
# the package lists first if the install fails without; then CHECK must
# succeed.
debian() {
	local check=$1 sudo=()
	shift
	eval "$check" >/dev/null 2>&1 && return 0
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	echo "${0##*/}: installing $*" >&2
	local install=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@")
	"${install[@]}" >&2 || { "${sudo[@]}" apt-get update -qq >&2 && "${install[@]}" >&2; } ||
		{ echo "${0##*/}: apt-get could not install $*" >&2; return 1; }
	eval "$check" >/dev/null 2>&1 || { echo "${0##*/}: $* installed, but '$check' still fails" >&2; return 1; }
}
