#!/bin/bash
# The kernel ABI checks of the 6.1 guest suite (tests/progs/procmap_check.c,
# uretprobe_check.c and uretprobe_run.sh), run here against this machine's
# upstream kernel: what the backport in kernel/patches/6.1 must match is what
# upstream does, so the checks are first proven on upstream. Results appear
# as host_* lines; a kernel without a feature gets a SKIP naming it.
. "$(dirname "$0")/../lib.sh"
need_root kernel_abi || exit 0
progs=${OUT:-build}/tests/progs
features=$("$RINGSIDE" features 2>&1)
has() { grep -q "^$1 *yes" <<<"$features"; }

if has procmap_query; then
	"$progs/procmap_check" present | sed 's/^\(PASS\|FAIL\) /\1 host_/'
else
	skip host_procmap "this kernel has no PROCMAP_QUERY (6.11+)"
fi
if has uretprobe_syscall; then
	mode=syscall
else
	mode=int3
fi
sh tests/progs/uretprobe_run.sh "$RS_ROOT/$progs/uretprobe_check" 50 $mode |
	sed 's/^\(PASS\|FAIL\) /\1 host_/'
