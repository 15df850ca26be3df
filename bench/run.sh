#!/bin/bash
# make bench: every benchmark in one run, results as ratios side by side.
set -u
OUT=${OUT:-build}
for b in "$OUT"/bench/* "$(dirname "$0")"/*_bench.sh; do
	[ -x "$b" ] || continue
	# A helper the GCM bench runs, not a bench of its own.
	[ "$(basename "$b")" = probe_floor ] && continue
	echo "### $(basename "$b")"
	"$b" || echo "bench: $(basename "$b") failed with status $?"
done
# The soak at full length: every collector under a flood, RSS and fds flat.
echo "### soak (${SOAK_SECONDS:-600} s)"
root=$(cd "$(dirname "$0")/.." && pwd)
SOAK_SECONDS=${SOAK_SECONDS:-600} RS_ROOT=$root RINGSIDE=$root/$OUT/ringside RS_PROGS=$root/$OUT/tests/progs \
	bash "$root/tests/integration/soak.sh"
