// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

/* Every text symbol's start bounds the function before it; tagged ones say why. */
struct ksym {
	uint64_t addr;
	uint8_t tag;
	uint8_t rank;		/* index of the tag in the load-time array */
};

struct rs_ksyms {
	struct ksym *syms;
	size_t n;
	const struct rs_ksym_tag *tags;
	size_t nr_tags;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int rs_ksyms_load(const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int err;

	*out = NULL;
	if (!f)
		return -errno;
	err = rs_ksyms_parse(f, tags, nr_tags, out);
	fclose(f);
	return err;
}

int rs_ksyms_parse(FILE *f, const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out)
{
	struct rs_ksyms *ks = calloc(1, sizeof(*ks));
	char line[512];
	size_t cap = 0;

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	ks->tags = tags;
	ks->nr_tags = nr_tags;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    (type != 't' && type != 'T'))
			continue;
		if (ks->n == cap) {
			struct ksym *n;

			cap = cap ? cap * 2 : 65536;
			n = realloc(ks->syms, cap * sizeof(*n));
			if (!n) {
				rs_ksyms_free(ks);
				return -ENOMEM;
			}
			ks->syms = n;
		}
		ks->syms[ks->n] = (struct ksym){ addr, 0, 0 };
		for (size_t i = 0; i < nr_tags; i++) {
			if (!strcmp(name, tags[i].name)) {
				ks->syms[ks->n].tag = tags[i].tag;
				ks->syms[ks->n].rank = (uint8_t)i;
			}
		}
		ks->n++;
	}
	if (!ks->n) {
		/* kptr_restrict hides addresses from us: every stack reads as unknown. */
		rs_ksyms_free(ks);
		return -EPERM;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_ksym);
	*out = ks;
	return 0;
}

void rs_ksyms_free(struct rs_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks);
}

static const struct ksym *find(const struct rs_ksyms *ks, uint64_t ip)
{
	size_t lo = 0, hi = ks ? ks->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &ks->syms[lo - 1] : NULL;
}

uint8_t rs_ksyms_tag(const struct rs_ksyms *ks, uint64_t ip)
{
	const struct ksym *s = find(ks, ip);

	return s ? s->tag : 0;
}

uint8_t rs_ksyms_stack_tag(const struct rs_ksyms *ks, const __u64 *ips, unsigned int n)
{
	const struct ksym *best = NULL;

	for (unsigned int i = 0; i < n; i++) {
		const struct ksym *s = find(ks, ips[i]);

		if (s && s->tag && (!best || s->rank < best->rank))
			best = s;
	}
	return best ? best->tag : 0;
}

int rs_ksyms_range(const struct rs_ksyms *ks, const char *name, uint64_t *start, uint64_t *end)
{
	for (size_t i = 0; ks && i < ks->nr_tags; i++) {
		if (strcmp(ks->tags[i].name, name))
			continue;
		for (size_t j = 0; j < ks->n; j++) {
			if (ks->syms[j].tag == ks->tags[i].tag && ks->syms[j].rank == i) {
				*start = ks->syms[j].addr;
				*end = j + 1 < ks->n ? ks->syms[j + 1].addr : *start + 1;
				return 0;
			}
		}
	}
	return -ENOENT;
}
