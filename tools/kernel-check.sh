#!/bin/bash
# make kernel-check: build ringside's test kernel from Debian's linux-source-6.1
# (with kernel/patches/6.1/series applied when it exists), boot it under qemu
# with a static ringside and tests/guest/run.sh as /init, and read the
# suite's "N passed, N failed" from the serial console.
#
# Env: OUT (build dir, default build), KCHECK_JOBS (make -j, default nproc),
#      KCHECK_TIMEOUT (seconds for the boot, default 600).
set -euo pipefail
OUT=${OUT:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/$OUT/kernel
src=/usr/src/linux-source-6.1.tar.xz
series=$root/kernel/patches/6.1/series
jobs=${KCHECK_JOBS:-$(nproc)}
timeout=${KCHECK_TIMEOUT:-600}

die() { echo "kernel-check: $*" >&2; exit 1; }
for tool in qemu-system-x86_64 busybox pahole flex bison bc cpio; do
	command -v "$tool" >/dev/null || die "$tool missing: run 'make kernel-deps' (as root)"
done
[ -f "$src" ] || die "$src missing: run 'make kernel-deps' (as root)"

mkdir -p "$work"
tree=$work/linux-source-6.1
if [ ! -d "$tree" ]; then
	echo "kernel-check: unpacking $(basename "$src")"
	tar -C "$work" -xaf "$src"
	if [ -f "$series" ]; then
		while read -r patch; do
			case $patch in '' | '#'*) continue ;; esac
			echo "kernel-check: applying $patch"
			patch -d "$tree" -p1 --quiet <"$(dirname "$series")/$patch"
		done <"$series"
	fi
fi
expect=unpatched
[ -f "$series" ] && grep -qv '^\s*\(#\|$\)' "$series" && expect=patched

echo "kernel-check: configuring (tinyconfig + kernel/config/ringside-test.config)"
make -s -C "$tree" tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" \
	"$root/kernel/config/ringside-test.config" >/dev/null 2>&1
make -s -C "$tree" olddefconfig >/dev/null
echo "kernel-check: building bzImage with -j$jobs"
start=$(date +%s)
make -s -C "$tree" -j"$jobs" bzImage >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; die "kernel build failed"; }
echo "kernel-check: built in $(( $(date +%s) - start )) s"

echo "kernel-check: initramfs (busybox, static ringside, tests/guest/run.sh)"
make -s -C "$root" OUT="$OUT" all >/dev/null
rm -rf "$work/initramfs"
mkdir -p "$work/initramfs/bin"
cp "$(command -v busybox)" "$work/initramfs/bin/busybox"
ln -s busybox "$work/initramfs/bin/sh"	# /init's interpreter; it installs the rest
cc -static -o "$work/initramfs/bin/ringside" "$root/$OUT"/cli/*.o "$root/$OUT/libringside.a" \
	-lbpf -lelf -lz -lzstd -lm 2>"$work/static.log" || { cat "$work/static.log"; die "static link failed"; }
cp "$root/tests/guest/run.sh" "$work/initramfs/init"
(cd "$work/initramfs" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$work/initramfs.cpio.gz"

echo "kernel-check: booting under qemu (expecting the $expect feature set)"
set +e
timeout "$timeout" qemu-system-x86_64 -m 1024 -smp 2 -nographic -no-reboot \
	-kernel "$tree/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet ringside.expect=$expect" >"$work/console.log" 2>&1
rc=$?
set -e
tr -d '\r' <"$work/console.log" | grep -aE '^(PASS|FAIL|SKIP) |^ringside-guest:|passed, [0-9]+ failed' || true
[ "$rc" = 124 ] && die "the guest did not finish within ${timeout}s (console: $work/console.log)"
summary=$(tr -d '\r' <"$work/console.log" | grep -aE '^[0-9]+ passed, [0-9]+ failed' | tail -1)
[ -n "$summary" ] || die "no summary on the console (see $work/console.log)"
failed=$(awk '{print $3}' <<<"$summary")
[ "$failed" = 0 ] || die "$failed in-guest test(s) failed"
