/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: /proc/PID/stat fields that identify a process across PID reuse. */
#ifndef RINGSIDE_PROC_STAT_H
#define RINGSIDE_PROC_STAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields after the command name (state first); NULL when the process is gone. */
const char *rs_proc_stat_fields(pid_t pid, char *buf, size_t len);
/* Start time in clock ticks since boot: with the PID, a process's identity. */
int rs_proc_start_time(pid_t pid, uint64_t *out);

#endif
