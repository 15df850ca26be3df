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
