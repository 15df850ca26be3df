// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The resolver: per-process VMA caches and per-file symbol tables, both
 * bounded by LRU eviction. (Longer than most files: the two caches share
 * their invalidation rules, which are easier to check in one place.)
 *
 * A process is identified by (pid, start time): a reused PID has another
 * start time and never sees the old process's mappings. An exec keeps both,
 * but the kernel ties an open /proc/PID/maps to the mm it was opened on:
 * after exec the old handle answers ESRCH while the process lives, and the
 * resolver reopens and drops the old VMAs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ringside/ringside.h"
#include "ringside/resolve.h"
#include "addr_run.h"
#include "symtab.h"
#include "proc_stat.h"
#include "procmaps_int.h"

struct file_key {
	uint8_t build_id[RINGSIDE_BUILD_ID_MAX];
	uint32_t build_id_size;
	uint64_t dev, ino, mtime_ns, size;	/* used when there is no build ID */
};

struct file_entry {
	struct file_key key;
	struct rs_symtab *st;	/* NULL: not ELF or unreadable (cached too) */
	uint64_t last_use;
};

/* A compact copy of a VMA: caches hold thousands, so no inline name buffer. */
struct cached_vma {
	struct ringside_mapping m;	/* m.name is owned (strdup) */
	struct file_entry *file;	/* resolved lazily; NULL until needed */
	bool file_tried;
};

/*
 * Where a process's cached VMAs and their names live: chunks that never
 * move, so a pointer handed out stays valid while later VMAs are added,
 * freed together when the process's VMAs are dropped. A batch that caches
 * every VMA of a process made two allocations per VMA and as many frees
 * (40,000 calls for 10,000 mappings); now one per chunk.
 */
struct vma_chunk {
	struct vma_chunk *next;
	size_t used, size;
	max_align_t data[];
};
#define VMA_CHUNK_FIRST 4096
#define VMA_CHUNK_MAX (64 * 1024)

struct proc_entry {
	pid_t pid;
	uint64_t start_time;
	struct ringside_procmaps *pm;
	/* Sorted by start, non-overlapping; the entries live in chunks. */
	struct cached_vma **vmas;
	size_t nvmas, cap;
	struct vma_chunk *chunks;	/* the newest first */
	uint64_t loaded_ms;
	uint64_t last_use;
	size_t snapshot_vmas;	/* VMAs in its last text read; 0: never read */
};

/*
 * What a queried miss costs: the median of the last QUERY_SAMPLES. A mean
 * misled the choice: a new resolver's first two queries take 5-15 us
 * against about 1 us after (the first query of a handle, the first
 * allocations), and a batch decides after eight, so the text read looked
 * 2.6 times cheaper than it was and batches touching every 4th of 10,000
 * VMAs took 2.2 times the query path's time.
 */
#define QUERY_SAMPLES 16
struct query_price {
	double ns[QUERY_SAMPLES];
	unsigned int count, next;
	unsigned int unsorted;	/* samples since the median was taken */
	double median;
};

struct ringside_resolver {
	struct ringside_resolver_opts opts;
	struct proc_entry *procs;
	struct file_entry *files;
	unsigned int nprocs, nfiles;
	uint64_t clock;		/* LRU counter */
	struct ringside_resolver_stats st;
	struct proc_entry *last;	/* fast path for runs of one pid */
	/*
	 * What a batch's VMA misses cost, measured as they happen: a VMA of one
	 * read of the maps text, caching included (a mean; no read measured
	 * yet, a default ratio to the query stands in), and a queried miss.
	 */
	struct cost_mean {
		double total_ns, count;
	} line_cost;
	struct query_price query_cost;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ringside_resolver_new(const struct ringside_resolver_opts *opts, struct ringside_resolver **out)
{
	struct ringside_resolver *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	if (opts)
		memcpy(&r->opts, opts, opts->sz < sizeof(r->opts) ? opts->sz : sizeof(r->opts));
	r->opts.sz = sizeof(r->opts);
	if (!r->opts.max_procs)
		r->opts.max_procs = 64;
	if (!r->opts.max_files)
		r->opts.max_files = 128;
	if (!r->opts.vma_ttl_ms)
		r->opts.vma_ttl_ms = 1000;
	r->procs = calloc(r->opts.max_procs, sizeof(*r->procs));
	r->files = calloc(r->opts.max_files, sizeof(*r->files));
	if (!r->procs || !r->files) {
		ringside_resolver_free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

static void drop_vmas(struct proc_entry *p)
{
	while (p->chunks) {
		struct vma_chunk *next = p->chunks->next;

		free(p->chunks);
		p->chunks = next;
	}
	p->nvmas = 0;
}

/* size bytes from p's chunks, aligned as malloc's are; NULL: no memory. */
static void *chunk_alloc(struct proc_entry *p, size_t size)
{
	struct vma_chunk *c = p->chunks;
	size_t align = sizeof(max_align_t), at;

	at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at + size > c->size) {
		/* Small for a process asked about once, growing for one cached whole. */
		size_t room = !c ? VMA_CHUNK_FIRST : c->size < VMA_CHUNK_MAX ? 2 * c->size : c->size;

		if (room < size)
			room = size;

		c = malloc(sizeof(*c) + room);
		if (!c)
			return NULL;
		c->next = p->chunks;
		c->used = 0;
		c->size = room;
		p->chunks = c;
		at = 0;
	}
	c->used = at + size;
	return (char *)c->data + at;
}

static void proc_clear(struct proc_entry *p)
{
	ringside_procmaps_close(p->pm);
	drop_vmas(p);
	free(p->vmas);
	memset(p, 0, sizeof(*p));
}

void ringside_resolver_free(struct ringside_resolver *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; r->procs && i < r->nprocs; i++)
		proc_clear(&r->procs[i]);
	for (unsigned int i = 0; r->files && i < r->nfiles; i++)
		rs_symtab_free(r->files[i].st);
	free(r->procs);
	free(r->files);
	free(r);
}

/*
 * Is this the process the entry was made for? An open /proc/PID/maps handle
 * stays bound to its process's memory: once that process exits or exec's,
 * the handle's queries fail with ESRCH, even if the PID now names another
 * process. One query (about a microsecond) replaces re-reading
 * /proc/PID/stat (about six); text mode, with no query, still reads it.
 */
static bool same_process(struct proc_entry *p, int *err)
{
	uint64_t start;

	if (ringside_procmaps_uses_ioctl(p->pm)) {
		struct ringside_vma *v = malloc(sizeof(*v));
		int qerr;

		if (!v) {
			*err = -ENOMEM;
			return false;
		}
		qerr = ringside_procmaps_query(p->pm, 0, RINGSIDE_QUERY_COVERING_OR_NEXT, v);
		free(v);
		return qerr != -ESRCH;
	}
	*err = rs_proc_start_time(p->pid, &start);
	return !*err && start == p->start_time;
}

static struct proc_entry *proc_get(struct ringside_resolver *r, pid_t pid, int *err)
{
	struct proc_entry *p = NULL, *victim = NULL;

	*err = 0;
	for (unsigned int i = 0; i < r->nprocs; i++) {
		if (r->procs[i].pid == pid) {
			p = &r->procs[i];
			break;
		}
	}
	if (p && same_process(p, err)) {
		p->last_use = ++r->clock;
		return p;
	}
	if (p) {
		/* Exited, exec'd, or the PID was reused: nothing old may leak through. */
		proc_clear(p);
		r->st.proc_reloads++;
	} else if (r->nprocs < r->opts.max_procs) {
		p = &r->procs[r->nprocs++];
	} else {
		for (unsigned int i = 0; i < r->nprocs; i++)
			if (!victim || r->procs[i].last_use < victim->last_use)
				victim = &r->procs[i];
		proc_clear(victim);
		p = victim;
	}
	*err = ringside_procmaps_open(pid, r->opts.mode, &p->pm);
	if (!*err && !ringside_procmaps_uses_ioctl(p->pm))
		*err = rs_proc_start_time(pid, &p->start_time);
	if (*err) {
		ringside_procmaps_close(p->pm);
		memset(p, 0, sizeof(*p));
		/* Keep the table dense: a failed open leaves no hole. */
		if (p == &r->procs[r->nprocs - 1])
			r->nprocs--;
		return NULL;
	}
	p->pid = pid;
	p->loaded_ms = now_ms();
	p->last_use = ++r->clock;
	return p;
}

static size_t vma_upper(const struct proc_entry *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nvmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->vmas[mid]->m.start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct cached_vma *vma_lookup(struct proc_entry *p, uint64_t addr)
{
	size_t i = vma_upper(p, addr);

	if (i && addr < p->vmas[i - 1]->m.end)
		return p->vmas[i - 1];
	return NULL;
}

/* A cache entry for v, with its name, in p's chunks. */
static struct cached_vma *cached_new(struct proc_entry *p, const struct ringside_vma *v)
{
	size_t len = strlen(v->name) + 1;
	struct cached_vma *cv = chunk_alloc(p, sizeof(*cv));
	char *name = cv ? chunk_alloc(p, len) : NULL;

	if (!name)
		return NULL;
	memset(cv, 0, sizeof(*cv));
	memcpy(name, v->name, len);
	cv->m.start = v->start;
	cv->m.end = v->end;
	cv->m.offset = v->offset;
	cv->m.inode = v->inode;
	cv->m.dev_major = v->dev_major;
	cv->m.dev_minor = v->dev_minor;
	cv->m.flags = v->flags;
	cv->m.build_id_size = v->build_id_size;
	memcpy(cv->m.build_id, v->build_id, sizeof(cv->m.build_id));
	cv->m.name = name;
	return cv;
}

static struct cached_vma *vma_insert(struct proc_entry *p, const struct ringside_vma *v)
{
	struct cached_vma *cv;
	size_t pos = vma_upper(p, v->start);

	/* Already cached (a covering-or-next answer we had): keep the one we have. */
	if (pos && p->vmas[pos - 1]->m.start == v->start)
		return p->vmas[pos - 1];

	if (p->nvmas == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct cached_vma **n = realloc(p->vmas, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->vmas = n;
		p->cap = cap;
	}
	cv = cached_new(p, v);
	if (!cv)
		return NULL;
	memmove(&p->vmas[pos + 1], &p->vmas[pos], (p->nvmas - pos) * sizeof(*p->vmas));
	p->vmas[pos] = cv;
	p->nvmas++;
	return cv;
}

static bool key_equal(const struct file_key *a, const struct file_key *b)
{
	if (a->build_id_size || b->build_id_size)
		return a->build_id_size == b->build_id_size &&
		       !memcmp(a->build_id, b->build_id, a->build_id_size);
	return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns && a->size == b->size;
}

static struct file_entry *file_slot(struct ringside_resolver *r)
{
	struct file_entry *victim = NULL;

	if (r->nfiles < r->opts.max_files)
		return &r->files[r->nfiles++];
	for (unsigned int i = 0; i < r->nfiles; i++)
		if (!victim || r->files[i].last_use < victim->last_use)
			victim = &r->files[i];
	/* Cached VMAs point at file entries: they re-resolve after eviction. */
	for (unsigned int i = 0; i < r->nprocs; i++)
		for (size_t j = 0; j < r->procs[i].nvmas; j++)
			if (r->procs[i].vmas[j]->file == victim) {
				r->procs[i].vmas[j]->file = NULL;
				r->procs[i].vmas[j]->file_tried = false;
			}
	rs_symtab_free(victim->st);
	memset(victim, 0, sizeof(*victim));
	return victim;
}

/* Open the file behind a VMA: map_files survives deletion and namespaces. */
static int open_vma_file(pid_t pid, const struct cached_vma *v)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, v->m.start, v->m.end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || v->m.name[0] != '/')
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, v->m.name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The vdso is not a file: read its image out of the process. */
static struct rs_symtab *load_vdso(pid_t pid, const struct cached_vma *v)
{
	size_t len = v->m.end - v->m.start;
	struct rs_symtab *st = NULL;
	char path[64];
	void *img;
	int fd;

	if (len > (1u << 20))
		return NULL;
	img = malloc(len);
	if (!img)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, img, len, (off_t)v->m.start) == (ssize_t)len)
		rs_symtab_load_mem(img, len, &st);
	if (fd >= 0)
		close(fd);
	free(img);
	return st;
}

static struct file_entry *file_for_vma(struct ringside_resolver *r, struct proc_entry *p,
				       struct cached_vma *cv)
{
	struct file_key key = { 0 };
	struct file_entry *f;
	struct stat sb;
	int fd;

	if (cv->file_tried)
		return cv->file;
	cv->file_tried = true;
	if (!strcmp(cv->m.name, "[vdso]")) {
		/* One vdso per kernel: key it by a fixed identity of its own. */
		key.ino = UINT64_MAX;
		key.dev = UINT64_MAX;
		key.size = cv->m.end - cv->m.start; /* 32- and 64-bit images differ */
		for (unsigned int i = 0; i < r->nfiles; i++)
			if (key_equal(&r->files[i].key, &key)) {
				r->files[i].last_use = ++r->clock;
				return cv->file = &r->files[i];
			}
		f = file_slot(r);
		f->key = key;
		f->st = load_vdso(p->pid, cv);
		f->last_use = ++r->clock;
		r->st.sym_tables_loaded++;
		return cv->file = f;
	}
	if (!cv->m.inode)
		return NULL;
	fd = open_vma_file(p->pid, cv);
	if (fd < 0)
		return NULL;
	if (cv->m.build_id_size) {
		memcpy(key.build_id, cv->m.build_id, cv->m.build_id_size);
		key.build_id_size = cv->m.build_id_size;
	} else if (!fstat(fd, &sb)) {
		key.dev = sb.st_dev;
		key.ino = sb.st_ino;
		key.mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + sb.st_mtim.tv_nsec;
		key.size = sb.st_size;
	}
	for (unsigned int i = 0; i < r->nfiles; i++) {
		if (key_equal(&r->files[i].key, &key)) {
			close(fd);
			r->files[i].last_use = ++r->clock;
			return cv->file = &r->files[i];
		}
	}
	f = file_slot(r);
	f->key = key;
	rs_symtab_load_fd(fd, "/usr/lib/debug", &f->st);
	f->last_use = ++r->clock;
	r->st.sym_tables_loaded++;
	close(fd);
	return cv->file = f;
}

/* What every VMA this resolver caches is read with: its build ID, if asked for. */
static uint32_t vma_flags(const struct ringside_resolver *r)
{
	return r->opts.want_build_id ? RINGSIDE_QUERY_BUILD_ID : 0;
}

static int query_vma(struct ringside_resolver *r, struct proc_entry *p, uint64_t addr,
		     struct ringside_vma *v)
{
	/*
	 * Covering-or-next: on a miss the next VMA comes back too and is cached,
	 * so sorted batches that fall into gaps do not ask twice.
	 */
	uint32_t flags = vma_flags(r) | RINGSIDE_QUERY_COVERING_OR_NEXT;
	int err;

	r->st.vma_queries++;
	err = ringside_procmaps_query(p->pm, addr, flags, v);
	if (err != -ESRCH)
		return err;
	/* ESRCH on a live process: it exec'd and our handle holds the old mm. */
	if (kill(p->pid, 0) && errno == ESRCH)
		return -ESRCH;
	ringside_procmaps_close(p->pm);
	p->pm = NULL;
	drop_vmas(p);
	r->st.proc_reloads++;
	err = ringside_procmaps_open(p->pid, r->opts.mode, &p->pm);
	if (err)
		return err;
	return ringside_procmaps_query(p->pm, addr, flags, v);
}

/* Monotonic ns, for the batch cost model. */
static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Count n more events costing ns in all; old ones weigh less over time. */
static void cost_add(struct cost_mean *c, double ns, double n)
{
	if (c->count > 1e6) {
		c->total_ns /= 2;
		c->count /= 2;
	}
	c->total_ns += ns;
	c->count += n;
}

static double cost_ns(const struct cost_mean *c)
{
	return c->count ? c->total_ns / c->count : 0;
}

static void query_price_add(struct query_price *q, double ns)
{
	q->ns[q->next] = ns;
	q->next = (q->next + 1) % QUERY_SAMPLES;
	if (q->count < QUERY_SAMPLES)
		q->count++;
	q->unsorted++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median, taken again once all the samples are new (a batch asks at
 * every miss; sorting each time would cost a tenth of a query). 0 before
 * any sample.
 */
static double query_price_ns(struct query_price *q)
{
	double sorted[QUERY_SAMPLES];

	if (!q->count)
		return 0;
	if (q->median > 0 && q->unsorted < QUERY_SAMPLES)
		return q->median;
	memcpy(sorted, q->ns, q->count * sizeof(sorted[0]));
	qsort(sorted, q->count, sizeof(sorted[0]), cmp_double);
	q->median = q->count % 2 ? sorted[q->count / 2]
				 : (sorted[q->count / 2 - 1] + sorted[q->count / 2]) / 2;
	q->unsorted = 0;
	return q->median;
}

/*
 * The cost of a line of the maps text last measured in this process, by
 * want_build_id (reading build IDs makes a line cost a third more): a new
 * resolver starts from it instead of sampling the text again.
 */
static uint64_t line_price_memo[2];	/* a double's bits, for atomic access */

static void remember_line_price(const struct ringside_resolver *r)
{
	double ns = cost_ns(&r->line_cost);
	uint64_t bits;

	memcpy(&bits, &ns, sizeof(bits));
	__atomic_store_n(&line_price_memo[r->opts.want_build_id != 0], bits, __ATOMIC_RELAXED);
}

/* The cache merged with one read of the maps text, both sorted by start. */
struct snapshot {
	struct proc_entry *p;
	struct cached_vma **merged;
	size_t n, cap, old_i, lines;
	int err;
};

static bool snap_push(struct snapshot *sn, struct cached_vma *cv)
{
	if (sn->n == sn->cap) {
		size_t cap = sn->cap ? sn->cap * 2 : 256;
		struct cached_vma **m = realloc(sn->merged, cap * sizeof(*m));

		if (!m)
			return false;
		sn->merged = m;
		sn->cap = cap;
	}
	sn->merged[sn->n++] = cv;
	return true;
}

static int snap_add(void *ctx, const struct ringside_vma *v)
{
	struct snapshot *sn = ctx;
	struct proc_entry *p = sn->p;
	struct cached_vma *cv;

	sn->lines++;
	/* Cached entries before it go first; they are never freed here. */
	while (sn->old_i < p->nvmas && p->vmas[sn->old_i]->m.end <= v->start)
		if (!snap_push(sn, p->vmas[sn->old_i++]))
			return sn->err = -ENOMEM;
	/* Overlapping a cached entry (pointers to it may be out): keep that one. */
	if (sn->old_i < p->nvmas && p->vmas[sn->old_i]->m.start < v->end)
		return 0;
	/* Made in the process's chunks: on a failure they stay there, unused, until it is dropped. */
	cv = cached_new(p, v);
	if (!cv || !snap_push(sn, cv))
		return sn->err = -ENOMEM;
	return 0;
}

/*
 * Read the maps text once and cache every VMA in it: what a batch that
 * touches most VMAs costs least with. Entries already cached stay where
 * they are, so mapping pointers handed out earlier in a batch stay valid.
 */
static int snapshot_vmas(struct ringside_resolver *r, struct proc_entry *p)
{
	struct snapshot sn = { .p = p };
	double t0 = mono_ns();
	int err = rs_procmaps_text_foreach(p->pm, vma_flags(r), snap_add, &sn);

	while (!err && !sn.err && sn.old_i < p->nvmas)
		if (!snap_push(&sn, p->vmas[sn.old_i++]))
			sn.err = -ENOMEM;
	if (err || sn.err) {
		/* The cached list is untouched; what was made here stays unused in the chunks. */
		free(sn.merged);
		return err ? err : sn.err;
	}
	free(p->vmas);
	p->vmas = sn.merged;
	p->nvmas = sn.n;
	p->cap = sn.cap;
	p->snapshot_vmas = sn.lines ? sn.lines : 1;
	cost_add(&r->line_cost, mono_ns() - t0, (double)sn.lines);
	remember_line_price(r);
	return 0;
}

/*
 * What a line of the maps text costs before this resolver measured a full
 * read: what another resolver of this process last measured, else the first
 * lines, read and taken in as a full read would (build IDs included), timed.
 * No fixed ratio to a query would do: a query is a syscall, a line mostly
 * the kernel's formatting, and their ratio differs several-fold between
 * machines (a line 0.29 us and a query 0.24 us on one; 0.45-0.55 and
 * 1.4-2.2 us on another, where syscalls pay for page-table isolation). The
 * sample (40-50 us there) is paid once per process, by a batch that misses
 * often enough for the choice to matter.
 */
static void price_line(struct ringside_resolver *r, struct proc_entry *p)
{
	uint64_t bits = __atomic_load_n(&line_price_memo[r->opts.want_build_id != 0],
					__ATOMIC_RELAXED);
	double known, t0;
	int lines;

	memcpy(&known, &bits, sizeof(known));
	if (known > 0) {
		/* Counted as one line: this resolver's own reads soon outweigh it. */
		cost_add(&r->line_cost, known, 1);
		return;
	}
	t0 = mono_ns();
	lines = rs_procmaps_text_sample(p->pm, vma_flags(r));
	if (lines > 0) {
		cost_add(&r->line_cost, mono_ns() - t0, lines);
		remember_line_price(r);
	}
}

/* Until then (the sample failed), a line costs this fraction of a query. */
#define SNAPSHOT_LINE_RATIO 0.8
/* Misses a batch must have had before they are taken as a trend. */
#define SNAPSHOT_MIN_MISSES 8
/*
 * Gaps between a batch's VMAs walked to see how many VMAs it skips: at least
 * the first, up to the most while the answer is within the margin.
 */
#define GAP_SAMPLES_MIN 4
#define GAP_SAMPLES_MAX 32
#define GAP_MARGIN 1.3
#define GAP_WALK_MAX 8
/*
 * Between the margins either way costs about the same, and walking more
 * gaps costs queries of its own: it stops once those would be this share
 * of the batch's expected queries.
 */
#define GAP_WALK_BUDGET 0.05

/* What one ringside_normalize() call has seen of the process's VMAs. */
struct batch_model {
	unsigned int misses;	/* VMAs it had to ask for */
	unsigned int gaps, hidden;	/* gaps walked, VMAs found in them */
	unsigned int walk_max;	/* how far the next walk goes */
	uint64_t prev_end;	/* end of the VMA of its last miss */
	bool snapped;		/* the whole text was read: a miss is a gap */
};

enum miss_action { MISS_QUERY, MISS_WALK_GAP, MISS_SNAPSHOT };

/*
 * How to answer a miss: query it, walk the gap before it (learning how many
 * VMAs the batch skips over), or read the whole maps text now because that
 * costs less than querying the misses the rest of the batch is expected to
 * have. Those come from the batch's miss rate so far; the text's size from
 * the last read of it, or, never read, from the VMAs the batch is expected
 * to touch times the VMAs found between them.
 */
static enum miss_action miss_action(struct ringside_resolver *r, struct proc_entry *p,
				    struct batch_model *bm, size_t done, size_t n)
{
	double query_ns, line_ns, ahead, vmas, gain;

	if (r->opts.batch == RINGSIDE_BATCH_QUERY)
		return MISS_QUERY;
	if (r->opts.batch == RINGSIDE_BATCH_SNAPSHOT)
		return MISS_SNAPSHOT;
	/* The first miss is queried: in AUTO mode that query tells which kind of handle this is. */
	if (!bm->misses)
		return MISS_QUERY;
	/* Without PROCMAP_QUERY every miss would read the whole text. */
	if (!ringside_procmaps_uses_ioctl(p->pm))
		return MISS_SNAPSHOT;
	if (bm->misses < SNAPSHOT_MIN_MISSES)
		return MISS_QUERY;
	if (!r->line_cost.count)
		price_line(r, p);
	query_ns = r->query_cost.count ? query_price_ns(&r->query_cost) : 1000;
	line_ns = r->line_cost.count ? cost_ns(&r->line_cost) : SNAPSHOT_LINE_RATIO * query_ns;
	ahead = (double)bm->misses / (double)(done + 1) * (double)(n - done);
	vmas = bm->misses + ahead;
	/* Even if the batch touched every VMA, the queries would cost less. */
	if (ahead * query_ns <= vmas * line_ns)
		return MISS_QUERY;
	if (p->snapshot_vmas)
		return ahead * query_ns > p->snapshot_vmas * line_ns ? MISS_SNAPSHOT : MISS_QUERY;
	/*
	 * Past twice the VMAs per gap at which the read stops paying, a walk
	 * has learned enough: it stops there, spending few queries on a batch
	 * that skips many VMAs.
	 */
	gain = ahead * query_ns / (vmas * line_ns);
	bm->walk_max = (unsigned int)(2 * (gain - 1)) + 1;
	if (bm->walk_max > GAP_WALK_MAX)
		bm->walk_max = GAP_WALK_MAX;
	if (bm->gaps < GAP_SAMPLES_MIN)
		return MISS_WALK_GAP;
	gain /= 1.0 + (double)bm->hidden / bm->gaps;
	if (gain > GAP_MARGIN)
		return MISS_SNAPSHOT;
	if (gain < 1 / GAP_MARGIN)
		return MISS_QUERY;
	if (bm->gaps < GAP_SAMPLES_MAX && bm->hidden < GAP_WALK_BUDGET * ahead)
		return MISS_WALK_GAP;
	return gain > 1 ? MISS_SNAPSHOT : MISS_QUERY;
}

/*
 * Answer the miss at addr by walking from the previous miss's VMA: the VMAs
 * passed on the way are ones the batch skips. The last answer is addr's own
 * VMA (or the next), as a query at addr would give. A walk that reaches its
 * bound counts the bound and leaves the miss to a query.
 */
static int walk_gap(struct ringside_resolver *r, struct proc_entry *p, struct batch_model *bm,
		    uint64_t addr, struct ringside_vma *v)
{
	uint32_t flags = vma_flags(r) | RINGSIDE_QUERY_COVERING_OR_NEXT;
	uint64_t from = bm->prev_end;
	unsigned int hidden = 0;
	int err = 0;

	while (hidden < bm->walk_max) {
		r->st.vma_queries++;
		err = ringside_procmaps_query(p->pm, from, flags, v);
		if (err || v->end > addr)
			break;
		hidden++;
		from = v->end;
	}
	bm->gaps++;
	bm->hidden += hidden;
	/* Failed (the query at addr tells how), or stopped short of addr. */
	if (err || v->end <= addr)
		return query_vma(r, p, addr, v);
	return 0;
}

static void fill_mapping(const struct cached_vma *cv, uint64_t addr, struct ringside_sym *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->vma_start = cv->m.start;
	out->vma_end = cv->m.end;
	out->vma_flags = cv->m.flags;
	out->path = cv->m.name;
	out->file_offset = addr - cv->m.start + cv->m.offset;
	out->build_id_size = cv->m.build_id_size;
	memcpy(out->build_id, cv->m.build_id, sizeof(out->build_id));
}

static void fill_sym(struct ringside_resolver *r, struct proc_entry *p, struct cached_vma *cv,
		     uint64_t addr, struct ringside_sym *out)
{
	struct file_entry *f;

	fill_mapping(cv, addr, out);
	f = file_for_vma(r, p, cv);
	if (!f || !f->st)
		return;
	if (!strcmp(cv->m.name, "[vdso]"))
		out->file_offset = addr - cv->m.start; /* the image is mapped from its start */
	if (rs_symtab_offset_to_vaddr(f->st, out->file_offset, &out->elf_addr))
		return;
	out->symbol = rs_symtab_lookup(f->st, out->elf_addr, &out->sym_offset);
}

/*
 * The entry for pid, re-validated and with its VMAs aged out when the TTL
 * has passed. Runs of addresses from one process skip both.
 */
static struct proc_entry *proc_current(struct ringside_resolver *r, pid_t pid, int *err)
{
	struct proc_entry *p = r->last;
	uint64_t now = now_ms();

	*err = 0;
	if (!p || p->pid != pid || now - p->loaded_ms > r->opts.vma_ttl_ms) {
		p = proc_get(r, pid, err);
		if (!p)
			return NULL;
		r->last = p;
	}
	if (now - p->loaded_ms > r->opts.vma_ttl_ms) {
		/* Mappings may have changed: trust the cache only for a while. */
		drop_vmas(p);
		p->loaded_ms = now;
	}
	return p;
}

static int resolve_one(struct ringside_resolver *r, pid_t pid, uint64_t addr,
		       struct ringside_sym *out, bool symbols)
{
	struct proc_entry *p;
	struct cached_vma *cv;
	struct ringside_vma *v;
	int err = 0;

	p = proc_current(r, pid, &err);
	if (!p)
		return err;
	cv = vma_lookup(p, addr);
	if (cv) {
		r->st.vma_hits++;
		if (symbols)
			fill_sym(r, p, cv, addr, out);
		else
			fill_mapping(cv, addr, out);
		return 0;
	}
	v = malloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = query_vma(r, p, addr, v);
	if (!err) {
		cv = vma_insert(p, v);
		if (!cv)
			err = -ENOMEM;
		else if (cv->m.start > addr)
			err = -ENOENT;	/* addr is in a gap; the next VMA is cached */
		else if (symbols)
			fill_sym(r, p, cv, addr, out);
		else
			fill_mapping(cv, addr, out);
	}
	free(v);
	if (err == -ESRCH) {
		ringside_resolver_forget(r, pid);
	}
	return err;
}

int ringside_resolve(struct ringside_resolver *r, pid_t pid, uint64_t addr, struct ringside_sym *out)
{
	return resolve_one(r, pid, addr, out, true);
}

int ringside_normalize(struct ringside_resolver *r, pid_t pid, const uint64_t *addrs, size_t n,
		       uint64_t *file_offset, const struct ringside_mapping **mapping)
{
	const struct cached_vma *cv = NULL;
	struct ringside_vma *v = NULL;
	struct batch_model bm = { 0 };
	int err = 0, mapped = 0, restarted = 0;
	/* The cache is checked and aged once: entries handed out below must stay. */
	struct proc_entry *p = proc_current(r, pid, &err);

	if (!p)
		return err;
	/*
	 * One pass: sorted input stays in the current VMA most of the time;
	 * otherwise the cache, then the kernel, is asked. Cached entries never
	 * move, so mapping[] can point at them as soon as they are found.
	 */
	for (size_t i = 0; i < n; i++) {
		uint64_t a = addrs[i];

		if (!cv || a < cv->m.start || a >= cv->m.end)
			cv = vma_lookup(p, a);
		if (!cv && !bm.snapped) {
			enum miss_action act = miss_action(r, p, &bm, i, n);
			uint64_t reloads = r->st.proc_reloads;
			double t0;

			/* Failing (it exited or exec'd), the text leaves the miss to a query. */
			if (act == MISS_SNAPSHOT && !snapshot_vmas(r, p)) {
				bm.snapped = true;
				cv = vma_lookup(p, a);
				goto found;
			}
			if (!v && !(v = malloc(sizeof(*v)))) {
				err = -ENOMEM;
				break;
			}
			t0 = mono_ns();
			if (act == MISS_WALK_GAP && a >= bm.prev_end) {
				err = walk_gap(r, p, &bm, a, v);
			} else {
				err = query_vma(r, p, a, v);
				act = MISS_QUERY;
			}
			bm.misses++;
			/* It exec'd meanwhile: what mapping[] holds so far is gone. */
			if (r->st.proc_reloads != reloads && i) {
				if (restarted++) {
					err = -EAGAIN;
					break;
				}
				i = (size_t)-1;
				mapped = 0;
				bm = (struct batch_model){ 0 };
				cv = NULL;
				continue;
			}
			if (err == -ENOENT) {
				err = 0;
			} else if (err) {
				break;
			} else {
				bm.prev_end = v->end;
				cv = vma_insert(p, v);
				if (!cv) {
					err = -ENOMEM;
					break;
				}
				/* What a queried miss costs, caching included. */
				if (act == MISS_QUERY) {
					double took = mono_ns() - t0;

					query_price_add(&r->query_cost, took);
				}
			}
			if (cv && (a < cv->m.start || a >= cv->m.end))
				cv = NULL;	/* a gap: the next VMA got cached */
		}
found:
		if (cv) {
			struct rs_addr_run run = { cv->m.start, cv->m.end, cv->m.offset - cv->m.start,
						   &cv->m };
			size_t j = rs_addr_run_fill(&run, addrs, i, n, file_offset, mapping);

			mapped += (int)(j - i);
			i = j - 1;
		} else {
			file_offset[i] = 0;
			mapping[i] = NULL;
		}
	}
	free(v);
	if (err == -ESRCH)
		ringside_resolver_forget(r, pid);
	return err ? err : mapped;
}

void ringside_resolver_forget(struct ringside_resolver *r, pid_t pid)
{
	for (unsigned int i = 0; i < r->nprocs; i++) {
		if (r->procs[i].pid != pid)
			continue;
		proc_clear(&r->procs[i]);
		/* Keep the table dense: move the last entry into the hole. */
		if (i != r->nprocs - 1) {
			r->procs[i] = r->procs[r->nprocs - 1];
			memset(&r->procs[r->nprocs - 1], 0, sizeof(r->procs[0]));
		}
		r->nprocs--;
		break;
	}
	r->last = NULL;
}

void ringside_resolver_stats(const struct ringside_resolver *r, struct ringside_resolver_stats *st)
{
	*st = r->st;
}

int ringside_proc_check(pid_t pid)
{
	char path[64], buf[512], state = 0;
	const char *f = pid > 0 ? rs_proc_stat_fields(pid, buf, sizeof(buf)) : NULL;
	unsigned int flags = 0;
	int fd;

	if (!f || sscanf(f, "%c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
		return -ESRCH;
	if (state == 'Z' || state == 'X')
		return -RINGSIDE_ERR_ZOMBIE;
	if (flags & 0x00200000) /* PF_KTHREAD */
		return -RINGSIDE_ERR_KTHREAD;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	close(fd);
	return 0;
}
