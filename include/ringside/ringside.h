/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libringside: eBPF collectors for AES-GCM crypto work, memory-cgroup
 * reclaim and btrfs block-group relocation, for embedding in agents.
 *
 * Conventions (the error model):
 *  - Functions returning int return 0 (or a count) on success and a negative
 *    errno, or -RINGSIDE_ERR_*, on failure; ringside_strerror() turns it into
 *    text. The reason, as one sentence naming the cause and the fix, comes
 *    from ringside_session_errmsg() for a call on a session (which symbol was
 *    missing, which file was not ELF...), and from ringside_last_errmsg() for
 *    a call that has no session (ringside_session_open(),
 *    ringside_reclaim_profile()): kept per thread until its next such call.
 *  - The library never prints and never exits. Its one process-wide state
 *    is the cache of kernel features (ringside_feature()), thread-safe. libbpf's print callback is process-wide and belongs to the
 *    application: set it with libbpf_set_print() if you want libbpf's logs.
 *  - A session is used from one thread at a time.
 */
#ifndef RINGSIDE_H
#define RINGSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ringside/events.h"
#include "ringside/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only what is declared here is exported. */
#pragma GCC visibility push(default)

#define RINGSIDE_VERSION "0.1.0"

/* The event ABI this library was built with; compare with RINGSIDE_EVENT_ABI. */
unsigned int ringside_event_abi(void);
const char *ringside_version(void);

/* ringside-specific errors, beyond plain errno values. */
enum {
	RINGSIDE_ERR_BASE = 4000,
	RINGSIDE_ERR_NOBTF = 4001,	/* kernel has no BTF at /sys/kernel/btf/vmlinux */
	RINGSIDE_ERR_NOSYM = 4002,	/* binary lacks the symbols a collector needs */
	RINGSIDE_ERR_NOTELF = 4003,	/* file is not an ELF object */
	RINGSIDE_ERR_NOTBTRFS = 4004,	/* path is not on a btrfs filesystem */
	RINGSIDE_ERR_NOTCGROUP = 4005,	/* path is not a cgroup directory */
	RINGSIDE_ERR_NOMEMCG = 4006,	/* cgroup hierarchy lacks the memory controller */
	RINGSIDE_ERR_KERNEL = 4007,	/* kernel lacks a needed facility */
	RINGSIDE_ERR_NOTRACEFS = 4008,	/* tracefs is not mounted */
	RINGSIDE_ERR_KTHREAD = 4009,	/* PID is a kernel thread: no user memory */
	RINGSIDE_ERR_ZOMBIE = 4010,	/* PID has exited and not been reaped */
	RINGSIDE_ERR_EXECED = 4011,	/* target process exec'd: its probed code is gone */
	RINGSIDE_ERR_MAX
};

/* Text for a negative (or positive) errno or RINGSIDE_ERR_* value. */
const char *ringside_strerror(int err);

/* ---- session ---------------------------------------------------------- */

struct ringside_session;

/*
 * Called for every record, in ring-buffer order per collector. Return 0 to
 * continue, a negative errno to stop ringside_session_poll() with it.
 * size is the record's length; ev->size may be larger than the struct your
 * build knows (newer library) — read only the prefix you know.
 */
typedef int (*ringside_event_fn)(void *ctx, const struct rs_event_hdr *ev, size_t size);

struct ringside_session_opts {
	size_t sz;		/* sizeof(struct ringside_session_opts) */
	size_t ringbuf_bytes;	/* per collector, power of two >= page size; 0: 256 KiB */
	pid_t pid;		/* only this process (tgid); 0: all */
	pid_t tid;		/* only this thread; 0: all */
	const char *cgroup_path;/* only tasks in this cgroup subtree (v1 or v2 path) */
	const char *comm;	/* only tasks whose comm equals this */
	ringside_event_fn on_event;
	void *ctx;
};

int ringside_session_open(const struct ringside_session_opts *opts,
			  struct ringside_session **out);
/*
 * Load and attach every enabled collector. On failure nothing stays attached.
 * The kernel feature probes' own links (released on threads: each waits out
 * a grace period, ~100 ms) may still be going away when this returns;
 * ringside_session_close() waits for them.
 */
int ringside_session_attach(struct ringside_session *s);
/*
 * Consume ready records; waits up to timeout_ms (-1: forever). Returns count.
 * Busy probes wake the reader in batches (each 1/8 of the ring) and urgent
 * records (e.g. GCM tag failures) at once, so call this with a finite
 * timeout (100 ms is typical): the timeout is what bounds the delivery
 * delay of a trickle of records.
 */
int ringside_session_poll(struct ringside_session *s, int timeout_ms);
/*
 * An fd that becomes readable when records are ready (for epoll loops).
 * Wakeups are batched as described above: also poll on a timer.
 */
int ringside_session_epoll_fd(const struct ringside_session *s);
/* Detach and unload all collectors; the session can be closed or re-attached. */
void ringside_session_detach(struct ringside_session *s);
void ringside_session_close(struct ringside_session *s);
/* Detail of the session's last failure, "" when none. */
const char *ringside_session_errmsg(const struct ringside_session *s);
/*
 * Why the last call without a session (ringside_session_open(),
 * ringside_reclaim_profile()) in this thread failed, as one sentence naming
 * the cause and the fix; "" after a success.
 */
const char *ringside_last_errmsg(void);
/* The same (its name before ringside_reclaim_profile() reported this way). */
const char *ringside_open_errmsg(void);
/* Informational notes collectors produced while attaching (one per line). */
const char *ringside_session_notes(const struct ringside_session *s);

/*
 * With opts.pid set: 0 while that process still runs the program it ran at
 * open, -ESRCH once it exited (PID reuse included), -RINGSIDE_ERR_EXECED
 * after it exec'd. Tracing tools call it between polls to stop cleanly.
 */
int ringside_session_target_check(struct ringside_session *s);

struct ringside_stats {
	uint64_t events;	/* records delivered to on_event */
	uint64_t lost;		/* records the BPF side could not reserve (ring full) */
	uint64_t bytes;		/* bytes of records delivered */
	unsigned int collectors;/* collectors attached */
	unsigned int links;	/* BPF links held */
	/*
	 * Completed operations the in-kernel totals could not count because
	 * their map was full (RS_TOTALS_MAX_ENTRIES rows) or, in a burst of
	 * new rows, the kernel could not allocate one: summaries miss them.
	 */
	uint64_t rows_lost;
};
int ringside_session_stats(const struct ringside_session *s, struct ringside_stats *st);

/* ---- kernel feature probe --------------------------------------------- */

enum ringside_feature {
	RINGSIDE_FEAT_BTF,
	RINGSIDE_FEAT_RINGBUF,
	RINGSIDE_FEAT_TP_BTF,
	RINGSIDE_FEAT_RAW_TP,
	RINGSIDE_FEAT_FENTRY,
	RINGSIDE_FEAT_KPROBE,
	RINGSIDE_FEAT_UPROBE,
	RINGSIDE_FEAT_URETPROBE_SYSCALL,
	RINGSIDE_FEAT_URETPROBE_SECCOMP,
	RINGSIDE_FEAT_PROCMAP_QUERY,
	RINGSIDE_FEAT_PROCMAP_BUILD_ID,
	RINGSIDE_FEAT_MEMCG_V1,
	RINGSIDE_FEAT_MEMCG_V2,
	RINGSIDE_FEAT_MEMCG_RECLAIM_SWAPPINESS,
	RINGSIDE_FEAT_BTRFS_DYNAMIC_RECLAIM,
	RINGSIDE_FEAT_BTRFS_PERIODIC_RECLAIM,
	RINGSIDE_FEAT_TRACEFS,
	RINGSIDE_FEAT_UPROBE_MULTI,	/* one link, many offsets (Linux 6.6+) */
	RINGSIDE_FEAT_SYSCALL_EXIT_TP,	/* syscalls/sys_exit_write in tracefs */
	RINGSIDE_FEAT_UPROBE_SESSION,	/* entry and return in one program (Linux 6.13+) */
	RINGSIDE_FEAT_COUNT
};

struct ringside_feature_result {
	const char *name;	/* stable key, e.g. "uretprobe_syscall" */
	bool present;
	char why[160];		/* one line: what was tried and what happened */
};

struct ringside_features {
	struct ringside_feature_result f[RINGSIDE_FEAT_COUNT];
};

/*
 * Probe the running kernel with real attach tests where they are cheap and
 * safe. Needs root (CAP_BPF + CAP_PERFMON + CAP_SYS_ADMIN) for the BPF lines;
 * without it those lines say so. Mounts nothing and leaves nothing attached.
 * Each feature is probed once per process and kept: collectors choose their
 * program variants from the same results (thread-safe).
 */
int ringside_features_probe(struct ringside_features *out);

/* One feature, probed on first use and kept; NULL for an unknown one. */
const struct ringside_feature_result *ringside_feature(enum ringside_feature f);

/*
 * Print the probe result as an aligned table, or as one JSON object per
 * line, followed by each collector's program variants: which one a session
 * would load on this kernel and the feature that decided it.
 */
void ringside_features_print(const struct ringside_features *f, FILE *out, bool json);

/*
 * 0 when this process has what attaching BPF programs needs (CAP_BPF or
 * CAP_SYS_ADMIN, plus CAP_PERFMON or CAP_SYS_ADMIN), -EPERM otherwise.
 */
int ringside_check_privileges(void);

/* ---- state left by killed runs ----------------------------------------- */

/*
 * Commands that change the system (the reclaim profiler: memory.swappiness,
 * memory.limit_in_bytes, zram swap, a temp file, a workload process) write
 * each change down in /run/ringside/PID.state ($RINGSIDE_STATE_DIR) before
 * making it and remove the file once they restored everything. This undoes
 * the changes of runs that were killed before they could (SIGKILL, a crash),
 * last change first, calls fn with one line per action, and returns the
 * number of dead runs repaired (or a negative errno). Live runs are left alone.
 * State-changing library calls do this themselves before they start.
 */
int ringside_state_repair(void (*fn)(void *ctx, const char *line), void *ctx);


/* ---- shared by every collector ------------------------------------------ */

/*
 * How return probes reach the kernel on this machine: 1 when the uretprobe
 * syscall is used (Linux 6.11+, x86-64), 0 for the int3 trap; why gets one
 * line. *seccomp_safe says whether seccomp-filtered processes survive it.
 */
int ringside_uretprobe_mechanism(bool *seccomp_safe, char *why, size_t len);

#define RINGSIDE_HIST_SLOTS 64

/* log2 histogram: slot i counts values v with 2^(i-1) <= v < 2^i (slot 0: v == 0). */
struct ringside_hist {
	uint64_t slot[RINGSIDE_HIST_SLOTS];
};
unsigned int ringside_hist_slot(uint64_t v);
/* Print bcc-style rows (range, count, bar); unit names the values ("bytes"). */
void ringside_hist_print(const struct ringside_hist *h, const char *unit, FILE *out);
/* The non-empty slots as a member key of j: [{"lo":..,"hi":..,"count":..},...]. */
void ringside_hist_json(const struct ringside_hist *h, struct ringside_json *j, const char *key);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* RINGSIDE_H */
