// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading what every collector counts in the kernel: the per-CPU "totals"
 * rows and "drops" slots (events.h), summed over the possible CPUs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "session_int.h"
#include "totals.h"

uint64_t rs_collector_drops(const struct rs_collector *c, unsigned int slot)
{
	return slot < RS_DROP_SLOTS ? rs_collector_slot(c, "drops", slot) : 0;
}

uint64_t rs_collector_slot(const struct rs_collector *c, const char *map_name, unsigned int slot)
{
	struct bpf_map *map = c->obj ? bpf_object__find_map_by_name(c->obj, map_name) : NULL;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0;
	__u64 *vals;

	if (!map || ncpu <= 0 || slot >= bpf_map__max_entries(map))
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

/*
 * Sum one key's per-CPU values (RS_TOTAL_COUNTERS each) and hand the row
 * over; the counters in max_mask (bit j: c[j]) are per-CPU maxima, and the
 * row takes the largest.
 */
static int sum_row(const struct rs_total_val *vals, int ncpu, const void *key, uint32_t max_mask,
		   rs_row_fn fn, void *ctx)
{
	struct rs_total_val sum;

	memset(&sum, 0, sizeof(sum));
	for (int i = 0; i < ncpu; i++)
		for (int j = 0; j < RS_TOTAL_COUNTERS; j++) {
			if (!(max_mask & 1u << j))
				sum.c[j] += vals[i].c[j];
			else if (vals[i].c[j] > sum.c[j])
				sum.c[j] = vals[i].c[j];
		}
	return fn(ctx, key, &sum);
}

#define BATCH 256

/* The errno of a first batch call on a kernel or map without batch lookups. */
static bool batch_unsupported(int err)
{
	return err == EINVAL || err == 524 /* ENOTSUPP */ || err == EOPNOTSUPP;
}

/*
 * The rows in batches of BATCH (BPF_MAP_LOOKUP_BATCH, Linux 5.6+): one
 * system call per batch instead of two per row. 1 when the kernel has no
 * batch lookups for this map (then the caller walks key by key).
 */
static int rows_batched(int fd, size_t key_size, int ncpu, uint32_t max_mask, rs_row_fn fn,
			void *ctx)
{
	char *keys = calloc(BATCH, key_size);
	struct rs_total_val *vals = calloc((size_t)BATCH * ncpu, sizeof(*vals));
	__u64 in = 0, out = 0;
	bool first = true;
	int err = 0;

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (;;) {
		__u32 count = BATCH;
		int ret = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys, vals, &count, NULL);

		if (ret && errno != ENOENT) {
			/* Not supported here: say so on the first call, else a real error. */
			err = first && batch_unsupported(errno) ? 1 : -errno;
			break;
		}
		for (__u32 i = 0; i < count && !err; i++)
			err = sum_row(vals + (size_t)i * ncpu, ncpu, keys + i * key_size, max_mask, fn,
				      ctx);
		if (ret || err)		/* ENOENT: that was the last batch */
			break;
		in = out;
		first = false;
	}
	free(keys);
	free(vals);
	return err;
}

int rs_collector_rows(const struct rs_collector *c, const char *map_name, size_t key_size,
		      rs_row_fn fn, void *ctx)
{
	return rs_collector_rows_max(c, map_name, key_size, 0, fn, ctx);
}

int rs_collector_rows_max(const struct rs_collector *c, const char *map_name, size_t key_size,
			  uint32_t max_mask, rs_row_fn fn, void *ctx)
{
	struct bpf_map *map = c->obj ? bpf_object__find_map_by_name(c->obj, map_name) : NULL;
	int ncpu = libbpf_num_possible_cpus(), fd, err;
	char key[64], next[64];
	bool have_prev = false;
	struct rs_total_val *vals;

	if (!map || key_size > sizeof(key))
		return -ENOENT;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	fd = bpf_map__fd(map);
	err = rows_batched(fd, key_size, ncpu, max_mask, fn, ctx);
	if (err != 1)
		return err;
	err = 0;
	/* Per-CPU values are laid out at 8-byte strides; the value is a multiple of 8. */
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, have_prev ? key : NULL, next)) {
		memcpy(key, next, key_size);
		have_prev = true;
		/* A row may be deleted between the two calls: skip it. */
		if (bpf_map_lookup_elem(fd, key, vals))
			continue;
		err = sum_row(vals, ncpu, key, max_mask, fn, ctx);
		if (err)
			break;
	}
	free(vals);
	return err;
}

/* index_map's keys and their slots (at most max of them), by batches where the kernel has them. */
static int read_index(int fd, size_t key_size, uint32_t max, char *keys, uint32_t *slots, uint32_t *nr)
{
	__u32 in = 0, out = 0, count;
	char prev[64];
	bool first = true;
	int ret;

	*nr = 0;
	for (;;) {
		count = max - *nr;
		if (!count)
			return 0;
		ret = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys + *nr * key_size, slots + *nr,
					   &count, NULL);
		if (ret && errno != ENOENT) {
			if (first && batch_unsupported(errno))
				break;
			return -errno;
		}
		*nr += count;
		if (ret)
			return 0;
		in = out;
		first = false;
	}
	/* Key by key: a key deleted between the two calls is skipped. */
	while (*nr < max && !bpf_map_get_next_key(fd, first ? NULL : prev, keys + *nr * key_size)) {
		first = false;
		memcpy(prev, keys + *nr * key_size, key_size);
		if (!bpf_map_lookup_elem(fd, prev, slots + *nr))
			(*nr)++;
	}
	return 0;
}

int rs_collector_hot_rows(const struct rs_collector *c, const char *hot_map, size_t key_size,
			  uint32_t max_mask, rs_row_fn fn, void *ctx)
{
	struct bpf_map *rows = c->obj ? bpf_object__find_map_by_name(c->obj, hot_map) : NULL;
	int ncpu = libbpf_num_possible_cpus(), err;
	struct rs_total_val *vals = NULL;
	uint32_t max, nr, *slots = NULL;
	struct bpf_map *index = NULL;
	char *keys = NULL, name[64];

	if (snprintf(name, sizeof(name), "%s_index", hot_map) < (int)sizeof(name) && c->obj)
		index = bpf_object__find_map_by_name(c->obj, name);
	if (!index || !rows || key_size > 64)
		return -ENOENT;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	max = bpf_map__max_entries(index);
	keys = calloc(max, key_size);
	slots = calloc(max, sizeof(*slots));
	vals = calloc(ncpu, sizeof(*vals));
	err = keys && slots && vals ? 0 : -ENOMEM;
	if (!err)
		err = read_index(bpf_map__fd(index), key_size, max, keys, slots, &nr);
	/* One slot a row: the index holds at most a few hundred in use. */
	for (uint32_t i = 0; !err && i < nr; i++) {
		if (slots[i] >= bpf_map__max_entries(rows))
			continue;
		if (bpf_map_lookup_elem(bpf_map__fd(rows), &slots[i], vals))
			err = -errno;
		else
			err = sum_row(vals, ncpu, keys + (size_t)i * key_size, max_mask, fn, ctx);
	}
	free(keys);
	free(slots);
	free(vals);
	return err;
}

struct totals_walk {
	rs_total_fn fn;
	void *ctx;
};

static int total_row(void *ctx, const void *key, const struct rs_total_val *val)
{
	struct totals_walk *w = ctx;

	return w->fn(w->ctx, key, val);
}

int rs_collector_totals(const struct rs_collector *c, rs_total_fn fn, void *ctx)
{
	struct totals_walk w = { fn, ctx };

	return rs_collector_rows(c, "totals", sizeof(struct rs_total_key), total_row, &w);
}
