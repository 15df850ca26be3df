#!/bin/bash
# Real TLS peers nobody on this project wrote: GnuTLS's gnutls-cli against
# OpenSSL's s_server over TLS 1.3 AES-128-GCM on loopback. Every record one
# side seals the other opens, so ringside's counts of the two processes must
# mirror each other exactly (records, payload and AAD bytes) in both
# directions. GnuTLS's record layer reaches its GCM code through handles it
# makes internally: this is what proves they are recognised.
. "$(dirname "$0")/../lib.sh"
need_root gcm_tls_peers || exit 0
command -v gnutls-cli >/dev/null || { skip gcm_tls_peers "gnutls-cli missing (make check installs gnutls-bin)"; exit 0; }
tmp=$(mktemp -d)
rs= sp=
cleanup() { kill $rs $sp 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1 || { fail gcm_tls_peers_cert "openssl req failed"; exit 0; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"$RINGSIDE" gcm --json >"$tmp/trace.json" 2>"$tmp/trace.err" & rs=$!
wait_for "$tmp/trace.err" 'tracing AES-GCM' || { fail gcm_tls_peers "ringside did not start: $(tail -2 "$tmp/trace.err")"; exit 0; }
openssl s_server -accept "127.0.0.1:$port" -cert "$tmp/c.pem" -key "$tmp/k.pem" -tls1_3 \
	-ciphersuites TLS_AES_128_GCM_SHA256 -naccept 1 -www >"$tmp/server.out" 2>&1 & sp=$!
wait_for "$tmp/server.out" ACCEPT
printf 'GET / HTTP/1.0\r\n\r\n' | gnutls-cli --insecure -p "$port" 127.0.0.1 \
	--priority "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM" >"$tmp/client.out" 2>"$tmp/client.err" &
cp=$!
wait "$cp"; crc=$?
spid=$sp
wait "$sp"; src=$?; sp=
# Both peers have exited: every record was sealed and opened before that.
kill -INT "$rs"; wait "$rs"; rs=
[ "$crc" = 0 ] && [ "$src" = 0 ] && grep -q "HTTP/1.0 200" "$tmp/client.out" && pass gcm_tls_peers_exchange ||
	fail gcm_tls_peers_exchange "client rc=$crc server rc=$src: $(tail -1 "$tmp/client.err")"
python3 - "$tmp/trace.json" "$cp" "$spid" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
client, server = int(sys.argv[2]), int(sys.argv[3])
summ = [r for r in rows if r["type"] == "gcm_summary"]
def side(pred, lib, d):
    got = [r for r in summ if pred(r) and r["lib"] == lib and r["dir"] == d and r["key_bits"] == 128]
    return tuple(sum(r[k] for r in got) for k in ("ops", "payload_bytes", "aad_bytes"))
is_client = lambda r: r["pid"] == client
is_server = lambda r: r["pid"] == server
def check(name, cond, why):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))
c_open, s_seal = side(is_client, "gnutls", "open"), side(is_server, "openssl", "seal")
c_seal, s_open = side(is_client, "gnutls", "seal"), side(is_server, "openssl", "open")
check("gcm_tls13_gnutls_opens_equal_openssl_seals (%d records, %d bytes)" % c_open[:2],
      c_open == s_seal and c_open[0] > 0, "gnutls opens %s, openssl seals %s" % (c_open, s_seal))
check("gcm_tls13_gnutls_seals_equal_openssl_opens (%d records, %d bytes)" % c_seal[:2],
      c_seal == s_open and c_seal[0] > 0, "gnutls seals %s, openssl opens %s" % (c_seal, s_open))
un = [r for r in rows if r["type"] == "unattributed" and r["pid"] == client]
check("gcm_tls13_gnutls_nothing_unattributed", not un, un)
PY
