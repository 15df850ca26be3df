#!/bin/bash
# Run ringside's tests and print one closing line: "N passed, N failed, N skipped".
# Every test program prints lines "PASS name", "FAIL name: why", "SKIP name: why".
# Usage: tests/run-tests.sh [unit|integration] [FILTER...]
# REPEAT=N runs the selection N times and ends with a table of the cases that
# failed at least once (failures/N); the closing line counts every run.
set -u
OUT=${OUT:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export OUT RINGSIDE="$root/$OUT/ringside" RS_ROOT="$root" RS_PROGS="$root/$OUT/tests/progs"
# A SAN build's leak check leaves out what libraries keep on purpose (tests/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
pass=0 fail=0 skip=0
log=$(mktemp)
failures=$(mktemp)
# GnuTLS calibrations ringside keeps across runs (src/gcm/gnutls_cache.h) go
# to the run's own folder, not the machine's /var/cache/ringside.
export RINGSIDE_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$log" "$failures" "$RINGSIDE_CACHE_DIR"' EXIT
repeat=${REPEAT:-1}
case $repeat in '' | *[!0-9]* | 0) echo "REPEAT='$repeat' is not a positive number" >&2; exit 2 ;; esac

want() {	# name: is it selected by the FILTERS given on the command line?
	[ ${#FILTERS[@]} -eq 0 ] && return 0
	for f in "${FILTERS[@]}"; do
		case "$1" in *"$f"*) return 0 ;; esac
	done
	return 1
}

run_one() {	# name, command...
	local name=$1 rc
	shift
	echo "== $name"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	local p f s
	p=$(grep -c '^PASS ' "$log") f=$(grep -c '^FAIL ' "$log") s=$(grep -c '^SKIP ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "FAIL $name: ran no test case"
		f=1
	fi
	# The failed cases by name; a program that failed without naming one counts as itself.
	if grep -q '^FAIL ' "$log"; then
		grep '^FAIL ' "$log" | sed 's/^FAIL \([^: ]*\).*/\1/' >>"$failures"
	elif [ "$f" -gt 0 ]; then
		echo "$name" >>"$failures"
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

mode=all
FILTERS=()
case "${1:-}" in
unit | integration) mode=$1; shift ;;
esac
FILTERS=("$@")

run_all() {
	if [ "$mode" != integration ]; then
		for t in "$root/$OUT"/tests/test_*; do
			[ -x "$t" ] || continue
			want "$(basename "$t")" || continue
			run_one "unit/$(basename "$t")" "$t"
		done
	fi
	if [ "$mode" != unit ]; then
		for t in "$here"/integration/*.sh; do
			[ -f "$t" ] || continue
			want "$(basename "$t")" || continue
			run_one "integration/$(basename "$t" .sh)" bash "$t"
		done
	fi
}

for run in $(seq "$repeat"); do
	[ "$repeat" -gt 1 ] && echo "==== run $run of $repeat"
	run_all
done
if [ "$repeat" -gt 1 ]; then
	echo
	echo "per-case failures over $repeat runs:"
	if [ -s "$failures" ]; then
		sort "$failures" | uniq -c | sort -rn | awk -v n="$repeat" '{printf "  %-50s %d/%d\n", $2, $1, n}'
	else
		echo "  none"
	fi
fi
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
