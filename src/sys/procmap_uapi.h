/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The PROCMAP_QUERY UAPI (linux/fs.h since 6.11). Debian 12's kernel headers
 * predate it, so ringside carries its own definition of the same ABI.
 */
#ifndef RINGSIDE_PROCMAP_UAPI_H
#define RINGSIDE_PROCMAP_UAPI_H

#include <linux/types.h>
#include <sys/ioctl.h>

struct rs_procmap_query {
	__u64 size;		/* in: sizeof(struct), for extensibility */
	__u64 query_flags;	/* in */
	__u64 query_addr;	/* in */
	__u64 vma_start;	/* out */
	__u64 vma_end;		/* out */
	__u64 vma_flags;	/* out: PROCMAP_QUERY_VMA_* bits */
	__u64 vma_page_size;	/* out */
	__u64 vma_offset;	/* out */
	__u64 inode;		/* out */
	__u32 dev_major;	/* out */
	__u32 dev_minor;	/* out */
	__u32 vma_name_size;	/* in/out: buffer size, then name length incl. NUL */
	__u32 build_id_size;	/* in/out: buffer size, then build ID length */
	__u64 vma_name_addr;	/* in */
	__u64 build_id_addr;	/* in */
};

#define RS_PROCFS_IOCTL_MAGIC 'f'
#define RS_PROCMAP_QUERY _IOWR(RS_PROCFS_IOCTL_MAGIC, 17, struct rs_procmap_query)

_Static_assert(sizeof(struct rs_procmap_query) == 104, "PROCMAP_QUERY ABI is 104 bytes");

#endif
