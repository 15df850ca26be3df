#!/bin/bash
# Run ringside's tests and print one closing line: "N passed, N failed, N skipped".
# Every test program prints lines "PASS name", "FAIL name: why", "SKIP name: why".
# Usage: tests/run-tests.sh [unit|integration|FILTER...]
set -u
OUT=${OUT:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export OUT RINGSIDE="$root/$OUT/ringside" RS_ROOT="$root" RS_PROGS="$root/$OUT/tests/progs"
pass=0 fail=0 skip=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

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
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

mode=all
FILTERS=()
case "${1:-}" in
unit | integration) mode=$1; shift ;;
esac
FILTERS=("$@")

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
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
