// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Feature probes: one trivial program per attach type. User space loads
 * them one at a time, so a facility the kernel refuses does not hide the
 * others.
 *
 * Nothing here needs the kernel's BTF: no CO-RE relocation, no kfunc, no
 * program that names its target by BTF id (tp_btf and fentry are tested
 * with two raw instructions against ringside's one parse of it, in
 * feature_probes.c). libbpf 1.1 parses /sys/kernel/btf/vmlinux (megabytes)
 * anew for every object load that needs it, and the probes are loaded on
 * every start.
 */
#define RS_NO_KERNEL_BTF	/* the records' comm from the helper, not CO-RE */
#include "common.bpf.h"

__u64 tp_hits;
__u64 uprobe_hits;
__u64 uretprobe_hits;
__u64 uretprobe_rc;
__u64 uprobe_multi_hits;
__u64 session_entries, session_returns;

/* The probing process, and its probed function's address (the session test). */
const volatile __u32 probe_tgid;
const volatile __u64 probe_target_ip;

static __always_inline bool mine(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == probe_tgid;
}

SEC("raw_tp/sched_switch")
int probe_raw_tp(void *ctx)
{
	__sync_fetch_and_add(&tp_hits, 1);
	return 0;
}

SEC("kprobe/vfs_read")
int probe_kprobe(void *ctx)
{
	return 0;
}

/* The uprobe pair also pushes one record through the ring buffer. */
SEC("uprobe")
int probe_uprobe(void *ctx)
{
	struct rs_event_hdr *hdr;

	if (!mine())
		return 0;
	__sync_fetch_and_add(&uprobe_hits, 1);
	hdr = rs_reserve(sizeof(*hdr), RS_EV_NONE);
	if (hdr)
		bpf_ringbuf_submit(hdr, 0);
	return 0;
}

SEC("uretprobe")
int probe_uretprobe(struct rs_regs *regs)
{
	if (!mine())
		return 0;
	__sync_fetch_and_add(&uretprobe_hits, 1);
	uretprobe_rc = (int)regs->ax;
	return 0;
}

/* Loaded alone, as a uprobe_multi program (Linux 6.6+), and linked to the same function. */
SEC("uprobe")
int probe_uprobe_multi(void *ctx)
{
	if (mine())
		__sync_fetch_and_add(&uprobe_multi_hits, 1);
	return 0;
}

/*
 * Loaded alone as a uprobe session program (Linux 6.13+): entry and return
 * in one. At entry the instruction pointer is the function's first byte, at
 * return it is the caller's: that tells the two runs apart without the
 * bpf_session_is_return() kfunc, whose resolution would need the BTF.
 */
SEC("uprobe")
int probe_uprobe_session(struct rs_regs *regs)
{
	if (!mine())
		return 0;
	/* The probe hit reports the breakpoint's address or the byte after it. */
	if (regs->ip - probe_target_ip < 8)
		__sync_fetch_and_add(&session_entries, 1);
	else
		__sync_fetch_and_add(&session_returns, 1);
	return 0;	/* 0 at entry: run at return too */
}
