/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The btrfs collector: RS_EV_BTRFS_BG records (struct rs_btrfs_event) for
 * block-group reclaim, relocation, unused cleanup and chunk allocation, and
 * the reclaim threshold computed the way the kernel does.
 */
#ifndef RINGSIDE_BTRFS_H
#define RINGSIDE_BTRFS_H

#include "ringside/ringside.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct ringside_btrfs_opts {
	size_t sz;		/* sizeof(struct ringside_btrfs_opts) */
	const char *fs;		/* only the filesystem mounted here; NULL: all */
	/*
	 * Also aggregate the records by filesystem and space_info type for the
	 * exposition (metrics.h): block-group events, relocations, bytes
	 * relocated and a relocation-duration histogram. The collector then
	 * follows relocations itself: do not call ringside_btrfs_track().
	 */
	bool aggregate;
};

/*
 * Enable the collector. Tracepoints are always used; fentry/fexit timing of
 * btrfs_relocate_block_group is added when the kernel allows it (a note
 * says which). -RINGSIDE_ERR_NOTBTRFS / -ENOENT for a bad opts.fs.
 */
int ringside_session_enable_btrfs(struct ringside_session *s, const struct ringside_btrfs_opts *opts);

/* Whether relocation timing (fexit) is attached; valid after attach. */
bool ringside_btrfs_has_reloc_timing(const struct ringside_session *s);

/* What triggered a record, from its kernel stack (enum rs_btrfs_trigger). */
unsigned int ringside_btrfs_trigger(const struct ringside_session *s, const struct rs_btrfs_event *ev);

/*
 * Follow a block group from queued to removed. For each record, returns 1
 * and fills out when it completes a relocation (a REMOVE, or a RELOC_DONE
 * with fexit timing), 0 otherwise. Times are 0 for steps not seen (a
 * balance queues nothing; tracing may have started midway).
 */
struct ringside_btrfs_timing {
	uint64_t queued_to_relocate_ns;	/* queue-reclaim -> reclaim worker picks it */
	uint64_t relocate_to_removed_ns;	/* relocation start -> block group deleted */
	uint64_t queued_to_removed_ns;
	uint64_t used_bytes;		/* bytes the block group held when relocation began */
};
int ringside_btrfs_track(struct ringside_session *s, const struct rs_btrfs_event *ev,
			 struct ringside_btrfs_timing *out);

const char *ringside_btrfs_kind_name(unsigned int kind);
const char *ringside_btrfs_trigger_name(unsigned int trigger);
/* "DATA", "METADATA|DUP", "SYSTEM|RAID1"... from BTRFS_BLOCK_GROUP_* flags. */
void ringside_btrfs_flags_str(uint64_t flags, char *out, size_t len);

/* ---- filesystems ---------------------------------------------------------- */

struct ringside_btrfs_fs {
	uint8_t fsid[16];
	char uuid[37];		/* fsid as text: the /sys/fs/btrfs/ directory */
	char mountpoint[4096];
	char label[256];
};

/* The filesystem mounted at (or containing) path. */
int ringside_btrfs_fs_of_path(const char *path, struct ringside_btrfs_fs *out);
/* The mounted btrfs with this fsid; -ENOENT when none. */
int ringside_btrfs_fs_of_fsid(const uint8_t fsid[16], struct ringside_btrfs_fs *out);

/* ---- the reclaim threshold ----------------------------------------------- */

struct ringside_btrfs_threshold {
	int pct;		/* threshold in force, percent of a block group's size */
	bool dynamic;		/* from the dynamic formula (else the fixed knob) */
	uint64_t chunk_size;	/* effective data chunk size */
	uint64_t target;	/* unallocated target: 10 chunks */
	uint64_t unallocated;
	uint64_t unused;	/* space_info total_bytes minus its used bytes */
	char why[256];		/* the computation, one line */
};

/*
 * The threshold the kernel applies for a space_info with these inputs: for
 * dynamic_reclaim, (target - unallocated) / target in percent, 0 when the
 * space_info has less than one chunk unused; else bg_reclaim_threshold.
 */
void ringside_btrfs_threshold(const struct rs_btrfs_space *in, struct ringside_btrfs_threshold *out);

enum ringside_btrfs_type { RINGSIDE_BTRFS_DATA, RINGSIDE_BTRFS_METADATA, RINGSIDE_BTRFS_SYSTEM };
/* "data", "metadata", "system": a space_info's directory under allocation/. */
const char *ringside_btrfs_type_name(enum ringside_btrfs_type type);
/* The space_info a block group of these BTRFS_BLOCK_GROUP_* flags is in (mixed: data). */
enum ringside_btrfs_type ringside_btrfs_flags_type(uint64_t flags);

struct ringside_btrfs_counters {
	__u64 reclaim_count, reclaim_bytes, reclaim_errors;
	int fixed_threshold;	/* bg_reclaim_threshold as sysfs shows it */
};

/*
 * The threshold inputs of one space_info now, from sysfs
 * (/sys/fs/btrfs/UUID/allocation/TYPE/) and the devices' sizes
 * (BTRFS_IOC_DEV_INFO); counters gets the reclaim_* totals when non-NULL.
 * -ENOENT when the filesystem has no such space_info (mixed block groups).
 */
int ringside_btrfs_space_read(const struct ringside_btrfs_fs *fs, enum ringside_btrfs_type type,
			      struct rs_btrfs_space *out, struct ringside_btrfs_counters *counters);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
