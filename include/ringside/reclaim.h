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
	 * Agent mode: count each invocation in the kernel by target cgroup and
	 * trigger (pages by type, a duration histogram, the swappiness the last
	 * request asked for) for the exposition (metrics.h). No records are
	 * queued: the session's callback sees none from this collector.
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

/* The built-in workload's shape: which half of its memory it keeps using. */
enum ringside_profile_workload {
	RINGSIDE_WORKLOAD_MIXED = 0,	/* anon and page cache both hot */
	RINGSIDE_WORKLOAD_ANON_HOT,	/* hot anon, cold page cache: file is the cheap type */
	RINGSIDE_WORKLOAD_FILE_HOT,	/* hot page cache, cold anon: anon is the cheap type */
};

/*
 * The cgroup's memory.stat counters from the start of a profile to its end
 * (workload started and stopped within): every refault of the profile,
 * in the windows or not, so that the rows can be checked to add up.
 */
struct ringside_reclaim_profile_totals {
	uint64_t refault_anon, refault_file, majfaults;
	/* The same counters summed over the rows' windows. */
	uint64_t window_refault_anon, window_refault_file, window_majfaults;
};

struct ringside_reclaim_profile_opts {
	size_t sz;
	const char *cgroup;	/* memory cgroup to drive (v1 or v2 path) */
	const int *swappiness;	/* settings to try, 0..200 */
	unsigned int nr_swappiness;
	uint64_t amount;	/* bytes to ask for per trial */
	unsigned int rounds;	/* trials per setting; 0: 1 */
	/* > 0: run a built-in workload in the cgroup with this much anon and file memory. */
	uint64_t workload_bytes;
	/* > 0: create a zram swap device of this size for the profile, remove it after. */
	uint64_t zram_bytes;
	volatile int *stop;	/* set non-zero (e.g. from SIGINT) to end early, cleaned up */
	/* Messages as it goes (no swap, the method chosen): one line each, or NULL. */
	void (*on_note)(void *ctx, const char *line);
	/* --- since the cost measurement --- */
	int workload_kind;	/* enum ringside_profile_workload */
	/*
	 * Seconds to watch the cgroup after each reclaim step while the
	 * workload keeps running (the built-in one does at least one whole
	 * pass over its hot set); 0: 1 second.
	 */
	double window_s;
	/* Trial order: each trial runs the settings in an order shuffled from this seed. */
	unsigned int seed;
	bool shuffle;
	/*
	 * Profile the cgroup as it runs (a service): no workload is started,
	 * and a step asks for at most amount bytes, less a margin for the
	 * kernel's reclaim batch, so that it never takes more than amount.
	 */
	bool attach;
	/* Optional: the workload's own cumulative counter (ops served...), read around each window. */
	int (*read_metric)(void *ctx, double *value);
	/* Optional: before each trial, done of total, the setting and the estimated seconds left (-1 unknown). */
	void (*on_progress)(void *ctx, unsigned int done, unsigned int total, int swappiness, double eta_s);
	/* Optional: filled when the profile ends without an error. */
	struct ringside_reclaim_profile_totals *totals;
};

struct ringside_reclaim_profile_row {
	int swappiness;
	unsigned int round;		/* the trial, from 1 */
	uint64_t requested;		/* bytes asked for */
	uint64_t reclaimed;		/* bytes the kernel reported reclaimed */
	uint64_t anon_pages, file_pages;	/* reclaimed, by list */
	uint64_t scanned_anon, scanned_file;
	double seconds;
	int err;			/* 0, or the write's -errno (-EAGAIN, -EBUSY) */
	const char *method;		/* "memory.reclaim swappiness=", "limit_in_bytes"... */
	/* --- since the cost measurement --- */
	unsigned int order;		/* position of this setting within its trial, from 1 */
	/* /proc/vmstat deltas over the step (the whole machine: an independent check). */
	uint64_t vm_steal_anon, vm_steal_file, vm_scan_anon, vm_scan_file;
	/* The reclaim calls the tracer saw: count and latency histogram (ns). */
	uint64_t calls;
	struct ringside_hist lat_hist;
	/* Cost, over the observation window after the step: */
	double window_s;		/* as measured */
	uint64_t refault_anon, refault_file;	/* the cgroup's memory.stat workingset_refault_* */
	uint64_t majfaults;		/* the cgroup's memory.stat pgmajfault */
	uint64_t swapins;		/* /proc/vmstat pswpin (the whole machine) */
	uint64_t stall_some_us, stall_full_us;	/* PSI memory, see psi_scope */
	const char *psi_scope;		/* "cgroup", "system" (cgroup v1), or NULL: no PSI */
	uint64_t workload_ops;		/* built-in workload: pages touched in the window */
	double metric_rate;		/* read_metric's increase per second; NAN without one */
};

typedef int (*ringside_profile_fn)(void *ctx, const struct ringside_reclaim_profile_row *row);

/*
 * Drive reclaim on a cgroup for each swappiness setting and report what it
 * took and what it cost: fn(ctx, row) per trial, opts->on_note(ctx, line)
 * per message. Everything it creates (workload, zram swap) is removed before
 * it returns, and settings it changed are restored. A failure's reason:
 * ringside_last_errmsg().
 */
int ringside_reclaim_profile(const struct ringside_reclaim_profile_opts *opts,
			     ringside_profile_fn fn, void *ctx);

/* ---- profile summary: mean and spread per setting, a recommendation ----- */

struct ringside_stat {
	double mean, sd;	/* sd: sample standard deviation, 0 for one trial */
};

struct ringside_profile_setting {
	int swappiness;
	unsigned int trials;
	unsigned int failed;		/* trials whose request returned an error */
	struct ringside_stat reclaimed_mib, anon_share;	/* anon_share: 0..1 of reclaimed pages */
	struct ringside_stat refaults;	/* anon + file, in the window */
	struct ringside_stat refault_anon, refault_file, majfaults, swapins;
	struct ringside_stat cost;	/* refaults per reclaimed page: the ranking figure */
	struct ringside_stat stall_ms;	/* PSI some */
	struct ringside_stat latency_ms;	/* mean reclaim-call latency */
	struct ringside_stat ops_per_s, metric_rate;
	bool short_of_amount;		/* reclaimed on average less than half what was asked */
};

struct ringside_profile_summary {
	unsigned int nr_settings;
	struct ringside_profile_setting settings[32];	/* by swappiness, ascending */
	/* The recommendation: settings as good as the best within the spread. */
	unsigned int nr_recommended;
	int recommended[32];
	bool no_difference;	/* every eligible setting is as good as the best */
	bool no_spread;		/* one trial: no spread to judge by */
	char text[768];		/* one paragraph: the choice and the evidence */
};

/*
 * Summarize rows (any order, as fn received them): mean and spread of every
 * figure per setting, and the range with the lowest refault cost for the
 * amount reclaimed. Settings that reclaimed less than half what was asked
 * are not recommended. A difference in cost below 0.02 refaults per
 * reclaimed page, or within one standard deviation, is not a difference.
 */
int ringside_reclaim_profile_summarize(const struct ringside_reclaim_profile_row *rows, size_t nr,
				       struct ringside_profile_summary *out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
