/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * VMA queries on /proc/PID/maps: the PROCMAP_QUERY ioctl (Linux 6.11+) with
 * a text-parsing fallback that returns the same results on older kernels.
 */
#ifndef RINGSIDE_PROCMAPS_H
#define RINGSIDE_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Query flags; values equal the kernel's PROCMAP_QUERY_* UAPI bits. */
enum {
	RINGSIDE_VMA_READ = 0x01,
	RINGSIDE_VMA_WRITE = 0x02,
	RINGSIDE_VMA_EXEC = 0x04,
	RINGSIDE_VMA_SHARED = 0x08,
	RINGSIDE_QUERY_COVERING_OR_NEXT = 0x10,
	RINGSIDE_QUERY_FILE_BACKED = 0x20,
	/* ringside-only bits, never passed to the kernel */
	RINGSIDE_QUERY_BUILD_ID = 1u << 30,	/* also fetch the build ID */
};

#define RINGSIDE_BUILD_ID_MAX 20

struct ringside_vma {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	uint64_t page_size;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t flags;		/* RINGSIDE_VMA_READ|WRITE|EXEC|SHARED */
	uint32_t build_id_size;	/* 0: none or not asked */
	uint8_t build_id[RINGSIDE_BUILD_ID_MAX];
	char name[4096];	/* path (with " (deleted)"), "[heap]", or "" */
};

struct ringside_procmaps;

enum ringside_procmaps_mode {
	RINGSIDE_PROCMAPS_AUTO = 0,	/* ioctl, text only when the kernel lacks it */
	RINGSIDE_PROCMAPS_IOCTL,	/* ioctl or fail with -ENOTTY */
	RINGSIDE_PROCMAPS_TEXT,		/* always parse text (for comparison) */
};

int ringside_procmaps_open(pid_t pid, enum ringside_procmaps_mode mode,
			   struct ringside_procmaps **out);
void ringside_procmaps_close(struct ringside_procmaps *pm);
/* True when queries go through the PROCMAP_QUERY ioctl. */
bool ringside_procmaps_uses_ioctl(const struct ringside_procmaps *pm);

/*
 * One VMA: the one containing addr (exact), or with
 * RINGSIDE_QUERY_COVERING_OR_NEXT the first one ending above addr. The
 * RINGSIDE_VMA_* bits in flags require those permissions,
 * RINGSIDE_QUERY_FILE_BACKED a file. -ENOENT when none matches, -ESRCH
 * when the process is gone.
 */
int ringside_procmaps_query(struct ringside_procmaps *pm, uint64_t addr, uint32_t flags,
			    struct ringside_vma *out);

/*
 * Every VMA that passes the filter bits of flags, in address order. The
 * callback returns 0 to go on, non-zero to stop (returned as is).
 */
typedef int (*ringside_vma_fn)(void *ctx, const struct ringside_vma *vma);
int ringside_procmaps_foreach(struct ringside_procmaps *pm, uint32_t flags,
			      ringside_vma_fn fn, void *ctx);

/* Parse one /proc/PID/maps text line; 0 or -EINVAL. */
int ringside_procmaps_parse_line(const char *line, struct ringside_vma *out);

/* Read the GNU build ID note of an ELF file; returns its size or -errno. */
int ringside_read_build_id(int fd, uint8_t *buf, size_t len);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
