#!/bin/bash
# make kernel-check: build two test kernels from Debian's linux-source-6.1,
# stock and with kernel/patches/6.1/series applied, boot each under qemu with
# a static ringside, the check programs and tests/guest/run.sh as /init, and
# read the suite's "N passed, N failed" from each serial console. The stock
# boot must show ringside's fallbacks, the patched one every feature.
#
# Env: OUT (build dir, default build), KCHECK_JOBS (make -j, default nproc+1),
#      KCHECK_TIMEOUT (seconds per boot, default 600),
#      KCHECK_KERNELS (which to build and boot, default "stock patched").
set -euo pipefail
OUT=${OUT:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/$OUT/kernel
tarball=/usr/src/linux-source-6.1.tar.xz
patches=$root/kernel/patches/6.1
jobs=${KCHECK_JOBS:-$(($(nproc) + 1))}
timeout=${KCHECK_TIMEOUT:-600}
kernels=${KCHECK_KERNELS:-stock patched}

die() { echo "kernel-check: $*" >&2; exit 1; }
for tool in qemu-system-x86_64 busybox pahole flex bison bc cpio mkfs.btrfs; do
	command -v "$tool" >/dev/null || die "$tool missing: run 'make deps kernel-deps' (as root)"
done
[ -f "$tarball" ] || die "$tarball missing: run 'make kernel-deps' (as root)"
[ -f "$patches/series" ] || die "$patches/series missing"
mkdir -p "$work"

# The stock tree is unpacked once. The patched tree is a hard-linked copy
# with the series applied (patch writes new files, so the links to the stock
# files break where it changes something); a changed series rebuilds it and
# its objects from scratch, since reverted files would keep old timestamps.
stock_tree() {
	local tree=$work/src-stock/linux-source-6.1
	if [ ! -f "$tree/Makefile" ]; then
		echo "kernel-check: unpacking $(basename "$tarball")" >&2
		rm -rf "$work/src-stock" && mkdir -p "$work/src-stock"
		tar -C "$work/src-stock" -xaf "$tarball"
	fi
	echo "$tree"
}
patched_tree() {
	local tree=$work/src-patched stamp
	stamp=$(cd "$patches" && cat series $(grep -v '^\s*\(#\|$\)' series) | sha256sum | cut -c1-16)
	if [ "$(cat "$tree/.ringside-series" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$tree" "$work/obj-patched"
		cp -al "$(stock_tree)" "$tree"
		while read -r p; do
			case $p in '' | '#'*) continue ;; esac
			echo "kernel-check: applying $p" >&2
			patch -d "$tree" -p1 --quiet --forward <"$patches/$p" >&2 ||
				die "$p does not apply to $(basename "$tarball")"
		done <"$patches/series"
		echo "$stamp" >"$tree/.ringside-series"
	fi
	echo "$tree"
}

build_kernel() {
	local name=$1 tree obj=$work/obj-$1 start
	if [ "$name" = patched ]; then tree=$(patched_tree); else tree=$(stock_tree); fi
	mkdir -p "$obj"
	echo "kernel-check: configuring $name (tinyconfig + kernel/config/ringside-test.config)"
	make -s -C "$tree" O="$obj" tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$root/kernel/config/ringside-test.config" >/dev/null 2>&1
	make -s -C "$tree" O="$obj" olddefconfig >/dev/null 2>&1
	echo "kernel-check: building the $name bzImage with -j$jobs"
	start=$(date +%s)
	make -s -C "$tree" O="$obj" -j"$jobs" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -20 "$obj/build.log"; die "$name kernel build failed (log: $obj/build.log)"; }
	echo "kernel-check: $name kernel ready in $(($(date +%s) - start)) s"
}

initramfs() {
	local dir=$work/initramfs static="cc -static -O1 -std=gnu11 -D_GNU_SOURCE -I$root/include -I$root/src/sys"
	echo "kernel-check: initramfs (busybox, static ringside and check programs, tests/guest/run.sh)"
	make -s -C "$root" OUT="$OUT" all >/dev/null
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	cp "$(command -v busybox)" "$dir/bin/busybox"
	ln -s busybox "$dir/bin/sh"	# /init's interpreter; it installs the rest
	# Without the agent (its HTTP server has no static GnuTLS to link).
	$static -o "$dir/bin/ringside" $(ls "$root/$OUT"/cli/*.o | grep -v -e /cmd_agent.o -e /web_config.o) \
		"$root/kernel/agent_absent.c" "$root/$OUT/libringside.a" \
		-lbpf -ldw -lelf -lcapstone -lz -llzma -lbz2 -lzstd -lm 2>"$work/static.log" || { cat "$work/static.log"; die "static link failed"; }
	$static -o "$dir/bin/procmap_check" "$root/tests/progs/procmap_check.c"
	$static -mno-red-zone -o "$dir/bin/uretprobe_check" "$root/tests/progs/uretprobe_check.c"
	cp "$root/tests/progs/uretprobe_run.sh" "$dir/bin/uretprobe_run.sh"
	cp "$root/tests/guest/run.sh" "$dir/init"
	(cd "$dir" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$work/initramfs.cpio.gz"
}

# One boot: a fresh btrfs image as the guest's virtio disk, the console kept
# in console-NAME.log; returns non-zero unless the suite reported 0 failed.
boot() {
	local name=$1 expect=unpatched log=$work/console-$1.log rc console failed
	[ "$name" = patched ] && expect=patched
	rm -f "$work/disk.img"
	truncate -s 1G "$work/disk.img"
	mkfs.btrfs -q "$work/disk.img" >/dev/null
	echo "kernel-check: booting the $name kernel under qemu (expecting the $expect feature set)"
	set +e
	timeout "$timeout" qemu-system-x86_64 -m 1024 -smp 2 -nographic -no-reboot \
		-kernel "$work/obj-$name/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
		-drive file="$work/disk.img",format=raw,if=virtio \
		-append "console=ttyS0 panic=-1 quiet ringside.expect=$expect" >"$log" 2>&1
	rc=$?
	set -e
	rm -f "$work/disk.img"
	console=$(tr -d '\r' <"$log")
	grep -aE '^(PASS|FAIL|SKIP) |^ringside-guest:|passed, [0-9]+ failed' <<<"$console" |
		sed "s/^\(PASS\|FAIL\|SKIP\) /\1 ${name}_/"
	[ "$rc" = 124 ] && { echo "kernel-check: the $name guest did not finish within ${timeout}s (console: $log)" >&2; return 1; }
	failed=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' <<<"$console" | tail -1 | awk '{print $3}')
	[ -n "$failed" ] || { echo "kernel-check: no summary on the $name console (see $log)" >&2; return 1; }
	[ "$failed" = 0 ] || { echo "kernel-check: $name: $failed in-guest test(s) failed" >&2; return 1; }
}

for k in $kernels; do build_kernel "$k"; done
initramfs
failed=0
for k in $kernels; do boot "$k" || failed=$((failed + 1)); done
[ "$failed" = 0 ] || die "$failed of the boots failed"
echo "kernel-check: all in-guest tests passed on: $kernels"
