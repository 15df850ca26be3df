/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reclaim collector: one RS_EV_RECLAIM record (struct rs_reclaim_event)
 * per memcg or global reclaim invocation, and the reclaim profiler.
 */
#ifndef RINGSIDE_RECLAIM_H
#define RINGSIDE_RECLAIM_H

#include "ringside/ringside.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct ringside_reclaim_opts {
	size_t sz;		/* sizeof(struct ringside_reclaim_opts) */
	/*
	 * Only reclaim of this memory cgroup's subtree (its directory, or its
	 * path as /proc/PID/cgroup shows it): the written file's cgroup for
	 * memory.reclaim/limit writes, the charging task's memory cgroup
	 * otherwise; global reclaim then is left out. NULL: any.
	 */
	const char *target_cgroup;
	/*
	 * Also aggregate each record by reclaimed cgroup and trigger: a
	 * duration histogram and the swappiness of the last request, for the
	 * exposition (metrics.h).
	 */
	bool aggregate;
};

/*
 * Enable the collector (vmscan tracepoints through tp_btf). The session's
 * filters (pid, tid, comm, cgroup) select the task that asks for reclaim:
 * the writer of a control file, or the task whose charge reclaims.
 */
int ringside_session_enable_reclaim(struct ringside_session *s,
				    const struct ringside_reclaim_opts *opts);

/* What asked for this reclaim (enum rs_reclaim_trigger), from its kernel stack. */
/*
 * The swappiness a record's request asked for: the write's "swappiness="
 * key (memory.reclaim), else the kernel's own argument where fentry saw it;
 * -1 when neither says. *bytes (may be NULL) gets the bytes a memory.reclaim
 * write asked for, or the limit a limit write set (0 if none).
 */
int ringside_reclaim_request_swappiness(const struct rs_reclaim_event *e, unsigned int trigger,
					uint64_t *bytes);

unsigned int ringside_reclaim_trigger(const struct ringside_session *s,
				      const struct rs_reclaim_event *ev);
const char *ringside_reclaim_trigger_name(unsigned int trigger);

/*
 * Exact counts per target cgroup since attach, kept by the BPF programs for
 * every record before it is queued (so they hold when records are lost).
 */
struct ringside_reclaim_total {
	uint64_t cgroup_id;	/* as rs_reclaim_event.target_cgroup_id */
	uint64_t calls;
	uint64_t failed;	/* control-file writes that returned an error */
	uint64_t reclaimed_anon, reclaimed_file;	/* pages */
	uint64_t scanned_anon, scanned_file;
	uint64_t time_ns;
};
int ringside_reclaim_totals(struct ringside_session *s,
			    int (*fn)(void *ctx, const struct ringside_reclaim_total *t), void *ctx);

/*
 * Parse a memory.reclaim request exactly as the kernel does (6.11+): an
 * amount with an optional K/M/G/T/P/E suffix, then space-separated keys of
 * which only swappiness=N (0..200) exists. *swappiness is -1 when absent.
 * -EINVAL for what the kernel rejects.
 */
int ringside_reclaim_parse_request(const char *text, size_t len, uint64_t *bytes, int *swappiness);

/* The path of a memory cgroup by id (v1 memory hierarchy or v2); -ENOENT if gone. */
int ringside_memcg_path(uint64_t cgroup_id, char *buf, size_t len);
/* Swappiness in effect for a cgroup: v1 memory.swappiness, else vm.swappiness. */
int ringside_memcg_swappiness(const char *cgroup_path);

/* ---- profiler ----------------------------------------------------------- */

struct ringside_reclaim_profile_opts {
	size_t sz;
	const char *cgroup;	/* memory cgroup to drive (v1 or v2 path) */
	const int *swappiness;	/* settings to try, 0..200 */
	unsigned int nr_swappiness;
	uint64_t amount;	/* bytes to ask for per round */
	unsigned int rounds;	/* per setting; 0: 1 */
	/* > 0: run a built-in workload in the cgroup with this much anon and file memory. */
	uint64_t workload_bytes;
	/* > 0: create a zram swap device of this size for the profile, remove it after. */
	uint64_t zram_bytes;
	volatile int *stop;	/* set non-zero (e.g. from SIGINT) to end early, cleaned up */
	/* Messages as it goes (no swap, the method chosen): one line each, or NULL. */
	void (*on_note)(void *ctx, const char *line);
};

struct ringside_reclaim_profile_row {
	int swappiness;
	unsigned int round;
	uint64_t requested;		/* bytes asked for */
	uint64_t reclaimed;		/* bytes the kernel reported reclaimed */
	uint64_t anon_pages, file_pages;	/* reclaimed, by list */
	uint64_t scanned_anon, scanned_file;
	double seconds;
	int err;			/* 0, or the write's -errno (-EAGAIN, -EBUSY) */
	const char *method;		/* "memory.reclaim swappiness=", "limit_in_bytes"... */
};

typedef int (*ringside_profile_fn)(void *ctx, const struct ringside_reclaim_profile_row *row);

/*
 * Drive reclaim on a cgroup for each swappiness setting and report what it
 * took: fn(ctx, row) per round, opts->on_note(ctx, line) per message.
 * Everything it creates (workload, zram swap) is removed before it returns,
 * and settings it changed are restored. A failure's reason:
 * ringside_last_errmsg().
 */
int ringside_reclaim_profile(const struct ringside_reclaim_profile_opts *opts,
			     ringside_profile_fn fn, void *ctx);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
