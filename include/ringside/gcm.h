/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The AES-GCM collector: one RS_EV_GCM_OP record (struct rs_gcm_event) per
 * message sealed or opened by OpenSSL 3 libcrypto, GnuTLS, libgcrypt or nettle, and
 * an aggregator for per-process summaries and histograms.
 */
#ifndef RINGSIDE_GCM_H
#define RINGSIDE_GCM_H

#include "ringside/ringside.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct ringside_gcm_opts {
	size_t sz;		/* sizeof(struct ringside_gcm_opts) */
	/*
	 * NULL-terminated list of library or binary paths to probe. NULL: the
	 * libraries the session's PID has mapped (opts.pid), else the system's
	 * libcrypto/libgnutls/libgcrypt found through /etc/ld.so.cache and the
	 * standard directories.
	 */
	const char *const *paths;
	bool stacks;		/* add user stacks (frame-pointer walk) to records */
	/*
	 * Attach one perf-event uprobe per probe point, as on kernels without
	 * uprobe_multi (< 6.6), even where uprobe_multi exists. Slower to detach.
	 */
	bool perf_uprobes;
	/*
	 * With stacks: 0 walks frame pointers in the kernel (cheap, but stops at
	 * code built without them); N copies N bytes of user stack (rounded up
	 * to whole pages from the one sp is in, at most RS_STACK_WINDOW_MAX)
	 * with the registers, for ringside_unwind().
	 */
	unsigned int stack_window;
	/*
	 * Count in the kernel by process name, library, direction and key bits
	 * (with latency and size histograms) instead of queueing a record per
	 * message; only tag failures are still records. What the exposition
	 * (metrics.h) reads; ringside_gcm_totals() is then empty.
	 */
	bool aggregate;
	/*
	 * Count without timing: OpenSSL messages then take one probe hit fewer
	 * (no probe where a message starts); latencies are 0 and the exposition
	 * has no duration histogram.
	 */
	bool count_only;
	/*
	 * Aggregate: label sets the kernel keeps rows for (each takes a counters
	 * row per message-size slot and one per latency slot; rows past the map's size are
	 * counted in one "other" row). 0: RS_GCM_AGG_MAX_ENTRIES rows in all.
	 */
	unsigned int label_sets;
	/*
	 * Keep the latency histogram of each process x library x direction x
	 * key size row in the kernel (ringside_gcm_hist(); the longest message
	 * in ringside_gcm_total.lat_max_ns) instead of queueing a record per
	 * message: the summary then covers every message however fast they
	 * come, and a message costs less to trace. Only tag failures are still
	 * records. Not with aggregate.
	 */
	bool kernel_hist;
	bool size_hist;		/* kernel_hist: each row's payload size histogram too */
};

/*
 * Enable the collector: finds the libraries and their probe points now, so
 * a bad path, a PID without crypto libraries or missing symbols fail here
 * with a message in ringside_session_errmsg().
 */
int ringside_session_enable_gcm(struct ringside_session *s, const struct ringside_gcm_opts *opts);

struct ringside_gcm_lib {
	enum rs_gcm_lib family;
	char path[4096];	/* the file probed (under /proc/PID/root for -p) */
	char version[48];	/* from the library's own version string; "" if unknown */
	unsigned int probes;	/* probe points attached */
	unsigned int stepped;	/* of which the kernel must single-step (slow) */
	char not_seen[256];	/* what in this file cannot be traced, and why; "" if nothing */
	/* Go programs: the AES-GCM functions probed; OpenSSL: where
	 * CRYPTO_gcm128_finish is probed (inside, or at its entry and why); "" otherwise */
	char entries[256];
	bool late;		/* a Go program probed when it started, after tracing began */
};

/*
 * Programs found but not traced (a Go program of a release ringside's table
 * does not cover, one without AES-GCM code...): one sentence each, naming
 * the file and the reason. Counted from 0 to ringside_gcm_nr_skipped().
 */
unsigned int ringside_gcm_nr_skipped(const struct ringside_session *s);
const char *ringside_gcm_skipped(const struct ringside_session *s, unsigned int i);

/*
 * The libraries the collector probes; lib_id of a record indexes them.
 * System-wide, the list grows while tracing: a Go program that starts later
 * is added (late) when its start is seen, and one that cannot be traced
 * joins the skipped list. A pointer is valid until the next poll.
 */
unsigned int ringside_gcm_nr_libs(const struct ringside_session *s);
/*
 * System-wide: true when programs that start after tracing began are
 * inspected (and Go ones probed); false when the kernel cannot say (no BTF
 * for sched_process_exec) or a PID/--binary scope makes it moot.
 */
bool ringside_gcm_watches_starts(const struct ringside_session *s);
const struct ringside_gcm_lib *ringside_gcm_lib(const struct ringside_session *s,
						unsigned int lib_id);

/* Where in its function a probe point sits. */
enum ringside_gcm_placement {
	RINGSIDE_GCM_AT_ENTRY,		/* the function's first instruction */
	/* past leading instructions that touch neither the stack nor an
	 * argument (endbr64, lea of a global), onto one the kernel emulates */
	RINGSIDE_GCM_PAST_PROLOGUE,
	RINGSIDE_GCM_AT_RET,		/* one of its return instructions (Go) */
	RINGSIDE_GCM_INSIDE,		/* a point found by decoding its body (OpenSSL's finish, counting) */
	/* where its first instruction is single-stepped: the first one of its
	 * prologue the kernel emulates, its arguments and return address
	 * followed to where they are there */
	RINGSIDE_GCM_IN_PROLOGUE,
};

/* One probe point as the collector attaches it (its return probe, if any, aside). */
struct ringside_gcm_probe_point {
	unsigned int lib_id;	/* ringside_gcm_lib() */
	const char *function;	/* the symbol, or the part probed ("AES-GCM backend aead_encrypt") */
	uint64_t file_offset;	/* the uprobe's offset in the file */
	uint64_t offset;	/* bytes past the function's first instruction */
	enum ringside_gcm_placement placement;
	/* The kernel emulates the probed instruction (push, jmp, call, jcc);
	 * false: it single-steps it out of line, several times dearer. */
	bool emulated;
	const char *role;	/* RINGSIDE_GCM_INSIDE: what the point reads; "" otherwise */
	bool timing_only;	/* probed only to time messages: left out with count_only */
	/* single-stepped at its entry though its program could follow its
	 * arguments: why it was not moved; "" otherwise */
	const char *kept_at_entry;
};

/* Probe points of the enabled collector (its libraries' and Go programs'), growing as ringside_gcm_nr_libs() does. */
unsigned int ringside_gcm_nr_probe_points(const struct ringside_session *s);
/* Point i; -ENOENT past the end. */
int ringside_gcm_probe_point(const struct ringside_session *s, unsigned int i,
			     struct ringside_gcm_probe_point *out);
const char *ringside_gcm_placement_name(unsigned int placement);	/* "entry", "past-prologue"... */

const char *ringside_gcm_lib_name(unsigned int family);	/* "openssl", "gnutls"... */
const char *ringside_gcm_dir_name(unsigned int dir);	/* "seal", "open" */
const char *ringside_gcm_result_name(unsigned int result);	/* "ok", "tag-fail"... */
/*
 * What the collector cannot see in a library family, as one sentence for
 * start-up output; NULL when nothing is known to be missed.
 */
const char *ringside_gcm_lib_blind_spot(unsigned int family);

/* ---- aggregation ------------------------------------------------------- */

struct ringside_gcm_row {
	uint32_t tgid;
	char comm[RS_COMM_LEN];
	uint32_t lib_id;
	uint8_t lib;		/* enum rs_gcm_lib */
	uint8_t dir;		/* enum rs_gcm_dir */
	uint16_t key_bits;
	uint64_t ops;
	uint64_t aad_bytes;
	uint64_t payload_bytes;
	uint64_t tag_failures;
	uint64_t errors;
	uint64_t lat_sum_ns;
	uint64_t lat_p50_ns;	/* filled by ringside_gcm_agg_foreach() */
	uint64_t lat_p99_ns;
	uint64_t lat_max_ns;
	struct ringside_hist size_hist;	/* payload bytes per message */
	struct ringside_hist lat_hist;	/* ns per message */
	uint64_t unchecked;	/* opens whose tag the application compared itself */
	/*
	 * Messages the latency percentiles and histograms cover. The counts
	 * above are exact when set from the kernel's totals
	 * (ringside_gcm_agg_set_total()). The latency comes from the delivered
	 * records (fewer than ops: the ring buffer was full), or, with
	 * kernel_hist, from the kernel's histograms
	 * (ringside_gcm_agg_set_hist(): every timed message).
	 */
	uint64_t events;
};

struct ringside_gcm_agg;

struct ringside_gcm_agg *ringside_gcm_agg_new(void);
void ringside_gcm_agg_free(struct ringside_gcm_agg *agg);
/* Count one record; non-GCM records are ignored. */
int ringside_gcm_agg_add(struct ringside_gcm_agg *agg, const struct rs_event_hdr *ev, size_t size);
/* Rows ordered by process, library, direction, key size. fn returns non-zero to stop. */
int ringside_gcm_agg_foreach(struct ringside_gcm_agg *agg,
			     int (*fn)(void *ctx, const struct ringside_gcm_row *row), void *ctx);
/* Forget all rows (start a new interval). */
void ringside_gcm_agg_reset(struct ringside_gcm_agg *agg);

/*
 * Exact counts per process x library x direction x key size, kept by the
 * BPF programs for every completed message before its record is queued, so
 * they hold even when the ring buffer drops records. Cumulative since attach.
 */
struct ringside_gcm_total {
	uint32_t tgid;
	uint32_t lib_id;
	uint8_t lib;		/* enum rs_gcm_lib */
	uint8_t dir;		/* enum rs_gcm_dir */
	uint16_t key_bits;
	uint64_t ops;
	uint64_t aad_bytes;
	uint64_t payload_bytes;
	uint64_t tag_failures;
	uint64_t errors;
	uint64_t unchecked;
	uint64_t lat_sum_ns;
	char comm[RS_COMM_LEN];	/* kernel_hist: the process's name at its first message; else "" */
};
/* Walk the kernel's rows (while attached); fn returns non-zero to stop. */
int ringside_gcm_totals(struct ringside_session *s,
			int (*fn)(void *ctx, const struct ringside_gcm_total *t), void *ctx);

/*
 * With kernel_hist: one histogram slot of a row, its count cumulative since
 * attach. kind RS_GCM_HIST_LATENCY: slot is RS_GCM_FINE_SLOT() of the
 * messages' ns (events.h), and max_ns the longest of them since the
 * previous ringside_gcm_hist() call (0: none); RS_GCM_HIST_SIZE: the log2
 * slot of their payload bytes.
 */
struct ringside_gcm_hist_slot {
	uint32_t tgid;
	uint32_t lib_id;
	uint8_t lib;		/* enum rs_gcm_lib */
	uint8_t dir;		/* enum rs_gcm_dir */
	uint16_t key_bits;
	uint8_t kind;		/* enum rs_gcm_hist_kind */
	uint16_t slot;
	uint64_t count;
	uint64_t max_ns;
};
/* Walk the kernel's histogram slots (none without kernel_hist); fn returns non-zero to stop. */
int ringside_gcm_hist(struct ringside_session *s,
		      int (*fn)(void *ctx, const struct ringside_gcm_hist_slot *h), void *ctx);
/* Latency samples missing from those histograms: rows past the kernel map's size. */
uint64_t ringside_gcm_hist_lost(const struct ringside_session *s);
/*
 * Probe hits the collector could not tie to a message, per process, library
 * and reason (enum rs_gcm_unattr_reason): e.g. a GnuTLS or libgcrypt call on
 * a handle created before the trace began, or inside the library on a path
 * ringside does not probe. Non-zero means the counts above miss work.
 */
struct ringside_gcm_unattributed {
	uint32_t tgid;
	uint32_t lib_id;
	uint32_t reason;
	uint64_t hits;
};
int ringside_gcm_unattributed(struct ringside_session *s,
			      int (*fn)(void *ctx, const struct ringside_gcm_unattributed *u), void *ctx);
const char *ringside_gcm_unattr_reason_name(unsigned int reason);	/* "unknown-handle" */

/*
 * Set the counts of t's row to t's (adding the row if no record came for
 * it); with base, to t minus base's counts of the same row (an interval's
 * share of cumulative totals). Latency and histograms stay the records'.
 */
int ringside_gcm_agg_set_total(struct ringside_gcm_agg *agg, const struct ringside_gcm_total *t,
			       const struct ringside_gcm_agg *base);
/*
 * Set one histogram slot of h's row from the kernel's cumulative count
 * (kernel_hist), as ringside_gcm_agg_set_total() sets the counts: with
 * base, to h's count minus base's. Latency slots count toward events, and
 * their max_ns raises the row's. Use one or the other of this and
 * ringside_gcm_agg_add() for a row.
 */
int ringside_gcm_agg_set_hist(struct ringside_gcm_agg *agg, const struct ringside_gcm_hist_slot *h,
			      const struct ringside_gcm_agg *base);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
