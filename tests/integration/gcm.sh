#!/bin/bash
# `ringside gcm` against the real libcrypto, libgnutls and libgcrypt.
. "$(dirname "$0")/../lib.sh"
need_root gcm || exit 0

tmp=$(mktemp -d)
wl_pid=
cleanup() {
	[ -n "$wl_pid" ] && kill "$wl_pid" 2>/dev/null
	pkill -f "$tmp/marker" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
links_before=$(bpf_links)


# run_traced NAME WORKLOAD_ARGS -- RINGSIDE_ARGS: workload waits for ringside, then
# runs its schedule and holds (so callers resolve) until released.
run_traced() {
	local name=$1; shift
	local wargs=() rargs=()
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done
	shift
	rargs=("$@")
	"$RS_PROGS/gcm_workload" --wait --hold "${wargs[@]}" >"$tmp/$name.expect" &
	wl_pid=$!
	wait_for "$tmp/$name.expect" '^ready' || { fail "$name" "workload did not start"; return 1; }
	rargs=("${rargs[@]//@PID@/$wl_pid}")
	"$RINGSIDE" gcm --json --events "${rargs[@]}" >"$tmp/$name.json" 2>"$tmp/$name.err" &
	local rs=$!
	if ! wait_for "$tmp/$name.err" 'tracing AES-GCM'; then
		fail "$name" "ringside did not start: $(head -3 "$tmp/$name.err")"
		kill "$rs" "$wl_pid"; return 1
	fi
	kill -USR1 "$wl_pid"
	wait_for "$tmp/$name.expect" '^expect' || { fail "$name" "workload did not finish"; return 1; }
	# Release the workload once ringside has printed a record per message
	# (callers resolve only while it lives); 60 s at most.
	local want i
	want=$(awk '/^expect/ { for (i = 5; i <= NF; i++) if ($i ~ /^ops=/) n += substr($i, 5) } END { print n + 0 }' "$tmp/$name.expect")
	for ((i = 0; i < 1200; i++)); do
		[ "$(grep -c '"type":"gcm_\(op\|tag_failure\)"' "$tmp/$name.json")" -ge "$want" ] && break
		sleep 0.05
	done
	kill -USR1 "$wl_pid"
	wait "$wl_pid"; wl_pid=
	# With -p ringside stops by itself when the target exits; else stop it.
	[[ " ${rargs[*]} " == *" -p "* ]] && until_gone "$rs"
	kill -INT "$rs" 2>/dev/null
	wait "$rs"
	echo $? >"$tmp/$name.rc"
}

# 1. -p PID: EVP streaming + EVP_Cipher, GnuTLS (AEAD and cipher API), libgcrypt, nettle.
run_traced pid --only openssl,gnutls,gcrypt,nettle -- -p @PID@
pid=$(awk '/^ready/{print $2}' "$tmp/pid.expect")
[ "$(cat "$tmp/pid.rc")" = 0 ] && pass gcm_pid_mode_exit || fail gcm_pid_mode_exit "rc $(cat "$tmp/pid.rc"): $(tail -2 "$tmp/pid.err")"
grep -q "target PID $pid exited" "$tmp/pid.err" && pass gcm_pid_exit_noticed ||
	fail gcm_pid_exit_noticed "$(tail -2 "$tmp/pid.err")"
grep -q 'return probes: uretprobe syscall' "$tmp/pid.err" && pass gcm_reports_uretprobe_mechanism ||
	fail gcm_reports_uretprobe_mechanism "$(head -2 "$tmp/pid.err")"
python3 tests/integration/gcm_check.py "$tmp/pid.expect" "$tmp/pid.json" "$pid" | sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_pid_/'

# 2. TLS 1.3 through libssl: record counts and AAD from the record layer.
run_traced tls --only tls -- -p @PID@
pid=$(awk '/^ready/{print $2}' "$tmp/tls.expect")
python3 tests/integration/gcm_check.py "$tmp/tls.expect" "$tmp/tls.json" "$pid" | sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_tls_/'

# 2b. The pre-6.6 attach path (one perf-event uprobe per probe point) counts the same.
run_traced perf --only openssl,gcrypt -- -p @PID@ --perf-uprobes
pid=$(awk '/^ready/{print $2}' "$tmp/perf.expect")
python3 tests/integration/gcm_check.py "$tmp/perf.expect" "$tmp/perf.json" "$pid" | sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_perf_uprobes_/'

# 2c. --count-only: OpenSSL's messages end at finish alone (no probe at their
# start): the same exact counts, bytes, key bits and tag failures.
run_traced countonly --only openssl,tls,gnutls -- -p @PID@ --count-only
pid=$(awk '/^ready/{print $2}' "$tmp/countonly.expect")
COUNT_ONLY=1 python3 tests/integration/gcm_check.py "$tmp/countonly.expect" "$tmp/countonly.json" "$pid" |
	sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_count_only_/'

# 2c'. One OpenSSL context, the thread moved between two CPUs between calls:
# a re-key or a TLS 1.2-style open (decrypt, tag compared by the caller) on
# one CPU, the context's next message ended on the other or the same one:
# each counted under the key and direction it had then, in both modes. The
# opens' tags are compared by the caller (CRYPTO_gcm128_tag): unchecked.
if [ "$(nproc)" -ge 2 ]; then
	for mode in countonly events; do
		args=(-p @PID@)
		[ "$mode" = countonly ] && args+=(--count-only)
		run_traced "hops_$mode" --only hops --rounds 40 -- "${args[@]}"
		pid=$(awk '/^ready/{print $2}' "$tmp/hops_$mode.expect")
		COUNT_ONLY=$([ "$mode" = countonly ] && echo 1) \
			python3 tests/integration/gcm_check.py "$tmp/hops_$mode.expect" "$tmp/hops_$mode.json" "$pid" |
			sed "s/^\(PASS\|FAIL\) gcm_/\1 gcm_cpu_hops_${mode}_/"
	done
else
	skip gcm_cpu_hops "one CPU: nothing to move between"
fi

# 2d. The load does not wait for the uprobe test, which runs on a thread: it
# takes the kernel's claim of session links, and the settled choice reloads
# what a refuted claim loaded (here the switch refutes it, when the test is
# still running at the choice, as it is in practice). Either way the calls
# end by entry+return and the counts are exact.
RINGSIDE_FEATURES_OFF=uprobe_session run_traced reload --only openssl,gcrypt -- -p @PID@ -v
pid=$(awk '/^ready/{print $2}' "$tmp/reload.expect")
reloaded=no
grep -q 'gcm: loaded again' "$tmp/reload.err" && reloaded=yes
grep -q 'call ends by entry+return, since uprobe_session is missing (switched off' "$tmp/reload.err" &&
	pass "gcm_switched_off_session_settles (loaded again: $reloaded)" ||
	fail gcm_switched_off_session_settles "$(grep 'call ends' "$tmp/reload.err")"
python3 tests/integration/gcm_check.py "$tmp/reload.expect" "$tmp/reload.json" "$pid" | sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_settled_/'
# The same counts came from programs verified in two halves (split_load.h),
# with uprobe registration kept fast through the loads (uprobe_warm.h).
if [ "$(nproc)" -ge 2 ]; then
	grep -q 'gcm: programs verified in two halves at once ([0-9]* and [0-9]* instructions)$' "$tmp/reload.err" &&
		pass gcm_load_split_on_two_cpus || fail gcm_load_split_on_two_cpus "$(grep -m3 '^gcm:' "$tmp/reload.err")"
else
	skip gcm_load_split_on_two_cpus "one CPU"
fi
if "$RINGSIDE" features 2>/dev/null | grep -q '^uprobe_multi *yes'; then
	grep -q "uprobes: registration kept fast through the loads: [1-9][0-9]* no-op registrations\?" "$tmp/reload.err" &&
		pass gcm_uprobe_registration_warm || fail gcm_uprobe_registration_warm "$(grep -m2 'uprobes:' "$tmp/reload.err")"
else
	skip gcm_uprobe_registration_warm "no uprobe_multi links here"
fi

# 3. System-wide (the system's libraries, every process), narrowed by --comm.
run_traced sys -- --comm gcm_workload
pid=$(awk '/^ready/{print $2}' "$tmp/sys.expect")
python3 tests/integration/gcm_check.py "$tmp/sys.expect" "$tmp/sys.json" "$pid" | sed 's/^\(PASS\|FAIL\) gcm_/\1 gcm_sys_/'

# 3b. --stacks: every printed frame is code of a mapped file (the walk is cut
#     where a library without frame pointers leaves stack slots behind).
run_traced stacks --only openssl,gcrypt -- -p @PID@ --stacks
python3 - "$tmp/stacks.json" <<'PY' 2>"$tmp/stacks.check" && pass gcm_stacks_only_code_frames || fail gcm_stacks_only_code_frames "$(cat "$tmp/stacks.check")"
import json, sys
ev = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "gcm_op"]
assert ev and all("stack" in r for r in ev if r["lib"] == "libgcrypt"), "no stacks"
bad = [f for r in ev for f in r.get("stack", []) if f.startswith("0x")]
assert not bad, "raw slots printed as frames: %s" % bad[:4]
# The workload is built with frame pointers: its libgcrypt calls show main.
assert all(any(f.startswith("main+") for f in r["stack"]) for r in ev if r["lib"] == "libgcrypt"), ev[:1]
PY

# 4. Summaries with histograms: the rows add up to the schedule.
run_traced hist --only gcrypt -- -p @PID@ --hist --interval 60
python3 - "$tmp/hist.json" "$tmp/hist.expect" <<'PY' && pass gcm_summary_hist || fail gcm_summary_hist "$(grep summary "$tmp/hist.json" | head -2)"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = sum(int(m) for m in re.findall(r"ops=(\d+)", open(sys.argv[2]).read()))
s = [r for r in rows if r["type"] == "gcm_summary"]
assert s and sum(r["ops"] for r in s) == want, (want, s)
for r in s:
    sizes = {b["lo"] for b in r["size_hist"]}
    # 16, 64, 1420 and 16384 bytes land in distinct log2 buckets.
    assert {16, 64, 1024, 16384} <= sizes, sizes
    assert r["lat_p50_ns"] > 0 and r["lat_p99_ns"] >= r["lat_p50_ns"], r
PY

# 4b. The summary's histogram maps full (filled by hand before the first
#     message: the hot rows' index, whose name the kernel cuts to 15
#     characters, then the hash): every message still counted, in the
#     totals map where its latency row could not be made, and the
#     percentiles' loss named.
"$RS_PROGS/gcm_workload" --wait --hold --only openssl,gcrypt >"$tmp/full.expect" & wl_pid=$!
wait_for "$tmp/full.expect" '^ready'
"$RINGSIDE" gcm --json -p "$wl_pid" >"$tmp/full.json" 2>"$tmp/full.err" & rs=$!
wait_for "$tmp/full.err" 'tracing AES-GCM'
"$RS_PROGS/map_fill" gcm_hist_hot_in >"$tmp/full.fill_hot" 2>&1
"$RS_PROGS/map_fill" gcm_hist >"$tmp/full.fill" 2>&1
kill -USR1 "$wl_pid"
wait_for "$tmp/full.expect" '^expect'
kill -USR1 "$wl_pid"; wait "$wl_pid"; wl_pid=
until_gone "$rs"; kill -INT "$rs" 2>/dev/null; wait "$rs"
python3 - "$tmp/full.json" "$tmp/full.expect" "$tmp/full.fill" <<'PY' 2>"$tmp/full.check" && pass gcm_summary_hist_map_full_counts_exact || fail gcm_summary_hist_map_full_counts_exact "$(cat "$tmp/full.check")"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = sum(int(m) for m in re.findall(r"ops=(\d+)", open(sys.argv[2]).read()))
for f in (sys.argv[3] + "_hot", sys.argv[3]):
    fill = open(f).read()
    assert re.match(r"filled [1-9][0-9]*, full", fill), fill
s = [r for r in rows if r["type"] == "gcm_summary"]
assert want and sum(r["ops"] for r in s) == want, (want, s)
# Not one message found a latency row: all of them are named as lost.
lost = [r for r in rows if r["type"] == "lost"]
assert lost and lost[-1].get("latency_samples") == want, (want, lost)
PY
grep -q "messages missing from the latency percentiles" "$tmp/full.err" &&
	pass gcm_summary_hist_map_full_named || fail gcm_summary_hist_map_full_named "$(tr "\n" "|" <"$tmp/full.err")"

# 4c. A counting summary (no --events: the kernel's rows, each CPU's last
#     row found by its hint) of a process that exits before it is printed:
#     every message counted, and the rows still carry the process's name,
#     which the kernel noted at each row's first message.
"$RS_PROGS/gcm_workload" --wait --hold --only openssl,gcrypt,nettle >"$tmp/csum.expect" & wl_pid=$!
wait_for "$tmp/csum.expect" '^ready'
"$RINGSIDE" gcm --json --count-only -p "$wl_pid" >"$tmp/csum.json" 2>"$tmp/csum.err" & rs=$!
wait_for "$tmp/csum.err" 'tracing AES-GCM'
kill -USR1 "$wl_pid"
wait_for "$tmp/csum.expect" '^expect'
kill -USR1 "$wl_pid"; wait "$wl_pid"; wl_pid=
until_gone "$rs"; kill -INT "$rs" 2>/dev/null; wait "$rs"
python3 - "$tmp/csum.json" "$tmp/csum.expect" <<'PY' 2>"$tmp/csum.check" && pass gcm_count_only_summary_exact_and_named || fail gcm_count_only_summary_exact_and_named "$(cat "$tmp/csum.check")"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = sum(int(m) for m in re.findall(r"ops=(\d+)", open(sys.argv[2]).read()))
s = [r for r in rows if r["type"] == "gcm_summary"]
assert want and sum(r["ops"] for r in s) == want, (want, s)
assert all(r["comm"] == "gcm_workload" for r in s), [r["comm"] for r in s]
PY

# 5. Bad input: one clear line, non-zero exit, nothing attached.
expect_error() {	# name, message regex, args...
	local name=$1 msg=$2; shift 2
	local out rc
	out=$("$RINGSIDE" gcm "$@" -d 1 2>&1); rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$msg" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "rc=$rc: $out"
	fi
}
expect_error gcm_error_no_pid 'no such process' -p 999999
expect_error gcm_error_not_elf 'not an ELF file' --lib /etc/passwd
expect_error gcm_error_missing_file 'No such file' --lib "$tmp/nonexistent.so"
expect_error gcm_error_no_gcm_symbols 'no AES-GCM entry points.*CRYPTO_gcm128_init' \
	--lib /usr/lib/x86_64-linux-gnu/libz.so.1
# A library with only part of OpenSSL's GCM layer: the missing symbols are named.
printf 'void CRYPTO_gcm128_init(void){}\nvoid CRYPTO_gcm128_setiv(void){}\n' >"$tmp/partial.c"
if cc -shared -fPIC -o "$tmp/libpartial.so" "$tmp/partial.c"; then
	expect_error gcm_error_names_missing_symbols 'without the needed symbols: CRYPTO_gcm128_finish$' \
		--lib "$tmp/libpartial.so"
else
	fail gcm_error_names_missing_symbols "cannot build the partial library"
fi
sleep 5 & sl=$!
expect_error gcm_error_pid_without_crypto 'is no Go program and has no libcrypto, libgnutls, libgcrypt or libnettle mapped' -p "$sl"
kill "$sl"

# The target exec's: ringside says so and fails.
"$RS_PROGS/gcm_workload" --wait --exec-after >"$tmp/exec.out" & wl_pid=$!
wait_for "$tmp/exec.out" '^ready'
"$RINGSIDE" gcm -p "$wl_pid" >/dev/null 2>"$tmp/exec.err" & rs=$!
wait_for "$tmp/exec.err" 'tracing AES-GCM'
kill -USR1 "$wl_pid"
for _ in $(seq 60); do kill -0 "$rs" 2>/dev/null || break; sleep 0.05; done
kill -INT "$rs" 2>/dev/null; wait "$rs"; rc=$?
kill "$wl_pid" 2>/dev/null; wait "$wl_pid" 2>/dev/null; wl_pid=
[ "$rc" = 1 ] && grep -q "exec'd another program" "$tmp/exec.err" && pass gcm_exec_of_target ||
	fail gcm_exec_of_target "rc=$rc: $(tail -2 "$tmp/exec.err")"

# Handles made before the trace began: a GnuTLS AEAD handle is recognised at
# its first use (as the TLS 1.3 record layer's are) and its work counted;
# libgcrypt's cannot be, so its calls show up as unattributed probe hits
# (JSON records and a warning at exit), never as nothing.
"$RS_PROGS/gcm_workload" --preopened 25 >"$tmp/pre.out" & wl_pid=$!
wait_for "$tmp/pre.out" '^ready'
"$RINGSIDE" gcm --json -p "$wl_pid" >"$tmp/pre.json" 2>"$tmp/pre.err" & rs=$!
wait_for "$tmp/pre.err" 'tracing AES-GCM'
kill -USR1 "$wl_pid"
wait "$wl_pid"; wl_pid=
until_gone "$rs"; kill -INT "$rs" 2>/dev/null; wait "$rs"
python3 - "$tmp/pre.json" <<'PY' 2>"$tmp/pre.check" && pass gcm_unattributed_counted || fail gcm_unattributed_counted "$(cat "$tmp/pre.check")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
un = {r["lib"]: r["probe_hits"] for r in rows if r["type"] == "unattributed"}
summ = {(r["lib"], r["dir"], r["key_bits"]): r for r in rows if r["type"] == "gcm_summary"}
# libgcrypt: setiv, encrypt and gettag each hit once per message.
assert un == {"libgcrypt": 75}, un
g = summ.get(("gnutls", "seal", 128))
assert g and g["ops"] == 25 and g["payload_bytes"] == 25 * 64 and g["aad_bytes"] == 25 * 13, summ
assert not [k for k in summ if k[0] == "libgcrypt"], summ
PY
grep -q "warning: 75 GCM probe hits could not be tied to a message" "$tmp/pre.err" &&
	pass gcm_unattributed_warning || fail gcm_unattributed_warning "$(tail -2 "$tmp/pre.err")"

# Ctrl-C on a system-wide trace: clean exit.
"$RINGSIDE" gcm >/dev/null 2>"$tmp/int.err" & rs=$!
wait_for "$tmp/int.err" 'tracing AES-GCM'
kill -INT "$rs"; wait "$rs"; rc=$?
[ "$rc" = 0 ] && pass gcm_sigint_clean || fail gcm_sigint_clean "rc=$rc: $(tail -2 "$tmp/int.err")"

[ "$(bpf_links)" = "$links_before" ] && [ "$(our_bpf_progs_settled)" = 0 ] && pass gcm_nothing_left_attached ||
	fail gcm_nothing_left_attached "links $(bpf_links) (before $links_before), progs $(our_bpf_progs_settled)"
json_lines_valid gcm_json_lines_valid "$tmp"/*.json
