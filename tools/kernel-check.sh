#!/bin/bash
# make kernel-check: build three test kernels, boot each under qemu with a
# static ringside, the check programs and tests/guest/run.sh as /init, and
# read the suite's "N passed, N failed" from each serial console:
#   stock     Debian's linux-source-6.1 as shipped: ringside's fallbacks;
#   patched   the same with kernel/patches/6.1/series: every feature;
#   upstream  Debian's linux-source-6.12, unpatched, where the features are
#             native: the same assertions as on patched, so the backport is
#             held to the upstream implementation.
# Kernels are cached outside the checkout (KCHECK_CACHE), each bzImage keyed
# by a hash of its source package version, the config fragment and the
# series, so another clone on the same machine reuses them.
#
# Env: OUT (build dir for the initramfs and consoles, default build),
#      KCHECK_CACHE (default /var/cache/ringside/kernel),
#      KCHECK_JOBS (make -j, default nproc+1),
#      KCHECK_TIMEOUT (seconds per boot, default 600),
#      KCHECK_KERNELS (which to build and boot, default "stock patched upstream"),
#      KCHECK_BUILD_ONLY (set: build or find the kernels, boot none),
#      KCHECK_MODE (bench: the guests run make bench's kernel AES-GCM part
#      instead of the suite).
set -euo pipefail
OUT=${OUT:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/$OUT/kernel
cache=${KCHECK_CACHE:-/var/cache/ringside/kernel}
patches=$root/kernel/patches/6.1
fragment=$root/kernel/config/ringside-test.config
jobs=${KCHECK_JOBS:-$(($(nproc) + 1))}
timeout=${KCHECK_TIMEOUT:-600}
kernels=${KCHECK_KERNELS:-stock patched upstream}

die() { echo "kernel-check: $*" >&2; exit 1; }
for tool in qemu-system-x86_64 busybox pahole flex bison bc cpio mkfs.btrfs; do
	command -v "$tool" >/dev/null || die "$tool missing: run 'make deps kernel-deps' (as root)"
done
[ -f "$patches/series" ] || die "$patches/series missing"
mkdir -p "$work" "$cache"

# name -> Debian source package
package_of() { case $1 in upstream) echo linux-source-6.12 ;; *) echo linux-source-6.1 ;; esac; }
tarball_of() { echo "/usr/src/$(package_of "$1").tar.xz"; }
series_stamp() {
	(cd "$patches" && cat series $(grep -v '^\s*\(#\|$\)' series)) | sha256sum | cut -c1-16
}

# A source package is unpacked once per version into the cache.
source_tree() {
	local pkg=$1 version dir
	version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "$pkg missing: run 'make kernel-deps' (as root)"
	dir=$cache/src-$pkg-$version
	if [ ! -f "$dir/$pkg/Makefile" ]; then
		echo "kernel-check: unpacking $pkg $version" >&2
		rm -rf "$dir" && mkdir -p "$dir"
		tar -C "$dir" -xaf "/usr/src/$pkg.tar.xz"
	fi
	echo "$dir/$pkg"
}
# The patched tree is a hard-linked copy of the 6.1 tree with the series
# applied (patch writes new files, so the links to the stock files break
# where it changes something); one tree per series version.
patched_tree() {
	local stock tree
	stock=$(source_tree linux-source-6.1)
	tree=$cache/src-patched-$(series_stamp)
	if [ ! -f "$tree/.ringside-applied" ]; then
		rm -rf "$tree"
		cp -al "$stock" "$tree"
		while read -r p; do
			case $p in '' | '#'*) continue ;; esac
			echo "kernel-check: applying $p" >&2
			patch -d "$tree" -p1 --quiet --forward <"$patches/$p" >&2 ||
				die "$p does not apply to linux-source-6.1"
		done <"$patches/series"
		touch "$tree/.ringside-applied"
	fi
	echo "$tree"
}
# What a kernel's build depends on: the source version, the fragment, and
# for patched the series.
kernel_key() {
	local name=$1
	{
		echo "$name"
		dpkg-query -W -f='${Version}\n' "$(package_of "$name")"
		cat "$fragment"
		[ "$name" = patched ] && series_stamp
	} | sha256sum | cut -c1-16
}
bzimage_of() { echo "$cache/bzImage-$1-$(kernel_key "$1")"; }

build_kernel() {
	local name=$1 tree obj=$cache/obj-$1 start image
	image=$(bzimage_of "$name")
	if [ -f "$image" ]; then
		echo "kernel-check: $name kernel cached ($image)"
		return
	fi
	case $name in
	patched) tree=$(patched_tree) ;;
	*) tree=$(source_tree "$(package_of "$name")") ;;
	esac
	# A tree that changed (another series version) starts from clean objects.
	if [ "$(cat "$obj/.ringside-tree" 2>/dev/null)" != "$tree" ]; then
		rm -rf "$obj" && mkdir -p "$obj" && echo "$tree" >"$obj/.ringside-tree"
	fi
	echo "kernel-check: configuring $name (tinyconfig + kernel/config/ringside-test.config)"
	make -s -C "$tree" O="$obj" tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null 2>&1
	make -s -C "$tree" O="$obj" olddefconfig >/dev/null 2>&1
	echo "kernel-check: building the $name bzImage with -j$jobs"
	start=$(date +%s)
	make -s -C "$tree" O="$obj" -j"$jobs" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -20 "$obj/build.log"; die "$name kernel build failed (log: $obj/build.log)"; }
	rm -f "$cache/bzImage-$name-"*
	cp "$obj/arch/x86/boot/bzImage" "$image"
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
	# Without the agent (its HTTP server has no static GnuTLS to link), the
	# profile's charts (no static cairo), and the lending of ringside's BTF
	# parse to libbpf (libbpf_vmlinux_btf.c replaces two of libbpf's shared
	# library functions; linked statically they would clash with libbpf.a's,
	# and libbpf parses on its own as before: these kernels cannot map the
	# file anyway).
	$static -o "$dir/bin/ringside" $(ls "$root/$OUT"/cli/*.o | grep -v -e /cmd_agent.o -e /web_config.o \
		-e /profile_chart.o -e /libbpf_vmlinux_btf.o) \
		"$root/kernel/agent_absent.c" "$root/kernel/chart_absent.c" "$root/$OUT/libringside.a" \
		-lbpf -lelf -lz -llzma -lbz2 -lzstd -lm 2>"$work/static.log" || { cat "$work/static.log"; die "static link failed"; }
	$static -o "$dir/bin/procmap_check" "$root/tests/progs/procmap_check.c"
	$static -mno-red-zone -o "$dir/bin/uretprobe_check" "$root/tests/progs/uretprobe_check.c"
	$static -o "$dir/bin/kgcm_check" "$root/tests/progs/kgcm_check.c" -lpthread
	# The embedding example, as an agent uses the library: the exposition without HTTP.
	$static -o "$dir/bin/collector_metrics" "$root/examples/collector_metrics.c" "$root/$OUT/libringside.a" \
		-lbpf -lelf -lz -llzma -lbz2 -lzstd -lm 2>>"$work/static.log" ||
		{ cat "$work/static.log"; die "static link of collector_metrics failed"; }
	cp "$root/tests/progs/uretprobe_run.sh" "$dir/bin/uretprobe_run.sh"
	cp "$root/tests/guest/run.sh" "$dir/init"
	(cd "$dir" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$work/initramfs.cpio.gz"
}

# One boot: a fresh btrfs image as the guest's virtio disk, the console kept
# in console-NAME.log; returns non-zero unless the suite reported 0 failed.
boot() {
	local name=$1 expect=unpatched log=$work/console-$1.log rc console failed
	[ "$name" = patched ] && expect=patched
	[ "$name" = upstream ] && expect=upstream
	rm -f "$work/disk.img"
	truncate -s 1G "$work/disk.img"
	mkfs.btrfs -q "$work/disk.img" >/dev/null
	echo "kernel-check: booting the $name kernel under qemu (expecting the $expect feature set)"
	set +e
	# tsc=reliable: without it 6.12 under TCG falls back to a jiffies-grained
	# clock, and every latency the guest measures is 0 or 4 ms.
	timeout "$timeout" qemu-system-x86_64 -m 1024 -smp 2 -cpu max -nographic -no-reboot \
		-kernel "$(bzimage_of "$name")" -initrd "$work/initramfs.cpio.gz" \
		-drive file="$work/disk.img",format=raw,if=virtio \
		-append "console=ttyS0 panic=-1 quiet tsc=reliable ringside.expect=$expect ringside.mode=${KCHECK_MODE:-test}" >"$log" 2>&1
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
[ -n "${KCHECK_BUILD_ONLY:-}" ] && exit 0
initramfs
failed=0
for k in $kernels; do boot "$k" || failed=$((failed + 1)); done
[ "$failed" = 0 ] || die "$failed of the boots failed"
echo "kernel-check: all in-guest tests passed on: $kernels"
