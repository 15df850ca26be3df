#!/bin/bash
# `ringside gcm` on Go programs: statically linked, their AES-GCM in
# crypto/aes (AES-NI) or crypto/cipher (generic), found through Go's own
# function table even when stripped, with results read at the functions'
# RET instructions (Go cannot take a uretprobe).
#   - a known schedule (seals, good opens, corrupted tags; 128 and 256-bit
#     keys) through --binary, -p and system-wide discovery, stripped and not,
#     on the AES-NI and the generic path: exact counts, bytes, key bits, tag
#     failures, latency present;
#   - thousands of goroutines with forced stack growth and GC: no crash, exact;
#   - a Go crypto/tls server and curl (OpenSSL) over TLS 1.3 and 1.2: the Go
#     side's seals equal curl's opens, records and payload bytes, and back;
#   - bad input: a Go program without AES-GCM, a damaged .gopclntab, a Go
#     release outside ringside's table, a non-Go static binary: one line each.
. "$(dirname "$0")/../lib.sh"
need_root gcm_go || exit 0
GO=$RS_PROGS/gcm_go GO_S=$RS_PROGS/gcm_go_stripped
[ -x "$GO" ] || { skip gcm_go "no Go workload (make check installs golang-go and builds it)"; exit 0; }
tmp=$(mktemp -d)
rs= wl=
cleanup() {
	exec 8>&- 2>/dev/null
	kill $rs $wl 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
links_before=$(bpf_links)

# start_wl NAME PROG ARGS...: start a Go workload whose stdin is fd 8 (a FIFO
# this shell holds); it prints "ready PID" and waits for a line.
start_wl() {
	local name=$1; shift
	rm -f "$tmp/$name.in" "$tmp/$name.out"
	mkfifo "$tmp/$name.in"
	"$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" & wl=$!
	exec 8>"$tmp/$name.in"
	wait_for "$tmp/$name.out" '^ready'
}

# end_wl NAME: after its "done", close its stdin and reap it; rc in NAME.rc.
end_wl() {
	wait_for "$tmp/$1.out" '^done' 600
	exec 8>&-
	wait "$wl"; echo $? >"$tmp/$1.rc"; wl=
}

start_rs() {	# NAME ARGS...: ringside gcm --json ARGS, attached
	local name=$1; shift
	# 8>&-: ringside must not hold the workload's stdin open.
	"$RINGSIDE" gcm --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.rserr" 8>&- & rs=$!
	wait_for "$tmp/$name.rserr" 'tracing AES-GCM' 120 ||
		{ fail "gcm_go_$name" "ringside did not start: $(tail -2 "$tmp/$name.rserr")"; kill $rs; rs=; return 1; }
}

stop_rs() {
	kill -INT $rs 2>/dev/null; wait $rs; rs=
}

# compare NAME: ringside's run summary of the workload's PID against its expect lines.
compare() {
	python3 - "$tmp/$1.json" "$tmp/$1.out" "gcm_go_$1" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
name = sys.argv[3]
pid = int(next(l.split()[1] for l in open(sys.argv[2]) if l.startswith("ready")))
want = {}
for l in open(sys.argv[2]):
    if l.startswith("expect go "):
        f = l.split()
        kv = dict(x.split("=") for x in f[4:])
        want[(f[2], int(f[3]))] = (int(kv["ops"]), int(kv["aad"]), int(kv["payload"]), int(kv["tagfail"]))
got, lat = {}, True
for r in rows:
    if r["type"] == "gcm_summary" and r["pid"] == pid:
        got[(r["dir"], r["key_bits"])] = (r["ops"], r["aad_bytes"], r["payload_bytes"], r["tag_failures"])
        lat = lat and r["lat_max_ns"] > 0 and r["lib"] == "go"
un = [r for r in rows if r["type"] == "unattributed"]
ok = want and got == want and lat and not un
print(("PASS %s (%d rows)" % (name, len(want))) if ok else
      "FAIL %s: want %s got %s latency %s unattributed %s" % (name, want, got, lat, un))
PY
}

# 1. The schedule through each way of naming the program, on both builds and paths.
# schedule NAME PROG ENV -- RINGSIDE_ARGS (@PID@: the workload's PID)
schedule() {
	local name=$1 prog=$2 envs=$3; shift 4
	start_wl "$name" env $envs "$prog" schedule 12 9 4 || { fail "gcm_go_$name" "workload did not start"; return; }
	local pid; pid=$(awk '/^ready/{print $2}' "$tmp/$name.out")
	start_rs "$name" "${@//@PID@/$pid}" || return
	echo go >&8
	end_wl "$name"
	[[ " $* " == *" -p "* ]] && until_gone "$rs"
	stop_rs
	[ "$(cat "$tmp/$name.rc")" = 0 ] || fail "gcm_go_${name}_workload" "exit $(cat "$tmp/$name.rc"): $(tail -2 "$tmp/$name.err")"
	compare "$name"
}
schedule binary_stripped "$GO_S" "" -- -v --binary "$GO_S"
schedule binary_symbols "$GO" "" -- --binary "$GO"
schedule generic_path "$GO_S" GODEBUG=cpu.aes=off -- --binary "$GO_S"
schedule pid "$GO_S" "" -- -p @PID@
schedule system_wide "$GO_S" "" --
grep -q "^ringside: go [0-9.]* .*gcm_go_stripped: [0-9]* probes" "$tmp/system_wide.rserr" &&
	pass gcm_go_system_wide_announced || fail gcm_go_system_wide_announced "$(grep -v libbpf "$tmp/system_wide.rserr" | head -5)"

# -v names the Go release and the entry points each binary got.
grep -q 'probed crypto/aes.(\*gcmAsm).Seal, crypto/aes.(\*gcmAsm).Open, crypto/cipher.(\*gcm).Seal, crypto/cipher.(\*gcm).Open' \
	"$tmp/binary_stripped.rserr" && grep -q '^gcm: go 1\.[0-9.]*: .*gcm_go_stripped, [0-9]* probes' "$tmp/binary_stripped.rserr" &&
	pass gcm_go_verbose_entry_points || fail gcm_go_verbose_entry_points "$(grep -v libbpf "$tmp/binary_stripped.rserr" | head -4)"

# 2. Goroutines: 3000 of them, each recursing with big frames (stack copies)
# before its GCM calls, with the collector running the whole time.
start_wl stress "$GO_S" stress 3000 2 && start_rs stress --binary "$GO_S" && {
	echo go >&8
	end_wl stress
	stop_rs
	[ "$(cat "$tmp/stress.rc")" = 0 ] && grep -q '^done' "$tmp/stress.out" &&
		pass gcm_go_stress_no_crash || fail gcm_go_stress_no_crash "exit $(cat "$tmp/stress.rc"): $(tail -3 "$tmp/stress.err")"
	compare stress
}

# 3. Go's crypto/tls against curl: every record one side seals the other opens.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1
head -c 1048576 /dev/urandom >"$tmp/blob"
tls_case() {	# NAME VERSION BITS CURL_ARGS...
	local name=$1 vers=$2 bits=$3 port; shift 3
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	start_wl "$name" "$GO_S" tls-server "127.0.0.1:$port" "$tmp/blob" "$tmp/c.pem" "$tmp/k.pem" "$vers" "$bits" ||
		{ fail "gcm_go_$name" "server did not start"; return; }
	# System-wide, started once the server runs: it is found among running Go programs.
	start_rs "$name" || { end_wl "$name"; return; }
	echo go >&8
	wait_for "$tmp/$name.out" '^listening'
	curl -sk "$@" -o "$tmp/$name.body" "https://127.0.0.1:$port/blob" 2>"$tmp/$name.curlerr" 8>&- & local cp=$!
	wait $cp; local crc=$?
	end_wl "$name"
	stop_rs
	echo "$name $vers $bits $cp $(awk '/^ready/{print $2}' "$tmp/$name.out")" >>"$tmp/tls.pids"
	[ "$crc" = 0 ] && cmp -s "$tmp/blob" "$tmp/$name.body" && pass "gcm_go_${name}_exchange" ||
		fail "gcm_go_${name}_exchange" "curl rc=$crc server rc=$(cat "$tmp/$name.rc"): $(tail -1 "$tmp/$name.curlerr") $(tail -1 "$tmp/$name.err")"
}
tls_case tls13_aes128 1.3 128 --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256
tls_case tls13_aes256 1.3 256 --tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384
tls_case tls12_aes128 1.2 128 --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES128-GCM-SHA256
tls_case tls12_aes256 1.2 256 --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES256-GCM-SHA384
python3 "$(dirname "$0")/tls_mirror_check.py" gcm_go "$tmp/tls.pids" "$tmp/{name}.json" server go openssl

# 4. Bad input: one clear line, a non-zero exit, nothing left attached.
bad() {	# NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	# A bad input must fail at once; the timeout keeps a regression from hanging the suite.
	timeout 120 "$RINGSIDE" gcm "$@" >"$tmp/bad.out" 2>"$tmp/bad.err" 8>&-; local rc=$?
	if [ "$rc" != 0 ] && [ "$(grep -vc '^$' "$tmp/bad.err")" = 1 ] && grep -q "$pat" "$tmp/bad.err"; then
		pass "gcm_go_bad_$name"
	else
		fail "gcm_go_bad_$name" "rc=$rc: $(head -3 "$tmp/bad.err")"
	fi
}
bad no_gcm 'a Go program (go1\.[0-9.]*) without AES-GCM code' --binary "$RS_PROGS/nogcm_go"
# The function table's function count made absurd: the table no longer holds it.
cp "$GO_S" "$tmp/damaged"
python3 - "$tmp/damaged" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
def sh(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
strtab = sh(shstrndx)[4]  # sh_offset
for i in range(shnum):
    s = sh(i)
    if data[strtab + s[0]:].split(b"\0")[0] == b".gopclntab":
        struct.pack_into("<Q", data, s[4] + 8, 1 << 40)  # sh_offset + 8: nfunc
open(sys.argv[1], "wb").write(data)
PY
bad damaged_pclntab 'damaged:.*function table (.gopclntab) is truncated or damaged' --binary "$tmp/damaged"
# The build info claims a release outside the table (same length, so nothing moves).
for v in 1.24 1.15; do
	python3 - "$GO_S" "$tmp/go$v" "$v" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
m = re.search(rb"\xff Go buildinf:.{18}.(go1\.\d\d)", data, re.S)  # header, varint length
new = ("go" + sys.argv[3]).encode()
assert m and len(m.group(1)) == len(new)
open(sys.argv[2], "wb").write(data[:m.start(1)] + new + data[m.end(1):])
PY
	chmod +x "$tmp/go$v"
done
bad go124 "built with go1\.24\.[0-9]*: Go 1\.24 moved AES-GCM to crypto/internal/fips140" --binary "$tmp/go1.24"
bad go115 "built with go1\.15\.[0-9]*, whose stack-based calling convention" --binary "$tmp/go1.15"
bad not_go_static 'no AES-GCM entry points: .* or a Go program' --binary /sbin/ldconfig

# 5. System-wide, Go programs that start after ringside: each is looked at
# when its start is seen (once per file), probed, or named as not traced.
if start_rs started_later; then
	start_wl started_later "$GO_S" schedule 12 9 4 || fail gcm_go_started_later "workload did not start"
	# The workload waits for its go line, so nothing it does precedes the probes.
	wait_for "$tmp/started_later.json" '"type":"gcm_lib",.*gcm_go_stripped",.*"late":true' 120 &&
		pass gcm_go_started_later_announced ||
		fail gcm_go_started_later_announced "$(grep -v '"gcm_op"' "$tmp/started_later.json" | head -3)"
	echo go >&8
	end_wl started_later
	# Started and gone at once: found through the path it was started with.
	"$RS_PROGS/nogcm_go" </dev/null >/dev/null 2>&1
	"$tmp/go1.24" </dev/null >/dev/null 2>&1
	wait_for "$tmp/started_later.json" '"type":"gcm_not_traced","why":".*go1\.24: built with go1\.24' 120 &&
		pass gcm_go_started_later_untraceable_named ||
		fail gcm_go_started_later_untraceable_named "$(grep -v '"gcm_op"' "$tmp/started_later.json" | tail -3)"
	stop_rs
	compare started_later
	# A Go program without AES-GCM code has nothing to trace: no line.
	! grep -q 'nogcm_go' "$tmp/started_later.json" "$tmp/started_later.rserr" &&
		pass gcm_go_started_later_no_gcm_quiet || fail gcm_go_started_later_no_gcm_quiet "$(grep nogcm_go "$tmp/started_later.json")"
	grep -q '"watches_starts":true' "$tmp/started_later.json" && ! grep -q 'Go programs that start from now on' "$tmp/started_later.rserr" &&
		pass gcm_go_started_later_no_blind_spot_line || fail gcm_go_started_later_no_blind_spot_line "$(head -2 "$tmp/started_later.rserr")"
fi

[ "$(bpf_links)" = "$links_before" ] && pass gcm_go_nothing_left_attached ||
	fail gcm_go_nothing_left_attached "links before $links_before, after $(bpf_links)"
json_lines_valid gcm_go_json_lines_valid "$tmp"/*.json
