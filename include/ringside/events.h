/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event ABI shared by ringside's BPF programs and user space.
 *
 * Every record in a ringside ring buffer starts with struct rs_event_hdr.
 * Records only ever grow at their tail; a consumer built against an older
 * header reads the prefix it knows and uses hdr.size to step over the rest.
 * RINGSIDE_EVENT_ABI is bumped whenever a field changes meaning or moves.
 *
 * This header is included both by BPF code (after vmlinux.h, which provides
 * the __u* types) and by user space (through <linux/types.h>).
 */
#ifndef RINGSIDE_EVENTS_H
#define RINGSIDE_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RINGSIDE_EVENT_ABI 1

#define RS_COMM_LEN 16

enum rs_event_type {
	RS_EV_NONE = 0,
	RS_EV_GCM_OP = 1,	/* one AES-GCM message sealed or opened */
	RS_EV_RECLAIM = 2,	/* one memcg/global reclaim invocation */
	RS_EV_BTRFS_BG = 3,	/* a btrfs block-group lifecycle step */
	RS_EV_TYPE_MAX
};

struct rs_event_hdr {
	__u16 type;		/* enum rs_event_type */
	__u16 size;		/* bytes of the whole record, header included */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__u64 ts_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 cgroup_id;	/* cgroup v2 id of the task (bpf_get_current_cgroup_id) */
	char comm[RS_COMM_LEN];
};

/* Filter configuration written to every BPF object's .rodata by user space. */
struct rs_filter_cfg {
	__u32 tgid;		/* 0: any process */
	__u32 tid;		/* 0: any thread */
	__u64 cgroup_id;	/* 0: any cgroup; else kernfs id of the target directory */
	__s32 cgroup_ssid;	/* -1: cgroup v2 (default hierarchy), else v1 subsystem index */
	__u32 cgroup_level;	/* depth of the target cgroup below its hierarchy root */
	__u32 comm_set;		/* nonzero: comm must equal comm[] */
	char comm[RS_COMM_LEN];
};

#endif /* RINGSIDE_EVENTS_H */
