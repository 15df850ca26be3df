/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Address → mapping → file offset → symbol, with caches for long-running
 * agents. A resolver is NOT thread-safe: use one per thread (they share
 * nothing), or serialize calls yourself.
 *
 * Cache rules: a process is keyed by (pid, start time), so a reused PID never
 * sees its predecessor's mappings. Cached VMAs answer warm lookups without a
 * syscall for vma_ttl_ms; after that, or on a miss, the kernel is asked
 * again (an exec'd process is noticed then, through its old maps handle).
 * Callers that see exec events (sched_process_exec) should call
 * ringside_resolver_forget() for immediate effect.
 */
#ifndef RINGSIDE_RESOLVE_H
#define RINGSIDE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ringside/procmaps.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

struct ringside_resolver;

struct ringside_resolver_opts {
	size_t sz;			/* sizeof(struct ringside_resolver_opts) */
	unsigned int max_procs;		/* processes cached (LRU); 0: 64 */
	unsigned int max_files;		/* symbol tables cached (LRU); 0: 128 */
	unsigned int vma_ttl_ms;	/* cached VMAs trusted this long; 0: 1000 */
	enum ringside_procmaps_mode mode; /* AUTO: ioctl, text only without it */
	int want_build_id;		/* fetch build IDs with each VMA */
	enum ringside_batch_policy {
		/*
		 * ringside_normalize() asks PROCMAP_QUERY per VMA a batch
		 * touches, and switches to one read of the maps text once
		 * the batch's misses so far predict that the read is cheaper
		 * (from query and per-line costs it measures as it goes).
		 */
		RINGSIDE_BATCH_AUTO = 0,
		RINGSIDE_BATCH_QUERY,		/* never read the text */
		RINGSIDE_BATCH_SNAPSHOT,	/* read the text at the first miss */
	} batch;
};

struct ringside_sym {
	uint64_t addr;
	uint64_t vma_start, vma_end;
	uint64_t file_offset;		/* addr's offset in the mapped file */
	uint64_t elf_addr;		/* the ELF virtual address it corresponds to */
	const char *path;		/* mapping name; valid until the next call */
	const char *symbol;		/* NULL when no symbol covers addr */
	uint64_t sym_offset;		/* elf_addr - symbol value */
	uint32_t vma_flags;
	uint32_t build_id_size;
	uint8_t build_id[RINGSIDE_BUILD_ID_MAX];
};

int ringside_resolver_new(const struct ringside_resolver_opts *opts,
			  struct ringside_resolver **out);
void ringside_resolver_free(struct ringside_resolver *r);

/*
 * Resolve one address of process pid. -ENOENT: addr is not mapped;
 * -ESRCH: no such process (or it exited); -EACCES/-EPERM: not allowed to
 * inspect it. A mapping without a symbol still succeeds (symbol == NULL).
 */
int ringside_resolve(struct ringside_resolver *r, pid_t pid, uint64_t addr,
		     struct ringside_sym *out);

/* A cached mapping, owned by the resolver. */
struct ringside_mapping {
	uint64_t start, end, offset, inode;
	uint32_t dev_major, dev_minor, flags, build_id_size;
	uint8_t build_id[RINGSIDE_BUILD_ID_MAX];
	const char *name;
};

/*
 * Normalize many addresses, as a profiler does before symbolizing offline:
 * file_offset[i] and mapping[i] for addrs[i] (mapping NULL when unmapped).
 * Sorted addresses are fastest. The mapping pointers stay valid until the
 * next call on this resolver. Returns how many were mapped, or -errno.
 */
int ringside_normalize(struct ringside_resolver *r, pid_t pid, const uint64_t *addrs, size_t n,
		       uint64_t *file_offset, const struct ringside_mapping **mapping);

/*
 * Why a process's memory cannot be read: -ESRCH (no such process),
 * -RINGSIDE_ERR_ZOMBIE, -RINGSIDE_ERR_KTHREAD, -EACCES, or 0 when it can.
 */
int ringside_proc_check(pid_t pid);

/* Forget everything cached about pid (e.g. after you saw it exec). */
void ringside_resolver_forget(struct ringside_resolver *r, pid_t pid);

struct ringside_resolver_stats {
	uint64_t vma_hits, vma_queries, sym_tables_loaded, proc_reloads;
};
void ringside_resolver_stats(const struct ringside_resolver *r, struct ringside_resolver_stats *st);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
