#!/bin/bash
# GCM tracing overhead: ops/s of an OpenSSL seal loop (IV, AAD, data, tag per
# message) untraced, traced by `ringside gcm`, and traced by an equivalent
# bpftrace script (same probe points, entry+return, same facts: count,
# direction, bytes, latency, result), in one run. Ratios are to untraced.
set -u
OUT=${OUT:-build}
RINGSIDE=${RINGSIDE:-$OUT/ringside}
LOOP=$OUT/tests/progs/gcm_workload
SECS=${GCM_BENCH_SECS:-2}
LIB=$(ldd "$LOOP" | awk '/libcrypto.so/{print $3}')
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; [ -n "${GCM_BENCH_KEEP:-}" ] && cp -r "$tmp" /tmp/gcm_bench_keep; rm -rf "$tmp"' EXIT

if [ "$(id -u)" != 0 ]; then echo "gcm_bench: needs root (uprobes)"; exit 0; fi
[ -x "$LOOP" ] || { echo "gcm_bench: build the tests first (make tests)"; exit 1; }
command -v bpftrace >/dev/null || { echo "gcm_bench: bpftrace not installed (make deps)"; exit 1; }

cat >"$tmp/gcm.bt" <<BT
uprobe:$LIB:CRYPTO_gcm128_init /comm == "gcm_workload"/ { @bits[arg0] = *(int32 *)(arg1 + 240); }
uprobe:$LIB:CRYPTO_gcm128_setiv /comm == "gcm_workload"/ { @start[arg0] = nsecs; }
uprobe:$LIB:CRYPTO_gcm128_decrypt_ctr32 /comm == "gcm_workload"/ { @open_ctx[arg0] = 1; }
uprobe:$LIB:CRYPTO_gcm128_finish /comm == "gcm_workload"/ { @ctx[tid] = arg0; @dir[tid] = arg1 != 0; }
uretprobe:$LIB:CRYPTO_gcm128_finish /@ctx[tid]/ {
	\$c = @ctx[tid];
	@lat_ns = hist(nsecs - @start[\$c]);
	@ops[@dir[tid], @bits[\$c], retval] = count();
	@payload = sum(*(uint64 *)(\$c + 56));
	delete(@ctx[tid]); delete(@dir[tid]);
}
BT

wait_for() { for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
run_loop() { "$LOOP" --seal-loop "$1" "$SECS"; }

# Tracers run once across all sizes, so their start-up is not measured.
declare -A base rs bt
for size in 16 64 1024 16384; do base[$size]=$(run_loop $size); done

"$RINGSIDE" gcm --lib "$LIB" --comm gcm_workload --interval 1000 >"$tmp/rs.out" 2>"$tmp/rs.err" &
rs_pid=$!
wait_for "$tmp/rs.err" 'tracing AES-GCM' || { echo "gcm_bench: ringside did not start"; cat "$tmp/rs.err"; exit 1; }
for size in 16 64 1024 16384; do rs[$size]=$(run_loop $size); done
kill -INT $rs_pid; wait $rs_pid

bpftrace "$tmp/gcm.bt" >"$tmp/bt.out" 2>&1 &
bt_pid=$!
wait_for "$tmp/bt.out" 'Attaching' && sleep 1
for size in 16 64 1024 16384; do bt[$size]=$(run_loop $size); done
kill -INT $bt_pid; wait $bt_pid

printf '%-8s %12s %12s %12s %9s %9s %14s\n' size untraced ringside bpftrace rs_ratio bt_ratio rs_ns_per_op
for size in 16 64 1024 16384; do
	awk -v s=$size -v b=${base[$size]} -v r=${rs[$size]} -v t=${bt[$size]} 'BEGIN {
		printf "%-8s %12.0f %12.0f %12.0f %9.3f %9.3f %14.0f\n", s, b, r, t, r / b, t / b,
			1e9 / r - 1e9 / b }'
done
ops=$(awk '/openssl/ && /seal/ {s += $6} END {print s + 0}' "$tmp/rs.out")
echo "ringside counted $ops seals while tracing (summary rows of its own output)"
