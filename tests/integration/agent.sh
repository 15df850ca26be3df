#!/bin/bash
# `ringside agent` scraped by a real Prometheus (Debian's, its own scratch
# storage, 1 s scrape interval) over TLS with basic auth, while the test
# workload does a known AES-GCM schedule and a memory cgroup this test made
# is emptied with force_empty, limited below its usage and charged past its
# limit: the counts Prometheus stores equal the
# workload's own, histogram counts equal operation counts; every scrape
# passes promtool in the text format and Prometheus's OpenMetrics parser;
# wrong credentials, plain HTTP and bad start-up input are refused; label
# sets past --max-series fold into __other__ with the excess counted.
. "$(dirname "$0")/../lib.sh"
need_root agent || exit 0
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
	{ skip agent "prometheus missing (make check installs it)"; exit 0; }
tmp=$(mktemp -d)
ag= ag2= prom= cg= mnt=
cleanup() {
	kill $ag $ag2 $prom 2>/dev/null
	wait 2>/dev/null
	[ -n "$cg" ] && remove_scratch_cgroup "$cg"
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
links_before=$(bpf_links)

# TLS and a bcrypt user, as exporter-toolkit's web config has them.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))')
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  scraper: "%s"\n' \
	"$hash" >"$tmp/web.yml"

# A loop-mounted btrfs of our own (mounted first: the btrfs collector needs
# the module's tracepoints), with data to relocate.
if command -v mkfs.btrfs >/dev/null && truncate -s 1G "$tmp/img" && mkfs.btrfs -q "$tmp/img" >/dev/null 2>&1 &&
	mkdir "$tmp/mnt" && mount -o loop,nodiscard "$tmp/img" "$tmp/mnt"; then
	mnt=$tmp/mnt
	for i in 1 2 3; do dd if=/dev/zero of="$mnt/f$i" bs=1M count=100 status=none; done
	sync
fi

port=$(free_port)
"$RINGSIDE" agent --web.listen-address "127.0.0.1:$port" --web.config.file "$tmp/web.yml" --collector.gcm.latency \
	>"$tmp/agent.out" 2>"$tmp/agent.err" & ag=$!
wait_for "$tmp/agent.err" '^ringside: serving https (basic auth)' 120 ||
	{ fail agent_starts "$(tail -3 "$tmp/agent.err")"; exit 0; }
pass agent_starts
url=https://127.0.0.1:$port

# Auth and TLS.
code() { curl -sk -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code -u scraper:wrong "$url/metrics")" = 401 ] && pass agent_wrong_password_401 ||
	fail agent_wrong_password_401 "$(code -u scraper:wrong "$url/metrics")"
[ "$(code "$url/metrics")" = 401 ] && pass agent_no_credentials_401 || fail agent_no_credentials_401 "not refused"
[ "$(code -u scraper:s3cret "$url/metrics")" = 200 ] && pass agent_right_password_200 ||
	fail agent_right_password_200 "$(code -u scraper:s3cret "$url/metrics")"
curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && fail agent_plain_http_refused "answered" ||
	pass agent_plain_http_refused
[ "$(code -u scraper:s3cret "$url/-/healthy")" = 200 ] && [ "$(code -u scraper:s3cret "$url/-/ready")" = 200 ] &&
	[ "$(code -u scraper:s3cret "$url/")" = 200 ] && [ "$(code -u scraper:s3cret "$url/nope")" = 404 ] &&
	pass agent_endpoints || fail agent_endpoints "healthy/ready/landing/404"

# Prometheus scraping it every second.
pport=$(free_port)
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: ringside
    scheme: https
    tls_config: { insecure_skip_verify: true }
    basic_auth: { username: scraper, password: s3cret }
    static_configs: [ { targets: ["127.0.0.1:$port"] } ]
EOF
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 & prom=$!
# query EXPR: the sum of its result vector, or "none".
query() {
	curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(int(sum(float(x["value"][1]) for x in r)) if r else "none")
except Exception:
    print("none")'
}
# until_query EXPR WANT: wait (120 s at most) for Prometheus to hold WANT.
until_query() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(query "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
until_query 'up{job="ringside"}' 1 && pass agent_scraped_up ||
	{ fail agent_scraped_up "$(grep -i 'err' "$tmp/prom.log" | tail -2)"; exit 0; }

# The schedule, and force_empty on a scratch memory cgroup holding page cache.
# On one CPU: OpenSSL's starts are marked per CPU, and a thread that moved
# between a message's IV and its tag would leave it out of the duration
# histogram (counted all the same), which the counts below must not meet.
taskset -c 0 "$RS_PROGS/gcm_workload" --rounds 1 >"$tmp/expect" 2>"$tmp/wl.err" ||
	fail agent_workload "$(tail -2 "$tmp/wl.err")"
if memcg_parent && [ -z "$memcg_v2" ]; then
	cg=$memcg_dir/ringside-agent-$$
	mkdir "$cg"
	# A swappiness of its own, which the gauge must show (no request names one on v1).
	echo 37 >"$cg/memory.swappiness"
	fill() { sh -c 'echo $$ >"$1/cgroup.procs"; dd if=/dev/zero of="$2" bs=1M count=16 status=none' sh "$cg" "$1"; }
	# Three triggers: force_empty, a limit written below the usage, charges over that limit.
	fill "$tmp/cache"
	echo 0 >"$cg/memory.force_empty"
	fill "$tmp/cache2"
	echo 4M >"$cg/memory.limit_in_bytes"
	fill "$tmp/cache3"
fi
read -r want_ops want_tagfail <<<"$(awk '/^expect/ { for (i = 5; i <= NF; i++) {
	if ($i ~ /^ops=/) o += substr($i, 5); if ($i ~ /^tagfail=/) t += substr($i, 9) } }
	END { print o, t }' "$tmp/expect")"
sel='comm="gcm_workload"'
until_query "sum(ringside_gcm_operations_total{$sel})" "$want_ops" &&
	pass "agent_prometheus_gcm_operations ($want_ops)" ||
	fail agent_prometheus_gcm_operations "want $want_ops, Prometheus has $(query "sum(ringside_gcm_operations_total{$sel})")"
until_query "sum(ringside_gcm_tag_failures_total{$sel})" "$want_tagfail" &&
	pass "agent_prometheus_gcm_tag_failures ($want_tagfail)" ||
	fail agent_prometheus_gcm_tag_failures "want $want_tagfail, has $(query "sum(ringside_gcm_tag_failures_total{$sel})")"
until_query "sum(ringside_gcm_operation_duration_seconds_count{$sel})" "$want_ops" &&
	until_query "sum(ringside_gcm_message_size_bytes_count{$sel})" "$want_ops" &&
	pass agent_prometheus_histogram_counts_equal_ops ||
	fail agent_prometheus_histogram_counts_equal_ops "$(query "sum(ringside_gcm_operation_duration_seconds_count{$sel})")"
# Per library, direction and key size, as the workload tallied them.
python3 - "$tmp/expect" "http://127.0.0.1:$pport" <<'PY'
import collections, json, sys, urllib.parse, urllib.request
want = collections.Counter()
for l in open(sys.argv[1]):
    f = l.split()
    if f and f[0] == "expect":
        lib = "openssl" if f[1] == "tls" else f[1]
        kv = dict(x.split("=") for x in f[4:])
        want[(lib, f[2], f[3])] += int(kv["ops"])
q = urllib.parse.urlencode({"query": 'sum by (lib, direction, key_bits) (ringside_gcm_operations_total{comm="gcm_workload"})'})
res = json.load(urllib.request.urlopen(sys.argv[2] + "/api/v1/query?" + q))["data"]["result"]
got = {(r["metric"]["lib"], r["metric"]["direction"], r["metric"]["key_bits"]): int(float(r["value"][1])) for r in res}
print(("PASS agent_prometheus_gcm_by_labels (%d series)" % len(got)) if got == dict(want) else
      "FAIL agent_prometheus_gcm_by_labels: want %s got %s" % (dict(want), got))
PY
# Interleaved contexts: every seal counted, every second one timed (its
# start mark was the other context's), so the histogram counts the timed.
taskset -c 0 "$RS_PROGS/gcm_workload" --interleave 500 2>/dev/null
until_query "sum(ringside_gcm_operations_total{$sel})" "$((want_ops + 1000))" &&
	until_query "sum(ringside_gcm_operation_duration_seconds_count{$sel})" "$((want_ops + 500))" &&
	pass agent_prometheus_untimed_out_of_histogram || fail agent_prometheus_untimed_out_of_histogram \
	"ops $(query "sum(ringside_gcm_operations_total{$sel})"), timed $(query "sum(ringside_gcm_operation_duration_seconds_count{$sel})"), want $((want_ops + 1000)), $((want_ops + 500))"
if [ -n "$cg" ]; then
	until_query "sum(ringside_reclaim_duration_seconds_count{cgroup=\"$cg\",trigger=\"force_empty\"})" 1 &&
		until_query "sum(ringside_reclaim_duration_seconds_count{cgroup=\"$cg\",trigger=\"limit-write\"})" 1 &&
		[ "$(query "sum(ringside_reclaim_duration_seconds_count{cgroup=\"$cg\",trigger=\"charge-limit\"})")" -ge 1 ] &&
		pass agent_prometheus_reclaim_by_trigger || fail agent_prometheus_reclaim_by_trigger \
		"$(curl -sk -u scraper:s3cret "$url/metrics" | grep "reclaim_duration_seconds_count" | head -5)"
	# One scrape, after the workload: counted by trigger in the kernel (agent
	# mode, no records) as by cgroup in its totals, the same invocations and pages.
	curl -sk -u scraper:s3cret "$url/metrics" >"$tmp/reclaim.prom"
	sum_of() { awk -v p="$1" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }' "$tmp/reclaim.prom"; }
	calls=$(sum_of "ringside_reclaim_invocations_total{cgroup=\"$cg\"}")
	counted=$(sum_of "ringside_reclaim_duration_seconds_count{cgroup=\"$cg\",")
	bytes=$(sum_of "ringside_reclaim_reclaimed_bytes_total{cgroup=\"$cg\",")
	trig_bytes=$(sum_of "ringside_reclaim_trigger_reclaimed_bytes_total{cgroup=\"$cg\",")
	[ "$calls" -ge 3 ] && [ "$calls" = "$counted" ] && [ "$bytes" -gt 0 ] && [ "$bytes" = "$trig_bytes" ] &&
		pass "agent_reclaim_triggers_add_up ($calls invocations, $bytes bytes)" ||
		fail agent_reclaim_triggers_add_up "invocations $calls vs $counted by trigger, bytes $bytes vs $trig_bytes"
	sw=$(grep "^ringside_reclaim_swappiness{cgroup=\"$cg\"," "$tmp/reclaim.prom" | awk '{ print $NF }' | sort -u)
	[ "$sw" = 37 ] && pass agent_reclaim_swappiness_gauge || fail agent_reclaim_swappiness_gauge "gauge: $sw"
	grep -q '^ringside_events_lost_total{collector="reclaim"} 0$' "$tmp/reclaim.prom" &&
		pass agent_reclaim_nothing_lost || fail agent_reclaim_nothing_lost \
		"$(grep 'events_lost_total{collector="reclaim"' "$tmp/reclaim.prom")"
fi
if [ -n "$mnt" ]; then
	btrfs balance start -dusage=100 "$mnt" >"$tmp/balance.out" 2>&1
	moved=$(sed -n 's/.*had to relocate \([0-9]*\) out of.*/\1/p' "$tmp/balance.out")
	until_query "sum(ringside_btrfs_relocations_total{fs=\"$mnt\",type=\"data\",trigger=\"balance\"})" "${moved:-x}" &&
		pass "agent_prometheus_btrfs_relocations ($moved)" || fail agent_prometheus_btrfs_relocations \
		"balance: $(tail -1 "$tmp/balance.out"); Prometheus: $(query "sum(ringside_btrfs_relocations_total{fs=\"$mnt\"})")"
	# Relocations are the rare records agent mode keeps: each is also logged.
	logged=$(grep -c "^ringside: btrfs remove: data block group .* on $mnt\$" "$tmp/agent.err")
	[ "$logged" -ge "${moved:-1}" ] && pass "agent_btrfs_relocations_logged ($logged)" ||
		fail agent_btrfs_relocations_logged "$logged lines for $moved relocated: $(grep btrfs "$tmp/agent.err" | head -2)"
	# The threshold gauge is what the kernel shows in sysfs for the same
	# state, with dynamic reclaim on (the kernel computes it from free space).
	uuid=$(findmnt -no UUID "$mnt")
	rm "$mnt/f1" "$mnt/f2"
	sync	# freed: more than a chunk unused, so the dynamic threshold is not 0
	echo 1 >"/sys/fs/btrfs/$uuid/allocation/data/dynamic_reclaim"
	for _ in 1 2 3; do
		k=$(cat "/sys/fs/btrfs/$uuid/allocation/data/bg_reclaim_threshold")
		g=$(curl -sk -u scraper:s3cret "$url/metrics" |
			sed -n "s|^ringside_btrfs_reclaim_threshold_percent{fs=\"$mnt\",type=\"data\",mode=\"[a-z]*\"} ||p")
		[ "$k" = "$(cat "/sys/fs/btrfs/$uuid/allocation/data/bg_reclaim_threshold")" ] && break
	done
	[ -n "$g" ] && [ "$g" = "$k" ] && pass "agent_btrfs_threshold_gauge_equals_kernel ($g)" ||
		fail agent_btrfs_threshold_gauge_equals_kernel "gauge '$g', sysfs '$k'"
fi
[ "$(query 'ringside_collector_up{collector="gcm"}')" = 1 ] && pass agent_collector_up ||
	fail agent_collector_up "$(query 'ringside_collector_up')"

# Both formats: promtool lints the text one; Prometheus itself parsed the
# OpenMetrics one it asks for first (up == 1 above); it ends with # EOF.
curl -sk -u scraper:s3cret "$url/metrics" >"$tmp/text.prom"
promtool check metrics <"$tmp/text.prom" >"$tmp/lint" 2>&1 && pass agent_promtool_text ||
	fail agent_promtool_text "$(head -3 "$tmp/lint")"
curl -sk -u scraper:s3cret -H 'Accept: application/openmetrics-text; version=1.0.0' "$url/metrics" -D "$tmp/om.hdr" >"$tmp/om.prom"
grep -qi '^content-type: application/openmetrics-text' "$tmp/om.hdr" && [ "$(tail -1 "$tmp/om.prom")" = "# EOF" ] &&
	grep -q '^ringside_gcm_operations_total{' "$tmp/om.prom" && pass agent_openmetrics_format ||
	fail agent_openmetrics_format "$(tail -2 "$tmp/om.prom")"
grep -q "scrape.*error\|Error on ingesting" "$tmp/prom.log" && fail agent_prometheus_ingests "$(grep -m2 'error' "$tmp/prom.log")" ||
	pass agent_prometheus_ingests

# 200 slow clients: half a request each, held open; a scrape still answers.
python3 - "127.0.0.1" "$port" "$tmp/held" <<'PY' & slow=$!
import socket, ssl, sys, time
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
held = []
for i in range(200):
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    if i % 2:	# half of them stop inside the TLS handshake, half inside the headers
        s = ctx.wrap_socket(s)
        s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    held.append(s)
open(sys.argv[3], "w").write("held %d\n" % len(held))
time.sleep(60)
PY
wait_for "$tmp/held" '^held 200' 60 || fail agent_slow_clients_held "$(cat "$tmp/held" 2>/dev/null)"
# Generous: a regression (a blocked server) fails it; its speed is the bench's business.
[ "$(code --max-time 20 -u scraper:s3cret "$url/metrics")" = 200 ] && pass agent_scrape_beside_200_slow_clients ||
	fail agent_scrape_beside_200_slow_clients "no answer"
kill $slow; wait $slow 2>/dev/null

kill $prom; wait $prom 2>/dev/null; prom=
kill -TERM $ag; wait $ag; rc=$?; ag=
[ "$rc" = 0 ] && pass agent_stops_on_sigterm || fail agent_stops_on_sigterm "exit $rc"

# The rings' sizes, from the agent's own map fds (a map held by several fds
# counted once): PID -> sorted max_entries of its ring buffers.
ring_sizes() {
	for f in /proc/$1/fdinfo/*; do
		awk '/^map_type:/ { t = $2 } /^max_entries:/ { n = $2 } /^map_id:/ { id = $2 }
			END { if (t == 27) print id, n }' "$f" 2>/dev/null
	done | sort -u | awk '{ print $2 }' | sort -n | tr '\n' ' '
}

# Cardinality: 500 process names, 100 label sets kept per metric, the rest
# folded into __other__ and counted; no operation lost. This agent counts
# without timing (the default): OpenSSL messages end at finish alone, and
# seals, opens and tag failures are still exact.
port2=$(free_port)
"$RINGSIDE" agent --web.listen-address "127.0.0.1:$port2" --max-series 100 --no-collector.reclaim \
	--ringbuf-size 16K >/dev/null 2>"$tmp/agent2.err" & ag2=$!
wait_for "$tmp/agent2.err" '^ringside: serving' 120 || fail agent_cardinality_starts "$(tail -2 "$tmp/agent2.err")"
sizes=$(ring_sizes $ag2)
[ -n "$sizes" ] && [ -z "${sizes//16384 /}" ] && pass agent_ringbuf_size_option ||
	fail agent_ringbuf_size_option "rings: $sizes"
mkdir "$tmp/names"
for i in $(seq 500); do
	ln -s "$RS_PROGS/gcm_workload" "$tmp/names/card$i"
	"$tmp/names/card$i" --rounds 1 --only openssl >>"$tmp/card.expect" 2>/dev/null
done
curl -s "http://127.0.0.1:$port2/metrics" >"$tmp/card.prom"
python3 - "$tmp/card.prom" "$tmp/card.expect" <<'PY'
import re, sys
ops, kept, dropped, tagfail, hist = 0, 0, None, 0, False
for l in open(sys.argv[1]):
    m = re.match(r'ringside_gcm_tag_failures_total\{.* (\d+)$', l)
    if m:
        tagfail += int(m.group(1))
    hist = hist or l.startswith("ringside_gcm_operation_duration_seconds")
    m = re.match(r'ringside_gcm_operations_total\{comm="(card\d+|__other__)".* (\d+)$', l)
    if m:
        ops += int(m.group(2))
        kept += 1
    m = re.match(r'ringside_series_dropped_total\{metric="ringside_gcm_operations"\} (\d+)', l)
    if m:
        dropped = int(m.group(1))
want = sum(int(x[4:]) for l in open(sys.argv[2]) if l.startswith("expect") for x in l.split() if x.startswith("ops="))
want_tf = sum(int(x[8:]) for l in open(sys.argv[2]) if l.startswith("expect") for x in l.split() if x.startswith("tagfail="))
sets = sum(1 for l in open(sys.argv[2]) if l.startswith("expect"))  # one label set per expect line
ok = kept == 101 and dropped == sets - 100 and ops == want
print(("PASS agent_cardinality_capped (%d label sets, 100 kept, %d folded)" % (sets, dropped)) if ok else
      "FAIL agent_cardinality_capped: %d series, dropped %s of %d sets, ops %d of %d" % (kept, dropped, sets, ops, want))
ok = ops == want and tagfail == want_tf and want_tf > 0 and not hist
print(("PASS agent_counting_only_exact (%d messages, %d tag failures, no duration histogram)" % (ops, tagfail)) if ok
      else "FAIL agent_counting_only_exact: ops %d of %d, tag failures %d of %d, histogram %s" % (ops, want, tagfail, want_tf, hist))
PY
kill -TERM $ag2; wait $ag2; ag2=

# Label sets changing at every message on one CPU: one process renames
# itself (prctl) before each of 300 seals, so each CPU's remembered row
# (gcm.bpf.c, agg_counters_row) must change with every message. Each name
# holds exactly its one seal: nothing lands in the row of the name before.
port3=$(free_port)
"$RINGSIDE" agent --web.listen-address "127.0.0.1:$port3" --no-collector.reclaim --no-collector.btrfs \
	--no-collector.kernel-gcm >/dev/null 2>"$tmp/agent3.err" & ag2=$!
wait_for "$tmp/agent3.err" '^ringside: serving' 120 || fail agent_names_start "$(tail -2 "$tmp/agent3.err")"
# Only tag failures and program starts cross its ring: 64 KiB by default.
[ "$(ring_sizes $ag2)" = "65536 " ] && pass agent_ring_default_64k ||
	fail agent_ring_default_64k "rings: $(ring_sizes $ag2)"
taskset -c 0 "$RS_PROGS/gcm_workload" --names 300 >"$tmp/names.out" 2>&1 ||
	fail agent_names_workload "$(tail -2 "$tmp/names.out")"
curl -s "http://127.0.0.1:$port3/metrics" >"$tmp/names.prom"
python3 - "$tmp/names.prom" <<'PY'
import re, sys
per = {}
for l in open(sys.argv[1]):
    m = re.match(r'ringside_gcm_operations_total\{comm="(n\d{5})".* (\d+)$', l)
    if m:
        per[m.group(1)] = per.get(m.group(1), 0) + int(m.group(2))
want = {"n%05d" % i: 1 for i in range(300)}
bad = sorted(k for k in set(want) | set(per) if per.get(k) != want.get(k))
print("PASS agent_rows_follow_label_sets (300 names, 1 seal each)" if not bad else
      "FAIL agent_rows_follow_label_sets: %d names wrong, e.g. %s" % (len(bad), [(k, per.get(k)) for k in bad[:3]]))
PY
kill -TERM $ag2; wait $ag2; ag2=

# Bad start-up input: one line, non-zero, nothing attached.
bad() {	# NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	timeout 120 "$RINGSIDE" agent "$@" >/dev/null 2>"$tmp/bad.err"; local rc=$?
	[ "$rc" != 0 ] && [ "$(grep -vc '^$' "$tmp/bad.err")" = 1 ] && grep -q -e "$pat" "$tmp/bad.err" &&
		pass "agent_bad_$name" || fail "agent_bad_$name" "rc=$rc: $(head -3 "$tmp/bad.err")"
}
printf 'tls_server_config: [unclosed\n' >"$tmp/malformed.yml"
bad malformed_config "malformed.yml: line" --web.config.file "$tmp/malformed.yml"
printf 'tls_server_config:\n  cert_file: nope.pem\n  key_file: key.pem\n' >"$tmp/nocert.yml"
bad unreadable_cert "nope.pem: No such file" --web.config.file "$tmp/nocert.yml"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  client_ca_file: ca.pem\n' >"$tmp/unsupported.yml"
bad unsupported_key "client_ca_file is not supported" --web.config.file "$tmp/unsupported.yml"
busy=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
open(sys.argv[2], "w").write("listening\n")
time.sleep(120)' "$busy" "$tmp/busy" & holder=$!
wait_for "$tmp/busy" listening 30
bad port_in_use "cannot listen on 127.0.0.1:$busy" --web.listen-address "127.0.0.1:$busy"
kill $holder; wait $holder 2>/dev/null
bad unknown_collector "unknown option '--collector.foo'" --collector.foo
bad bad_address "--web.listen-address nonsense" --web.listen-address nonsense
bad bad_ringbuf_size "--ringbuf-size '3000' must be a power of two" --ringbuf-size 3000

[ "$(bpf_links)" = "$links_before" ] && pass agent_nothing_left_attached ||
	fail agent_nothing_left_attached "links before $links_before, after $(bpf_links)"
