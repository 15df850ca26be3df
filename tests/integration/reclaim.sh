#!/bin/bash
# `ringside reclaim` and `ringside reclaim profile` on scratch memory cgroups
# created under this test's own cgroup, and a zram swap device it creates.
. "$(dirname "$0")/../lib.sh"
need_root reclaim || exit 0

memcg_parent || { skip reclaim "no memory controller on v1 or v2 here"; exit 0; }
v2=$memcg_v2
tmp=$(mktemp -d)
cg=$memcg_dir/ringside-reclaim-$$
rs= rs_task=
zram_before=$(ls /sys/block | grep -c '^zram')
swaps_before=$(wc -l </proc/swaps)
cleanup() {
	[ -n "$rs$rs_task" ] && kill $rs $rs_task 2>/dev/null
	wait 2>/dev/null
	rmdir "$cg/gone" 2>/dev/null
	[ -n "$cg" ] && remove_scratch_cgroup "$cg"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$cg" || { fail reclaim_scratch_cgroup "cannot create $cg"; exit 0; }
[ -n "${v2:-}" ] && { skip reclaim_v1_paths "cgroup v2 host: the v1 limit tests do not apply"; exit 0; }

stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1/memory.stat"; }

# 1. Live tracing: a charge over the limit, then a limit write, in the cgroup.
echo 37 >"$cg/memory.swappiness"
"$RINGSIDE" reclaim --events --json --target-cgroup "$cg" >"$tmp/live.json" 2>"$tmp/live.err" &
rs=$!
# Beside it, --cgroup selects the asking task: only the charges of the tasks
# inside, not this shell's limit writes.
"$RINGSIDE" reclaim --events --json --cgroup "$cg" >"$tmp/task.json" 2>"$tmp/task.err" &
rs_task=$!
wait_for "$tmp/live.err" 'tracing reclaim' || fail reclaim_starts "$(cat "$tmp/live.err")"
wait_for "$tmp/task.err" 'tracing reclaim' || fail reclaim_starts_task_filter "$(cat "$tmp/task.err")"
echo 64M >"$cg/memory.limit_in_bytes"
# Page cache past the limit, charged to the cgroup.
sh -c 'echo $$ >"$1/cgroup.procs"; dd if=/dev/zero of="$2" bs=1M count=150 status=none' sh "$cg" "$tmp/file"
echo -1 >"$cg/memory.limit_in_bytes"
sh -c 'echo $$ >"$1/cgroup.procs"; cat "$2" >/dev/null' sh "$cg" "$tmp/file"
cache0=$(stat_of "$cg" cache) rss0=$(stat_of "$cg" rss)
echo 48M >"$cg/memory.limit_in_bytes"
cache1=$(stat_of "$cg" cache) rss1=$(stat_of "$cg" rss)
# The reclaim ran inside the writes and charges above, each record queued
# before they returned; the drain at SIGINT reads them all.
kill -INT "$rs" "$rs_task"; wait "$rs"; wait "$rs_task"; rs= rs_task=
python3 - "$tmp/live.json" "$tmp/task.json" <<'PY'
import json, sys
target = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "reclaim"]
task = [r for r in map(json.loads, open(sys.argv[2])) if r["type"] == "reclaim"]
# The same invocations: each tracer stamps its own record, so compare what was done.
charges = lambda rows: sorted((r["pid"], r["tid"], r["nr_reclaimed"], r["scanned_anon"], r["scanned_file"],
                               r["passes"], r["priority"]) for r in rows if r["trigger"] == "charge-limit")
ok = task and charges(task) == charges(target) and not [r for r in task if r["trigger"] != "charge-limit"]
print(("PASS reclaim_cgroup_selects_the_asking_task (%d charges)" % len(task)) if ok else
      "FAIL reclaim_cgroup_selects_the_asking_task: task %s %d charges, target charges %d; only in task %s, only in target %s" %
      (sorted({r["trigger"] for r in task}), len(charges(task)), len(charges(target)),
       sorted(set(charges(task)) - set(charges(target)))[:3], sorted(set(charges(target)) - set(charges(task)))[:3]))
PY
python3 - "$tmp/live.json" "$cg" "$cache0" "$cache1" "$rss0" "$rss1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cg = sys.argv[2]
cache0, cache1, rss0, rss1 = map(int, sys.argv[3:7])
ev = [r for r in rows if r["type"] == "reclaim"]
def check(name, cond, why):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))
charge = [e for e in ev if e["trigger"] == "charge-limit"]
check("reclaim_charge_limit_records", charge and all(e["cgroup"] == cg for e in charge),
      "%d records, cgroups %s" % (len(charge), {e["cgroup"] for e in ev}))
check("reclaim_swappiness_in_effect_from_cgroup", charge and all(e["swappiness"] == 37 for e in charge),
      {e["swappiness"] for e in charge})
check("reclaim_reclaimed_pages", charge and sum(e["nr_reclaimed"] for e in charge) > 0, "nothing reclaimed")
w = [e for e in ev if e["trigger"] == "limit-write"]
check("reclaim_limit_write_record", len(w) == 1 and w[0]["request"] == "48M" and w[0]["write_ret"] == 4
      and w[0]["cgroup"] == cg, w)
if w:
    got_file, got_anon = w[0]["reclaimed_file"] * 4096, w[0]["reclaimed_anon"] * 4096
    want_file, want_anon = cache0 - cache1, rss0 - rss1
    # memory.stat moves by exactly what was reclaimed, give or take pages
    # charged or freed meanwhile: 2% or 1 MiB.
    tol = max(1 << 20, want_file // 50)
    check("reclaim_file_pages_match_memory_stat", abs(got_file - want_file) <= tol,
          "ringside %d bytes file, memory.stat cache dropped %d" % (got_file, want_file))
    check("reclaim_anon_pages_match_memory_stat", abs(got_anon - max(want_anon, 0)) <= (1 << 20),
          "ringside %d bytes anon, memory.stat rss dropped %d" % (got_anon, want_anon))
s = [r for r in rows if r["type"] == "reclaim_summary" and r["cgroup"] == cg]
check("reclaim_summary_per_cgroup", s and s[-1]["invocations"] == len(ev), s[-1:])
PY
echo -1 >"$cg/memory.limit_in_bytes"

# force_empty (v1): the write reclaims everything; its record says so.
"$RINGSIDE" reclaim --events --json --target-cgroup "$cg" >"$tmp/fe.json" 2>"$tmp/fe.err" &
rs=$!
wait_for "$tmp/fe.err" 'tracing reclaim'
echo 0 >"$cg/memory.force_empty"
kill -INT "$rs"; wait "$rs"; rs=
python3 - "$tmp/fe.json" <<'PY' && pass reclaim_force_empty_record || fail reclaim_force_empty_record "$(head -2 "$tmp/fe.json")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
fe = [e for e in ev if e["type"] == "reclaim" and e["trigger"] == "force_empty"]
assert fe and fe[0]["request"] == "0" and fe[0]["write_ret"] == 2 and sum(e["nr_reclaimed"] for e in fe) > 0, ev[:2]
PY
rm -f "$tmp/file"

# A one-page ring under a charge storm: the summary's calls come from the
# kernel's totals, so they equal the records delivered plus those lost.
echo 16M >"$cg/memory.limit_in_bytes"
"$RINGSIDE" reclaim --events --json --target-cgroup "$cg" --ringbuf-size 4096 >"$tmp/small.json" 2>"$tmp/small.err" &
rs=$!
wait_for "$tmp/small.err" 'tracing reclaim'
sh -c 'echo $$ >"$1/cgroup.procs"; dd if=/dev/zero of="$2" bs=64K count=3200 status=none' sh "$cg" "$tmp/file"
kill -INT "$rs"; wait "$rs"; rs=
echo -1 >"$cg/memory.limit_in_bytes"
python3 - "$tmp/small.json" "$cg" <<'PY' 2>"$tmp/small.check" &&
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
records = sum(1 for r in rows if r["type"] == "reclaim" and r["cgroup"] == sys.argv[2])
lost = sum(r.get("events", 0) for r in rows if r["type"] == "lost")
calls = sum(r["invocations"] for r in rows if r["type"] == "reclaim_summary" and r["cgroup"] == sys.argv[2])
assert calls > 0 and calls == records + lost, "summary %d calls, %d records + %d lost" % (calls, records, lost)
print("%d calls = %d records + %d lost" % (calls, records, lost), file=sys.stderr)
PY
	pass "reclaim_summary_exact_with_small_ring ($(cat "$tmp/small.check"))" ||
	fail reclaim_summary_exact_with_small_ring "$(tail -1 "$tmp/small.check")"
rm -f "$tmp/file"

# 2. The profiler with a zram swap device: swappiness 200 takes more anon than 0.
# 64 MiB anon + 64 MiB page cache, 80 MiB asked for: the file pages alone
# cannot cover it, so the setting decides whether anon is taken.
out=$("$RINGSIDE" reclaim profile --cgroup "$cg" --workload 128M --amount 80M --swappiness 0,200 \
	--rounds 2 --window 0.2 --setup-zram 256M --json --svg "$tmp/p.svg" 2>"$tmp/prof.err"); rc=$?
echo "$out" >"$tmp/prof.json"
python3 - "$rc" "$tmp/prof.json" <<'PY' 2>"$tmp/shift.err" && pass reclaim_profile_swappiness_shift ||
import json, sys
assert sys.argv[1] == "0", "exit status " + sys.argv[1]
rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
rows = [r for r in rows if r["type"] == "reclaim_profile"]
assert len(rows) == 4, rows
anon = {sw: sum(r["anon_pages"] for r in rows if r["swappiness"] == sw) for sw in (0, 200)}
assert all(r["reclaimed"] > 0 for r in rows), rows
assert anon[200] > 4 * anon[0] and anon[200] > 0, anon
PY
	fail reclaim_profile_swappiness_shift "$(tail -1 "$tmp/shift.err") $(cat "$tmp/prof.err")"
python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"' "$tmp/p.svg" &&
	pass reclaim_profile_svg || fail reclaim_profile_svg "bad chart"
grep -q "created /dev/zram" "$tmp/prof.err" && [ "$(ls /sys/block | grep -c '^zram')" = "$zram_before" ] &&
	[ "$(wc -l </proc/swaps)" = "$swaps_before" ] && [ "$(wc -l <"$cg/cgroup.procs")" = 0 ] &&
	pass reclaim_profile_cleans_up || fail reclaim_profile_cleans_up "zram/swap/workload left: $(cat /proc/swaps)"
"$RINGSIDE" reclaim profile --cgroup "$cg" --workload 64M --amount 8M --swappiness 60 --trials 1 --window 0.1 2>&1 |
	grep -q "no swap: anonymous memory cannot be reclaimed" && pass reclaim_profile_says_no_swap ||
	fail reclaim_profile_says_no_swap "no warning without swap"

# 3. SIGINT mid-profile: everything it made is gone.
"$RINGSIDE" reclaim profile --cgroup "$cg" --workload 256M --amount 64M --swappiness 0,50,100,150,200 \
	--rounds 100 --setup-zram 256M >/dev/null 2>"$tmp/int.err" &
rs=$!
# Interrupted with its workload running: the journal names the workload first.
wait_for "${RINGSIDE_STATE_DIR:-/run/ringside}/$rs.state" '^proc'
kill -INT "$rs"; wait "$rs"; rc=$?; rs=
[ "$rc" = 1 ] && grep -q "interrupted" "$tmp/int.err" && [ "$(ls /sys/block | grep -c '^zram')" = "$zram_before" ] &&
	[ "$(wc -l <"$cg/cgroup.procs")" = 0 ] && pass reclaim_profile_sigint_cleanup ||
	fail reclaim_profile_sigint_cleanup "rc=$rc $(tail -2 "$tmp/int.err")"

# 4. The target removed mid-profile (an empty cgroup, so rmdir works while
# the profile runs; each round waits up to a second for its record): one
# line naming it, exit 1.
gone=$cg/gone
mkdir "$gone"
"$RINGSIDE" reclaim profile --cgroup "$gone" --amount 4M --swappiness 0,200 --rounds 100 \
	>/dev/null 2>"$tmp/gone.err" &
rs=$!
# The profile has begun (its journal exists) when the cgroup goes.
wait_for "${RINGSIDE_STATE_DIR:-/run/ringside}/$rs.state" '^cgroup'
rmdir "$gone"
wait "$rs"; rc=$?; rs=
[ "$rc" = 1 ] && grep -q "gone was removed during the profile" "$tmp/gone.err" &&
	[ "$(grep -c '^ringside: reclaim profile' "$tmp/gone.err")" = 1 ] && pass reclaim_profile_cgroup_removed ||
	fail reclaim_profile_cgroup_removed "rc=$rc $(tail -2 "$tmp/gone.err")"

# 5. Bad input: one line, non-zero exit.
expect_error() {	# name, regex, args...
	local name=$1 msg=$2; shift 2
	local out rc
	out=$("$RINGSIDE" reclaim "$@" 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$msg" <<<"$out" && pass "$name" ||
		fail "$name" "rc=$rc: $out"
}
expect_error reclaim_error_not_cgroup "not a cgroup directory" profile --cgroup "$tmp"
nomem=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ {print $2; exit}' /proc/mounts)
[ -n "$nomem" ] && expect_error reclaim_error_no_memcg "has no memory controller" profile --cgroup "$nomem"
expect_error reclaim_error_swappiness_range "outside 0..200|comma-separated values in 0..200" profile --cgroup "$cg" --swappiness 0,300
expect_error reclaim_error_bad_size "bad size '12Q'" profile --cgroup "$cg" --amount 12Q
expect_error reclaim_error_trace_not_cgroup "not a cgroup directory" --cgroup "$tmp" -d 1
expect_error reclaim_error_target_not_cgroup "target cgroup $tmp: .*not a cgroup directory" --target-cgroup "$tmp" -d 1
# Numbers are checked whole: no trailing junk, no wrap-around, no silent cap.
expect_error reclaim_error_rounds_junk "bad --rounds '5x'" profile --cgroup "$cg" --rounds 5x
expect_error reclaim_error_rounds_wrap "bad --rounds '4294967297'" profile --cgroup "$cg" --rounds 4294967297
expect_error reclaim_error_rounds_zero "bad --rounds '0'" profile --cgroup "$cg" --rounds 0
expect_error reclaim_error_rounds_total "more than 512 requests" profile --cgroup "$cg" --rounds 500 --swappiness 0,200
expect_error reclaim_error_rounds_negative "bad --rounds '-1'" profile --cgroup "$cg" --rounds -1
expect_error reclaim_error_swappiness_junk "bad --swappiness 'abc'" profile --cgroup "$cg" --swappiness abc
expect_error reclaim_error_swappiness_negative "bad --swappiness '-1'" profile --cgroup "$cg" --swappiness -1
expect_error reclaim_error_amount_zero "bad size '0' for --amount" profile --cgroup "$cg" --amount 0
expect_error reclaim_error_amount_overflow "bad size '99999999999999G' for --amount" profile --cgroup "$cg" --amount 99999999999999G
# An output that cannot be written fails before the profile changes anything.
expect_error reclaim_error_svg_dir "directory /nonexistent does not exist" profile --cgroup "$cg" --svg /nonexistent/x.svg
expect_error reclaim_error_unknown_option "unrecognized option|unknown option|invalid option" profile --cgroup "$cg" --bogus
long=$(head -c 100000 /dev/zero | tr '\0' a)
out=$("$RINGSIDE" reclaim profile --cgroup "$cg" --rounds "$long" 2>&1); rc=$?
[ "$rc" != 0 ] && [ "${#out}" -lt 300 ] && grep -q "(100000 bytes)" <<<"$out" && pass reclaim_error_long_argument_cut ||
	fail reclaim_error_long_argument_cut "rc=$rc, ${#out} bytes"
# A zombie target: said so, non-zero.
sh -c 'sleep 0.05 & echo $! >"$1"; exec sleep 30' sh "$tmp/zombie" & zparent=$!
wait_for "$tmp/zombie" '[0-9]'
zpid=$(cat "$tmp/zombie")
for _ in $(seq 200); do [ "$(awk '{print $3}' /proc/"$zpid"/stat 2>/dev/null)" = Z ] && break; sleep 0.05; done
expect_error reclaim_error_zombie_pid "has exited \(a zombie" -p "$zpid" -d 1
kill "$zparent"; wait "$zparent" 2>/dev/null
expect_error reclaim_error_kernel_thread "is a kernel thread" -p 2 -d 1
if command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$RINGSIDE" reclaim profile --cgroup "$cg" 2>&1); rc=$?
	[ "$rc" = 1 ] && grep -q "not permitted\|CAP_" <<<"$out" && pass reclaim_error_no_permission ||
		fail reclaim_error_no_permission "rc=$rc $out"
fi
[ "$(our_bpf_progs_settled)" = 0 ] && pass reclaim_nothing_left_attached || fail reclaim_nothing_left_attached "$(our_bpf_progs_settled)"

# fentry is probed once (ringside features) and not loaded when refused; the start-up says so.
out=$("$RINGSIDE" reclaim -d 0.3 2>&1 >/dev/null)
if "$RINGSIDE" features --json | grep -q '"name":"fentry","present":false'; then
	grep -q "reclaim: reclaim target by tracepoints, since fentry is missing" <<<"$out" && pass reclaim_fentry_fallback_reported ||
		fail reclaim_fentry_fallback_reported "$out"
else
	grep -q "reclaim: reclaim target by fentry:" <<<"$out" && pass reclaim_fentry_used || fail reclaim_fentry_used "$out"
fi
json_lines_valid reclaim_json_lines_valid "$tmp"/*.json
