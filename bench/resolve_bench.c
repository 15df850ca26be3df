// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Address resolution cost: PROCMAP_QUERY vs /proc/PID/maps text parsing,
 * on a frozen child process with 1,000 and 10,000 mappings. Prints per-address
 * ns and ratios side by side; asserts nothing about wall-clock time.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ringside/resolve.h"
#include "procmap_uapi.h"
#include "../tests/frozen_child.h"
#include "../tests/median.h"

#define NADDR 10000
#define RUNS 15

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct vlist {
	struct ringside_vma *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct ringside_vma *vma)
{
	struct vlist *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = *vma;
	return 0;
}

/*
 * Sorted addresses inside the VMAs that pass flags (every stride-th of them),
 * as a profiler would collect.
 */
static uint64_t *make_addrs(pid_t pid, uint32_t flags, size_t stride)
{
	struct ringside_procmaps *pm;
	struct vlist l = { 0 };
	uint64_t *a = malloc(NADDR * sizeof(*a));
	unsigned int rnd = 42;

	ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_AUTO, &pm);
	ringside_procmaps_foreach(pm, flags, collect, &l);
	ringside_procmaps_close(pm);
	for (int i = 0; i < NADDR; i++) {
		struct ringside_vma *v;

		rnd = rnd * 1103515245 + 12345;
		v = &l.v[(rnd >> 8) % ((l.n + stride - 1) / stride) * stride];
		rnd = rnd * 1103515245 + 12345;
		a[i] = v->start + (rnd >> 4) % (v->end - v->start);
	}
	for (int i = 1; i < NADDR; i++)	/* insertion sort: keeps the bench dependency-free */
		for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
			uint64_t t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	free(l.v);
	return a;
}

/* What a text-based normalizer keeps per VMA (blazesym-style). */
struct text_vma {
	uint64_t start, end, offset;
	char *name;
	uint32_t build_id_size;
	uint8_t build_id[RINGSIDE_BUILD_ID_MAX];
};

struct tlist {
	struct text_vma *v;
	size_t n, cap;
};

static int collect_compact(void *ctx, const struct ringside_vma *vma)
{
	struct tlist *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n] = (struct text_vma){ vma->start, vma->end, vma->offset, strdup(vma->name),
					vma->build_id_size };
	memcpy(l->v[l->n].build_id, vma->build_id, sizeof(vma->build_id));
	l->n++;
	return 0;
}

/* The text way: parse the whole file, then binary-search each address. */
static double batch_text(pid_t pid, const uint64_t *addrs, bool build_id, struct ringside_sym *out)
{
	double t0 = now_ns();
	struct ringside_procmaps *pm;
	struct tlist l = { 0 };

	ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_TEXT, &pm);
	ringside_procmaps_foreach(pm, build_id ? RINGSIDE_QUERY_BUILD_ID : 0, collect_compact, &l);
	for (int i = 0; i < NADDR; i++) {
		size_t lo = 0, hi = l.n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (l.v[mid].start <= addrs[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo) {
			out[i].file_offset = addrs[i] - l.v[lo - 1].start + l.v[lo - 1].offset;
			out[i].path = l.v[lo - 1].name;
		}
	}
	ringside_procmaps_close(pm);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return now_ns() - t0;
}

/* The resolver's batch path: queries only, or its own choice per batch. */
static double batch_ioctl(pid_t pid, const uint64_t *addrs, bool build_id, enum ringside_batch_policy policy)
{
	struct ringside_resolver_opts o = { .sz = sizeof(o), .want_build_id = build_id, .batch = policy };
	static uint64_t offs[NADDR];
	static const struct ringside_mapping *maps[NADDR];
	struct ringside_resolver *r;
	double t0 = now_ns();

	ringside_resolver_new(&o, &r);
	if (ringside_normalize(r, pid, addrs, NADDR, offs, maps) < 0)
		fprintf(stderr, "normalize failed\n");
	ringside_resolver_free(r);
	return now_ns() - t0;
}

/* Queries one auto batch makes: how many system calls its floor has. */
static uint64_t batch_queries(pid_t pid, const uint64_t *addrs, bool build_id)
{
	struct ringside_resolver_opts o = { .sz = sizeof(o), .want_build_id = build_id };
	static uint64_t offs[NADDR];
	static const struct ringside_mapping *maps[NADDR];
	struct ringside_resolver_stats st;
	struct ringside_resolver *r;

	ringside_resolver_new(&o, &r);
	ringside_normalize(r, pid, addrs, NADDR, offs, maps);
	ringside_resolver_stats(r, &st);
	ringside_resolver_free(r);
	return st.vma_queries;
}

/*
 * The system calls a cold query batch cannot do without, bare: the open
 * and close of the maps file and one PROCMAP_QUERY (name and build ID
 * copied out as the resolver asks) per VMA, at the VMAs the batch touches.
 */
static double syscall_floor(pid_t pid, const uint64_t *addrs, uint64_t queries, bool build_id)
{
	static char name[4096];
	static unsigned char bid[64];
	char path[64];
	double t0 = now_ns();
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (uint64_t i = 0; i < queries; i++) {
		struct rs_procmap_query q = {
			.size = sizeof(q), .query_flags = 0x10 /* covering or next */,
			.query_addr = addrs[i * (NADDR / queries)], .vma_name_addr = (uintptr_t)name,
			.vma_name_size = sizeof(name), .build_id_addr = build_id ? (uintptr_t)bid : 0,
			.build_id_size = build_id ? sizeof(bid) : 0,
		};

		if (ioctl(fd, RS_PROCMAP_QUERY, &q))
			fprintf(stderr, "floor query: %s\n", strerror(errno));
	}
	close(fd);
	return now_ns() - t0;
}

static double single_cold(pid_t pid, uint64_t addr, enum ringside_procmaps_mode mode, bool build_id)
{
	struct ringside_procmaps *pm;
	struct ringside_vma *v = malloc(sizeof(*v));
	double t0 = now_ns();

	ringside_procmaps_open(pid, mode, &pm);
	ringside_procmaps_query(pm, addr, build_id ? RINGSIDE_QUERY_BUILD_ID : 0, v);
	ringside_procmaps_close(pm);
	t0 = now_ns() - t0;
	free(v);
	return t0;
}

static void run(int nmaps)
{
	pid_t pid = frozen_child_spawn(NULL, nmaps);
	struct ringside_sym *out = calloc(NADDR, sizeof(*out));
	double tt[RUNS], ti[RUNS], ta[RUNS];
	static const char *const dist_name[] = { "exec VMAs (profile-like)", "all VMAs (uniform)",
						 "every 4th VMA" };
	static const uint32_t dist_flags[] = { RINGSIDE_VMA_EXEC | RINGSIDE_QUERY_FILE_BACKED, 0, 0 };
	static const size_t dist_stride[] = { 1, 1, 4 };

	printf("\n== process with %d mappings\n", nmaps);
	printf("%-44s %-11s %10s %10s %10s %8s %8s\n", "batch of 10,000 sorted addresses in", "",
	       "text us", "query us", "auto us", "text/auto", "auto/best");
	for (int d = 0; d < 3; d++) {
		uint64_t *addrs = make_addrs(pid, dist_flags[d], dist_stride[d]);

		for (int bid = 0; bid < 2; bid++) {
			/* Each way runs first, second and third equally often: whichever
			 * follows the text read's big frees pays for them. */
			for (int i = 0; i < RUNS; i++) {
				for (int k = 0; k < 3; k++) {
					switch ((i + k) % 3) {
					case 0: tt[i] = batch_text(pid, addrs, bid, out); break;
					case 1: ti[i] = batch_ioctl(pid, addrs, bid, RINGSIDE_BATCH_QUERY); break;
					default: ta[i] = batch_ioctl(pid, addrs, bid, RINGSIDE_BATCH_AUTO);
					}
				}
			}
			double mt = median_double(tt, RUNS), mi = median_double(ti, RUNS),
			       ma = median_double(ta, RUNS);
			double best = mt < mi ? mt : mi;

			printf("%-44s %-11s %10.0f %10.0f %10.0f %8.1fx %8.2f\n", dist_name[d],
			       bid ? "+build-id" : "no build-id", mt / 1e3, mi / 1e3, ma / 1e3, mt / ma,
			       ma / best);
		}
		if (d == 0) {
			/* Against the floor: what any query-based resolver pays here. */
			for (int bid = 0; bid < 2; bid++) {
				uint64_t q = batch_queries(pid, addrs, bid);

				for (int i = 0; i < RUNS; i++) {
					tt[i] = batch_text(pid, addrs, bid, out);
					ti[i] = syscall_floor(pid, addrs, q, bid);
					ta[i] = batch_ioctl(pid, addrs, bid, RINGSIDE_BATCH_AUTO);
				}
				double mt = median_double(tt, RUNS), mf = median_double(ti, RUNS),
				       ma = median_double(ta, RUNS);

				printf("  its floor: open, %2" PRIu64 " queries, close %-11s %10.0f %10.1f %10.1f %7.1fx  auto/floor %.2f, text/floor %.0fx\n",
				       q, bid ? "+build-id" : "no build-id", mt / 1e3, mf / 1e3, ma / 1e3,
				       mt / ma, ma / mf, mt / mf);
			}
			{
				/* The same batch again on the resolver that answered it: its
				 * VMAs cached, no system call; what the answers themselves
				 * cost, which the floor above leaves out. */
				struct ringside_resolver_opts o = { .sz = sizeof(o) };
				static uint64_t offs[NADDR];
				static const struct ringside_mapping *maps[NADDR];
				struct ringside_resolver *r;

				ringside_resolver_new(&o, &r);
				ringside_normalize(r, pid, addrs, NADDR, offs, maps);
				for (int i = 0; i < RUNS; i++) {
					double t0 = now_ns();

					ringside_normalize(r, pid, addrs, NADDR, offs, maps);
					ti[i] = now_ns() - t0;
				}
				ringside_resolver_free(r);
				printf("  the same batch warm (its VMAs cached, no system call)   %10.1f us: the answers alone\n",
				       median_double(ti, RUNS) / 1e3);
			}
			for (int bid = 0; bid < 2; bid++) {
				for (int i = 0; i < RUNS; i++) {
					tt[i] = single_cold(pid, addrs[i * 37], RINGSIDE_PROCMAPS_TEXT, bid);
					ti[i] = single_cold(pid, addrs[i * 37], RINGSIDE_PROCMAPS_AUTO, bid);
				}
				double mt = median_double(tt, RUNS), mi = median_double(ti, RUNS);
				printf("single cold lookup %-37s text %9.1f us                   ioctl %8.2f us                   ratio %5.1fx\n",
				       bid ? "+build-id" : "no build-id", mt / 1e3, mi / 1e3, mt / mi);
			}
			/* Warm: the same cached VMA and symbol table, full symbolization. */
			struct ringside_resolver *r;
			struct ringside_sym s;
			const int warm = 2000000;

			ringside_resolver_new(NULL, &r);
			ringside_resolve(r, pid, addrs[0], &s);
			double t0 = now_ns();
			for (int i = 0; i < warm; i++)
				ringside_resolve(r, pid, addrs[i & 7], &s);
			printf("warm lookup (cached VMA + symbol)                       %6.1f ns/lookup\n",
			       (now_ns() - t0) / warm);
			ringside_resolver_free(r);
		}
		free(addrs);
	}
	frozen_child_reap(pid);
	free(out);
}

int main(void)
{
	printf("resolve_bench: medians of %d runs. text: one read of /proc/PID/maps, then a binary\n"
	       "search per address; query: a PROCMAP_QUERY per VMA the batch touches; auto: what\n"
	       "ringside_normalize() chooses per batch; auto/best: auto's time over the faster of\n"
	       "the other two\n", RUNS);
	run(1000);
	run(10000);
	return 0;
}
