/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: the kernel's "name value" counter files (memory.stat, /proc/vmstat) and PSI totals. */
#ifndef RINGSIDE_KV_STAT_H
#define RINGSIDE_KV_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Read dir/file, one "name value" pair per line, and set vals[i] to the
 * value of keys[i] (UINT64_MAX where the file has no such line). Returns
 * how many keys were found, or -errno.
 */
int rs_kv_read(const char *dir, const char *file, const char *const *keys, uint64_t *vals, size_t n);

/* PSI stall totals in µs, from a pressure file ("some ... total=N", "full ... total=N"). */
struct rs_psi {
	uint64_t some_us, full_us;
	bool has_full;
};
int rs_psi_read(const char *dir, const char *file, struct rs_psi *out);

#endif
