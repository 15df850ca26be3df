/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: /proc/self/mountinfo, read in one place for cgroups and btrfs. */
#ifndef RINGSIDE_MOUNTINFO_H
#define RINGSIDE_MOUNTINFO_H

#include <stdbool.h>

struct rs_mount_entry {
	char mp[4096];		/* mount point, octal escapes ("\040") undone */
	char fstype[64];	/* "cgroup2", "btrfs"... */
	char super[512];	/* super options ("rw,memory") */
};

/* One mountinfo line: "id parent maj:min root mp opts [tags] - fstype source super". */
bool rs_mountinfo_parse(const char *line, struct rs_mount_entry *m);

/* Each mount of this process's namespace; a non-zero return of fn stops and is returned. */
typedef int (*rs_mount_fn)(void *ctx, const struct rs_mount_entry *m);
int rs_mountinfo_foreach(rs_mount_fn fn, void *ctx);

#endif
