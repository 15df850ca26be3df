// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kallsyms: tagged functions' ranges end at the nearest text symbol above, in any order. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "ksym_lookup.h"
#include "ksyms_iter.h"
#include "unit.h"

static const struct rs_ksym_tag tags[] = {
	{ "memory_reclaim", 1 }, { "try_charge_memcg", 5 }, { "btrfs_balance", 9 },
};

static struct rs_ksyms *parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct rs_ksyms *ks = NULL;

	if (f) {
		CHECK_EQ_INT(rs_ksyms_parse(f, tags, 3, &ks), 0);
		fclose(f);
	}
	return ks;
}

/* [start, end) of the first function tagged with rank (its index in tags[]); -1 when absent. */
static int range_of(const struct rs_ksyms *ks, unsigned int rank, uint64_t *start, uint64_t *end)
{
	size_t n;
	const struct rs_ksym_range *r = rs_ksyms_ranges(ks, &n);

	for (size_t i = 0; i < n; i++) {
		if (r[i].rank == rank) {
			*start = r[i].start;
			*end = r[i].end;
			return 0;
		}
	}
	return -1;
}

static void ends_at_next_text_symbol(void)
{
	/* Module symbols come in their symtab's order: the end of btrfs_balance
	 * (…a000) is a symbol listed before it; data symbols do not end it. */
	struct rs_ksyms *ks = parse("ffffffff81001000 T try_charge_memcg\n"
				    "ffffffff81001080 d some_data\n"
				    "ffffffff81001100 t next_fn\n"
				    "ffffffff81002000 T memory_reclaim\n"
				    "ffffffff81002400 T after_reclaim\n"
				    "ffffffffc000b000 t btrfs_later\t[btrfs]\n"
				    "ffffffffc000a000 t btrfs_end\t[btrfs]\n"
				    "ffffffffc0009000 T btrfs_balance\t[btrfs]\n");
	uint64_t start, end;
	size_t n;
	const struct rs_ksym_range *r = rs_ksyms_ranges(ks, &n);

	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(r[0].rank, 0);	/* best rank first */
	CHECK_EQ_INT(range_of(ks, 1 /* try_charge_memcg */, &start, &end), 0);
	CHECK_EQ_INT(start, 0xffffffff81001000ULL);
	CHECK_EQ_INT(end, 0xffffffff81001100ULL);
	CHECK_EQ_INT(range_of(ks, 2 /* btrfs_balance */, &start, &end), 0);
	CHECK_EQ_INT(end, 0xffffffffc000a000ULL);
	CHECK_EQ_INT(rs_ksyms_tag(ks, 0xffffffffc0009fffULL), 9);
	CHECK_EQ_INT(rs_ksyms_tag(ks, 0xffffffffc000a000ULL), 0);
	CHECK_EQ_INT(rs_ksyms_tag(ks, 0xffffffff81001090ULL), 5);	/* past data, before next_fn */
	CHECK_EQ_INT(rs_ksyms_tag(ks, 0xffffffff81001100ULL), 0);
	{
		/* Both on one stack: memory_reclaim ranks first. */
		const __u64 stack[] = { 0xffffffff81001010ULL, 0xffffffff81002010ULL, 0 };

		CHECK_EQ_INT(rs_ksyms_stack_tag(ks, stack, 3), 1);
	}
	CHECK(range_of(ks, 3 /* untagged: no range */, &start, &end) < 0);
	rs_ksyms_free(ks);
}

static void hidden_addresses_refused(void)
{
	const char *text = "0000000000000000 T memory_reclaim\n0000000000000000 t kswapd\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct rs_ksyms *ks = NULL;

	CHECK_EQ_INT(rs_ksyms_parse(f, tags, 3, &ks), -1 /* -EPERM */);
	CHECK(ks == NULL);
	fclose(f);
}

/*
 * The running kernel's file, read on a started thread and, without a start,
 * by the first lookup: the same ranges either way, each a plausible function.
 */
static void kernel_read_with_and_without_start(void)
{
	static const struct rs_ksym_tag kernel_tags[] = {
		{ "kswapd", 1 }, { "try_to_free_pages", 2 },
	};
	struct rs_ksyms *started = NULL, *lazy = NULL;
	const struct rs_ksym_range *a, *b = NULL;
	size_t na, nb;

	if (rs_ksyms_load(kernel_tags, 2, &started)) {
		printf("  (kallsyms addresses hidden: nothing to compare)\n");
		return;
	}
	CHECK_EQ_INT(rs_ksyms_load(kernel_tags, 2, &lazy), 0);
	CHECK(!rs_ksyms_ready(lazy));	/* a wait would read on the caller's thread */
	rs_ksyms_start(started);
	rs_ksyms_start(started);	/* a second start is a no-op */
	CHECK_EQ_INT(rs_ksyms_wait(started), 0);
	CHECK(rs_ksyms_ready(started));
	CHECK_EQ_INT(rs_ksyms_wait(lazy), 0);
	CHECK(rs_ksyms_ready(lazy));
	a = rs_ksyms_ranges(started, &na);
	b = rs_ksyms_ranges(lazy, &nb);
	CHECK(na >= 2);
	CHECK_EQ_INT((long)na, (long)nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		CHECK(a[i].start == b[i].start && a[i].end == b[i].end && a[i].tag == b[i].tag);
		CHECK(a[i].end > a[i].start && a[i].end - a[i].start < (1u << 20));
	}
	CHECK_EQ_INT(rs_ksyms_tag(lazy, b[0].start), b[0].tag);
	rs_ksyms_free(started);
	rs_ksyms_free(lazy);
}

static int count_tagged(void *arg, uint64_t start, uint64_t size, int rank)
{
	size_t *counts = arg;

	counts[1] += rank >= 0;
	return start && size ? 0 : -EINVAL;
}

/*
 * The BPF iterator's walk (ksyms_iter.h) and the text file give the same
 * ranges: a load reads through the iterator where it can; the text parse
 * of /proc/kallsyms is compared with it, range for range.
 */
static void iterator_and_text_agree(void)
{
	static const struct rs_ksym_tag kernel_tags[] = {
		{ "kswapd", 1 }, { "try_to_free_pages", 2 }, { "balance_pgdat", 3 },
		{ "no_such_function_here", 4 },
	};
	struct rs_ksyms *by_iter = NULL, *by_text = NULL;
	const struct rs_ksym_range *a, *b = NULL;
	size_t na = 0, nb = 0, counts[2] = { 0, 0 };
	FILE *f;
	int err;

	if (geteuid() != 0 || rs_ksyms_load(kernel_tags, 4, &by_iter)) {
		printf("SKIP %s: needs root and visible kallsyms addresses\n", unit_.name);
		unit_.failed = -1;
		return;
	}
	err = rs_ksyms_iter_walk(kernel_tags, 4, count_tagged, counts, NULL, &counts[0]);
	if (err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP) {
		printf("SKIP %s: no ksym iterator here (%d)\n", unit_.name, err);
		unit_.failed = -1;
		rs_ksyms_free(by_iter);
		return;
	}
	CHECK_EQ_INT(err, 0);
	CHECK(counts[0] > 1000 && counts[1] >= 3);
	f = fopen("/proc/kallsyms", "re");
	CHECK(f && !rs_ksyms_parse(f, kernel_tags, 4, &by_text));
	if (f)
		fclose(f);
	CHECK_EQ_INT(rs_ksyms_wait(by_iter), 0);
	a = rs_ksyms_ranges(by_iter, &na);
	if (by_text)
		b = rs_ksyms_ranges(by_text, &nb);
	CHECK(na >= 3);
	CHECK_EQ_INT((long)na, (long)nb);
	for (size_t i = 0; by_text && i < na && i < nb; i++)
		CHECK(a[i].start == b[i].start && a[i].end == b[i].end && a[i].tag == b[i].tag &&
		      a[i].rank == b[i].rank);
	printf("  %zu text symbols walked, %zu tagged; %zu ranges either way\n", counts[0], counts[1], na);
	rs_ksyms_free(by_iter);
	rs_ksyms_free(by_text);
}

/*
 * More tags than the iterator compares (RS_KSYMS_ITER_TAGS): the iterator
 * refuses them and the text file is read instead, with the same answer for
 * the tags both know.
 */
static void too_many_tags_for_the_iterator(void)
{
	static const struct rs_ksym_tag many[RS_KSYMS_ITER_TAGS + 1] = {
		{ "kswapd", 1 }, { "try_to_free_pages", 2 },
		[2 ... RS_KSYMS_ITER_TAGS] = { "no_such_function_here", 3 },
	};
	static const struct rs_ksym_tag two[] = { { "kswapd", 1 }, { "try_to_free_pages", 2 } };
	struct rs_ksyms *by_text = NULL, *by_iter = NULL;
	const struct rs_ksym_range *a, *b;
	size_t na = 0, nb = 0;

	if (geteuid() != 0 || rs_ksyms_load(many, RS_KSYMS_ITER_TAGS + 1, &by_text)) {
		printf("SKIP %s: needs root and visible kallsyms addresses\n", unit_.name);
		unit_.failed = -1;
		return;
	}
	CHECK_EQ_INT(rs_ksyms_iter_walk(many, RS_KSYMS_ITER_TAGS + 1, count_tagged, (size_t[2]){ 0 }, NULL,
					&nb), -E2BIG);
	CHECK_EQ_INT(rs_ksyms_load(two, 2, &by_iter), 0);
	CHECK_EQ_INT(rs_ksyms_wait(by_text), 0);
	CHECK_EQ_INT(rs_ksyms_wait(by_iter), 0);
	a = rs_ksyms_ranges(by_text, &na);
	b = by_iter ? rs_ksyms_ranges(by_iter, &nb) : NULL;
	CHECK(na >= 2);
	CHECK_EQ_INT((long)na, (long)nb);
	for (size_t i = 0; b && i < na && i < nb; i++)
		CHECK(a[i].start == b[i].start && a[i].end == b[i].end && a[i].tag == b[i].tag);
	rs_ksyms_free(by_text);
	rs_ksyms_free(by_iter);
}

/* The first text name /proc/kallsyms lists twice in vmlinux (static functions of one name), into name. */
static int twice_listed_name(char *name, size_t size)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], prev[RS_KSYM_LOOKUP_NAME] = "";
	int found = -1;
	struct seen { char name[RS_KSYM_LOOKUP_NAME]; } *seen = NULL;
	size_t n = 0;

	/* Names are not sorted in the file: keep the text names, then look for a repeat. */
	while (f && fgets(line, sizeof(line), f)) {
		char type, sym[RS_KSYM_LOOKUP_NAME + 1];
		unsigned long long addr;

		if (strchr(line, '[') || sscanf(line, "%llx %c %64s", &addr, &type, sym) != 3 ||
		    (type != 't' && type != 'T') || strlen(sym) >= RS_KSYM_LOOKUP_NAME || strchr(sym, '.'))
			continue;
		if (n % 4096 == 0) {
			struct seen *p = realloc(seen, (n + 4096) * sizeof(*seen));

			if (!p)
				break;
			seen = p;
		}
		strcpy(seen[n++].name, sym);
	}
	if (f)
		fclose(f);
	qsort(seen, n, sizeof(*seen), (int (*)(const void *, const void *))strcmp);
	for (size_t i = 0; i < n && found; i++) {
		if (!strcmp(seen[i].name, prev)) {
			snprintf(name, size, "%s", prev);
			found = 0;
		}
		snprintf(prev, sizeof(prev), "%s", seen[i].name);
	}
	free(seen);
	return found;
}

/*
 * The kernel's own lookup (ksym_lookup.h) gives, for each name, the range
 * the walk gives for its first function, end included; for a name that is
 * several static functions the walk finds them all, the lookup one of them.
 */
static void lookup_agrees_with_walk(void)
{
	struct rs_ksym_tag kernel_tags[] = {
		{ "memory_reclaim", 1 }, { "try_charge_memcg", 2 }, { "kswapd", 3 },
		{ "balance_pgdat", 4 }, { "try_to_free_pages", 5 }, { "no_such_function_here", 6 },
		{ NULL, 7 },
	};
	struct rs_ksym_range quick[RS_KSYM_LOOKUP_MAX];
	char twice[RS_KSYM_LOOKUP_NAME];
	struct rs_ksyms *walked = NULL;
	const struct rs_ksym_range *w;
	size_t nq = 0, nw = 0, dup_walked = 0, dup_quick = 0;
	int err;

	if (geteuid() != 0 || twice_listed_name(twice, sizeof(twice)) ||
	    rs_ksyms_load(kernel_tags, 0, &walked)) {
		printf("SKIP %s: needs root, visible kallsyms addresses and a name listed twice\n",
		       unit_.name);
		unit_.failed = -1;
		return;
	}
	rs_ksyms_free(walked);
	kernel_tags[6].name = twice;
	err = rs_ksym_lookup_first(kernel_tags, 7, quick, &nq);
	if (err == -EINVAL || err == -EPERM || err == -ENOENT) {
		printf("SKIP %s: no BPF syscall program or kallsyms lookup here (%d)\n", unit_.name, err);
		unit_.failed = -1;
		return;
	}
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(rs_ksyms_load(kernel_tags, 7, &walked), 0);
	w = rs_ksyms_ranges(walked, &nw);
	CHECK_EQ_INT((long)nq, 6);	/* all but no_such_function_here */
	for (size_t i = 0; i < nq; i++) {
		bool same = false;

		CHECK(quick[i].rank < 7 && quick[i].tag == kernel_tags[quick[i].rank].tag);
		CHECK(quick[i].end > quick[i].start);
		for (size_t j = 0; j < nw; j++)
			same |= w[j].start == quick[i].start && w[j].end == quick[i].end &&
				w[j].rank == quick[i].rank && w[j].tag == quick[i].tag;
		CHECK(same);
		dup_quick += quick[i].rank == 6;
	}
	for (size_t j = 0; j < nw; j++)
		dup_walked += w[j].rank == 6;
	CHECK_EQ_INT((long)dup_quick, 1);
	CHECK(dup_walked >= 2);
	CHECK_EQ_INT((long)nw, (long)(nq - 1 + dup_walked));
	printf("  %zu names found by the lookup, as walked; %s: %zu functions walked\n", nq, twice,
	       dup_walked);
	/* What the program cannot take is refused before any load. */
	CHECK_EQ_INT(rs_ksym_lookup_first(kernel_tags, RS_KSYM_LOOKUP_MAX + 1, quick, &nq), -E2BIG);
	rs_ksyms_free(walked);
}

/* A started read says it is over without a wait (the agent's poll asks so), then waits for nothing. */
static void ready_once_read(void)
{
	static const struct rs_ksym_tag kernel_tags[] = { { "kswapd", 1 } };
	struct rs_ksyms *ks = NULL;
	int tries = 0;

	if (rs_ksyms_load(kernel_tags, 1, &ks)) {
		printf("  (kallsyms addresses hidden: nothing to read)\n");
		return;
	}
	rs_ksyms_start(ks);
	/* A condition, not a guessed time: up to 20 s for a read of ~40 ms. */
	while (!rs_ksyms_ready(ks) && tries++ < 20000)
		usleep(1000);
	CHECK(rs_ksyms_ready(ks));
	CHECK_EQ_INT(rs_ksyms_wait(ks), 0);
	CHECK(rs_ksyms_tag(ks, 0) == 0);
	rs_ksyms_free(ks);
}

/* Freed while its thread reads: the read stops and nothing leaks (SAN=1 checks). */
static void freed_while_reading(void)
{
	static const struct rs_ksym_tag kernel_tags[] = { { "kswapd", 1 } };
	struct rs_ksyms *ks = NULL;

	if (rs_ksyms_load(kernel_tags, 1, &ks))
		return;
	rs_ksyms_start(ks);
	rs_ksyms_free(ks);
	CHECK(1);
}

int main(void)
{
	RUN(ends_at_next_text_symbol);
	RUN(hidden_addresses_refused);
	RUN(iterator_and_text_agree);
	RUN(too_many_tags_for_the_iterator);
	RUN(kernel_read_with_and_without_start);
	RUN(lookup_agrees_with_walk);
	RUN(ready_once_read);
	RUN(freed_while_reading);
	UNIT_EXIT();
}
