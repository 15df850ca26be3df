// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading what every collector counts in the kernel: the per-CPU "totals"
 * rows and "drops" slots (events.h), summed over the possible CPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "session_int.h"
#include "totals.h"

uint64_t rs_collector_drops(const struct rs_collector *c, unsigned int slot)
{
	struct bpf_map *map = c->obj ? bpf_object__find_map_by_name(c->obj, "drops") : NULL;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0;
	__u64 *vals;

	if (!map || ncpu <= 0 || slot >= RS_DROP_SLOTS)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(map), &slot, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

int rs_collector_totals(const struct rs_collector *c, rs_total_fn fn, void *ctx)
{
	struct bpf_map *map = c->obj ? bpf_object__find_map_by_name(c->obj, "totals") : NULL;
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0;
	struct rs_total_key key, next, *prev = NULL;
	struct rs_total_val *vals, sum;

	if (!map)
		return -ENOENT;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	fd = bpf_map__fd(map);
	/* Per-CPU values are laid out at 8-byte strides; the value is a multiple of 8. */
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		/* A row may be deleted between the two calls: skip it. */
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		memset(&sum, 0, sizeof(sum));
		for (int i = 0; i < ncpu; i++)
			for (int j = 0; j < RS_TOTAL_COUNTERS; j++)
				sum.c[j] += vals[i].c[j];
		err = fn(ctx, &key, &sum);
		if (err)
			break;
	}
	free(vals);
	return err;
}
