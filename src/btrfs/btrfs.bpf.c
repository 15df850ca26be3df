// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btrfs block-group lifecycle: queued for reclaim, relocated, removed,
 * chunks allocated and freed. Tracepoints are the baseline (tp_btf, or
 * raw_tp where BTF-typed tracepoints are missing); fentry/fexit on
 * btrfs_relocate_block_group adds relocation timing where the kernel allows.
 * Each record carries the kernel stack, from which user space tells what
 * triggered it, and the inputs of the reclaim threshold read at that moment.
 */
#include "common.bpf.h"

/* Only this filesystem (fs_devices->fsid); all zero: every btrfs. */
const volatile __u8 want_fsid[16] = {};

/* Before 6.8 a chunk's mapping was struct map_lookup. */
struct map_lookup {
	u64 type;
	int num_stripes;
} __attribute__((preserve_access_index));

static __always_inline bool fsid_pass(const __u8 *fsid)
{
	bool any = true;

	for (int i = 0; i < 16; i++)
		if (want_fsid[i])
			any = false;
	if (any)
		return true;
	for (int i = 0; i < 16; i++)
		if (fsid[i] != want_fsid[i])
			return false;
	return true;
}

static __always_inline void read_fsid(const struct btrfs_fs_info *fs_info, __u8 *fsid)
{
	struct btrfs_fs_devices *devs = BPF_CORE_READ(fs_info, fs_devices);

	bpf_core_read(fsid, 16, &devs->fsid);
}

static __always_inline void read_space(const struct btrfs_block_group *bg, struct rs_btrfs_space *sp)
{
	struct btrfs_space_info *si = BPF_CORE_READ(bg, space_info);
	struct btrfs_fs_info *fs = BPF_CORE_READ(bg, fs_info);
	struct btrfs_space_info *data = BPF_CORE_READ(fs, data_sinfo);

	sp->total_bytes = BPF_CORE_READ(si, total_bytes);
	sp->bytes_used = BPF_CORE_READ(si, bytes_used);
	sp->bytes_reserved = BPF_CORE_READ(si, bytes_reserved);
	sp->bytes_pinned = BPF_CORE_READ(si, bytes_pinned);
	sp->bytes_readonly = BPF_CORE_READ(si, bytes_readonly);
	if (bpf_core_field_exists(si->bytes_zone_unusable))
		sp->bytes_zone_unusable = BPF_CORE_READ(si, bytes_zone_unusable);
	if (bpf_core_field_exists(si->chunk_size))
		sp->data_chunk_size = BPF_CORE_READ(data, chunk_size);
	sp->free_chunk_space = BPF_CORE_READ(fs, free_chunk_space.counter);
	sp->total_rw_bytes = BPF_CORE_READ(fs, fs_devices, total_rw_bytes);
	sp->zone_size = BPF_CORE_READ(fs, zone_size);
	sp->bg_reclaim_threshold = BPF_CORE_READ(si, bg_reclaim_threshold);
	if (bpf_core_field_exists(si->dynamic_reclaim)) {
		sp->has_dynamic = 1;
		sp->dynamic_reclaim = BPF_CORE_READ(si, dynamic_reclaim);
	}
	if (bpf_core_field_exists(si->periodic_reclaim))
		sp->periodic_reclaim = BPF_CORE_READ(si, periodic_reclaim);
}

static __always_inline struct rs_btrfs_event *reserve(void *ctx, const struct btrfs_fs_info *fs,
						      __u16 kind)
{
	struct rs_btrfs_event *ev;
	__u8 fsid[16] = {};
	long n;

	if (!rs_filter_pass())
		return NULL;
	read_fsid(fs, fsid);
	if (!fsid_pass(fsid))
		return NULL;
	ev = rs_reserve(sizeof(*ev), RS_EV_BTRFS_BG);
	if (!ev)
		return NULL;
	__builtin_memcpy(ev->fsid, fsid, 16);
	ev->kind = kind;
	ev->trigger = RS_BTRFS_TRIG_UNKNOWN;
	ev->ret = 0;
	ev->duration_ns = 0;
	__builtin_memset(&ev->space, 0, sizeof(ev->space));
	n = bpf_get_stack(ctx, ev->kstack, sizeof(ev->kstack), 0);
	ev->nr_kstack = n > 0 ? n / sizeof(__u64) : 0;
	return ev;
}

static __always_inline int on_block_group(void *ctx, const struct btrfs_block_group *bg, __u16 kind)
{
	struct rs_btrfs_event *ev = reserve(ctx, BPF_CORE_READ(bg, fs_info), kind);

	if (!ev)
		return 0;
	ev->bytenr = BPF_CORE_READ(bg, start);
	ev->len = BPF_CORE_READ(bg, length);
	ev->used = BPF_CORE_READ(bg, used);
	ev->flags = BPF_CORE_READ(bg, flags);
	read_space(bg, &ev->space);
	/* Block-group events are rare and worth seeing at once. */
	rs_submit(ev, true);
	return 0;
}

static __always_inline int on_chunk(void *ctx, const struct btrfs_fs_info *fs, const void *map,
				    __u64 offset, __u64 size, __u16 kind)
{
	struct rs_btrfs_event *ev = reserve(ctx, fs, kind);

	if (!ev)
		return 0;
	ev->bytenr = offset;
	ev->len = size;
	ev->used = 0;
	if (bpf_core_type_exists(struct btrfs_chunk_map))
		ev->flags = BPF_CORE_READ((const struct btrfs_chunk_map *)map, type);
	else
		ev->flags = BPF_CORE_READ((const struct map_lookup *)map, type);
	rs_submit(ev, true);
	return 0;
}

/* BTF-typed tracepoints. */
#define BG_TP_BTF(name, kind)                                                        \
	SEC("tp_btf/" #name)                                                          \
	int BPF_PROG(btrfs_btf_##name, const struct btrfs_block_group *bg)            \
	{                                                                            \
		return on_block_group(ctx, bg, kind);                                \
	}
/* Raw tracepoints: the same arguments, untyped. */
#define BG_RAW_TP(name, kind)                                                        \
	SEC("raw_tp/" #name)                                                          \
	int BPF_PROG(btrfs_raw_##name, const struct btrfs_block_group *bg)            \
	{                                                                            \
		return on_block_group(ctx, bg, kind);                                \
	}

BG_TP_BTF(btrfs_add_reclaim_block_group, RS_BTRFS_ADD_RECLAIM)
BG_TP_BTF(btrfs_reclaim_block_group, RS_BTRFS_RECLAIM)
BG_TP_BTF(btrfs_add_unused_block_group, RS_BTRFS_ADD_UNUSED)
BG_TP_BTF(btrfs_skip_unused_block_group, RS_BTRFS_SKIP_UNUSED)
BG_TP_BTF(btrfs_remove_block_group, RS_BTRFS_REMOVE)
BG_RAW_TP(btrfs_add_reclaim_block_group, RS_BTRFS_ADD_RECLAIM)
BG_RAW_TP(btrfs_reclaim_block_group, RS_BTRFS_RECLAIM)
BG_RAW_TP(btrfs_add_unused_block_group, RS_BTRFS_ADD_UNUSED)
BG_RAW_TP(btrfs_skip_unused_block_group, RS_BTRFS_SKIP_UNUSED)
BG_RAW_TP(btrfs_remove_block_group, RS_BTRFS_REMOVE)

/* A chunk allocated or freed, through either kind of tracepoint. */
#define CHUNK_PROG(sec, prog, kind)                                                   \
	SEC(sec)                                                                      \
	int BPF_PROG(prog, const struct btrfs_fs_info *fs, const void *map, __u64 offset, \
		     __u64 size)                                                      \
	{                                                                             \
		return on_chunk(ctx, fs, map, offset, size, kind);                    \
	}

CHUNK_PROG("tp_btf/btrfs_chunk_alloc", btrfs_btf_btrfs_chunk_alloc, RS_BTRFS_CHUNK_ALLOC)
CHUNK_PROG("tp_btf/btrfs_chunk_free", btrfs_btf_btrfs_chunk_free, RS_BTRFS_CHUNK_FREE)
CHUNK_PROG("raw_tp/btrfs_chunk_alloc", btrfs_raw_btrfs_chunk_alloc, RS_BTRFS_CHUNK_ALLOC)
CHUNK_PROG("raw_tp/btrfs_chunk_free", btrfs_raw_btrfs_chunk_free, RS_BTRFS_CHUNK_FREE)

/* ---- relocation timing, where fentry/fexit are allowed ----------------- */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* block group start */
	__type(value, __u64);	/* entry time */
} reloc_start SEC(".maps");

SEC("fentry/btrfs_relocate_block_group")
int BPF_PROG(btrfs_reloc_entry, struct btrfs_fs_info *fs, __u64 group_start)
{
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&reloc_start, &group_start, &now, BPF_ANY);
	return 0;
}

SEC("fexit/btrfs_relocate_block_group")
int BPF_PROG(btrfs_reloc_exit, struct btrfs_fs_info *fs, __u64 group_start, bool verbose, int ret)
{
	__u64 *start = bpf_map_lookup_elem(&reloc_start, &group_start);
	struct rs_btrfs_event *ev;

	if (!start)
		return 0;
	ev = reserve(ctx, fs, RS_BTRFS_RELOC_DONE);
	if (ev) {
		ev->bytenr = group_start;
		ev->len = 0;
		ev->used = 0;
		ev->flags = 0;
		ev->ret = ret;
		ev->duration_ns = bpf_ktime_get_ns() - *start;
		rs_submit(ev, true);
	}
	bpf_map_delete_elem(&reloc_start, &group_start);
	return 0;
}
