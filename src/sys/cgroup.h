/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: naming a cgroup directory the way BPF code can match it. */
#ifndef RINGSIDE_CGROUP_H
#define RINGSIDE_CGROUP_H

#include <stdbool.h>
#include <linux/types.h>

struct rs_cgroup_ref {
	__u64 id;		/* kernfs id == inode number of the directory */
	int ssid;		/* -1 for v2, else index in enum cgroup_subsys_id */
	unsigned int level;	/* 0 is the hierarchy root */
	bool v2;
	char controllers[128];	/* v1: the hierarchy's controllers ("memory") */
	char mount[256];	/* mount point of the hierarchy */
};

/*
 * Resolve a cgroup directory: its path, or its path inside its hierarchy as
 * /proc/PID/cgroup shows it ("/a/b": tried under the v2 mount, the v1 memory
 * controller's, then any v1 hierarchy's). Returns 0, -RINGSIDE_ERR_NOTCGROUP
 * when the path is not a cgroup directory, or another negative errno.
 */
int rs_cgroup_resolve(const char *path, struct rs_cgroup_ref *out);

/* Index of a v1 controller ("memory") in the kernel's cgroup_subsys_id enum. */
int rs_cgroup_subsys_id(const char *controller);

/*
 * The path of this process's own cgroup in the hierarchy that has
 * controller (NULL or "" for v2), e.g. "/sys/fs/cgroup/memory/a/b".
 */
int rs_cgroup_self_path(const char *controller, char *buf, size_t len);

#endif
