#!/bin/bash
# make bench: every benchmark in one run, results as ratios side by side.
set -u
OUT=${OUT:-build}
for b in "$OUT"/bench/*; do
	[ -x "$b" ] || continue
	echo "### $(basename "$b")"
	"$b" || echo "bench: $(basename "$b") failed with status $?"
done
