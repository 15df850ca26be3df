#!/bin/bash
# make bench: every benchmark in one run, results as ratios side by side.
set -u
OUT=${OUT:-build}
for b in "$OUT"/bench/* "$(dirname "$0")"/*_bench.sh; do
	[ -x "$b" ] || continue
	echo "### $(basename "$b")"
	"$b" || echo "bench: $(basename "$b") failed with status $?"
done
