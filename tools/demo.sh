#!/bin/bash
# make demo: the main job on built-in workloads. Each collector adds its part.
set -u
OUT=${OUT:-build}
R=$OUT/ringside
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (sudo make demo): ringside attaches BPF programs" >&2
	exit 1
fi
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
echo "== ringside features: what this kernel offers"
"$R" features

echo
echo "== ringside maps / sym: resolving a built-in target's addresses via PROCMAP_QUERY"
tmp=$(mktemp)
"$OUT/tests/progs/nopie_target" >"$tmp" &
pid=$!
wl=
trap 'kill $pid $wl 2>/dev/null; wait 2>/dev/null; rm -f "$tmp" "$tmp.wl" "$tmp.rs"' EXIT
for _ in $(seq 50); do [ -s "$tmp" ] && break; sleep 0.05; done
read -r alpha beta <"$tmp"
"$R" maps "$pid" --exec-only
echo
"$R" sym "$pid" "$alpha" "$(printf '%x' $((0x$beta + 4)))"

kill $pid 2>/dev/null

echo
echo "== ringside gcm: a built-in workload seals and opens AES-128/256-GCM messages of"
echo "   16..16384 bytes through OpenSSL (EVP and TLS 1.3 records), GnuTLS and libgcrypt,"
echo "   with one forged tag per library"
"$OUT/tests/progs/gcm_workload" --wait --hold >"$tmp.wl" &
wl=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp.wl" && break; sleep 0.05; done
"$R" gcm -p "$wl" 2>"$tmp.rs" &
rs=$!
for _ in $(seq 100); do grep -q 'tracing AES-GCM' "$tmp.rs" && break; sleep 0.05; done
cat "$tmp.rs"
kill -USR1 "$wl"
for _ in $(seq 100); do grep -q '^expect' "$tmp.wl" && break; sleep 0.05; done
kill -USR1 "$wl"
wait "$rs"
echo
echo "-- what the workload itself counted (tls: TLS 1.3 records, which libcrypto seals)"
grep '^expect' "$tmp.wl" | sed 's/^expect /   /'
