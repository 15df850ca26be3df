#!/bin/bash
# The agent with many live series: scrape latency and the agent's RSS with
# few series, then with N (default 10000) process names that each sealed one
# AES-GCM message (counted in the kernel; one label set each), in one run.
# Scrapes are timed by curl (loopback, plain HTTP, text format), medians of 15.
set -u
OUT=${OUT:-build}
RINGSIDE=${RINGSIDE:-$OUT/ringside}
WL=$OUT/tests/progs/gcm_workload
N=${AGENT_BENCH_SERIES:-10000}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

if [ "$(id -u)" != 0 ]; then echo "agent_bench: needs root (uprobes)"; exit 0; fi
[ -x "$WL" ] || { echo "agent_bench: build the tests first (make tests)"; exit 1; }

wait_for() { for _ in $(seq 1200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port/metrics

"$RINGSIDE" agent --web.listen-address "127.0.0.1:$port" --max-series $((N * 2)) --no-collector.reclaim \
	--no-collector.btrfs --no-collector.kernel-gcm >/dev/null 2>"$tmp/agent.err" &
ag=$!
wait_for "$tmp/agent.err" '^ringside: serving' || { echo "agent_bench: agent did not start"; cat "$tmp/agent.err"; exit 1; }

# scrape: median ms of 15 scrapes; series: ringside_gcm_operations_total lines.
scrape() {
	curl -s "$url" >"$tmp/body"
	for _ in $(seq 15); do curl -s -o /dev/null -w '%{time_total}\n' "$url"; done |
		sort -n | sed -n 8p | awk '{ printf "%.2f", $1 * 1000 }'
}
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$ag/status"; }
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$ag/status"; }
row() {
	printf '| %s | %s | %s KiB | %s ms | %s MB |\n' "$1" \
		"$(grep -c '^ringside_gcm_operations_total{' "$tmp/body")" "$(wc -c <"$tmp/body" | awk '{ printf "%d", $1 / 1024 }')" \
		"$2" "$(awk -v r="$(rss_kb)" -v h="$(hwm_kb)" 'BEGIN { printf "%.1f (peak %.1f)", r / 1024, h / 1024 }')"
}

echo "| live series | gcm_operations series | body | scrape (median) | agent RSS |"
echo "|---|---|---|---|---|"
ms=$(scrape)
row "none" "$ms"
"$WL" --names "$N" >"$tmp/wl.out" || { echo "agent_bench: workload failed"; exit 1; }
# Counted in the kernel as each seal returned: the next scrape has them all.
ms=$(scrape)
row "$N names" "$ms"
got=$(grep -c '^ringside_gcm_operations_total{comm="n[0-9]*"' "$tmp/body")
# Every seal counted somewhere: under its name, under __other__, or as a row lost.
if [ "$got" != "$N" ]; then
	other=$(awk -F'} ' '/^ringside_gcm_operations_total\{comm="__other__"/ { s += $2 } END { print s + 0 }' "$tmp/body")
	lost=$(awk -F'} ' '/^ringside_aggregation_rows_lost_total\{collector="gcm"/ { s += $2 } END { print s + 0 }' "$tmp/body")
	echo "agent_bench: $got of $N names exposed; __other__ $other, rows lost $lost," \
		"unaccounted $((N - got - other - lost))"
fi
kill -TERM $ag
wait $ag
