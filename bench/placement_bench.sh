#!/bin/bash
# Probe placement: what a probe hit costs where the kernel single-steps the
# probed instruction, against where it emulates it, on nettle's AES-128-GCM
# context API (set_iv, update, encrypt, digest: four probed calls a 16-byte
# message, whose entries start with instructions the kernel single-steps),
# and `ringside gcm` there, in one run. Each row is the median of three
# one-second loops, after its own untraced baseline (these VMs drift).
set -u
OUT=${OUT:-build}
RINGSIDE=${RINGSIDE:-$OUT/ringside}
LOOP=$OUT/tests/progs/gcm_workload
FLOOR=$OUT/bench/probe_floor
if [ "$(id -u)" != 0 ]; then echo "placement_bench: needs root"; exit 0; fi
LIB=$(ldconfig -p | awk '/libnettle.so.8 .*x86-64/ { print $NF; exit }')
if [ -z "$LIB" ] || [ ! -x "$LOOP" ] || [ ! -x "$FLOOR" ]; then
	echo "placement_bench: needs libnettle.so.8, $LOOP and $FLOOR"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

wait_for() { for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# The median of three one-second loops, messages per second.
rate() { for _ in 1 2 3; do "$LOOP" --nettle-loop 1 2>/dev/null; done | sort -n | sed -n 2p; }

declare -A base traced
under_floor() {	# MODE
	base[$1]=$(rate)
	mkfifo "$tmp/in"
	"$FLOOR" "$1" <"$tmp/in" >"$tmp/$1.out" 2>&1 &
	local pid=$!
	exec 3>"$tmp/in"
	wait_for "$tmp/$1.out" "probe_floor: $1 " && traced[$1]=$(rate)
	exec 3>&-
	wait $pid
	rm -f "$tmp/in"
}
under_floor nettle-entry
under_floor nettle-followed
base[ringside]=$(rate)
"$RINGSIDE" gcm --lib "$LIB" --comm gcm_workload >/dev/null 2>"$tmp/rs.err" &
rs=$!
wait_for "$tmp/rs.err" 'tracing AES-GCM' && traced[ringside]=$(rate)
kill -INT $rs; wait $rs

added() { awk -v b="${base[$1]}" -v r="${traced[$1]:-0}" 'BEGIN { if (r > 0) printf "%.0f", 1e9 / r - 1e9 / b; else print "nan" }'; }
printf '%-58s %12s %12s %14s %10s\n' "probes (4 hits a message)" "untraced/s" "traced/s" "added ns/msg" "ns/hit"
for m in nettle-entry nettle-followed ringside; do
	case $m in
	nettle-entry) what="no-op, at the entries (single-stepped)" ;;
	nettle-followed) what="no-op, where ringside places them (emulated)" ;;
	ringside) what="ringside gcm (its own placement)" ;;
	esac
	a=$(added $m)
	printf '%-58s %12s %12s %14s %10s\n' "$what" "${base[$m]}" "${traced[$m]:-?}" "$a" \
		"$(awk -v a="$a" 'BEGIN { printf "%.0f", a / 4 }')"
done
head -1 "$tmp/nettle-entry.out"
head -1 "$tmp/nettle-followed.out"
awk -v s="$(added nettle-entry)" -v e="$(added nettle-followed)" -v r="$(added ringside)" 'BEGIN {
	printf "a single-stepped hit costs %.1fx an emulated one here; ringside gcm is %.2fx its emulated floor\n", s / e, r / e }'
