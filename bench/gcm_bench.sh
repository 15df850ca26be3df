#!/bin/bash
# GCM tracing overhead: ops/s of an OpenSSL seal loop (IV, AAD, data, tag per
# message) untraced, traced by `ringside gcm` (its summary: counts and latency
# histograms kept in the kernel), by
# `ringside agent` (counted in the kernel, nothing per message crosses the
# ring), `ringside gcm --count-only` (paired only), by an equivalent bpftrace script (same probe points, entry+return,
# same facts: count, direction, bytes, latency, result) and by a bpftrace
# entry-only counter (@[comm] = count() on setiv and finish), in one run.
# Ratios are to untraced.
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

# The floor: what the kernel charges for probe hits themselves, on the function
# every tracer here uses: one no-op entry probe, and a no-op entry+return pair.
cat >"$tmp/floor1.bt" <<BT
uprobe:$LIB:CRYPTO_gcm128_finish { }
BT
cat >"$tmp/floor2.bt" <<BT
uprobe:$LIB:CRYPTO_gcm128_finish { }
uretprobe:$LIB:CRYPTO_gcm128_finish { }
BT

cat >"$tmp/count.bt" <<BT
uprobe:$LIB:CRYPTO_gcm128_setiv, uprobe:$LIB:CRYPTO_gcm128_finish /comm == "gcm_workload"/ { @[comm] = count(); }
BT

wait_for() { for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# bpftrace 0.17 now and then misses a SIGINT that lands in its epoll_wait and
# runs on: after 10 s it is killed, so the bench cannot hang (its counts are
# not read; the loops' own are).
stop_bpftrace() {
	kill -INT "$1"
	for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}
run_loop() { "$LOOP" --seal-loop "$1" "$SECS"; }

# Paired at 16 B, in one process, while a tracer is attached to libcrypto
# and bench/probe_floor's no-op probes to a copy of it (the same bytes,
# another inode, the same offsets): batches of 256 seals take turns through
# the traced libcrypto, the floor's copy and an untraced copy (both loaded
# with dlmopen), a round a millisecond or two (gcm_workload --paired-loop);
# the medians of the rounds' added ns, the median of PAIRS one-second runs.
# The VMs' drift, which moves a probe hit's cost as much as what is measured
# here over seconds, falls out: tracer and floor are timed side by side.
PAIRS=${GCM_BENCH_PAIRS:-3}
PAIR_SECS=${GCM_BENCH_PAIR_SECS:-1}
mkdir -p "$tmp/lib" "$tmp/flib" && cp "$LIB" "$tmp/lib/" && cp "$LIB" "$tmp/flib/"
# paired_vs MODE: "TRACER_NS FLOOR_NS RATIO" against probe_floor MODE on the copy.
paired_vs() {
	local i pid out
	[ -x "$OUT/bench/probe_floor" ] || return 0
	mkfifo "$tmp/pfloor.in"
	"$OUT/bench/probe_floor" "$1" "$tmp/flib/$(basename "$LIB")" <"$tmp/pfloor.in" >"$tmp/pfloor.out" 2>&1 &
	pid=$!
	exec 4>"$tmp/pfloor.in"
	if wait_for "$tmp/pfloor.out" "probe_floor: $1 "; then
		out=$(for i in $(seq "$PAIRS"); do
			"$LOOP" --paired-loop "$PAIR_SECS" "$tmp/lib/$(basename "$LIB")" \
				"$tmp/flib/$(basename "$LIB")" 2>/dev/null
		done)
	fi
	exec 4>&-
	wait $pid
	rm -f "$tmp/pfloor.in"
	awk '{t[NR] = $1; f[NR] = $2; r[NR] = $2 > 0 ? $1 / $2 : 0}
		function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
			return a[int((n + 1) / 2)] }
		END { if (NR) printf "%.0f %.0f %.3f\n", med(t, NR), med(f, NR), med(r, NR) }' <<<"$out"
}
declare -A paired

# Tracers run once across all sizes, so their start-up is not measured.
# These VMs change speed within a run (seen: untraced 16 B at 3.8 M/s at the
# start of one run, 2.5 M/s in the next), so each tracer is compared with an
# untraced baseline taken just before it: base[NAME:SIZE].
declare -A base rs bt ag btc f1 f2
baseline() { for size in 16 64 1024 16384; do base[$1:$size]=$(run_loop $size); done; }

baseline rs

"$RINGSIDE" gcm --lib "$LIB" --comm gcm_workload --interval 1000 >"$tmp/rs.out" 2>"$tmp/rs.err" &
rs_pid=$!
wait_for "$tmp/rs.err" 'tracing AES-GCM' || { echo "gcm_bench: ringside did not start"; cat "$tmp/rs.err"; exit 1; }
for size in 16 64 1024 16384; do rs[$size]=$(run_loop $size); done
paired[rs]=$(paired_vs records)
kill -INT $rs_pid; wait $rs_pid

# `ringside gcm --count-only`, the summary's counting mode: paired only.
"$RINGSIDE" gcm --count-only --lib "$LIB" --comm gcm_workload --interval 1000 >"$tmp/co.out" 2>"$tmp/co.err" &
co_pid=$!
wait_for "$tmp/co.err" 'tracing AES-GCM' || { echo "gcm_bench: ringside --count-only did not start"; cat "$tmp/co.err"; exit 1; }
paired[co]=$(paired_vs inside)
kill -INT $co_pid; wait $co_pid

baseline ag
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$RINGSIDE" agent --no-collector.reclaim --comm gcm_workload --web.listen-address "127.0.0.1:$port" \
	>/dev/null 2>"$tmp/ag.err" &
ag_pid=$!
wait_for "$tmp/ag.err" 'serving' || { echo "gcm_bench: agent did not start"; cat "$tmp/ag.err"; exit 1; }
for size in 16 64 1024 16384; do ag[$size]=$(run_loop $size); done
paired[ag]=$(paired_vs inside)
ag_ops=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^ringside_gcm_operations_total/ {s += $NF} END {print s + 0}')
kill -TERM $ag_pid; wait $ag_pid

baseline bt
bpftrace "$tmp/gcm.bt" >"$tmp/bt.out" 2>&1 &
bt_pid=$!
wait_for "$tmp/bt.out" 'Attaching' && sleep 1
for size in 16 64 1024 16384; do bt[$size]=$(run_loop $size); done
stop_bpftrace $bt_pid

baseline btc
bpftrace "$tmp/count.bt" >"$tmp/btc.out" 2>&1 &
btc_pid=$!
wait_for "$tmp/btc.out" 'Attaching' && sleep 1
for size in 16 64 1024 16384; do btc[$size]=$(run_loop $size); done
stop_bpftrace $btc_pid

for f in 1 2; do
	baseline f$f
	bpftrace "$tmp/floor$f.bt" >"$tmp/floor$f.out" 2>&1 &
	fl_pid=$!
	wait_for "$tmp/floor$f.out" 'Attaching' && sleep 1
	for size in 16 64 1024 16384; do eval "f$f[$size]=\$(run_loop $size)"; done
	stop_bpftrace $fl_pid
done

# ringside's own floors: no-op programs placed and linked as ringside's are
# (uprobe_multi, one link per program and library), from bench/probe_floor: the
# agent's one hit inside finish (where its lengths are in registers: no
# read), and `ringside gcm`'s two hits a seal (an entry on setiv for the
# message's start, and the same point inside finish).
declare -A fs fg
floor_run() {	# mode, array to fill
	baseline "$2"
	mkfifo "$tmp/floor.in"
	"$OUT/bench/probe_floor" "$1" <"$tmp/floor.in" >"$tmp/$1.out" 2>&1 &
	local pid=$!
	exec 3>"$tmp/floor.in"
	if wait_for "$tmp/$1.out" "probe_floor: $1 "; then
		for size in 16 64 1024 16384; do eval "$2[$size]=\$(run_loop $size)"; done
	fi
	exec 3>&-
	wait $pid
	rm -f "$tmp/floor.in"
}
if [ -x "$OUT/bench/probe_floor" ]; then
	floor_run inside fs
	floor_run records fg
fi

printf '%-8s %11s %11s %11s %11s %11s %8s %8s %8s %8s\n' size untraced ringside agent bpftrace bt_count \
	rs_ratio ag_ratio bt_ratio btc_ratio
for size in 16 64 1024 16384; do
	awk -v s=$size -v b=${base[rs:$size]} -v ba=${base[ag:$size]} -v bt=${base[bt:$size]} \
		-v bc=${base[btc:$size]} -v r=${rs[$size]} -v a=${ag[$size]} -v t=${bt[$size]} \
		-v c=${btc[$size]} 'BEGIN {
		printf "%-8s %11.0f %11.0f %11.0f %11.0f %11.0f %8.3f %8.3f %8.3f %8.3f\n", s, b, r, a, t, c,
			r / b, a / ba, t / bt, c / bc }'
done
# ns a message costs more under tracer NAME whose 16 B rate is OPS than in its baseline.
added() { awk -v b=${base[$1:16]} -v r=$2 'BEGIN{printf "%.0f", 1e9/r-1e9/b}'; }
echo "the untraced baselines at 16 B, in order: ${base[rs:16]} ${base[ag:16]} ${base[bt:16]} ${base[btc:16]}" \
	"${base[f1:16]} ${base[f2:16]} ${base[fs:16]:-} ${base[fg:16]:-} ops/s"
echo "added ns per message at 16 B: ringside $(added rs ${rs[16]}), agent $(added ag ${ag[16]})," \
	"bpftrace $(added bt ${bt[16]}), bpftrace count $(added btc ${btc[16]})"
echo "the agent counted $ag_ops messages (its own /metrics)"
# Per seal, by design: agent 1 hit (finish's first branch), ringside 2 (setiv,
# finish's first branch), the bpftrace script 3 (setiv, finish, its return), the counter 2.
awk -v e=$(added f1 ${f1[16]}) -v p=$(added f2 ${f2[16]}) -v r=$(added rs ${rs[16]}) -v a=$(added ag ${ag[16]}) \
	-v t=$(added bt ${bt[16]}) -v c=$(added btc ${btc[16]}) 'BEGIN {
	printf "floor at 16 B: a no-op entry probe adds %.0f ns, a no-op entry+return pair %.0f ns\n", e, p
	printf "as multiples of the one-entry floor: agent %.2f (1 hit), ringside %.2f (2), bpftrace script %.2f (3), bpftrace counter %.2f (2)\n",
		a / e, r / e, t / e, c / e }'

if [ -n "${fs[16]:-}" ]; then
	awk -v e=$(added fs ${fs[16]}) -v g=$(added ag ${ag[16]}) 'BEGIN {
		printf "ringside'"'"'s own floor at 16 B, where the agent probes (finish'"'"'s first branch): a no-op uprobe adds %.0f ns\n", e
		printf "the agent (+%.0f ns) is %.2fx that floor\n", g, g / e }'
	head -1 "$tmp/inside.out"
fi
if [ -n "${fg[16]:-}" ]; then
	awk -v e=$(added fg ${fg[16]}) -v g=$(added rs ${rs[16]}) 'BEGIN {
		printf "ringside gcm'"'"'s own floor at 16 B, its two hits as no-ops (setiv entry, finish'"'"'s first branch): %.0f ns\n", e
		printf "ringside gcm, timing every message into kernel histograms (+%.0f ns), is %.2fx that floor\n", g, g / e }'
	head -1 "$tmp/records.out"
fi
# paired_line WHAT FLOOR "TRACER_NS FLOOR_NS RATIO"
paired_line() {
	[ -n "$3" ] && awk -v w="$1" -v f="$2" '{ printf "  %s +%.0f ns against %s +%.0f ns: %.2fx\n", w, $1, f, $2, $3 }' <<<"$3"
}
if [ -n "${paired[rs]:-}${paired[ag]:-}" ]; then
	echo "paired at 16 B (one process; 256-seal batches in turn through the traced libcrypto, a copy under probe_floor's no-op probes, an untraced copy; the medians of $PAIRS one-second runs):"
	paired_line "ringside gcm" "its two hits as no-ops (records)" "${paired[rs]:-}"
	paired_line "ringside gcm --count-only" "its one hit inside finish as a no-op (inside)" "${paired[co]:-}"
	paired_line "the agent" "its one hit inside finish as a no-op (inside)" "${paired[ag]:-}"
fi
ops=$(awk '/openssl/ && /seal/ {s += $6} END {print s + 0}' "$tmp/rs.out")
echo "ringside counted $ops seals while tracing (summary rows of its own output)"
