#!/bin/bash
# Real TLS peers nobody on this project wrote: GnuTLS's gnutls-cli fetching a
# 1 MiB file from OpenSSL's s_server on loopback, over TLS 1.3 and TLS 1.2,
# with AES-128-GCM and AES-256-GCM, on GnuTLS's accelerated x86 GCM and on its
# nettle backend (GNUTLS_CPUID_OVERRIDE=0x1 turns acceleration off). Every
# record one side seals the other opens, so ringside's counts of the two
# processes must mirror each other exactly (records, payload and AAD bytes)
# in both directions, and the AAD is 5 bytes a record on TLS 1.3 and 13 on
# TLS 1.2 (whose 8-byte explicit nonce is not payload). GnuTLS's TLS 1.3
# records pass its exported AEAD calls on handles it made internally; its
# TLS 1.2 records pass only its internal backend: this proves both are seen,
# and that nettle's own probes do not count GnuTLS's work twice. A
# ChaCha20-Poly1305 session through the same nettle wrapper counts nothing.
. "$(dirname "$0")/../lib.sh"
need_root gcm_tls_peers || exit 0
command -v gnutls-cli >/dev/null || { skip gcm_tls_peers "gnutls-cli missing (make check installs gnutls-bin)"; exit 0; }
tmp=$(mktemp -d)
rs= sp=
cleanup() { kill $rs $sp 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -days 1 \
	-subj /CN=localhost >/dev/null 2>&1 || { fail gcm_tls_peers_cert "openssl req failed"; exit 0; }
mkdir "$tmp/www"
head -c 1048576 /dev/urandom >"$tmp/www/blob"

# A cache of this test's own: the backend is calibrated here (child
# processes load GnuTLS), not taken from an earlier run.
export RINGSIDE_CACHE_DIR=$tmp/cache
mkdir -m 700 "$RINGSIDE_CACHE_DIR"
"$RINGSIDE" gcm --json >"$tmp/trace.json" 2>"$tmp/trace.err" & rs=$!
wait_for "$tmp/trace.err" 'tracing AES-GCM' || { fail gcm_tls_peers "ringside did not start: $(tail -2 "$tmp/trace.err")"; exit 0; }
grep -q 'gnutls: not seen' "$tmp/trace.err" &&
	fail gcm_tls_peers_backend_found "$(grep 'gnutls: not seen' "$tmp/trace.err")" ||
	pass gcm_tls_peers_backend_found
ls "$RINGSIDE_CACHE_DIR" | grep -q '^gnutls-backends-' && pass gcm_tls_peers_backend_cached ||
	fail gcm_tls_peers_backend_cached "no calibration kept in $RINGSIDE_CACHE_DIR: $(ls "$RINGSIDE_CACHE_DIR")"
# A second start takes the kept calibration: no child loads GnuTLS (whose
# dependencies, libp11-kit among them, ringside itself never loads), and
# the backend is still found.
gnutls_lib=$(ldconfig -p | awk '/libgnutls.so.30 .*x86-64/ { print $NF; exit }')
strace -f -qq -e trace=openat -o "$tmp/second.strace" "$RINGSIDE" gcm -l "$gnutls_lib" >/dev/null 2>"$tmp/second.err" & second=$!
if wait_for "$tmp/second.err" 'tracing AES-GCM'; then
	kill -INT $(pgrep -P "$second" -x ringside) 2>/dev/null
	wait "$second"
	! grep -q 'gnutls: not seen' "$tmp/second.err" && ! grep -q 'libp11-kit' "$tmp/second.strace" &&
		pass gcm_tls_peers_second_start_uses_cache ||
		fail gcm_tls_peers_second_start_uses_cache "$(grep -c libp11-kit "$tmp/second.strace") opens of libp11-kit; $(grep 'not seen' "$tmp/second.err")"
else
	kill "$second" 2>/dev/null; wait "$second"
	fail gcm_tls_peers_second_start_uses_cache "ringside did not start: $(tail -2 "$tmp/second.err")"
fi

# case NAME TLS(1.2|1.3) BITS(128|256|chacha) [GNUTLS_CPUID_OVERRIDE]: one fetch; PIDs to $tmp/pids
run_case() {
	local name=$1 vers=$2 bits=$3 override=$4 sopt copt port cp crc src
	case "$vers/$bits" in
	1.3/chacha) sopt="-tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256"; copt=+CHACHA20-POLY1305 ;;
	1.3/*) sopt="-tls1_3 -ciphersuites TLS_AES_${bits}_GCM_SHA$([ "$bits" = 128 ] && echo 256 || echo 384)"
	       copt=+AES-$bits-GCM ;;
	1.2/chacha) sopt="-tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305"; copt=+CHACHA20-POLY1305 ;;
	1.2/*) sopt="-tls1_2 -cipher ECDHE-RSA-AES${bits}-GCM-SHA$([ "$bits" = 128 ] && echo 256 || echo 384)"
	       copt=+AES-$bits-GCM ;;
	esac
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	: >"$tmp/server.out"
	(cd "$tmp/www" && exec openssl s_server -accept "127.0.0.1:$port" -cert "$tmp/c.pem" \
		-key "$tmp/k.pem" $sopt -naccept 1 -WWW) >"$tmp/server.out" 2>&1 & sp=$!
	wait_for "$tmp/server.out" ACCEPT
	printf 'GET /blob HTTP/1.0\r\n\r\n' | env ${override:+GNUTLS_CPUID_OVERRIDE=$override} \
		gnutls-cli --insecure -p "$port" 127.0.0.1 \
		--priority "NORMAL:-VERS-ALL:+VERS-TLS$vers:-CIPHER-ALL:$copt" >"$tmp/client.out" 2>"$tmp/client.err" &
	cp=$!
	wait "$cp"; crc=$?
	echo "$name $vers $bits $cp $sp" >>"$tmp/pids"
	wait "$sp"; src=$?; sp=
	# The whole file and the response header came through.
	[ "$crc" = 0 ] && [ "$src" = 0 ] && [ "$(stat -c %s "$tmp/client.out")" -gt 1048576 ] &&
		pass "gcm_tls_peers_exchange_$name" ||
		fail "gcm_tls_peers_exchange_$name" "client rc=$crc server rc=$src: $(tail -1 "$tmp/client.err")"
}

run_case tls13_aes128 1.3 128
run_case tls13_aes256_nettle 1.3 256 0x1
run_case tls12_aes128 1.2 128
run_case tls12_aes256 1.2 256
run_case tls12_aes128_nettle 1.2 128 0x1
run_case tls12_chacha_nettle 1.2 chacha 0x1
# Both peers of every case have exited: every record was sealed and opened before that.
kill -INT "$rs"; wait "$rs"; rs=
python3 "$(dirname "$0")/tls_mirror_check.py" gcm_tls_peers "$tmp/pids" "$tmp/trace.json" client gnutls openssl
json_lines_valid gcm_tls_peers_json_lines_valid "$tmp"/*.json
