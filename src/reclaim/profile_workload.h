/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: the reclaim profiler's built-in workloads, one child process in the profiled cgroup. */
#ifndef RINGSIDE_PROFILE_WORKLOAD_H
#define RINGSIDE_PROFILE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rs_workload {
	pid_t pid;		/* 0: none running */
	int to, from;		/* command and reply pipes */
	char file[256];		/* its page-cache file ("" when none) */
	bool created;		/* file is ours to remove */
};

/*
 * Name the workload's file (tmpdir/ringside-profile.PID) without creating
 * it, so that the caller can record it for crash repair before it exists:
 * a run killed at any later moment leaves nothing unrecorded.
 */
void rs_workload_name(struct rs_workload *w, const char *tmpdir);
/*
 * Create the named file (never following or reusing one that is there) and
 * start the workload (enum ringside_profile_workload) in cgroup: bytes split
 * evenly between anonymous memory and the file's page cache. 0 or -errno.
 */
int rs_workload_start(struct rs_workload *w, int kind, uint64_t bytes, const char *cgroup);
/*
 * Start the working set over (fresh anon, the file dropped and read again,
 * so that no step inherits what the last did), then touch the hot set twice
 * so that it looks used. Blocks until done; -EINTR if *stop became set, -ECHILD
 * if the workload died.
 */
int rs_workload_refill(struct rs_workload *w, volatile int *stop);
/*
 * Access the hot set for at least window_s seconds and at least one whole
 * pass; *ops gets the pages touched.
 */
int rs_workload_window(struct rs_workload *w, double window_s, uint64_t *ops, volatile int *stop);
void rs_workload_stop(struct rs_workload *w);

#endif
