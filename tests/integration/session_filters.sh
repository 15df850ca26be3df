#!/bin/bash
# The session core through a real collector (gcm): BPF-side filters by
# cgroup, thread and comm, and drop accounting when the ring buffer overflows.
. "$(dirname "$0")/../lib.sh"
need_root session_filters || exit 0

tmp=$(mktemp -d)
cg=
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# Move anything left back to our own cgroup, then remove the scratch child.
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		while read -r p; do echo "$p" >"$cg/../cgroup.procs" 2>/dev/null; done <"$cg/cgroup.procs"
		rmdir "$cg"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# name: a held workload waiting for SIGUSR1; its PID in $wl. Not in a $(...)
# subshell: the PID must reach pids[] for cleanup, or the held workload outlives the test.
start_workload() {
	"$RS_PROGS/gcm_workload" --wait --hold --only gcrypt >"$tmp/$1.wl" &
	wl=$!
	pids+=("$wl")
	wait_for "$tmp/$1.wl" '^ready'
}
run_workload() {	# pid name: run the schedule and wait for its tally
	kill -USR1 "$1"
	wait_for "$tmp/$2.wl" '^expect'
}
expected_ops() {	# the workload's own tally of its messages
	awk '/^expect/ { for (i = 5; i <= NF; i++) if ($i ~ /^ops=/) n += substr($i, 5) } END { print n + 0 }' "$tmp/$1.wl"
}
count_events() {	# json file, pid
	python3 -c 'import json,sys
print(sum(1 for l in open(sys.argv[1]) if (o:=json.loads(l))["type"] in ("gcm_op","gcm_tag_failure") and o["pid"]==int(sys.argv[2])))' "$1" "$2"
}

# --cgroup: a scratch child of our own memory cgroup (v1 here; v2 paths work alike).
own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
mem_root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
[ -z "$mem_root" ] && own=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup) &&
	mem_root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
cg="$mem_root$own/ringside-filter-$$"
# cgroup_case NAME PATH: the filter named by PATH keeps the inside workload's records only.
cgroup_case() {
	local inside outside rs n_in n_out want
	start_workload "$1_inside"; inside=$wl
	start_workload "$1_outside"; outside=$wl
	echo "$inside" >"$cg/cgroup.procs"
	"$RINGSIDE" gcm --json --events --cgroup "$2" >"$tmp/$1.json" 2>"$tmp/$1.err" &
	rs=$!
	wait_for "$tmp/$1.err" 'tracing AES-GCM' || { fail "$1" "did not start: $(tail -1 "$tmp/$1.err")"; kill "$rs"; return; }
	run_workload "$inside" "$1_inside"
	run_workload "$outside" "$1_outside"
	# Every record was queued before the workload's call returned; the
	# final drain at SIGINT reads them all.
	kill -INT "$rs"; wait "$rs"
	n_in=$(count_events "$tmp/$1.json" "$inside") n_out=$(count_events "$tmp/$1.json" "$outside")
	want=$(expected_ops "$1_inside")
	[ "$n_in" = "$want" ] && [ "$want" -gt 0 ] && [ "$n_out" = 0 ] && pass "$1" ||
		fail "$1" "inside $n_in (want $want), outside $n_out (want 0): $(tail -1 "$tmp/$1.err")"
}
if mkdir "$cg"; then
	cgroup_case filter_cgroup_subtree "$cg"
	# The same cgroup as /proc/PID/cgroup shows it: its path inside the hierarchy.
	cgroup_case filter_cgroup_hierarchy_path "${own%/}/ringside-filter-$$"
else
	fail filter_cgroup_subtree "cannot create a scratch cgroup under $mem_root$own"
	cg=
fi

# --tid: only that thread; a tid that matches nothing sees nothing.
start_workload tid_a; a=$wl
"$RINGSIDE" gcm --json --events --tid "$a" >"$tmp/tid.json" 2>"$tmp/tid.err" &
rs=$!
wait_for "$tmp/tid.err" 'tracing AES-GCM'
run_workload "$a" tid_a
kill -INT "$rs"; wait "$rs"
[ "$(count_events "$tmp/tid.json" "$a")" = "$(expected_ops tid_a)" ] && pass filter_tid ||
	fail filter_tid "$(count_events "$tmp/tid.json" "$a") events, want $(expected_ops tid_a)"

# --comm: a different name sees nothing.
start_workload comm_b; b=$wl
"$RINGSIDE" gcm --json --events --comm nosuchcomm >"$tmp/comm.json" 2>"$tmp/comm.err" &
rs=$!
wait_for "$tmp/comm.err" 'tracing AES-GCM'
run_workload "$b" comm_b
kill -INT "$rs"; wait "$rs"
[ "$(count_events "$tmp/comm.json" "$b")" = 0 ] && pass filter_comm_excludes || fail filter_comm_excludes "events seen"

# --comm matches a name the process gave itself, shorter than the one it had
# (a kernel that does not pad comm leaves the old name's bytes after the NUL),
# and a name of the kernel's full 15 characters: exact counts either way.
"$RINGSIDE" gcm --json --events --comm n00007 >"$tmp/renamed.json" 2>"$tmp/renamed.err" &
rs=$!
wait_for "$tmp/renamed.err" 'tracing AES-GCM'
"$RS_PROGS/gcm_workload" --names 20 >"$tmp/renamed.wl" &
n=$!
wait "$n"
kill -INT "$rs"; wait "$rs"
[ "$(count_events "$tmp/renamed.json" "$n")" = 1 ] && pass filter_comm_renamed ||
	fail filter_comm_renamed "$(count_events "$tmp/renamed.json" "$n") events, want the 1 sealed as n00007"
ln -s "$(readlink -f "$RS_PROGS/gcm_workload")" "$tmp/abcdefghijklmnopq"
"$RINGSIDE" gcm --json --events --comm abcdefghijklmno >"$tmp/long.json" 2>"$tmp/long.err" &
rs=$!
wait_for "$tmp/long.err" 'tracing AES-GCM'
"$tmp/abcdefghijklmnopq" --rounds 1 --only openssl >"$tmp/long.wl" &
n=$!
wait "$n"
kill -INT "$rs"; wait "$rs"
[ "$(count_events "$tmp/long.json" "$n")" = "$(expected_ops long)" ] && [ "$(expected_ops long)" -gt 0 ] &&
	pass filter_comm_15_chars ||
	fail filter_comm_15_chars "$(count_events "$tmp/long.json" "$n") events, want $(expected_ops long)"

# A one-page ring (room for a few dozen records) under a seal loop while the
# tracer is stopped, so it cannot drain it: `stopped_tracer NAME ARGS...`
# leaves NAME.json, NAME.err, the loop's "sealed N" in sealed, the exit in rc.
stopped_tracer() {
	local name=$1
	shift
	"$RINGSIDE" gcm --json --comm gcm_workload --ringbuf-size 4096 "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" &
	rs=$!
	wait_for "$tmp/$name.err" 'tracing AES-GCM'
	kill -STOP "$rs"
	# On one CPU: a start is marked per CPU, and a thread that moves between
	# its IV and its tag ends an untimed message (counted all the same).
	taskset -c 0 "$RS_PROGS/gcm_workload" --seal-loop 16 1 2>"$tmp/sealed" >/dev/null
	kill -CONT "$rs"
	kill -INT "$rs"; wait "$rs"; rc=$?
}

# Drops: with --events (a record per message) records are lost for certain,
# and the summary says so.
stopped_tracer lost --events
grep -qE '^ringside: [0-9]+ events lost — raise --ringbuf-size$' "$tmp/lost.err" &&
	grep -q '"type":"lost"' "$tmp/lost.json" && [ "$rc" = 0 ] && pass drops_reported ||
	fail drops_reported "rc=$rc: $(tail -1 "$tmp/lost.err")"
# seal_sums FILE: a --json trace's seal summary rows added up: "ops timed lost
# lat_ok", timed being their records (with --events the records delivered,
# without it the messages in the latency histograms), lost the records lost,
# lat_ok 1 when every row's p50 <= p99 <= max and p50 > 0.
seal_sums() {
	python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
summ = [r for r in rows if r["type"] == "gcm_summary" and r["dir"] == "seal"]
print(sum(r["ops"] for r in summ), sum(r["records"] for r in summ),
      sum(r["events"] for r in rows if r["type"] == "lost" and "events" in r),
      int(all(0 < r["lat_p50_ns"] <= r["lat_p99_ns"] <= r["lat_max_ns"] for r in summ)))
PY
}
sealed() { awk '/^sealed/ {print $2}' "$tmp/sealed"; }

# The summary's counts come from the kernel: exact although records were lost,
# and the records that did arrive plus the lost ones are every seal.
read -r ops records lost _ <<<"$(seal_sums "$tmp/lost.json")"
n=$(sealed)
[ "$lost" -gt 0 ] && [ "$ops" = "$n" ] && [ $((records + lost)) = "$n" ] &&
	pass "summary_exact_despite_drops (ops $ops = sealed; $records records + $lost lost)" ||
	fail summary_exact_despite_drops "ops $ops, $records records + $lost lost, sealed $n (nothing lost proves nothing)"

# Without --events the same stopped tracer loses nothing: the latency
# histograms are kept in the kernel, and the percentiles cover every seal.
stopped_tracer khist
read -r ops timed lost lat_ok <<<"$(seal_sums "$tmp/khist.json")"
n=$(sealed)
[ "$rc" = 0 ] && ! grep -q '"type":"lost"' "$tmp/khist.json" && [ "$n" -gt 0 ] && [ "$ops" = "$n" ] &&
	[ "$timed" = "$n" ] && [ "$lat_ok" = 1 ] &&
	pass "summary_latency_in_kernel ($n seals, all timed)" ||
	fail summary_latency_in_kernel "exit $rc, ops $ops, timed $timed, sealed $n, percentiles ordered: $lat_ok"
# A context's IV set while another's message is open: the first message is
# counted but untimed (its start mark was the other's), and the run says so.
"$RINGSIDE" gcm --comm gcm_workload --json >"$tmp/il.json" 2>"$tmp/il.err" &
rs=$!
wait_for "$tmp/il.err" 'tracing AES-GCM'
taskset -c 0 "$RS_PROGS/gcm_workload" --interleave 500 2>"$tmp/sealed" >/dev/null
"$RINGSIDE" gcm --comm gcm_workload >"$tmp/il.txt" 2>"$tmp/il_txt.err" &
rs2=$!
wait_for "$tmp/il_txt.err" 'tracing AES-GCM'
taskset -c 0 "$RS_PROGS/gcm_workload" --interleave 500 2>/dev/null >/dev/null
kill -INT "$rs" "$rs2"; wait "$rs"; rc=$?; wait "$rs2"; rc2=$?
# The JSON tracer saw both runs, the text one the second.
read -r ops timed _ <<<"$(seal_sums "$tmp/il.json")"
[ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ "$(sealed)" = 1000 ] && [ "$ops" = 2000 ] && [ "$timed" = 1000 ] &&
	grep -q ' 1000 .*(latency from 500 of 1000: start of the rest not seen)$' "$tmp/il.txt" &&
	pass "summary_untimed_counted_and_said ($ops seals, $timed timed)" ||
	fail summary_untimed_counted_and_said "exit $rc/$rc2, ops $ops, timed $timed, want 2000, 1000; $(tail -1 "$tmp/il.txt")"
# The bench's paired loop: a copy of libcrypto loaded with dlmopen beside the
# traced one, seals alternating between them. Only the traced file's count.
libcrypto=$(ldd "$RS_PROGS/gcm_workload" | awk '/libcrypto/ {print $3}')
cp "$libcrypto" "$tmp/"
"$RINGSIDE" gcm --lib "$libcrypto" --comm gcm_workload --json >"$tmp/pl.json" 2>"$tmp/pl.err" &
rs=$!
wait_for "$tmp/pl.err" 'tracing AES-GCM'
"$RS_PROGS/gcm_workload" --paired-loop 0.3 "$tmp/$(basename "$libcrypto")" 2>"$tmp/sealed" >/dev/null
wl=$?
kill -INT "$rs"; wait "$rs"; rc=$?
read -r ops _ <<<"$(seal_sums "$tmp/pl.json")"
if [ "$wl" = 77 ]; then
	skip gcm_dlmopen_copy_not_counted "$(tail -1 "$tmp/sealed")"
else
	[ "$wl" = 0 ] && [ "$rc" = 0 ] && [ "$(sealed)" -gt 0 ] && [ "$ops" = "$(sealed)" ] &&
		pass "gcm_dlmopen_copy_not_counted ($ops seals through the traced file)" ||
		fail gcm_dlmopen_copy_not_counted "exit $wl/$rc, counted $ops, the traced file sealed $(sealed)"
fi
[ "$(our_bpf_progs_settled)" = 0 ] && pass filters_nothing_left || fail filters_nothing_left "$(our_bpf_progs_settled) programs"
json_lines_valid session_filters_json_lines_valid "$tmp"/*.json
