#!/bin/bash
# make demo: the main job on built-in workloads. Each collector adds its part.
set -u
OUT=${OUT:-build}
R=$OUT/ringside
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (sudo make demo): ringside attaches BPF programs" >&2
	exit 1
fi
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
echo "== ringside features: what this kernel offers"
"$R" features

echo
echo "== ringside maps / sym: resolving a built-in target's addresses via PROCMAP_QUERY"
tmp=$(mktemp)
"$OUT/tests/progs/nopie_target" >"$tmp" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp" ] && break; sleep 0.05; done
read -r alpha beta <"$tmp"
"$R" maps "$pid" --exec-only
echo
"$R" sym "$pid" "$alpha" "$(printf '%x' $((0x$beta + 4)))"
