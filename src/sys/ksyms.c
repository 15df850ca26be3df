// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ksyms.h"
#include "ksyms_iter.h"

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
 * The kernel takes 40 ms here to format /proc/kallsyms (121,000 lines),
 * and the parse of its text ~10 ms more: more than a tracer's whole
 * start-up. The BPF iterator (ksyms_iter.h) walks the same symbols in 30 ms
 * and hands over only the tagged functions. The ranges are needed only when
 * the first record is decoded, so rs_ksyms_start() reads on a thread once
 * the programs are attached (the agent's reclaim at its first poll: the
 * kernel's name lookup serves until then), and the first lookup waits for
 * it.
 */
struct rs_ksyms_loader {
	pthread_mutex_t lock;
	pthread_t thread;
	bool started;		/* the thread runs or ran */
	bool done;		/* ranges and err are final */
	atomic_bool stop;	/* freed while reading: give up (ECANCELED) */
	atomic_bool finished;	/* the thread's read has ended: a wait will not block */
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

/*
 * The parse's working memory is mapped and unmapped whole. From malloc it
 * stayed resident: once a large block such as the BTF parse's has been freed,
 * glibc raises its mmap threshold, so a megabyte array comes from the heap,
 * and a thread's heap is not trimmed (1.2 MB of reclaim's steady RSS was this
 * array, long freed).
 */
static void *map_anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * stdio sizes its buffer by st_blksize, 1 KiB on procfs: 5,300 reads of a
 * file the kernel hands over a page (4 KiB) a read; the whole read took 30 ms
 * of CPU that way against 20.
 */
#define KALLSYMS_BUF (64 * 1024)

/* Text symbols' addresses while the file is read, and the tagged ones' ranges. */
struct text_walk {
	struct rs_ksyms *ks;
	/* Every text address, only while reading: module symbols are not in
	 * address order, so an end is known only once all have been read. */
	uint64_t *addrs;
	size_t nr_addrs, cap_addrs, cap_ranges;
};

static int walk_add(void *arg, uint64_t addr, int rank);
static int walk_finish(struct text_walk *w, int err);
static int settle_ranges(struct rs_ksyms *ks, int err);

/* The iterator's tagged functions into ks, each with the size the kernel gives it. */
struct iter_fill {
	struct rs_ksyms *ks;
	size_t cap_ranges;
};

static int add_range(struct rs_ksyms *ks, size_t *cap, uint64_t start, uint64_t end, int rank);

static int iter_add(void *arg, uint64_t start, uint64_t size, int rank)
{
	struct iter_fill *f = arg;

	return add_range(f->ks, &f->cap_ranges, start, start + size, rank);
}

/*
 * Read the kernel's symbols into ks: the thread's body, or the waiter's when
 * none started. The BPF iterator first (ksyms_iter.h: three quarters of the
 * kernel's time, none of the text to parse), /proc/kallsyms where it cannot.
 */
static void *load_thread(void *arg)
{
	struct rs_ksyms *ks = arg;
	struct iter_fill fill = { .ks = ks };
	size_t nr_text;
	FILE *f;
	char *buf;
	int err;

	err = rs_ksyms_iter_walk(ks->tags, ks->nr_tags, iter_add, &fill, &ks->loader->stop, &nr_text);
	/* No text address: kptr_restrict hides them from us, every stack reads as unknown. */
	if (!err && !nr_text)
		err = -EPERM;
	err = settle_ranges(ks, err);
	/*
	 * The iterator's load (libbpf's object, the CO-RE cut) was made on
	 * this thread: its heap is not the main one, and glibc trims a thread's
	 * heap only on request.
	 */
	malloc_trim(0);
	if (!err || err == -ECANCELED || err == -ENOMEM) {
		ks->loader->err = err;
		return NULL;
	}
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		ks->loader->err = -errno;
		return NULL;
	}
	buf = map_anon(KALLSYMS_BUF);
	if (buf)
		setvbuf(f, buf, _IOFBF, KALLSYMS_BUF);
	ks->loader->err = parse_into(f, ks);
	fclose(f);
	if (buf)
		munmap(buf, KALLSYMS_BUF);
	return NULL;
}

/* A started read's thread: the read, then said to have ended (rs_ksyms_ready()). */
static void *load_thread_run(void *arg)
{
	struct rs_ksyms *ks = arg;

	load_thread(ks);
	atomic_store(&ks->loader->finished, true);
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
	*out = ks;
	return 0;
}

void rs_ksyms_start(struct rs_ksyms *ks)
{
	struct rs_ksyms_loader *l = ks ? ks->loader : NULL;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	/* Should the thread not start, the first lookup reads the file itself. */
	if (!l->started && !l->done)
		l->started = !pthread_create(&l->thread, NULL, load_thread_run, ks);
	pthread_mutex_unlock(&l->lock);
}

bool rs_ksyms_ready(const struct rs_ksyms *ks)
{
	struct rs_ksyms_loader *l = ks ? ks->loader : NULL;
	bool ready;

	if (!l)
		return true;
	pthread_mutex_lock(&l->lock);
	ready = l->done || (l->started && atomic_load(&l->finished));
	pthread_mutex_unlock(&l->lock);
	return ready;
}

int rs_ksyms_wait(const struct rs_ksyms *ks)
{
	struct rs_ksyms_loader *l = ks ? ks->loader : NULL;
	int err;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	if (!l->done) {
		if (l->started)
			pthread_join(l->thread, NULL);
		else
			load_thread((void *)ks);	/* the ranges are filled in once, under the lock */
		l->done = true;
	}
	err = l->err;
	pthread_mutex_unlock(&l->lock);
	return err;
}

/*
 * One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]"; false for anything else.
 * By hand: strtoull() and strcspn() were a fifth of the whole read's time.
 */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *len)
{
	uint64_t v = 0;
	char *p = line;

	for (;; p++) {
		unsigned int d = (unsigned char)*p;

		if (d - '0' < 10)
			d -= '0';
		else if ((d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		if (p - line == 16)
			return false;	/* more than 64 bits */
		v = v << 4 | d;
	}
	if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
		return false;
	*addr = v;
	*type = p[1];
	*name = p += 3;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*p = '\0';
	*len = (size_t)(p - *name);
	return *len != 0;
}

#define ADDRS_FIRST_MAP (128 * 1024)

/* Room for one more address in the mapped *arr (cap addresses now; map_anon()). */
static bool grow_mapped(uint64_t **arr, size_t n, size_t *cap)
{
	size_t size = *cap * sizeof(**arr);
	void *p;

	if (n < *cap)
		return true;
	p = *arr ? mremap(*arr, size, size * 2, MREMAP_MAYMOVE) : map_anon(ADDRS_FIRST_MAP);
	if (!p || p == MAP_FAILED)
		return false;
	*arr = p;
	*cap = size ? *cap * 2 : ADDRS_FIRST_MAP / sizeof(**arr);
	return true;
}

static void unmap_addrs(uint64_t *arr, size_t cap)
{
	if (arr)
		munmap(arr, cap * sizeof(*arr));
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

/* Tagged function rank's range [start, end) into ks (cap: the ranges' room, grown here). */
static int add_range(struct rs_ksyms *ks, size_t *cap, uint64_t start, uint64_t end, int rank)
{
	if (!grow((void **)&ks->ranges, ks->n, cap, sizeof(*ks->ranges)))
		return -ENOMEM;
	ks->ranges[ks->n++] = (struct rs_ksym_range){ start, end, ks->tags[rank].tag, (uint8_t)rank };
	return 0;
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
static int walk_add(void *arg, uint64_t addr, int rank)
{
	struct text_walk *w = arg;
	struct rs_ksyms *ks = w->ks;

	if (!grow_mapped(&w->addrs, w->nr_addrs, &w->cap_addrs))
		return -ENOMEM;
	w->addrs[w->nr_addrs++] = addr;
	/* Its end is known once every address is: walk_finish(). */
	return rank < 0 ? 0 : add_range(ks, &w->cap_ranges, addr, UINT64_MAX, rank);
}

/* The ranges' ends once every text address is known; on err, no ranges. */
static int walk_finish(struct text_walk *w, int err)
{
	struct rs_ksyms *ks = w->ks;

	/* No text address: kptr_restrict hides them from us, every stack reads as unknown. */
	if (!err && !w->nr_addrs)
		err = -EPERM;
	/* A function ends where the nearest text symbol above its start begins. */
	for (size_t i = 0; !err && i < w->nr_addrs; i++)
		for (size_t r = 0; r < ks->n; r++)
			if (w->addrs[i] > ks->ranges[r].start && w->addrs[i] < ks->ranges[r].end)
				ks->ranges[r].end = w->addrs[i];
	unmap_addrs(w->addrs, w->cap_addrs);
	*w = (struct text_walk){ .ks = ks };
	return settle_ranges(ks, err);
}

/* The ranges in lookup order, or none on err: err. */
static int settle_ranges(struct rs_ksyms *ks, int err)
{
	if (err) {
		free(ks->ranges);
		ks->ranges = NULL;
		ks->n = 0;
	} else if (ks->n) {
		qsort(ks->ranges, ks->n, sizeof(*ks->ranges), cmp_range);
	}
	return err;
}

static int parse_into(FILE *f, struct rs_ksyms *ks)
{
	const struct rs_ksym_tag *tags = ks->tags;
	size_t nr_tags = ks->nr_tags, tag_len[UINT8_MAX + 1];
	struct text_walk w = { .ks = ks };
	bool first_byte[256] = { false };	/* a tag's name starts so */
	char line[512];
	int err = 0;

	for (size_t i = 0; i < nr_tags && i <= UINT8_MAX; i++) {
		tag_len[i] = strlen(tags[i].name);
		first_byte[(unsigned char)tags[i].name[0]] = true;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, *name;
		size_t len;
		int rank = -1;

		if (ks->loader && atomic_load_explicit(&ks->loader->stop, memory_order_relaxed)) {
			err = -ECANCELED;
			break;
		}
		if (!parse_line(line, &addr, &type, &name, &len) || !addr || (type != 't' && type != 'T'))
			continue;
		for (size_t i = 0; first_byte[(unsigned char)name[0]] && i < nr_tags && i <= UINT8_MAX; i++)
			if (tag_len[i] == len && !memcmp(name, tags[i].name, len)) {
				rank = (int)i;	/* the first tag of the name, as the iterator's */
				break;
			}
		err = walk_add(&w, addr, rank);
	}
	return walk_finish(&w, err);
}

void rs_ksyms_free(struct rs_ksyms *ks)
{
	if (!ks)
		return;
	/* A read under way is stopped and joined; one never started is not made now. */
	if (ks->loader && ks->loader->started && !ks->loader->done) {
		atomic_store(&ks->loader->stop, true);
		rs_ksyms_wait(ks);
	}
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
