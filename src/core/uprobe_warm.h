/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Keeping uprobe registration fast while a session loads its programs.
 *
 * Registering a uprobe takes the kernel's dup_mmap_sem for writing, a
 * per-CPU rwsem: its writer side (rcu_sync) waits out an RCU grace period
 * when no writer has come for about one, and stays fast while writers keep
 * coming. Measured on this kind of machine: the first registration of a
 * quiet spell 20 ms, one within 20 ms of another 0.1 ms, one after 40 ms of
 * quiet 7.6 ms. A start verifies its programs (40-60 ms) and attaches after,
 * so its first link paid the whole wait.
 *
 * While the loads run, a thread registers a uprobe on a function of ours
 * that never runs, filtered to this process, every few milliseconds: the
 * first real link then finds the writer side fast. Best effort: on a kernel
 * without uprobe_multi links it does nothing.
 */
#ifndef RINGSIDE_UPROBE_WARM_H
#define RINGSIDE_UPROBE_WARM_H

struct rs_uprobe_warm;

/* Start the thread; NULL when it cannot start (nothing to undo). */
struct rs_uprobe_warm *rs_uprobe_warm_start(void);
/*
 * Stop it (NULL is fine): its links are released as the feature probes'
 * are (feature_probes.h), on threads once no session is starting. The
 * registrations it made.
 */
unsigned int rs_uprobe_warm_stop(struct rs_uprobe_warm *w);

#endif
