/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: a collector's in-kernel totals and drop counters, read from user space. */
#ifndef RINGSIDE_TOTALS_H
#define RINGSIDE_TOTALS_H

#include <stdint.h>
#include "ringside/events.h"

struct rs_collector;

/* One drops slot (enum rs_drop_slot) of c, summed over CPUs; 0 when not loaded. */
uint64_t rs_collector_drops(const struct rs_collector *c, unsigned int slot);

/* Called per totals row with the counters summed over CPUs; non-zero stops the walk. */
typedef int (*rs_total_fn)(void *ctx, const struct rs_total_key *key, const struct rs_total_val *val);
int rs_collector_totals(const struct rs_collector *c, rs_total_fn fn, void *ctx);

#endif
