#!/bin/sh
# In-guest suite for `make kernel-check`: runs as /init in a qemu guest booted
# from ringside's test kernel. ringside.expect=patched|unpatched on the kernel
# command line says which kernel features must be present. Prints PASS/FAIL
# lines and "N passed, N failed" on the serial console, then reboots (qemu
# runs with -no-reboot, so that ends it).
export PATH=/bin
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null

expect=unpatched
for arg in $(cat /proc/cmdline); do
	case $arg in ringside.expect=*) expect=${arg#ringside.expect=} ;; esac
done
echo "ringside-guest: kernel $(uname -r), expecting the $expect feature set"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1" "$3"; fi; }

ringside features >/tmp/features 2>&1
cat /tmp/features
feature() { grep "^$1 " /tmp/features | awk '{print $2}'; }
for f in btf ringbuf tp_btf uprobe memcg_v2 tracefs; do
	check "feature_$f" '[ "$(feature '$f')" = yes ]' "$(grep "^$f " /tmp/features)"
done
if [ "$expect" = patched ]; then want=yes; else want=no; fi
for f in uretprobe_syscall procmap_query memory_reclaim_swappiness btrfs_dynamic_reclaim; do
	check "feature_${f}_$want" '[ "$(feature '$f')" = '$want' ]' "$(grep "^$f " /tmp/features)"
done

# Maps and symbols the same way on either kernel (PROCMAP_QUERY or text).
sleep 30 &
sp=$!
ringside maps $sp >/tmp/maps 2>&1
check maps_of_a_process 'grep -q busybox /tmp/maps' "$(head -3 /tmp/maps)"
kill $sp

# cgroup v2 reclaim: memory.reclaim requests traced with their text and result,
# and the profiler driving memory.reclaim (swap on a zram device it creates).
mkdir /sys/fs/cgroup/rs
ringside reclaim --events --json --cgroup /sys/fs/cgroup/rs -d 8 >/tmp/trace 2>/tmp/trace.err &
tr=$!
sleep 2
TMPDIR=/tmp ringside reclaim profile --cgroup /sys/fs/cgroup/rs --workload 32M --amount 8M \
	--swappiness 0,200 --setup-zram 64M --json >/tmp/profile 2>/tmp/profile.err
rc=$?
cat /tmp/profile /tmp/profile.err
rows=$(grep -c 'memory.reclaim' /tmp/profile)
check reclaim_v2_profile_runs '[ "$rc" = 0 ] && [ "$rows" = 2 ]' "rc=$rc rows=$rows"
check reclaim_v2_profile_reclaims '! grep -q "reclaimed.:0," /tmp/profile' "a round reclaimed nothing"
if [ "$expect" = unpatched ]; then
	check reclaim_v2_no_swappiness_key_noted 'grep -q "no swappiness= key" /tmp/profile.err' "no note"
fi
wait $tr
cat /tmp/trace.err
check reclaim_v2_traced_requests 'grep "trigger.:.memory.reclaim" /tmp/trace | grep -q 8388608' "$(head -c 300 /tmp/trace)"
rmdir /sys/fs/cgroup/rs 2>/dev/null

echo "$pass passed, $fail failed"
reboot -f
