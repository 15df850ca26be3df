#!/bin/bash
# One read of the kernel's BTF per start: ringside maps /sys/kernel/btf/vmlinux
# once for its own checks and CO-RE cut, and builds from that what libbpf looks
# up for each object it loads (src/core/libbpf_btf.h), instead of libbpf
# reading its own copy per object. Counted from strace, per command, until the
# "tracing" line: a parse maps the file, or reads it whole (4 KiB a read); the
# feature check that reads its header alone is not one. -v says libbpf got
# only its lookups, numbered as the kernel's, not a copy of the whole. The
# start still attaches and detaches cleanly.
. "$(dirname "$0")/../lib.sh"
need_root btf_once || exit 0
if ! command -v strace >/dev/null; then
	fail btf_once "strace is not installed (make deps)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

for cmd in gcm reclaim btrfs; do
	name=btf_parsed_once_$cmd
	if [ "$(our_bpf_progs_settled)" != 0 ]; then
		fail "$name" "programs of an earlier test still loaded"
		continue
	fi
	# -ff: a file per thread, so no call is split across lines. A SAN build's
	# leak check cannot run under ptrace: it is left to the other tests.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -ff -qq -e trace=openat,read,mmap,close -e signal=none -o "$tmp/$cmd.strace" \
		"$RINGSIDE" "$cmd" -v >"$tmp/$cmd.out" 2>"$tmp/$cmd.err" &
	pid=$!
	if ! wait_for "$tmp/$cmd.err" 'tracing'; then
		fail "$name" "no tracing line: $(tail -2 "$tmp/$cmd.err")"
		kill $pid
		wait $pid
		continue
	fi
	parses=$(python3 - "$tmp/$cmd.strace".* <<'PY'
import fileinput, re, sys
# Across the threads' files, the fds open on the file; a parse: an mmap of one, or a
# second read of one (a header check reads once).
fds, reads, parses = set(), {}, 0
for line in fileinput.input(sys.argv[1:]):
    m = re.match(r'(openat|read|mmap|close)\((.*)\) += (-?\d+|0x[0-9a-f]+)', line)
    if not m:
        continue
    call, args, ret = m.group(1), m.group(2), m.group(3)
    if call == "openat" and '"/sys/kernel/btf/vmlinux"' in args and not ret.startswith("-"):
        fds.add(int(ret)); reads[int(ret)] = 0
    elif call == "read" and int(args.split(",")[0]) in fds:
        fd = int(args.split(",")[0]); reads[fd] += 1
        parses += reads[fd] == 2
    elif call == "mmap" and int(args.split(", ")[4]) in fds:
        parses += 1
    elif call == "close" and int(args) in fds:
        fds.discard(int(args))
print(parses)
PY
)
	# ringside runs under strace: signal it, not strace.
	pkill -INT -P $pid 2>/dev/null || kill -INT $pid
	wait $pid
	rc=$?
	left=$(our_bpf_progs_settled)
	lean=$(grep -c "^$cmd: libbpf's kernel BTF: .* numbered as the kernel's" "$tmp/$cmd.err")
	if [ "$parses" = 1 ] && [ "$rc" = 0 ] && [ "$left" = 0 ] && [ "$lean" = 1 ]; then
		pass "$name"
	else
		fail "$name" "the kernel's BTF parsed $parses times (want 1), exit $rc, $left programs left, $lean loads with libbpf's lookups only (want 1): $(grep "libbpf's kernel BTF" "$tmp/$cmd.err")"
	fi
done

# The CO-RE cut is kept for the boot (src/core/btf_cache.h): a second start
# reads it instead of walking the kernel's types, and says so; both start
# and exit cleanly. (The rest of the suite shares one cache folder: most of
# its exact counts come from starts with kept cuts.)
export RINGSIDE_CACHE_DIR=$tmp/cache
mkdir -m 700 "$RINGSIDE_CACHE_DIR"
for run in first second; do
	"$RINGSIDE" reclaim -v -d 0.2 >/dev/null 2>"$tmp/kept.$run" || echo "exit $?" >>"$tmp/kept.$run"
done
cut_line() { grep "^reclaim: CO-RE: .* from a cut of" "$tmp/kept.$1"; }
if cut_line first | grep -vq "kept from a start" && cut_line second | grep -q "kept from a start earlier this boot" &&
	! grep -q "^exit" "$tmp/kept.first" "$tmp/kept.second" && ls "$RINGSIDE_CACHE_DIR" | grep -q '^kbtf-core-'; then
	pass core_cut_kept_for_the_boot
else
	fail core_cut_kept_for_the_boot "first: $(cut_line first), second: $(cut_line second), kept: $(ls "$RINGSIDE_CACHE_DIR")"
fi
