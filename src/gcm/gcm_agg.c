// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per process × library × direction × key size rows of GCM records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gcm.h"

/*
 * Percentiles come from a finer histogram than the printed one: each power
 * of two is split in RS_GCM_FINE_SUB linear steps (the kernel's histograms
 * use the same slots), so p50/p99 are within 1/16.
 */
#define FINE_SUB RS_GCM_FINE_SUB
#define FINE_SLOTS ((RINGSIDE_HIST_SLOTS + 1) * FINE_SUB)

struct agg_row {
	struct ringside_gcm_row r;
	uint64_t fine[FINE_SLOTS];
};

struct ringside_gcm_agg {
	struct agg_row **rows;
	size_t nr, cap;
	struct agg_row *last;	/* the previous record's row: a flood is mostly one */
};

unsigned int ringside_hist_slot(uint64_t v)
{
	return v ? 64 - (unsigned int)__builtin_clzll(v) : 0;
}

/*
 * Values below 16 are exact; above, the 4 bits below the leading one pick
 * the step within [2^(s-1), 2^s).
 */
static unsigned int fine_slot(uint64_t v)
{
	unsigned int s = ringside_hist_slot(v);

	return RS_GCM_FINE_SLOT(v, s);
}

/* The printed (log2) slot a fine slot lies in. */
static unsigned int fine_to_slot(unsigned int fine)
{
	return fine < FINE_SUB ? ringside_hist_slot(fine) : fine / FINE_SUB;
}

/* The smallest value of a fine slot's range, scaled up to its middle. */
static uint64_t fine_value(unsigned int slot)
{
	unsigned int s = slot / FINE_SUB, sub = slot % FINE_SUB;
	uint64_t lo, step;

	if (s <= 1 && slot < 16)
		return slot;
	lo = (1ULL << (s - 1)) + ((uint64_t)sub << (s - 5));
	step = 1ULL << (s - 5);
	return lo + step / 2;
}

struct ringside_gcm_agg *ringside_gcm_agg_new(void)
{
	return calloc(1, sizeof(struct ringside_gcm_agg));
}

void ringside_gcm_agg_reset(struct ringside_gcm_agg *agg)
{
	for (size_t i = 0; i < agg->nr; i++)
		free(agg->rows[i]);
	agg->nr = 0;
	agg->last = NULL;
}

void ringside_gcm_agg_free(struct ringside_gcm_agg *agg)
{
	if (!agg)
		return;
	ringside_gcm_agg_reset(agg);
	free(agg->rows);
	free(agg);
}

static int row_cmp(const struct ringside_gcm_row *a, const struct ringside_gcm_row *b)
{
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->lib_id != b->lib_id)
		return a->lib_id < b->lib_id ? -1 : 1;
	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	return (int)a->key_bits - (int)b->key_bits;
}

/* Rows are kept sorted; binary search finds the row or where it goes. */
static size_t find_row(const struct ringside_gcm_agg *agg, const struct ringside_gcm_row *key,
		       bool *found)
{
	size_t lo = 0, hi = agg->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = row_cmp(&agg->rows[mid]->r, key);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* The row of key (tgid, lib_id, dir, key_bits), added when missing; NULL: no memory. */
static struct agg_row *row_of(struct ringside_gcm_agg *agg, const struct ringside_gcm_row *key)
{
	struct agg_row *row;
	bool found;
	size_t at = find_row(agg, key, &found);

	if (found)
		return agg->rows[at];
	if (agg->nr == agg->cap) {
		size_t cap = agg->cap ? agg->cap * 2 : 16;
		struct agg_row **rows = realloc(agg->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		agg->rows = rows;
		agg->cap = cap;
	}
	row = calloc(1, sizeof(*row));
	if (!row)
		return NULL;
	row->r = *key;
	memmove(&agg->rows[at + 1], &agg->rows[at], (agg->nr - at) * sizeof(*agg->rows));
	agg->rows[at] = row;
	agg->nr++;
	return row;
}

int ringside_gcm_agg_add(struct ringside_gcm_agg *agg, const struct rs_event_hdr *ev, size_t size)
{
	const struct rs_gcm_event *g = (const void *)ev;
	struct agg_row *row = agg->last;

	if (ev->type != RS_EV_GCM_OP || size < sizeof(*g))
		return 0;
	/* Identified as row_cmp() does; the key, a kilobyte with its histograms, only on a change. */
	if (!row || row->r.tgid != ev->tgid || row->r.lib_id != g->lib_id || row->r.dir != g->dir ||
	    row->r.key_bits != g->key_bits) {
		struct ringside_gcm_row key = {0};

		key.tgid = ev->tgid;
		key.lib_id = g->lib_id;
		key.dir = g->dir;
		key.key_bits = g->key_bits;
		key.lib = g->lib;
		row = row_of(agg, &key);
		if (!row)
			return -ENOMEM;
		agg->last = row;
	}
	memcpy(row->r.comm, ev->comm, sizeof(row->r.comm));
	row->r.events++;
	row->r.ops++;
	row->r.aad_bytes += g->aad_bytes;
	row->r.payload_bytes += g->payload_bytes;
	row->r.tag_failures += g->result == RS_GCM_TAG_FAIL;
	row->r.errors += g->result == RS_GCM_ERROR;
	row->r.unchecked += g->result == RS_GCM_UNCHECKED;
	row->r.lat_sum_ns += g->latency_ns;
	if (g->latency_ns > row->r.lat_max_ns)
		row->r.lat_max_ns = g->latency_ns;
	row->r.size_hist.slot[ringside_hist_slot(g->payload_bytes)]++;
	row->r.lat_hist.slot[ringside_hist_slot(g->latency_ns)]++;
	row->fine[fine_slot(g->latency_ns)]++;
	return 0;
}

/* The task's name, for a row that no record named (all its records were lost). */
static void comm_from_proc(uint32_t tgid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, (int)len, f))
		snprintf(comm, len, "?");
	else
		comm[strcspn(comm, "\n")] = '\0';
	if (f)
		fclose(f);
}

int ringside_gcm_agg_set_total(struct ringside_gcm_agg *agg, const struct ringside_gcm_total *t,
			       const struct ringside_gcm_agg *base)
{
	struct ringside_gcm_row key = { .tgid = t->tgid, .lib_id = t->lib_id, .lib = t->lib,
					.dir = t->dir, .key_bits = t->key_bits };
	struct ringside_gcm_row prev = { 0 };
	struct agg_row *row;
	bool found;

	if (base) {
		size_t at = find_row(base, &key, &found);

		if (found)
			prev = base->rows[at]->r;
	}
	/* A row from an earlier interval with nothing new: leave it out. */
	if (base && t->ops == prev.ops) {
		find_row(agg, &key, &found);
		if (!found)
			return 0;
	}
	row = row_of(agg, &key);
	if (!row)
		return -ENOMEM;
	if (!row->r.comm[0] && t->comm[0])
		memcpy(row->r.comm, t->comm, sizeof(row->r.comm));
	if (!row->r.comm[0])
		comm_from_proc(t->tgid, row->r.comm, sizeof(row->r.comm));
	row->r.ops = t->ops - prev.ops;
	row->r.aad_bytes = t->aad_bytes - prev.aad_bytes;
	row->r.payload_bytes = t->payload_bytes - prev.payload_bytes;
	row->r.tag_failures = t->tag_failures - prev.tag_failures;
	row->r.errors = t->errors - prev.errors;
	row->r.unchecked = t->unchecked - prev.unchecked;
	row->r.lat_sum_ns = t->lat_sum_ns - prev.lat_sum_ns;
	return 0;
}

int ringside_gcm_agg_set_hist(struct ringside_gcm_agg *agg, const struct ringside_gcm_hist_slot *h,
			      const struct ringside_gcm_agg *base)
{
	struct ringside_gcm_row key = { .tgid = h->tgid, .lib_id = h->lib_id, .lib = h->lib,
					.dir = h->dir, .key_bits = h->key_bits };
	bool latency = h->kind == RS_GCM_HIST_LATENCY;
	uint64_t prev = 0, want, *cell;
	struct agg_row *row;
	bool found;

	if (latency ? h->slot >= FINE_SLOTS : h->slot >= RINGSIDE_HIST_SLOTS)
		return 0;
	if (base) {
		size_t at = find_row(base, &key, &found);

		if (found)
			prev = latency ? base->rows[at]->fine[h->slot] :
					 base->rows[at]->r.size_hist.slot[h->slot];
	}
	want = h->count - prev;
	find_row(agg, &key, &found);
	if (!want && !h->max_ns && !found)
		return 0;	/* nothing new, in a row nothing else added */
	row = row_of(agg, &key);
	if (!row)
		return -ENOMEM;
	if (!latency) {
		row->r.size_hist.slot[h->slot] = want;
		return 0;
	}
	/* Not cumulative: the slot's longest message since the last read. */
	if (h->max_ns > row->r.lat_max_ns)
		row->r.lat_max_ns = h->max_ns;
	cell = &row->fine[h->slot];
	row->r.events += want - *cell;
	if (fine_to_slot(h->slot) < RINGSIDE_HIST_SLOTS)
		row->r.lat_hist.slot[fine_to_slot(h->slot)] += want - *cell;
	*cell = want;
	return 0;
}

static uint64_t percentile(const struct agg_row *row, unsigned int pct)
{
	uint64_t want = (row->r.events * pct + 99) / 100, seen = 0;

	for (unsigned int i = 0; i < FINE_SLOTS; i++) {
		seen += row->fine[i];
		if (seen >= want && row->fine[i]) {
			uint64_t v = fine_value(i);

			return v > row->r.lat_max_ns ? row->r.lat_max_ns : v;
		}
	}
	return row->r.lat_max_ns;
}

int ringside_gcm_agg_foreach(struct ringside_gcm_agg *agg,
			     int (*fn)(void *ctx, const struct ringside_gcm_row *row), void *ctx)
{
	for (size_t i = 0; i < agg->nr; i++) {
		struct agg_row *row = agg->rows[i];
		int ret;

		row->r.lat_p50_ns = percentile(row, 50);
		row->r.lat_p99_ns = percentile(row, 99);
		ret = fn(ctx, &row->r);
		if (ret)
			return ret;
	}
	return 0;
}

void ringside_hist_print(const struct ringside_hist *h, const char *unit, FILE *out)
{
	unsigned int first = RINGSIDE_HIST_SLOTS, last = 0;
	uint64_t max = 0;

	for (unsigned int i = 0; i < RINGSIDE_HIST_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		if (first == RINGSIDE_HIST_SLOTS)
			first = i;
		last = i;
		if (h->slot[i] > max)
			max = h->slot[i];
	}
	if (!max)
		return;
	fprintf(out, "%24s : %-10s |%-40s|\n", unit, "count", "distribution");
	for (unsigned int i = first; i <= last; i++) {
		uint64_t lo = i ? 1ULL << (i - 1) : 0, hi = i ? (1ULL << i) - 1 : 0;
		char range[32], bar[41];
		unsigned int n = (unsigned int)(h->slot[i] * 40 / max);

		snprintf(range, sizeof(range), "%llu -> %llu", (unsigned long long)lo,
			 (unsigned long long)hi);
		memset(bar, '*', n);
		bar[n] = '\0';
		fprintf(out, "%24s : %-10llu |%-40s|\n", range, (unsigned long long)h->slot[i], bar);
	}
}

void ringside_hist_json(const struct ringside_hist *h, struct ringside_json *j, const char *key)
{
	ringside_json_array(j, key);
	for (unsigned int i = 0; i < RINGSIDE_HIST_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		ringside_json_object(j, NULL);
		ringside_json_u64(j, "lo", i ? 1ULL << (i - 1) : 0ULL);
		ringside_json_u64(j, "hi", i ? (1ULL << i) - 1 : 0ULL);
		ringside_json_u64(j, "count", h->slot[i]);
		ringside_json_close(j);
	}
	ringside_json_close(j);
}
