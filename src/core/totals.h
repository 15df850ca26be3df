/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: a collector's in-kernel totals and drop counters, read from user space. */
#ifndef RINGSIDE_TOTALS_H
#define RINGSIDE_TOTALS_H

#include <stdint.h>
#include "ringside/events.h"

struct rs_collector;

/* One drops slot (enum rs_drop_slot) of c, summed over CPUs; 0 when not loaded. */
uint64_t rs_collector_drops(const struct rs_collector *c, unsigned int slot);
/* One slot of any per-CPU array of u64 counters of c, summed over CPUs. */
uint64_t rs_collector_slot(const struct rs_collector *c, const char *map_name, unsigned int slot);

/* Called per totals row with the counters summed over CPUs; non-zero stops the walk. */
typedef int (*rs_total_fn)(void *ctx, const struct rs_total_key *key, const struct rs_total_val *val);
int rs_collector_totals(const struct rs_collector *c, rs_total_fn fn, void *ctx);

/*
 * Any per-CPU hash of c with struct rs_total_val values (key_size bytes of
 * key, 64 at most), summed over CPUs, by batches where the kernel has them.
 */
typedef int (*rs_row_fn)(void *ctx, const void *key, const struct rs_total_val *val);
int rs_collector_rows(const struct rs_collector *c, const char *map_name, size_t key_size,
		      rs_row_fn fn, void *ctx);
/* The same, with the counters in max_mask (bit j: c[j]) taken as the largest over CPUs. */
int rs_collector_rows_max(const struct rs_collector *c, const char *map_name, size_t key_size,
			  uint32_t max_mask, rs_row_fn fn, void *ctx);

/*
 * Hot rows (hot_rows.bpf.h): the per-CPU array hot_map of struct
 * rs_total_val, whose slot for each key its hash hot_map"_index" gives.
 * Each indexed slot's counters, summed over CPUs (max_mask as above), go
 * to fn with its key.
 */
int rs_collector_hot_rows(const struct rs_collector *c, const char *hot_map, size_t key_size,
			  uint32_t max_mask, rs_row_fn fn, void *ctx);

#endif
