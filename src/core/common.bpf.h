/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every ringside BPF object shares: the ring buffer, the per-CPU drop
 * counter, and the process/cgroup/comm filter configured through .rodata.
 */
#ifndef RINGSIDE_COMMON_BPF_H
#define RINGSIDE_COMMON_BPF_H

#include "vmlinux.h"

/*
 * The registers a probe sees, laid out as x86-64's struct pt_regs, which is
 * ABI (ptrace's user_regs_struct begins the same way). Declared outside
 * vmlinux.h, so without preserve_access_index: reading through it is a
 * plain load at a fixed offset. An object whose programs read only a
 * probe's own registers (ctx) defines RS_FIXED_PT_REGS before including
 * this file, and bpf_tracing.h's PT_REGS_* and BPF_KPROBE/BPF_UPROBE then
 * read through it instead of through vmlinux.h's struct pt_regs, which
 * costs a CO-RE relocation per read, each resolved against the kernel's
 * BTF at every start (gcm's object had 129). Not for pointers to a task's
 * saved registers in kernel memory: the *_CORE readers need the kernel's
 * type.
 */
struct rs_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#if defined(RS_FIXED_PT_REGS) && defined(__TARGET_ARCH_x86)
#define __PT_REGS_CAST(x) ((const struct rs_regs *)(x))
#endif

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "ringside/events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Resized from user space (ringbuf size option) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Per enum rs_drop_slot: what could not be recorded, never silently. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_DROP_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Exact per-row counters (events.h, "in-kernel totals"). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RS_TOTALS_MAX_ENTRIES);
	__type(key, struct rs_total_key);
	__type(value, struct rs_total_val);
} totals SEC(".maps");

const volatile struct rs_filter_cfg rs_filter = {
	.cgroup_ssid = -1,
};

/*
 * The cgroup a task belongs to in the hierarchy the filter names: the
 * default (v2) one, or the v1 hierarchy that hosts subsystem cgroup_ssid.
 * Reading css_set directly works on v1 and v2 alike, which the
 * bpf_current_task_under_cgroup() helper does not.
 */
static __always_inline struct cgroup *rs_task_cgroup(struct task_struct *task)
{
	struct css_set *cset = BPF_CORE_READ(task, cgroups);
	int ssid = rs_filter.cgroup_ssid;

	if (ssid < 0)
		return BPF_CORE_READ(cset, dfl_cgrp);
	/* 16 bounds the index for the verifier; CGROUP_SUBSYS_COUNT is smaller. */
	if (ssid >= 16)
		return NULL;
	return BPF_CORE_READ(cset, subsys[ssid], cgroup);
}

/* Kernels before 6.2 kept ancestor ids, not pointers. */
struct cgroup___ids {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

/*
 * A subprogram, not inlined: every program of an object calls it, and
 * inlined, each carried its own copy of these reads: gcm's object had 420
 * CO-RE relocations for them (of 560), each resolved against the kernel's
 * BTF at every start. As one function it is relocated once. When no cgroup
 * filter is set, the verifier knows from .rodata that it is never called.
 */
static __noinline __attribute__((unused)) bool rs_cgroup_matches(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct cgroup *cgrp = rs_task_cgroup(task);
	__u32 level = rs_filter.cgroup_level;
	struct cgroup *anc;
	int cur_level;

	if (!cgrp)
		return false;
	cur_level = BPF_CORE_READ(cgrp, level);
	if (cur_level < (int)level || level >= 64)
		return false;
	/* Since 6.2 ancestors[] holds pointers; before, ancestor_ids[] held ids. */
	if (bpf_core_field_exists(cgrp->ancestors)) {
		anc = BPF_CORE_READ(cgrp, ancestors[level]);
		return BPF_CORE_READ(anc, kn, id) == rs_filter.cgroup_id;
	}
	return BPF_CORE_READ((struct cgroup___ids *)cgrp, ancestor_ids[level]) == rs_filter.cgroup_id;
}

/*
 * The current task's name as bpf_get_current_comm() gives it (NUL-padded),
 * read in place: two loads and a mask instead of the helper's copy (20-30
 * ns a call here). The mask keeps the bytes before the first NUL, since a
 * kernel that does not pad comm when it sets one (6.1's strlcpy) leaves the
 * old name's bytes after it; the lowest byte the zero-byte test flags is
 * exact (its borrow only reaches bytes above a zero). An object that must
 * load without the kernel's BTF (the feature probes: libbpf 1.1 parses it
 * anew, megabytes, for each object that needs it) defines RS_NO_KERNEL_BTF
 * and asks the helper.
 */
static __always_inline __u64 rs_bytes_before_nul(__u64 v)
{
	__u64 zero = (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;

	return zero ? ((zero & -zero) >> 7) - 1 : ~0ULL;
}

#ifndef RS_NO_KERNEL_BTF
/* task's name, as rs_current_comm() gives the current one's. */
static __always_inline void rs_task_comm(struct task_struct *task, __u64 out[RS_COMM_LEN / 8])
{
	const __u64 *own = (const __u64 *)task->comm;
	__u64 lo = own[0], hi = own[1], keep = rs_bytes_before_nul(lo);

	out[0] = lo & keep;
	out[1] = keep == ~0ULL ? hi & rs_bytes_before_nul(hi) : 0;
}

/*
 * How often task has been switched out. A program in process context can
 * be preempted on a preemptible kernel (uprobe programs run under
 * migrate_disable() only), and the task that runs next on the CPU may use
 * the same per-CPU slot: equal counts before and after a section that
 * reads or writes such a slot mean no other task ran there meanwhile.
 */
static __always_inline __u64 rs_task_switches(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}
#endif

static __always_inline void rs_current_comm(__u64 out[RS_COMM_LEN / 8])
{
#ifdef RS_NO_KERNEL_BTF
	bpf_get_current_comm(out, RS_COMM_LEN);
#else
	rs_task_comm(bpf_get_current_task_btf(), out);
#endif
}

/*
 * Both names are NUL-padded to 16 bytes (rs_current_comm() pads; the filter
 * is strncpy'd into zeroed memory), so equal names are four equal words.
 * The byte loop this replaces was ~70 ns of a 150 ns probe on every hit.
 */
static __always_inline bool rs_comm_matches(void)
{
	const volatile __u32 *want = (const volatile __u32 *)rs_filter.comm;	/* 4-byte aligned */
	__u64 comm[RS_COMM_LEN / 8];
	const __u32 *have = (const __u32 *)comm;

	rs_current_comm(comm);
	return have[0] == want[0] && have[1] == want[1] && have[2] == want[2] && have[3] == want[3];
}

/*
 * The process, thread and comm filters; for collectors that apply the
 * cgroup filter to something other than the current task (the cgroup a
 * reclaim request targets).
 */
static __always_inline bool rs_filter_pass_unless_cgroup(void)
{
	/* The filter is read-only data: without a pid or tid filter the
	 * verifier drops this branch, and its helper call (~15 ns) with it. */
	if (rs_filter.tgid || rs_filter.tid) {
		__u64 id = bpf_get_current_pid_tgid();

		if (rs_filter.tgid && (__u32)(id >> 32) != rs_filter.tgid)
			return false;
		if (rs_filter.tid && (__u32)id != rs_filter.tid)
			return false;
	}
	if (rs_filter.comm_set && !rs_comm_matches())
		return false;
	return true;
}

/* True when the current task passes the session's filters. */
static __always_inline bool rs_filter_pass(void)
{
	if (!rs_filter_pass_unless_cgroup())
		return false;
	return !rs_filter.cgroup_id || rs_cgroup_matches();
}

static __always_inline void rs_count_drop_slot(__u32 slot)
{
	__u64 *cnt = bpf_map_lookup_elem(&drops, &slot);

	if (cnt)
		(*cnt)++;
}

static __always_inline void rs_count_drop(void)
{
	rs_count_drop_slot(RS_DROP_RINGBUF);
}

/* This CPU's row of key in a per-CPU hash of struct rs_total_val, created on first use. */
static __always_inline struct rs_total_val *rs_map_row(void *map, const void *key)
{
	struct rs_total_val *v = bpf_map_lookup_elem(map, key);
	struct rs_total_val zero = {};

	if (v)
		return v;
	bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/*
 * This CPU's counters of a totals row, created on first use; NULL (and
 * counted as a drop) when the map is full.
 */
static __always_inline struct rs_total_val *rs_total_row(const struct rs_total_key *key)
{
	struct rs_total_val *v = rs_map_row(&totals, key);

	if (!v)
		rs_count_drop_slot(RS_DROP_TOTALS);
	return v;
}

/* log2 slot as ringside_hist_slot(): 0 for 0, else the index of the top bit plus one. */
static __always_inline __u8 rs_log2_slot(__u64 v)
{
	__u8 r = 0;

	if (!v)
		return 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r + 1;
}

_Static_assert(__builtin_offsetof(struct rs_event_hdr, comm) % 8 == 0, "comm is stored as two u64");

/* A record's header, from the current task. */
static __always_inline void rs_hdr_fill(struct rs_event_hdr *hdr, __u32 size, __u16 type)
{
	__u64 id = bpf_get_current_pid_tgid();

	hdr->type = type;
	hdr->size = size;
	hdr->tgid = id >> 32;
	hdr->tid = (__u32)id;
	hdr->cpu = bpf_get_smp_processor_id();
	hdr->ts_ns = bpf_ktime_get_ns();
	hdr->cgroup_id = bpf_get_current_cgroup_id();
	rs_current_comm((__u64 *)hdr->comm);	/* at offset 32 of an 8-aligned record */
}

/*
 * Reserve a record and fill its header from the current task. A failed
 * reservation is counted so the user sees "N events lost", never silence.
 */
static __always_inline void *rs_reserve(__u32 size, __u16 type)
{
	struct rs_event_hdr *hdr = bpf_ringbuf_reserve(&events, size, 0);

	if (!hdr) {
		rs_count_drop();
		return NULL;
	}
	rs_hdr_fill(hdr, size, type);
	return hdr;
}

/*
 * Where the ring's producer stood when this object last forced a wakeup.
 * Under a flood the ring stays above the watermark; forcing a wakeup on
 * every record there queued an irq_work per record (72 us per burst of 8 on
 * these VMs), and so did forcing one whenever the reader had moved, since a
 * draining reader moves all the time. One forced wakeup per watermark's
 * worth of records is enough: a sleeping reader is woken by the first, and
 * one that fell asleep just after is woken by the next, a watermark later.
 */
__u64 rs_woken_at_prod;

/*
 * The flags a record goes in with: wake the reader only when enough has
 * piled up, or at once for urgent records (rare and meant to be seen now).
 */
static __always_inline __u64 rs_wakeup_flags(bool urgent)
{
	__u64 flags = 0, prod;

	/*
	 * The default only wakes a reader that had caught up, which after
	 * suppressed wakeups it has not: past the threshold, force it, once
	 * per threshold's worth of records.
	 */
	if (urgent) {
		flags = BPF_RB_FORCE_WAKEUP;
	} else if (rs_filter.wakeup_bytes) {
		flags = BPF_RB_NO_WAKEUP;
		if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= rs_filter.wakeup_bytes) {
			prod = bpf_ringbuf_query(&events, BPF_RB_PROD_POS);
			if (prod - rs_woken_at_prod >= rs_filter.wakeup_bytes) {
				rs_woken_at_prod = prod;
				flags = BPF_RB_FORCE_WAKEUP;
			}
		}
	}
	return flags;
}

/* Submit a record rs_reserve() gave. */
static __always_inline void rs_submit(void *rec, bool urgent)
{
	bpf_ringbuf_submit(rec, rs_wakeup_flags(urgent));
}

/*
 * Queue a record drafted in map memory, its header filled here: the helper
 * copies it. A large record copied by the program instead is an unrolled
 * load and store per 8 bytes, which the verifier walks in every program
 * that queues one. A full ring is counted, as rs_reserve() counts it.
 */
static __always_inline void rs_output(struct rs_event_hdr *rec, __u32 size, __u16 type, bool urgent)
{
	rs_hdr_fill(rec, size, type);
	if (bpf_ringbuf_output(&events, rec, size, rs_wakeup_flags(urgent)))
		rs_count_drop();
}

#endif /* RINGSIDE_COMMON_BPF_H */
