// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Feature probes: one trivial program per attach type. User space loads
 * them one at a time, so a facility the kernel refuses (EPERM on fentry when
 * ftrace is locked) does not hide the others.
 */
#include "common.bpf.h"

__u64 tp_hits;
__u64 uprobe_hits;
__u64 uretprobe_hits;
__u64 uretprobe_rc;
__u64 uprobe_multi_hits;
__u64 session_entries, session_returns;

extern bool bpf_session_is_return(void) __ksym __weak;

SEC("tp_btf/sched_switch")
int BPF_PROG(probe_tp_btf)
{
	__sync_fetch_and_add(&tp_hits, 1);
	return 0;
}

SEC("raw_tp/sched_switch")
int probe_raw_tp(void *ctx)
{
	__sync_fetch_and_add(&tp_hits, 1);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(probe_fentry)
{
	return 0;
}

SEC("kprobe/vfs_read")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}

/* The uprobe pair also pushes one record through the ring buffer. */
SEC("uprobe")
int BPF_KPROBE(probe_uprobe)
{
	struct rs_event_hdr *hdr;

	if (!rs_filter_pass())
		return 0;
	__sync_fetch_and_add(&uprobe_hits, 1);
	hdr = rs_reserve(sizeof(*hdr), RS_EV_NONE);
	if (hdr)
		bpf_ringbuf_submit(hdr, 0);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(probe_uretprobe, int rc)
{
	if (!rs_filter_pass())
		return 0;
	__sync_fetch_and_add(&uretprobe_hits, 1);
	uretprobe_rc = rc;
	return 0;
}

/* Loaded alone, as a uprobe_multi program (Linux 6.6+), and linked to the same function. */
SEC("uprobe")
int BPF_KPROBE(probe_uprobe_multi)
{
	if (rs_filter_pass())
		__sync_fetch_and_add(&uprobe_multi_hits, 1);
	return 0;
}

/* Loaded alone as a uprobe session program (Linux 6.13+): entry and return in one. */
SEC("uprobe")
int BPF_KPROBE(probe_uprobe_session)
{
	if (!rs_filter_pass())
		return 0;
	if (bpf_session_is_return())
		__sync_fetch_and_add(&session_returns, 1);
	else
		__sync_fetch_and_add(&session_entries, 1);
	return 0;	/* 0 at entry: run at return too */
}
