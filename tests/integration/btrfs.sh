#!/bin/bash
# `ringside btrfs` on a scratch btrfs: a sparse image in a temp dir,
# loop-mounted here and always unmounted and removed (also on SIGINT).
. "$(dirname "$0")/../lib.sh"
need_root btrfs || exit 0
command -v mkfs.btrfs >/dev/null || { skip btrfs "mkfs.btrfs missing (make deps installs btrfs-progs)"; exit 0; }
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null
grep -qw btrfs /proc/filesystems || { skip btrfs "kernel has no btrfs"; exit 0; }

tmp=$(mktemp -d)
mnt=$tmp/mnt
rs=
cleanup() {
	[ -n "$rs" ] && kill "$rs" 2>/dev/null
	wait 2>/dev/null
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 2G "$tmp/img"
mkfs.btrfs -q "$tmp/img" >/dev/null 2>&1 || { fail btrfs_mkfs "mkfs.btrfs failed"; exit 0; }
mkdir "$mnt"
# Deleted files' extents are freed by the cleaner thread, which wakes every
# commit interval: 5 s instead of 30 keeps the test short. nodiscard: with
# discard=async, freed space reaches the reclaim checks only after the
# discard worker, which makes the timing uncertain.
mount -o loop,nodiscard,commit=5 "$tmp/img" "$mnt" || { fail btrfs_mount "cannot loop-mount"; exit 0; }
uuid=$(findmnt -no UUID "$mnt")
alloc=/sys/fs/btrfs/$uuid/allocation
fill() { for i in $(seq 1 12); do dd if=/dev/zero of="$mnt/f$i" bs=1M count=100 status=none; done; sync; }
fill

start_trace() {	# name, extra args: returns once every program is attached
	local name=$1; shift
	"$RINGSIDE" btrfs --fs "$mnt" --json --events "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" &
	rs=$!
	wait_for "$tmp/$name.err" 'tracing btrfs' || fail "btrfs_${name}_trace_started" "ringside did not start: $(cat "$tmp/$name.err")"
}
stop_trace() { kill -INT "$rs"; wait "$rs"; echo $? >"$tmp/$1.rc"; rs=; }

# 1. Automatic reclaim with the fixed threshold: two files share each data
#    block group; deleting one of each pair drops them from 96% to 48% used.
echo 90 >"$alloc/data/bg_reclaim_threshold"
# A freed extent queues its block group only when the group was counted
# above the threshold before: the fill's usage must be committed first.
btrfs filesystem sync "$mnt"
btrfs filesystem sync "$mnt"
btrfs inspect-internal dump-tree -t extent "$tmp/img" 2>/dev/null |
	awk '/BLOCK_GROUP_ITEM/ {gsub(/[()]/, ""); bg=$4 " " $6} /block group used/ && /flags DATA/ {print bg}' >"$tmp/bgs"
count0=$(cat "$alloc/data/reclaim_count")
start_trace reclaim
rm "$mnt/f1" "$mnt/f3" "$mnt/f5"
sync
# Done when a relocation was counted and the reclaim worker (an exclusive
# operation) has finished; the threshold goes to 0 first so that no further
# reclaim is queued between the trace's end and the count read below.
exclop=/sys/fs/btrfs/$uuid/exclusive_operation
for _ in $(seq 1200); do [ "$(cat "$alloc/data/reclaim_count")" != "$count0" ] && break; sleep 0.05; done
echo 0 >"$alloc/data/bg_reclaim_threshold"
if [ -r "$exclop" ]; then
	for _ in $(seq 1200); do [ "$(cat "$exclop")" = none ] && break; sleep 0.05; done
fi
stop_trace reclaim
delta=$(( $(cat "$alloc/data/reclaim_count") - count0 ))
python3 - "$tmp/reclaim.json" "$tmp/bgs" "$uuid" "$delta" <<'PY' | sed 's/^/    /; s/^    \(PASS\|FAIL\)/\1/'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bgs = {tuple(map(int, l.split())) for l in open(sys.argv[2]) if l.strip()}
uuid, delta = sys.argv[3], int(sys.argv[4])
ev = [r for r in rows if r["type"] == "btrfs_event"]
def check(name, cond, why):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))
q = [e for e in ev if e["event"] == "queue-reclaim"]
check("btrfs_reclaim_queued", len(q) >= 1, "no queue-reclaim event: %s" % ev[:3])
check("btrfs_reclaim_fsid", ev and all(e["fsid"] == uuid for e in ev), "fsid differs from %s" % uuid)
check("btrfs_reclaim_bg_addresses_match_dump_tree",
      q and all((e["bytenr"], e["length"]) in bgs for e in q), "%s not in %s" % ([(e["bytenr"], e["length"]) for e in q], sorted(bgs)))
check("btrfs_reclaim_threshold_explained",
      q and all(e["threshold_pct"] == 90 and not e["threshold_dynamic"] and e["trigger"] == "threshold"
                and "< threshold 90%" in e["explanation"] for e in q), q[:1])
reloc = [e for e in ev if e["event"] == "relocate"]
check("btrfs_relocations_match_reclaim_count", len(reloc) == delta and delta >= 1,
      "%d relocate events, reclaim_count delta %d" % (len(reloc), delta))
rem = [e for e in ev if e["event"] == "remove" and e["trigger"] == "auto-reclaim"]
check("btrfs_relocated_bg_removed_with_timing",
      rem and all(e.get("queued_to_removed_ns", 0) > 0 for e in rem), rem[:1])
s = [r for r in rows if r["type"] == "btrfs_summary" and r["space_info"] == "data"]
check("btrfs_summary_reclaim_count", s and s[-1]["reclaim_count"] == delta, s[-1:])
PY

# 2. The dynamic threshold: ringside's computation equals the kernel's
#    (sysfs shows the computed value while dynamic_reclaim is on) at several
#    fill levels.
echo 1 >"$alloc/data/dynamic_reclaim"
echo 1 >"$alloc/metadata/dynamic_reclaim"
levels_ok=0 levels=0 detail=
for step in 0 1 2 3; do
	case $step in
	1) rm -f "$mnt/f2" "$mnt/f7" ;;
	2) for i in 13 14 15; do dd if=/dev/zero of="$mnt/g$i" bs=1M count=120 status=none; done ;;
	3) rm -f "$mnt/f8" "$mnt/f9" "$mnt/g13" ;;
	esac
	sync
	for type in data metadata; do
		levels=$((levels + 1))
		for _ in 1 2 3; do	# the state may move between the two reads
			k=$(cat "$alloc/$type/bg_reclaim_threshold")
			r=$("$RINGSIDE" btrfs threshold "$mnt" --json | tee -a "$tmp/threshold.json" |
				python3 -c 'import json,sys; print([o for o in map(json.loads, sys.stdin) if o["space_info"]==sys.argv[1]][0]["threshold_pct"])' "$type")
			[ "$k" = "$(cat "$alloc/$type/bg_reclaim_threshold")" ] && break
		done
		detail="$detail $type@$step:kernel=$k,ringside=$r"
		[ "$k" = "$r" ] && levels_ok=$((levels_ok + 1))
	done
done
[ "$levels_ok" = "$levels" ] && pass "btrfs_dynamic_threshold_equals_kernel ($detail )" ||
	fail btrfs_dynamic_threshold_equals_kernel "$detail"
"$RINGSIDE" btrfs threshold "$mnt" | grep -q '^data .*dynamic: ' && pass btrfs_threshold_text ||
	fail btrfs_threshold_text "$("$RINGSIDE" btrfs threshold "$mnt")"

# 3. Balance: relocations and removals attributed to it. Automatic reclaim
#    (the fixed threshold of step 1, the dynamic one of step 2) runs as the
#    same exclusive operation as a balance: turned off, and its last run
#    waited out, or the balance is refused ("another exclusive operation").
echo 0 >"$alloc/data/dynamic_reclaim"
echo 0 >"$alloc/metadata/dynamic_reclaim"
echo 0 >"$alloc/data/bg_reclaim_threshold"
if [ -r "$exclop" ]; then
	for _ in $(seq 1200); do [ "$(cat "$exclop")" = none ] && break; sleep 0.05; done
fi
start_trace balance
btrfs balance start -dusage=100 "$mnt" >"$tmp/balance.out" 2>&1
balance_rc=$?
sync
stop_trace balance
[ "$balance_rc" = 0 ] && pass btrfs_balance_ran || fail btrfs_balance_ran "rc=$balance_rc: $(tail -2 "$tmp/balance.out")"
python3 - "$tmp/balance.json" <<'PY' && pass btrfs_balance_events || fail btrfs_balance_events "$(head -3 "$tmp/balance.json")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ev = [e for e in ev if e["type"] == "btrfs_event"]
assert any(e["event"] == "remove" and e["trigger"] == "balance" for e in ev), ev[:3]
assert any(e["event"] == "chunk-alloc" for e in ev), ev[:3]
PY
[ "$(cat "$tmp/balance.rc")" = 0 ] && pass btrfs_sigint_clean || fail btrfs_sigint_clean "rc $(cat "$tmp/balance.rc")"

# 4. Bad input: one line, non-zero exit.
expect_error() {	# name, regex, args...
	local name=$1 msg=$2; shift 2
	local out rc
	out=$("$RINGSIDE" btrfs "$@" -d 1 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$msg" <<<"$out" && pass "$name" ||
		fail "$name" "rc=$rc: $out"
}
expect_error btrfs_error_not_btrfs "is not on a btrfs filesystem" --fs /proc
expect_error btrfs_error_no_path "No such file or directory" --fs "$tmp/nonexistent"
out=$("$RINGSIDE" btrfs threshold /proc 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "not on a btrfs" <<<"$out" && pass btrfs_threshold_error_not_btrfs ||
	fail btrfs_threshold_error_not_btrfs "rc=$rc $out"

# 5. Unmounted while traced: ringside says so, exits 1, nothing left behind.
start_trace unmount
umount "$mnt"
for _ in $(seq 60); do kill -0 "$rs" 2>/dev/null || break; sleep 0.05; done
wait "$rs"; rc=$?; rs=
[ "$rc" = 1 ] && grep -q "was unmounted; stopping" "$tmp/unmount.err" && pass btrfs_unmounted_while_traced ||
	fail btrfs_unmounted_while_traced "rc=$rc: $(tail -1 "$tmp/unmount.err")"
[ -z "$(losetup -j "$tmp/img")" ] && [ "$(our_bpf_progs_settled)" = 0 ] && pass btrfs_nothing_left_behind ||
	fail btrfs_nothing_left_behind "loop: $(losetup -j "$tmp/img"), progs $(our_bpf_progs_settled)"
json_lines_valid btrfs_json_lines_valid "$tmp"/*.json
