/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: cgroup-v2 memory controller file access used by probes and the profiler. */
#ifndef RINGSIDE_MEMCG_IO_H
#define RINGSIDE_MEMCG_IO_H

#include <stddef.h>

/* Own cgroup-v2 directory when the memory controller is enabled there. */
int rs_memcg_v2_self(char *path, size_t len);

/*
 * Does memory.reclaim accept "swappiness="? Asked with a zero-byte request
 * in a scratch child of dir (removed afterwards), or in dir itself when it
 * does not delegate memory. 0 yes, -EINVAL no.
 */
int rs_memcg_probe_swappiness_key(const char *dir);

/* Write a string to dir/file; returns bytes written or -errno. */
int rs_write_file(const char *dir, const char *file, const char *text);
/* Read dir/file into buf (NUL-terminated); returns length or -errno. */
int rs_read_file(const char *dir, const char *file, char *buf, size_t len);

#endif
