#!/bin/bash
# `make kernel-check` inside the suite: the stock and the patched 6.1 test
# kernels and the upstream 6.12 one booted under qemu with the in-guest suite
# (tests/guest/run.sh); its results appear here as guest_stock_*,
# guest_patched_* and guest_upstream_* lines. The first run builds the three
# kernels (about 6 min each on 2 cores); later runs reuse them from the
# kernel cache outside the checkout.
. "$(dirname "$0")/../lib.sh"
need_root kernel_check || exit 0
if [ ! -f /usr/src/linux-source-6.1.tar.xz ] || [ ! -f /usr/src/linux-source-6.12.tar.xz ] ||
	! command -v qemu-system-x86_64 >/dev/null; then
	skip kernel_check "linux-source-6.1, linux-source-6.12 or qemu missing: run 'make kernel-deps' (CI does)"
	exit 0
fi
if [ -n "${SANFLAGS:-}" ]; then
	skip kernel_check "sanitizer build: the guest's static ringside is built by plain 'make check'"
	exit 0
fi
out=$(OUT=${OUT:-build} tools/kernel-check.sh 2>&1)
rc=$?
grep -aE '^(PASS|FAIL|SKIP) ' <<<"$out" | sed 's/^\(PASS\|FAIL\|SKIP\) /\1 guest_/'
[ "$rc" = 0 ] && pass kernel_check_boots || fail kernel_check_boots "$(tail -3 <<<"$out")"
