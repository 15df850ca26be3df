// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

/*
 * Only the tagged functions are kept, each with its end: the lowest text
 * symbol above its start, found once the whole file is read. (Keeping every
 * text symbol for lookups cost megabytes for a dozen functions.)
 */
struct rs_ksyms {
	struct rs_ksym_range *ranges;	/* sorted by rank, then start */
	size_t n;
	const struct rs_ksym_tag *tags;
	size_t nr_tags;
	struct rs_ksyms_loader *loader;	/* NULL when parsed on the caller's thread */
};

/*
 * The kernel takes ~40 ms to format /proc/kallsyms (121,000 lines, 4 KiB per
 * read), most of a tracer's start-up. The ranges are needed only when the
 * first record is decoded, so rs_ksyms_load() reads the file on a thread
 * and the first lookup waits for it.
 */
struct rs_ksyms_loader {
	pthread_mutex_t lock;
	pthread_t thread;
	bool joined;
	int err;
};

static int cmp_range(const void *a, const void *b)
{
	const struct rs_ksym_range *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int parse_into(FILE *f, struct rs_ksyms *ks);

static void *load_thread(void *arg)
{
	struct rs_ksyms *ks = arg;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f) {
		ks->loader->err = -errno;
		return NULL;
	}
	ks->loader->err = parse_into(f, ks);
	fclose(f);
	return NULL;
}

/*
 * Addresses are shown to us (kptr_restrict) when one is not zero among the
 * first lines: per-CPU symbols at 0 open the file on many kernels.
 */
static int addresses_visible(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int err = -EPERM;

	if (!f)
		return -errno;
	for (int i = 0; i < 256 && err && fgets(line, sizeof(line), f); i++)
		if (strtoull(line, NULL, 16))
			err = 0;
	fclose(f);
	return err;
}

int rs_ksyms_load(const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out)
{
	struct rs_ksyms *ks;
	int err;

	*out = NULL;
	/* What can fail for want of rights fails here, not on the thread. */
	err = addresses_visible();
	if (err)
		return err;
	ks = calloc(1, sizeof(*ks));
	if (ks)
		ks->loader = calloc(1, sizeof(*ks->loader));
	if (!ks || !ks->loader) {
		free(ks);
		return -ENOMEM;
	}
	ks->tags = tags;
	ks->nr_tags = nr_tags;
	pthread_mutex_init(&ks->loader->lock, NULL);
	err = -pthread_create(&ks->loader->thread, NULL, load_thread, ks);
	if (err) {
		pthread_mutex_destroy(&ks->loader->lock);
		free(ks->loader);
		free(ks);
		return err;
	}
	*out = ks;
	return 0;
}

int rs_ksyms_wait(const struct rs_ksyms *ks)
{
	struct rs_ksyms_loader *l = ks ? ks->loader : NULL;
	int err;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	if (!l->joined) {
		pthread_join(l->thread, NULL);
		l->joined = true;
	}
	err = l->err;
	pthread_mutex_unlock(&l->lock);
	return err;
}

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]"; false for anything else. */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *end, *p;

	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	p = end + 3;
	p[strcspn(p, " \t\n")] = '\0';
	*name = p;
	return *p != '\0';
}

/* Room for one more element of size sz in *arr (cap elements now). */
static bool grow(void **arr, size_t n, size_t *cap, size_t sz)
{
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*arr, (*cap ? *cap * 2 : 16) * sz);
	if (!p)
		return false;
	*arr = p;
	*cap = *cap ? *cap * 2 : 16;
	return true;
}

int rs_ksyms_parse(FILE *f, const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out)
{
	struct rs_ksyms *ks = calloc(1, sizeof(*ks));
	int err;

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	ks->tags = tags;
	ks->nr_tags = nr_tags;
	err = parse_into(f, ks);
	if (err) {
		rs_ksyms_free(ks);
		return err;
	}
	*out = ks;
	return 0;
}

/* Fill ks's ranges for its tags from kallsyms text; on error it holds none. */
static int parse_into(FILE *f, struct rs_ksyms *ks)
{
	const struct rs_ksym_tag *tags = ks->tags;
	size_t nr_tags = ks->nr_tags;
	/* Every text address, only while parsing: module symbols are not in
	 * address order, so an end is known only once all have been read. */
	uint64_t *addrs = NULL;
	size_t nr_addrs = 0, cap_addrs = 0, cap = 0;
	char line[512];
	int err = -EPERM;

	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, *name;

		if (!parse_line(line, &addr, &type, &name) || !addr || (type != 't' && type != 'T'))
			continue;
		if (!grow((void **)&addrs, nr_addrs, &cap_addrs, sizeof(*addrs)))
			goto nomem;
		addrs[nr_addrs++] = addr;
		for (size_t i = 0; i < nr_tags && i <= UINT8_MAX; i++) {
			if (strcmp(name, tags[i].name))
				continue;
			if (!grow((void **)&ks->ranges, ks->n, &cap, sizeof(*ks->ranges)))
				goto nomem;
			ks->ranges[ks->n++] = (struct rs_ksym_range){ addr, UINT64_MAX, tags[i].tag,
								      (uint8_t)i };
		}
	}
	if (!nr_addrs) {
		/* kptr_restrict hides addresses from us: every stack reads as unknown. */
		free(addrs);
		goto fail;
	}
	/* A function ends where the nearest text symbol above its start begins. */
	for (size_t i = 0; i < nr_addrs; i++)
		for (size_t r = 0; r < ks->n; r++)
			if (addrs[i] > ks->ranges[r].start && addrs[i] < ks->ranges[r].end)
				ks->ranges[r].end = addrs[i];
	free(addrs);
	if (ks->n)
		qsort(ks->ranges, ks->n, sizeof(*ks->ranges), cmp_range);
	return 0;
nomem:
	free(addrs);
	err = -ENOMEM;
fail:
	free(ks->ranges);
	ks->ranges = NULL;
	ks->n = 0;
	return err;
}

void rs_ksyms_free(struct rs_ksyms *ks)
{
	if (!ks)
		return;
	rs_ksyms_wait(ks);
	if (ks->loader)
		pthread_mutex_destroy(&ks->loader->lock);
	free(ks->loader);
	free(ks->ranges);
	free(ks);
}

/* With the load settled: the best-ranked range holding ip, or NULL. */
static const struct rs_ksym_range *find(const struct rs_ksyms *ks, uint64_t ip)
{
	for (size_t i = 0; ks && i < ks->n; i++)
		if (ip >= ks->ranges[i].start && ip < ks->ranges[i].end)
			return &ks->ranges[i];
	return NULL;
}

uint8_t rs_ksyms_tag(const struct rs_ksyms *ks, uint64_t ip)
{
	const struct rs_ksym_range *r;

	rs_ksyms_wait(ks);
	r = find(ks, ip);
	return r ? r->tag : 0;
}

uint8_t rs_ksyms_stack_tag(const struct rs_ksyms *ks, const __u64 *ips, unsigned int n)
{
	const struct rs_ksym_range *best = NULL;

	rs_ksyms_wait(ks);
	for (unsigned int i = 0; i < n; i++) {
		const struct rs_ksym_range *r = find(ks, ips[i]);

		if (r && (!best || r->rank < best->rank))
			best = r;
	}
	return best ? best->tag : 0;
}

const struct rs_ksym_range *rs_ksyms_ranges(const struct rs_ksyms *ks, size_t *n)
{
	rs_ksyms_wait(ks);
	*n = ks ? ks->n : 0;
	return ks ? ks->ranges : NULL;
}
