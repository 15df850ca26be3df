#!/bin/bash
# `reclaim profile` killed with SIGKILL at chosen moments (waited on by
# polling the state it is killed in, never by a sleep): the state journal it
# leaves lets `ringside cleanup` or the next profile restore everything. Also:
# one profile per cgroup at a time, and the root memcg refused.
# Scratch objects only: a child cgroup of this test's own, zram devices and
# temp files the profiles make.
. "$(dirname "$0")/../lib.sh"
need_root reclaim_crash || exit 0

own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
[ -n "$root" ] || { skip reclaim_crash "no cgroup-v1 memory hierarchy (the v1 profile changes settings)"; exit 0; }
[ -e /sys/class/zram-control ] || modprobe zram 2>/dev/null
[ -e /sys/class/zram-control ] || { skip reclaim_crash "no zram"; exit 0; }

tmp=$(mktemp -d)
cg=$root$own/ringside-crash-$$
statedir=${RINGSIDE_STATE_DIR:-/run/ringside}
rs=
zram_before=$(ls /sys/block | grep -c '^zram')
swaps_before=$(wc -l </proc/swaps)
cleanup() {
	[ -n "$rs" ] && kill -9 "$rs" 2>/dev/null
	wait 2>/dev/null
	"$RINGSIDE" cleanup >/dev/null 2>&1
	[ -n "$cg" ] && remove_scratch_cgroup "$cg"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$cg" || { fail reclaim_crash_cgroup "cannot create $cg"; exit 0; }
echo 37 >"$cg/memory.swappiness"
limit0=$(cat "$cg/memory.limit_in_bytes")

# until DESCRIPTION COMMAND...: poll (10 ms) for up to 60 s.
until_true() {
	local what=$1; shift
	for _ in $(seq 6000); do "$@" && return 0; kill -0 "$rs" 2>/dev/null || break; sleep 0.01; done
	echo "never saw: $what" >&2
	return 1
}
journal_has() { grep -q "^$1" "$statedir/$rs.state" 2>/dev/null; }
swappiness_is() { [ "$(cat "$cg/memory.swappiness")" = "$1" ]; }

start_profile() {	# a long profile: 100 rounds per setting
	TMPDIR=$tmp "$RINGSIDE" reclaim profile --cgroup "$cg" --workload 64M --amount 16M \
		--swappiness 0,200 --rounds 100 --setup-zram 128M >/dev/null 2>"$tmp/prof.err" &
	rs=$!
}

# Everything back as before the killed run: zram, swap, settings, workload, files, journal.
restored() {	# name, the killed PID
	local why=""
	[ "$(ls /sys/block | grep -c '^zram')" = "$zram_before" ] || why="$why zram devices: $(ls /sys/block | grep zram | tr '\n' ' ');"
	[ "$(wc -l </proc/swaps)" = "$swaps_before" ] || why="$why swap: $(tail -n +2 /proc/swaps);"
	[ "$(cat "$cg/memory.swappiness")" = 37 ] || why="$why swappiness $(cat "$cg/memory.swappiness");"
	[ "$(cat "$cg/memory.limit_in_bytes")" = "$limit0" ] || why="$why limit $(cat "$cg/memory.limit_in_bytes");"
	[ -z "$(ls "$tmp" | grep ringside-profile)" ] || why="$why temp file left;"
	[ ! -e "$statedir/$2.state" ] || why="$why journal left;"
	for _ in $(seq 100); do [ -s "$cg/cgroup.procs" ] || break; sleep 0.05; done
	[ -s "$cg/cgroup.procs" ] && why="$why workload left: $(cat "$cg/cgroup.procs" | tr '\n' ' ');"
	[ -z "$why" ] && pass "$1" || fail "$1" "$why"
}

killed=
kill_at() {	# name, description, condition...: the killed PID in $killed
	local name=$1 what=$2 pid; shift 2
	start_profile
	pid=$rs killed=$rs
	if ! until_true "$what" "$@"; then
		fail "$name" "the profile never reached '$what': $(tail -2 "$tmp/prof.err")"
		kill -9 "$rs"; wait "$rs" 2>/dev/null; rs=
		"$RINGSIDE" cleanup >/dev/null 2>&1
		return 1
	fi
	kill -9 "$rs"; wait "$rs" 2>/dev/null; rs=
	# The kill left its journal (else this test would prove nothing).
	[ -s "$statedir/$pid.state" ] && pass "${name}_journal_left" || fail "${name}_journal_left" "no $statedir/$pid.state"
}

# 1. Killed right after the zram device was added: ringside cleanup repairs.
kill_at reclaim_crash_zram "zram in the journal" journal_has zram && { pid=$killed
	out=$("$RINGSIDE" cleanup 2>&1); rc=$?
	[ "$rc" = 0 ] && grep -q "repairing what ringside PID $pid left behind" <<<"$out" &&
		grep -q "removed zram device" <<<"$out" && pass reclaim_crash_zram_cleanup_says_so ||
		fail reclaim_crash_zram_cleanup_says_so "rc=$rc $out"
	restored reclaim_crash_zram_restored "$pid"
}

# 2. Killed while the first setting (swappiness 0) is in force, the workload
#    running: the next profile repairs before it starts, and ends clean.
kill_at reclaim_crash_swappiness0 "swappiness 0 written" swappiness_is 0 && { pid=$killed
	[ "$(cat "$cg/memory.swappiness")" = 0 ] && pass reclaim_crash_swappiness0_left_changed ||
		fail reclaim_crash_swappiness0_left_changed "$(cat "$cg/memory.swappiness")"
	out=$(TMPDIR=$tmp "$RINGSIDE" reclaim profile --cgroup "$cg" --workload 32M --amount 8M \
		--swappiness 60 --json 2>&1 >/dev/null); rc=$?
	[ "$rc" = 0 ] && grep -q "repairing what ringside PID $pid left behind" <<<"$out" &&
		grep -q "memory.swappiness to 37" <<<"$out" && pass reclaim_crash_next_run_repairs ||
		fail reclaim_crash_next_run_repairs "rc=$rc $out"
	restored reclaim_crash_swappiness0_restored "$pid"
}

# 3. Killed in the second setting (200), after rounds of limit writes.
kill_at reclaim_crash_swappiness200 "swappiness 200 written" swappiness_is 200 && { pid=$killed
	"$RINGSIDE" cleanup >/dev/null 2>&1
	restored reclaim_crash_swappiness200_restored "$pid"
}

# 4. Nothing to repair: cleanup says so, exit 0.
out=$("$RINGSIDE" cleanup 2>&1); rc=$?
[ "$rc" = 0 ] && grep -q "nothing to repair" <<<"$out" && pass reclaim_crash_cleanup_nothing ||
	fail reclaim_crash_cleanup_nothing "rc=$rc $out"

# 5. One profile per cgroup: a second one is refused while the first runs.
start_profile
if until_true "journal" journal_has proc; then
	out=$("$RINGSIDE" reclaim profile --cgroup "$cg" --amount 4M --swappiness 60 2>&1); rc=$?
	[ "$rc" = 1 ] && grep -q "ringside PID $rs is profiling $cg" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ] &&
		pass reclaim_profile_one_per_cgroup || fail reclaim_profile_one_per_cgroup "rc=$rc $out"
else
	fail reclaim_profile_one_per_cgroup "first profile did not start: $(tail -2 "$tmp/prof.err")"
fi
kill -INT "$rs"; wait "$rs"; rs=
restored reclaim_profile_sigint_restored "none"

# 6. The root memcg: its settings are the machine's. Refused, nothing changed.
sw0=$(cat /proc/sys/vm/swappiness)
out=$("$RINGSIDE" reclaim profile --cgroup "$root" --amount 4M --swappiness 0 2>&1); rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "is the root memory cgroup" <<<"$out" &&
	[ "$(cat /proc/sys/vm/swappiness)" = "$sw0" ] && pass reclaim_profile_refuses_root ||
	fail reclaim_profile_refuses_root "rc=$rc $out"
