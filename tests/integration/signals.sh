#!/bin/bash
# Every tracing command under SIGTERM, and SIGKILL both while it loads and
# attaches and once it traces: a clean exit for SIGTERM, and in every case no
# BPF program of ours left in the kernel afterwards. (The reclaim profiler's
# system changes under SIGKILL are tested in reclaim_crash.sh.)
. "$(dirname "$0")/../lib.sh"
need_root signals || exit 0
tmp=$(mktemp -d)
rs=
cleanup() { [ -n "$rs" ] && kill -9 "$rs" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# Our programs being loaded: the moment to kill "during load/attach".
any_prog_loaded() { [ "$(our_bpf_progs)" != 0 ]; }
until_loaded() { for _ in $(seq 1200); do any_prog_loaded && return 0; kill -0 "$rs" 2>/dev/null || return 1; sleep 0.01; done; return 1; }

for cmd in gcm reclaim btrfs; do
	[ "$(our_bpf_progs_settled)" = 0 ] || { fail "signals_${cmd}_start_clean" "programs of an earlier test still loaded"; continue; }

	# SIGTERM once tracing: the summary, exit 0, nothing left.
	"$RINGSIDE" "$cmd" >"$tmp/$cmd.out" 2>"$tmp/$cmd.err" & rs=$!
	if wait_for "$tmp/$cmd.err" "ringside: tracing"; then
		kill -TERM "$rs"; wait "$rs"; rc=$?; rs=
		[ "$rc" = 0 ] && [ "$(our_bpf_progs_settled)" = 0 ] && pass "signals_${cmd}_sigterm_clean" ||
			fail "signals_${cmd}_sigterm_clean" "rc=$rc, $(our_bpf_progs_settled) programs left"
	else
		fail "signals_${cmd}_sigterm_clean" "did not start: $(tail -2 "$tmp/$cmd.err")"
		kill -9 "$rs"; wait "$rs"; rs=
	fi

	# SIGKILL once tracing.
	"$RINGSIDE" "$cmd" >/dev/null 2>"$tmp/$cmd.err" & rs=$!
	wait_for "$tmp/$cmd.err" "ringside: tracing"
	kill -9 "$rs"; wait "$rs" 2>/dev/null; rs=
	[ "$(our_bpf_progs_settled)" = 0 ] && pass "signals_${cmd}_sigkill_tracing_nothing_left" ||
		fail "signals_${cmd}_sigkill_tracing_nothing_left" "$(our_bpf_progs_settled) programs left"

	# SIGKILL as soon as its first program is in the kernel (loading, attaching).
	"$RINGSIDE" "$cmd" >/dev/null 2>"$tmp/$cmd.err" & rs=$!
	if until_loaded; then
		kill -9 "$rs"; wait "$rs" 2>/dev/null; rs=
		[ "$(our_bpf_progs_settled)" = 0 ] && pass "signals_${cmd}_sigkill_attaching_nothing_left" ||
			fail "signals_${cmd}_sigkill_attaching_nothing_left" "$(our_bpf_progs_settled) programs left"
	else
		fail "signals_${cmd}_sigkill_attaching_nothing_left" "no program was ever loaded: $(tail -2 "$tmp/$cmd.err")"
		kill -9 "$rs" 2>/dev/null; wait "$rs" 2>/dev/null; rs=
	fi
done
