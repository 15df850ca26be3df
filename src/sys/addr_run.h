/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The run of a batch's addresses that falls in one mapping, and its file
 * offsets: the inner loop of ringside_normalize().
 */
#ifndef RINGSIDE_ADDR_RUN_H
#define RINGSIDE_ADDR_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/resolve.h"

struct rs_addr_run {
	uint64_t start, end;	/* the mapping's bounds */
	uint64_t delta;		/* file offset minus address */
	const struct ringside_mapping *mapping;	/* stored in every slot of the run */
};

/*
 * From addrs[i] (inside the run's mapping), fill file_offset[] and
 * mapping[] for the addresses that follow it while they stay inside;
 * returns the index of the first one that does not. Sorted input is
 * fastest; any order gives the same answer.
 */
size_t rs_addr_run_fill(const struct rs_addr_run *run, const uint64_t *addrs, size_t i, size_t n,
			uint64_t *file_offset, const struct ringside_mapping **mapping);

#endif
