// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor of ringside's own probes: programs that do nothing, attached
 * the way ringside attaches (uprobe_multi links, a session that skips its
 * return), so a benchmark can tell the kernel's price of a hit from the
 * price of what ringside's program does in it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Entry of a session: non-zero skips the return, as ringside's seal path does. */
SEC("uprobe")
int floor_session(void *ctx)
{
	return 1;
}

/*
 * The same, plus the one read the counting path cannot do without: the
 * message's lengths, 16 bytes of the GCM128_CONTEXT at offset 48.
 */
SEC("uprobe")
int BPF_KPROBE(floor_session_read, void *gctx)
{
	__u64 len[2];

	bpf_probe_read_user(len, sizeof(len), gctx + 48);
	return 1;
}

/* A plain uprobe_multi entry program. */
SEC("uprobe")
int floor_entry(void *ctx)
{
	return 0;
}
