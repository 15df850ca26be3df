/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * uprobe_multi links (Linux 6.6+) made with BPF_LINK_CREATE directly:
 * Debian 12's libbpf (1.1) and UAPI headers predate them.
 */
#ifndef RINGSIDE_UPROBE_MULTI_H
#define RINGSIDE_UPROBE_MULTI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The attach type a program must be loaded with to take such a link. */
#define RS_BPF_TRACE_UPROBE_MULTI 48
/*
 * A session (Linux 6.13+): one program runs at entry and at return
 * (bpf_session_is_return()); returning non-zero at entry skips the return.
 */
#define RS_BPF_TRACE_UPROBE_SESSION 57

/*
 * One link putting prog_fd on cnt offsets of path (file offsets), each with
 * its BPF cookie (cookies may be NULL), for process pid (0: every process);
 * ret: return probes. The link's fd, or a negative errno.
 */
int rs_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, unsigned int cnt, pid_t pid, bool ret);
/* The same as a session link (ret does not apply). */
int rs_uprobe_session_link(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, unsigned int cnt, pid_t pid);
/*
 * A uprobe program that does nothing (returns 0), loaded for attach_type:
 * its fd, or a negative errno (the kernel does not know the type, or
 * refuses the load).
 */
int rs_uprobe_noop_prog(unsigned int attach_type);

#endif
