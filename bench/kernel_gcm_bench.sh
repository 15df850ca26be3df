#!/bin/bash
# Kernel AES-GCM tracing cost (ringside gcm --kernel), fentry vs kprobes, in
# the patched 6.1 guest of make kernel-check: AF_ALG seals at 16 B and 16 KiB,
# untraced, under the kernel's own tracers on the same function (the floor of
# each attach type) and under ringside. Absolute times under qemu's emulation
# mean little; the ratios are the result.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$root" && KCHECK_KERNELS=${KCHECK_KERNELS:-patched} KCHECK_MODE=bench tools/kernel-check.sh 2>&1)
rc=$?
grep -a 'bench [0-9]' <<<"$out" | sed 's/^ringside-guest: //'
[ "$rc" = 0 ] || { grep -a "bench step" <<<"$out" | tail -1; tail -5 <<<"$out"; exit 1; }
