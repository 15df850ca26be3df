#!/bin/sh
# uretprobe_run.sh BIN N syscall|int3: put a return probe on BIN's probed_leaf
# through tracefs (an event and a trace instance of our own, removed after),
# run "BIN suite N ...", and check in the trace that every one of the 3*N
# probed returns was seen, and how the kernel got there: with the uretprobe
# syscall, 3*N + 1 uretprobe() entries (the +1 is the suite's direct call);
# with int3, only that direct call. POSIX sh: runs in the busybox guest too.
bin=$1 n=$2 mode=$3
t=/sys/kernel/tracing
# Mounted here only if it was not: then unmounted again at exit.
mounted=
[ -d $t/instances ] || { mount -t tracefs nodev $t 2>/dev/null && mounted=1; }
group=rs_uret_$$
inst=$t/instances/$group
fails=0
say() { echo "$1"; case $1 in FAIL*) fails=$((fails + 1)) ;; esac; }

off=$("$bin" offset) || { say "FAIL uretprobe_setup: $bin offset"; exit 1; }
cleanup() {
	[ -d "$inst" ] && {
		echo 0 >"$inst/events/$group/leaf_ret/enable" 2>/dev/null
		echo 0 >"$inst/events/raw_syscalls/sys_enter/enable" 2>/dev/null
		rmdir "$inst"
	}
	echo "-:$group/leaf_ret" >>$t/uprobe_events 2>/dev/null
	[ -z "$mounted" ] || umount $t 2>/dev/null
}
trap cleanup EXIT INT TERM
if ! echo "r:$group/leaf_ret $bin:$off" >>$t/uprobe_events || ! mkdir "$inst" ||
	! echo 1 >"$inst/events/$group/leaf_ret/enable" ||
	! echo 'id == 335' >"$inst/events/raw_syscalls/sys_enter/filter" ||
	! echo 1 >"$inst/events/raw_syscalls/sys_enter/enable"; then
	say "FAIL uretprobe_setup: could not set up the tracefs return probe on $bin:$off"
	exit 1
fi

"$bin" suite "$n" "$mode" >/tmp/uretprobe_suite.$$ 2>&1
while read -r line; do say "$line"; done </tmp/uretprobe_suite.$$
rm -f /tmp/uretprobe_suite.$$
echo 0 >"$inst/events/$group/leaf_ret/enable"
echo 0 >"$inst/events/raw_syscalls/sys_enter/enable"

hits=$(grep -c 'leaf_ret:' "$inst/trace")
calls=$(grep -c 'sys_enter' "$inst/trace")
want_hits=$((3 * n))
if [ "$mode" = syscall ]; then want_calls=$((3 * n + 1)); else want_calls=1; fi
[ "$hits" = "$want_hits" ] && say "PASS uretprobe_every_return_seen ($hits)" ||
	say "FAIL uretprobe_every_return_seen: $hits of $want_hits"
[ "$calls" = "$want_calls" ] && say "PASS uretprobe_${mode}_path ($calls uretprobe() entries)" ||
	say "FAIL uretprobe_${mode}_path: $calls uretprobe() entries, want $want_calls"
exit $((fails > 0))
