#!/bin/bash
# `ringside reclaim profile` measuring what each swappiness costs, on a
# scratch memory cgroup (v1 here; v2 in the guest kernels) with a zram swap
# device the profiler creates: the built-in workloads give opposite answers,
# every figure equals the kernel's own counters, --attach takes no more than
# asked from a running task and leaves its settings as they were.
. "$(dirname "$0")/../lib.sh"
need_root reclaim_profile || exit 0

memcg_parent || { skip reclaim_profile "no memory controller on v1 or v2 here"; exit 0; }
[ -n "${memcg_v2:-}" ] && { skip reclaim_profile "cgroup v2 host: covered by the guest kernels"; exit 0; }
[ -e /sys/class/zram-control ] || modprobe zram num_devices=0 2>/dev/null
[ -e /sys/class/zram-control ] || { skip reclaim_profile "no zram module: anon cannot be swapped"; exit 0; }
tmp=$(mktemp -d)
cg=$memcg_dir/ringside-profile-$$
svc=
zram_before=$(ls /sys/block | grep -c '^zram')
swaps_before=$(wc -l </proc/swaps)
cleanup() {
	[ -n "$svc" ] && kill "$svc" 2>/dev/null
	wait 2>/dev/null
	[ -n "$cg" ] && remove_scratch_cgroup "$cg"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$cg" || { fail reclaim_profile_scratch_cgroup "cannot create $cg"; exit 0; }

counters() { grep -E '^total_(workingset_refault_(anon|file)|pgmajfault) ' "$cg/memory.stat" | tr '\n' ' '; }

# 1. Hot anon, cold page cache: reclaiming anon (swappiness 200) costs a
# refault per page, reclaiming file (0) costs nothing; then the mirror.
# Every step starts the workload over, so each trial's figures are its own.
profile() {	# type, json file
	local before after rc
	before=$(counters)
	"$RINGSIDE" reclaim profile --cgroup "$cg" --workload 128M --workload-type "$1" --amount 32M \
		--swappiness 0,60,200 --trials 3 --window 0.3 --seed 7 --setup-zram 256M --json \
		--svg "$tmp/$1.svg" --png "$tmp/$1.png" >"$2" 2>"$2.err"
	rc=$?
	after=$(counters)
	echo "$rc|$before|$after" >"$2.ctx"
}
profile anon-hot "$tmp/anon.json"
profile file-hot "$tmp/file.json"

python3 - "$tmp" <<'PY' >"$tmp/check.out" 2>&1
import json, sys
tmp = sys.argv[1]
def load(name):
    rc, before, after = open("%s/%s.json.ctx" % (tmp, name)).read().strip().split("|")
    assert rc == "0", "%s: exit %s: %s" % (name, rc, open("%s/%s.json.err" % (tmp, name)).read()[-300:])
    rows = [json.loads(l) for l in open("%s/%s.json" % (tmp, name))]
    num = lambda s: {k: int(v) for k, v in zip(s.split()[::2], s.split()[1::2])}
    return rows, num(before), num(after)
out = {}
for name in ("anon", "file"):
    rows, before, after = load(name)
    trials = [r for r in rows if r["type"] == "reclaim_profile"]
    setting = {r["swappiness"]: r for r in rows if r["type"] == "reclaim_profile_setting"}
    rec = [r for r in rows if r["type"] == "reclaim_profile_recommendation"][0]
    tot = [r for r in rows if r["type"] == "reclaim_profile_totals"][0]
    assert len(trials) == 9 and sorted(setting) == [0, 60, 200], rows
    # Shuffled: not every trial ran the settings in the same order.
    orders = {tuple(r["swappiness"] for r in sorted(trials, key=lambda r: r["order"]) if r["trial"] == t) for t in (1, 2, 3)}
    # Reclaim figures: the tracer's equal /proc/vmstat's, per type, every trial.
    for r in trials:
        v = r["vmstat"]
        assert (r["anon_pages"], r["file_pages"], r["scanned_anon"], r["scanned_file"]) == \
            (v["pgsteal_anon"], v["pgsteal_file"], v["pgscan_anon"], v["pgscan_file"]), r
        assert r["error"] == 0 and r["reclaimed"] > 0 and r["calls"] == sum(b["count"] for b in r["latency_hist"]), r
        assert r["window_seconds"] >= 0.3 and r["workload_ops"] > 0, r
    # Cost figures: the cgroup's memory.stat over the whole run equals the
    # profile's totals, and the windows' sum is what the rows report.
    assert tot["refault_anon"] == after["total_workingset_refault_anon"] - before["total_workingset_refault_anon"], (tot, before, after)
    assert tot["refault_file"] == after["total_workingset_refault_file"] - before["total_workingset_refault_file"], (tot, before, after)
    assert tot["majfaults"] == after["total_pgmajfault"] - before["total_pgmajfault"], (tot, before, after)
    for k in ("refault_anon", "refault_file", "majfaults"):
        assert tot["window_" + k] == sum(r[k] for r in trials), (k, tot)
    cost = {s: setting[s]["refaults_per_reclaimed_page"]["mean"] for s in setting}
    out[name] = (cost, rec, trials, orders)
cost, rec, trials, orders = out["anon"]
# A refault needs the page's shadow entry, which the kernel's shadow-node
# shrinker may drop under the same reclaim: most pages, not all.
assert cost[200] >= 0.5 and cost[200] >= 10 * cost[0], cost
assert 0 in rec["swappiness"] and 200 not in rec["swappiness"] and not rec["no_difference"], rec
# Swapped-out hot anon comes back as major faults, one per page.
assert all(r["majfaults"] >= r["refault_anon"] for r in trials), trials
print("anon-hot: refaults/page %s, recommended %s" % (cost, rec["swappiness"]))
cost, rec, trials, orders2 = out["file"]
assert cost[0] >= 0.5 and cost[0] >= 10 * cost[200], cost
assert 200 in rec["swappiness"] and 0 not in rec["swappiness"] and not rec["no_difference"], rec
assert len(orders | orders2) > 1, "every trial ran in the same order: %s" % orders
print("file-hot: refaults/page %s, recommended %s" % (cost, rec["swappiness"]))
PY
[ $? = 0 ] && pass "reclaim_profile_cost_direction_and_exact ($(tr '\n' ';' <"$tmp/check.out"))" ||
	fail reclaim_profile_cost_direction_and_exact "$(tail -3 "$tmp/check.out")"
grep -q "^recommendation\|reclaim_profile_recommendation" "$tmp/anon.json" &&
	pass reclaim_profile_json_has_recommendation || fail reclaim_profile_json_has_recommendation "none"

# 2. The charts: SVG that parses, PNG of the stated size, both with two panels' text.
python3 - "$tmp/anon-hot.svg" "$tmp/anon-hot.png" <<'PY' 2>"$tmp/chart.err" &&
import struct, sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
svg = d.documentElement
assert svg.tagName == "svg" and svg.getAttribute("width").startswith("800"), svg.toxml()[:200]
png = open(sys.argv[2], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
w, h = struct.unpack(">II", png[16:24])
assert (w, h) == (800, 600), (w, h)
assert len(png) > 5000, len(png)
PY
	pass reclaim_profile_charts || fail reclaim_profile_charts "$(tail -1 "$tmp/chart.err")"

# 3. The text output: a table per trial, a summary with spreads, the recommendation.
"$RINGSIDE" reclaim profile --cgroup "$cg" --workload 64M --workload-type file-hot --amount 16M \
	--swappiness 0,200 --trials 2 --window 0.2 --setup-zram 128M >"$tmp/text.out" 2>"$tmp/text.err"
rc=$?
[ "$rc" = 0 ] && grep -q '^SWAPPINESS TRIAL ' "$tmp/text.out" && grep -q '^SWAPPINESS TRIALS ' "$tmp/text.out" &&
	grep -q '^recommendation: swappiness 200: ' "$tmp/text.out" &&
	[ "$(grep -c 'trial step [0-9] of 4' "$tmp/text.err")" = 4 ] && grep -q 'about [0-9]* s left' "$tmp/text.err" &&
	pass reclaim_profile_text_and_progress || fail reclaim_profile_text_and_progress "rc=$rc $(tail -3 "$tmp/text.out") $(tail -2 "$tmp/text.err")"

# 4. --attach: a running task (anon it keeps touching, page cache it read),
# steps of at most the amount, its cgroup's settings as they were.
cat >"$tmp/svc.py" <<'PY'
import os, sys, time
data = bytearray(os.urandom(1 << 20)) * 48
open(sys.argv[1], "wb").write(os.urandom(32 << 20))
open(sys.argv[1], "rb").read()
open(sys.argv[2], "w").write("ready\n")
while True:
    for i in range(0, len(data), 4096):
        data[i] = (data[i] + 1) & 255
    time.sleep(0.05)
PY
sh -c 'echo $$ >"$1/cgroup.procs"; exec python3 "$2" "$3" "$4"' sh "$cg" "$tmp/svc.py" "$tmp/svc.data" "$tmp/svc.ready" &
svc=$!
wait_for "$tmp/svc.ready" ready
settings_before="$(cat "$cg/memory.swappiness" "$cg/memory.limit_in_bytes")"
"$RINGSIDE" reclaim profile --cgroup "$cg" --attach --amount 16M --swappiness 0,200 --trials 2 --window 0.2 \
	--setup-zram 128M --workload-metric "cat /proc/$svc/stat | cut -d' ' -f14" --json >"$tmp/attach.json" 2>"$tmp/attach.err"
rc=$?
python3 - "$rc" "$tmp/attach.json" <<'PY' 2>"$tmp/attach.check" &&
import json, sys
assert sys.argv[1] == "0", "exit " + sys.argv[1]
rows = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["type"] == "reclaim_profile"]
assert len(rows) == 4, rows
assert all(0 < r["reclaimed"] <= 16 << 20 for r in rows), [r["reclaimed"] for r in rows]
assert all(r["workload_ops"] == 0 and r["metric_rate"] is not None for r in rows), rows
print("reclaimed per step (KiB): %s" % [r["reclaimed"] >> 10 for r in rows], file=sys.stderr)
PY
	kill -0 "$svc" && [ "$(cat "$cg/memory.swappiness" "$cg/memory.limit_in_bytes")" = "$settings_before" ] &&
	pass "reclaim_profile_attach_bounded ($(tail -1 "$tmp/attach.check"))" ||
	fail reclaim_profile_attach_bounded "rc=$rc $(tail -1 "$tmp/attach.check") $(tail -2 "$tmp/attach.err")"
kill "$svc"; wait "$svc" 2>/dev/null; svc=
rm -f "$tmp/svc.data"

# 5. Bad input: one line, non-zero exit, nothing left behind.
expect_error() {	# name, regex, args...
	local name=$1 msg=$2; shift 2
	local out rc
	out=$("$RINGSIDE" reclaim profile "$@" 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$msg" <<<"$out" && pass "$name" || fail "$name" "$out"
}
expect_error reclaim_profile_attach_no_tasks "has no tasks: --attach profiles a running cgroup" \
	--cgroup "$cg" --attach --amount 8M
expect_error reclaim_profile_attach_small_amount "needs --amount of at least 8 MiB" \
	--cgroup "$cg" --attach --amount 4M
expect_error reclaim_profile_amount_over_workload "is not below the workload's size" \
	--cgroup "$cg" --workload 16M --amount 32M
expect_error reclaim_profile_attach_and_workload "drop --workload" --cgroup "$cg" --attach --workload 16M
expect_error reclaim_profile_bad_type "bad --workload-type 'hot': mixed, anon-hot or file-hot" \
	--cgroup "$cg" --workload 16M --workload-type hot
expect_error reclaim_profile_bad_window "bad --window '0'" --cgroup "$cg" --window 0
expect_error reclaim_profile_duplicate_setting "distinct comma-separated values" --cgroup "$cg" --swappiness 60,60
sh -c 'echo $$ >"$1/cgroup.procs"; exec sleep 600' sh "$cg" &
svc=$!
until grep -qx "$svc" "$cg/cgroup.procs"; do sleep 0.05; done
expect_error reclaim_profile_amount_over_usage "is not below what .* uses" --cgroup "$cg" --attach --amount 1G
kill "$svc"; wait "$svc" 2>/dev/null; svc=
[ "$(ls /sys/block | grep -c '^zram')" = "$zram_before" ] && [ "$(wc -l </proc/swaps)" = "$swaps_before" ] &&
	pass reclaim_profile_leaves_nothing || fail reclaim_profile_leaves_nothing "zram or swap left: $(cat /proc/swaps)"
