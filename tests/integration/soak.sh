#!/bin/bash
# Soak: every collector traces a flood at once (a GCM seal loop at full
# speed, reclaim asked for over and over in a scratch memory cgroup, btrfs
# balances on a scratch loop-mounted image) with a summary every second,
# and the agent counts the same flood while it is scraped five times a second.
# After a warm-up quarter, each tracer's RSS and open fds must stay flat.
# SOAK_SECONDS (default 20 here; make bench runs 600).
. "$(dirname "$0")/../lib.sh"
need_root soak || exit 0
secs=${SOAK_SECONDS:-20}
tmp=$(mktemp -d)
mnt=$tmp/mnt
pids=() floods=()
own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
cg=
cleanup() {
	# A flood cut short: stop a running balance and the loops' children too.
	mountpoint -q "$mnt" && btrfs balance cancel "$mnt" >/dev/null 2>&1
	for p in "${floods[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$cg" ] && remove_scratch_cgroup "$cg"
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT

tracers=()
start_tracer() {	# name, args...
	local name=$1; shift
	"$RINGSIDE" "$@" --interval 1 --json >/dev/null 2>"$tmp/$name.err" &
	pids+=($!)
	tracers+=("$name:$!")
	wait_for "$tmp/$name.err" 'ringside: tracing' || fail "soak_${name}_started" "$(tail -2 "$tmp/$name.err")"
}

start_tracer gcm gcm --comm gcm_workload
if [ -n "$memroot" ]; then
	cg=$memroot$own/ringside-soak-$$
	mkdir "$cg"
	start_tracer reclaim reclaim --target-cgroup "$cg"
fi
if command -v mkfs.btrfs >/dev/null && { grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null; }; then
	truncate -s 1G "$tmp/img"
	mkfs.btrfs -q "$tmp/img" >/dev/null 2>&1 && mkdir "$mnt" && mount -o loop "$tmp/img" "$mnt" &&
		start_tracer btrfs btrfs --fs "$mnt"
fi

# The agent too, scraped five times a second through the flood.
aport=$(free_port)
"$RINGSIDE" agent --web.listen-address "127.0.0.1:$aport" --comm gcm_workload >/dev/null 2>"$tmp/agent.err" &
pids+=($!)
tracers+=("agent:$!")
wait_for "$tmp/agent.err" '^ringside: serving' || fail soak_agent_started "$(tail -2 "$tmp/agent.err")"
# Its reclaim collector checks its trigger functions against every kernel
# symbol once it serves, a read with its own fds: over before the warm-up
# counts, and said on one line.
if grep -q '^ringside: collector reclaim up' "$tmp/agent.err"; then
	wait_for "$tmp/agent.err" '^ringside: reclaim: .*symbol walk' 120 ||
		fail soak_agent_symbol_walk_said "$(tail -2 "$tmp/agent.err")"
fi

# The flood, for secs seconds.
end=$((SECONDS + secs))
"$RS_PROGS/gcm_workload" --seal-loop 16 "$secs" >/dev/null 2>&1 & floods+=($!)
if [ -n "$cg" ]; then
	( echo $BASHPID >"$cg/cgroup.procs"
	  while [ $SECONDS -lt $end ]; do dd if=/dev/zero of="$tmp/cache" bs=1M count=64 status=none; cat "$tmp/cache" >/dev/null; done ) & floods+=($!)
	( while [ $SECONDS -lt $end ]; do echo 32M >"$cg/memory.limit_in_bytes"; echo -1 >"$cg/memory.limit_in_bytes"; done ) 2>/dev/null & floods+=($!)
fi
# A scrape opens files while it runs (mountinfo, btrfs's sysfs): each holds
# the lock the fd counts below take, so no count falls inside one.
( while [ $SECONDS -lt $end ]; do
	flock "$tmp/scrape.lock" curl -s -o /dev/null "http://127.0.0.1:$aport/metrics"; sleep 0.2
  done ) & floods+=($!)
if mountpoint -q "$mnt"; then
	( for i in 1 2 3 4; do dd if=/dev/zero of="$mnt/f$i" bs=1M count=40 status=none; done; sync
	  while [ $SECONDS -lt $end ]; do btrfs balance start -dusage=100 "$mnt" >/dev/null 2>&1; done ) & floods+=($!)
fi

usage() {	# pid: "RSS_KiB FDS" (sockets left out: the agent's come and go with scrapes), between scrapes
	( flock 9
	  echo "$(awk '/^VmRSS/ {print $2}' /proc/"$1"/status) $(find /proc/"$1"/fd -mindepth 1 -lname 'socket:*' -prune -o -print | wc -l)"
	) 9>"$tmp/scrape.lock"
}
warm=$((secs / 4))
sleep "$warm"	# the warm-up is a share of the soak, not a wait for an event
declare -A before
for t in "${tracers[@]}"; do before[$t]=$(usage "${t#*:}"); done
while [ $SECONDS -lt $end ]; do sleep 1; done
for t in "${tracers[@]}"; do
	name=${t%%:*} pid=${t#*:}
	read -r rss0 fds0 <<<"${before[$t]}"
	if ! kill -0 "$pid" 2>/dev/null; then
		fail "soak_${name}_flat" "the tracer died: $(tail -2 "$tmp/$name.err")"
		continue
	fi
	read -r rss1 fds1 <<<"$(usage "$pid")"
	# RSS may move by allocator noise: 2 MiB; fds not at all. Under ASan the
	# quarantine keeps freed memory resident: RSS says nothing there, and
	# LeakSanitizer judges leaks at the exit checked below.
	slack=2048
	[ -n "${SANFLAGS:-}" ] && slack=$((1 << 30))
	[ "$fds1" = "$fds0" ] && [ $((rss1 - rss0)) -le "$slack" ] &&
		pass "soak_${name}_flat (${secs}s: RSS ${rss0}->${rss1} KiB, fds $fds0->$fds1)" ||
		fail "soak_${name}_flat" "RSS ${rss0}->${rss1} KiB, fds $fds0->$fds1 over ${secs}s"
done
# Each flood loop ends by itself after its last round (a balance under way finishes).
wait "${floods[@]}" 2>/dev/null
floods=()
for t in "${tracers[@]}"; do kill -INT "${t#*:}"; done
for t in "${tracers[@]}"; do
	wait "${t#*:}"; rc=$?
	[ "$rc" = 0 ] && pass "soak_${t%%:*}_clean_exit" || fail "soak_${t%%:*}_clean_exit" "rc=$rc: $(tail -1 "$tmp/${t%%:*}.err")"
done
