#!/bin/bash
# make demo: the main job on built-in workloads. Each collector adds its part.
set -u
OUT=${OUT:-build}
R=$OUT/ringside
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (sudo make demo): ringside attaches BPF programs" >&2
	exit 1
fi
# tracefs: mounted for the demo if it is not, and unmounted again at the end.
mounted_tracefs=
if ! mountpoint -q /sys/kernel/tracing && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	mounted_tracefs=1
fi
echo "== ringside features: what this kernel offers"
"$R" features

echo
echo "== ringside maps / sym: resolving a built-in target's addresses via PROCMAP_QUERY"
tmp=$(mktemp)
"$OUT/tests/progs/nopie_target" >"$tmp" &
pid=$!
wl=
bt=
btdir=
rcg=
cleanup() {
	kill $pid $wl $bt 2>/dev/null
	wait 2>/dev/null
	rm -f "$tmp" "$tmp.wl" "$tmp.rs"
	[ -n "$rcg" ] && [ -d "$rcg" ] && rmdir "$rcg" 2>/dev/null
	if [ -n "$btdir" ]; then
		mountpoint -q "$btdir/mnt" && umount "$btdir/mnt"
		rm -rf "$btdir"
	fi
	if [ -n "$mounted_tracefs" ]; then umount /sys/kernel/tracing 2>/dev/null; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq 50); do [ -s "$tmp" ] && break; sleep 0.05; done
read -r alpha beta <"$tmp"
"$R" maps "$pid" --exec-only
echo
"$R" sym "$pid" "$alpha" "$(printf '%x' $((0x$beta + 4)))"

kill $pid 2>/dev/null

echo
echo "== ringside gcm: a built-in workload seals and opens AES-128/256-GCM messages of"
echo "   16..16384 bytes through OpenSSL (EVP and TLS 1.3 records), GnuTLS and libgcrypt,"
echo "   with one forged tag per library"
"$OUT/tests/progs/gcm_workload" --wait --hold >"$tmp.wl" &
wl=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp.wl" && break; sleep 0.05; done
"$R" gcm -p "$wl" 2>"$tmp.rs" &
rs=$!
for _ in $(seq 100); do grep -q 'tracing AES-GCM' "$tmp.rs" && break; sleep 0.05; done
cat "$tmp.rs"
kill -USR1 "$wl"
for _ in $(seq 100); do grep -q '^expect' "$tmp.wl" && break; sleep 0.05; done
kill -USR1 "$wl"
wait "$rs"
echo
echo "-- what the workload itself counted (tls: TLS 1.3 records, which libcrypto seals)"
grep '^expect' "$tmp.wl" | sed 's/^expect /   /'

echo
echo "== ringside btrfs: a scratch 2 GiB btrfs (sparse file, loop mount) is filled with"
echo "   12 x 100 MiB files, every other file is deleted with bg_reclaim_threshold=90,"
echo "   then balanced; ringside explains each reclaim decision"
if command -v mkfs.btrfs >/dev/null && grep -qw btrfs /proc/filesystems; then
	btdir=$(mktemp -d)
	mkdir "$btdir/mnt"
	truncate -s 2G "$btdir/img"
	mkfs.btrfs -q "$btdir/img" >/dev/null 2>&1
	mount -o loop,nodiscard,commit=5 "$btdir/img" "$btdir/mnt"
	alloc=/sys/fs/btrfs/$(findmnt -no UUID "$btdir/mnt")/allocation
	for i in $(seq 1 12); do dd if=/dev/zero of="$btdir/mnt/f$i" bs=1M count=100 status=none; done
	sync
	echo 90 >"$alloc/data/bg_reclaim_threshold"
	"$R" btrfs --fs "$btdir/mnt" &
	bt=$!
	sleep 6
	rm "$btdir/mnt/f1" "$btdir/mnt/f3" "$btdir/mnt/f5"
	sync
	for _ in $(seq 60); do [ "$(cat "$alloc/data/reclaim_count")" != 0 ] && break; sleep 0.25; done
	sleep 1
	btrfs balance start -dusage=100 "$btdir/mnt" >/dev/null 2>&1
	sync
	sleep 0.5
	kill -INT $bt
	wait $bt
	bt=
	echo
	echo "-- ringside btrfs threshold, with dynamic_reclaim on for data"
	echo 1 >"$alloc/data/dynamic_reclaim"
	"$R" btrfs threshold "$btdir/mnt"
	echo "   (the kernel's own value: $(cat "$alloc/data/bg_reclaim_threshold")%)"
else
	echo "   skipped: no mkfs.btrfs or no btrfs in this kernel"
fi

echo
echo "== ringside reclaim profile: which swappiness suits a workload? Two built-in workloads"
echo "   in a scratch memory cgroup (64 MiB anon + 64 MiB page cache each), 32 MiB asked"
echo "   for at each setting, 3 trials in shuffled order, a temporary zram swap device so"
echo "   anon can go. Cost = pages needed again within a second (refaults)."
own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
mroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
if [ -z "$mroot" ]; then
	own=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
	mroot=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
fi
rcg=$mroot$own/ringside-demo-$$
if mkdir "$rcg" 2>/dev/null; then
	for type in anon-hot file-hot; do
		echo
		case $type in
		anon-hot) echo "-- anon-hot: the service keeps using its heap; its page cache is old data" ;;
		file-hot) echo "-- file-hot: the service keeps reading its files; its heap is old data" ;;
		esac
		"$R" reclaim profile --cgroup "$rcg" --workload 128M --workload-type $type --amount 32M \
			--swappiness 0,60,100,200 --trials 3 --window 0.5 --setup-zram 256M \
			--svg "${TMPDIR:-/tmp}/ringside-profile-$type.svg" \
			--png "${TMPDIR:-/tmp}/ringside-profile-$type.png" 2>&1 |
			grep -v -e '^ringside: trial step' -e '^ringside: cgroup v1' -e 'shuffled order'
	done
	rmdir "$rcg"
else
	echo "   skipped: cannot create a memory cgroup under $mroot$own"
fi
