/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kernel feature probes (feature_probes.c); features.c calls each once per process. */
#ifndef RINGSIDE_FEATURE_PROBES_H
#define RINGSIDE_FEATURE_PROBES_H

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "btf_reader.h"
#include "ringside/procmaps.h"
#include "ringside/ringside.h"

void rs_feature_set(struct ringside_feature_result *r, bool present, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* " (not root: ...)" or " although root: ..." for EPERM/EACCES, else "". */
const char *rs_eperm_hint(int err);

/* Load the probe object's one program prog_name, attach it, detach: r says how it went. */
void rs_probe_attach(struct ringside_feature_result *r, const char *prog_name, const char *what);
/* The same for tp_btf (BPF_TRACE_RAW_TP) or fentry on target, by its id in vmlinux. */
void rs_probe_attach_btf(struct ringside_feature_result *r, const struct rs_btf *vmlinux,
			 enum bpf_attach_type type, const char *target, const char *what);
/* An entry+return uprobe pair, a uprobe_multi link and a uprobe session on ringside's own code. */
void rs_probe_uprobes(struct ringside_features *out);
/* Does the kernel know this uprobe_multi link type? No uprobe is registered. */
bool rs_probe_uprobe_link_type(unsigned int attach_type);
void rs_probe_uretprobe_syscall(struct ringside_feature_result *sys,
				struct ringside_feature_result *sec);
void rs_probe_procmap(struct ringside_feature_result *q, struct ringside_feature_result *bid);
/* Fills the memcg v1, v2 and memory.reclaim swappiness= lines. */
void rs_probe_memcg(struct ringside_features *out);
/* Fills the btrfs dynamic and periodic reclaim lines. */
void rs_probe_btrfs(struct ringside_features *out, const struct rs_btf *vmlinux);
void rs_probe_tracefs(struct ringside_feature_result *r, struct ringside_feature_result *sys_exit);
/*
 * Wait until the probes' links are released. Releasing a uprobe waits out a
 * grace period (about 100 ms here), so the probes release theirs on threads
 * and start-up does not wait: a session's close (and a features listing)
 * waits for them, so no probe's link outlives the process's use of ringside.
 * Until a thread has run, a probe's link is still among the process's fds.
 */
void rs_probe_links_released(void);
/*
 * A session is starting (from its open to the end of its attach, or its
 * close): while any is, the probes' links are kept, and released once the
 * last has started. Releasing a perf-event uprobe holds
 * the kernel's trace event lock through its grace period, and uprobe
 * registration waits on it too: a release under way stalled another
 * session's tracepoint attach (perf_event_open) by up to 200 ms, and it
 * competed with the uprobe attach of the session whose tests made it.
 */
void rs_probe_session_starting(void);
void rs_probe_session_started(void);
/* Is any session starting now? */
bool rs_probe_sessions_starting(void);
/* Release a uprobe link's fd as the probes' are: kept while a session starts, then on a thread. */
void rs_probe_close_later(int fd);
/* The file (vma->name) and file offset of the code at addr in this process. */
int rs_own_code_offset(uintptr_t addr, struct ringside_vma *vma, uint64_t *off);

#endif
