// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "session_int.h"
#include "cgroup.h"
#include "feature_probes.h"
#include "feature_prefetch.h"
#include "kernel_btf.h"
#include "libbpf_btf.h"
#include "proc_stat.h"
#include "totals.h"
#include "uprobe_warm.h"
#include "ringside/resolve.h"

#define RS_DEFAULT_RINGBUF (256 * 1024)

static bool is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

static int target_identity(pid_t pid, uint64_t *start, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;
	int err = rs_proc_start_time(pid, start);

	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	/* Kernel threads have no exe; their start time alone identifies them. */
	if (stat(path, &st)) {
		*dev = 0;
		*ino = 0;
	} else {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
	return 0;
}

int ringside_session_target_check(struct ringside_session *s)
{
	uint64_t start;
	dev_t dev;
	ino_t ino;
	int err;

	if (!s->filter.tgid)
		return 0;
	err = ringside_proc_check((pid_t)s->filter.tgid);
	if (err == -RINGSIDE_ERR_ZOMBIE)
		err = -ESRCH;
	if (!err)
		err = target_identity((pid_t)s->filter.tgid, &start, &dev, &ino);
	if (err)
		return rs_fail(s, err, "target PID %u exited", s->filter.tgid);
	if (start != s->target_start)
		return rs_fail(s, -ESRCH, "target PID %u exited (the PID now names another process)",
			       s->filter.tgid);
	/* An exiting task loses its exe (exit_mm) before it turns zombie. */
	if (!ino && s->target_exe_ino)
		return rs_fail(s, -ESRCH, "target PID %u exited", s->filter.tgid);
	if (dev != s->target_exe_dev || ino != s->target_exe_ino)
		return rs_fail(s, -RINGSIDE_ERR_EXECED, "target PID %u exec'd another program",
			       s->filter.tgid);
	return 0;
}


static void stop_keeping_btf(struct ringside_session *s)
{
	if (s->keeps_btf)
		rs_kernel_btf_keep(false);
	s->keeps_btf = false;
}

int ringside_session_open(const struct ringside_session_opts *opts,
			  struct ringside_session **out)
{
	struct ringside_session *s;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	*out = NULL;
	rs_clear_last();
	if (!opts || opts->sz < offsetof(struct ringside_session_opts, ctx) + sizeof(void *))
		return rs_fail_last(-EINVAL, "no session options, or options from another version: "
				 "set opts.sz = sizeof(struct ringside_session_opts)");
	s = calloc(1, sizeof(*s));
	if (!s)
		return rs_fail_last(-ENOMEM, "out of memory");
	memcpy(&s->opts, opts, sizeof(s->opts) < opts->sz ? sizeof(s->opts) : opts->sz);
	if (!s->opts.ringbuf_bytes)
		s->opts.ringbuf_bytes = RS_DEFAULT_RINGBUF;
	if (!is_pow2(s->opts.ringbuf_bytes) || s->opts.ringbuf_bytes < (size_t)page) {
		err = rs_fail_last(-EINVAL, "ring buffer of %zu bytes: give a power of two of at least "
				"%ld bytes (a page)", s->opts.ringbuf_bytes, page);
		free(s);
		return err;
	}
	s->filter.tgid = opts->pid > 0 ? (__u32)opts->pid : 0;
	s->filter.tid = opts->tid > 0 ? (__u32)opts->tid : 0;
	s->filter.cgroup_ssid = -1;
	if (opts->comm && *opts->comm) {
		s->filter.comm_set = 1;
		strncpy(s->filter.comm, opts->comm, RS_COMM_LEN - 1);
	}
	if (opts->cgroup_path && *opts->cgroup_path) {
		struct rs_cgroup_ref ref;

		err = rs_cgroup_resolve(opts->cgroup_path, &ref);
		if (err) {
			free(s);
			return rs_fail_last(err, "cgroup %s: %s: give a cgroup directory or its path as "
					 "/proc/PID/cgroup shows it", opts->cgroup_path,
					 ringside_strerror(err));
		}
		s->filter.cgroup_id = ref.id;
		s->filter.cgroup_ssid = ref.ssid;
		s->filter.cgroup_level = ref.level;
		s->cgroup_path = strdup(opts->cgroup_path);
	}
	if (s->filter.tgid) {
		err = target_identity(opts->pid, &s->target_start, &s->target_exe_dev,
				      &s->target_exe_ino);
		if (err) {
			free(s->cgroup_path);
			free(s);
			return rs_fail_last(err, "PID %d: %s", (int)opts->pid,
					 err == -ESRCH ? "no such process" : ringside_strerror(err));
		}
	}
	/* Don't keep pointers into the caller's memory. */
	s->opts.cgroup_path = s->cgroup_path;
	s->opts.comm = NULL;
	/* Until the objects are loaded, the kernel's BTF is parsed at most once. */
	rs_kernel_btf_keep(true);
	s->keeps_btf = true;
	/* Starting from its open: sessions opened together see each other start (attach_failed()). */
	s->starting = true;
	rs_probe_session_starting();
	*out = s;
	return 0;
}

const struct rs_collector *rs_session_collector(const struct ringside_session *s,
						const struct rs_collector_ops *ops)
{
	for (const struct rs_collector *c = s ? s->collectors : NULL; c; c = c->next)
		if (c->ops == ops)
			return c;
	return NULL;
}

int rs_session_add(struct ringside_session *s, const struct rs_collector_ops *ops, void *priv)
{
	struct rs_collector *c, **tail;

	if (s->attached)
		return rs_fail(s, -EBUSY, "cannot enable %s: session already attached", ops->name);
	for (c = s->collectors; c; c = c->next)
		if (c->ops == ops)
			return rs_fail(s, -EEXIST, "collector %s enabled twice", ops->name);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ops = ops;
	c->s = s;
	c->core_btf.fd = -1;
	c->priv = priv;
	for (tail = &s->collectors; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	if (!s->starting) {
		s->starting = true;
		rs_probe_session_starting();
	}
	return 0;
}

/* The session's start is over (attached, failed or closed): the probes' links may go. */
static void session_started(struct ringside_session *s)
{
	if (s->starting) {
		s->starting = false;
		rs_probe_session_started();
	}
}

/*
 * After X__open(), libbpf holds copies of all it uses from the object the
 * binary embeds (BTF, instructions, map images) and never reads it again.
 * Its pages stay in the resident set, though, with their neighbours: the
 * kernel maps file pages in fault-around windows (256 KB here), so reading
 * gcm's 420 KB object mapped most of the others beside it, through the load
 * that follows, when the kernel's BTF is mapped too and RSS peaks. The
 * objects live in a read-only PT_LOAD segment (.rodata): a private
 * read-only file mapping, never written, so unmapping it loses nothing;
 * the page cache keeps the bytes, and whatever else there is read again
 * (usage text, tables) faults back in.
 */
struct segment_query {
	uintptr_t addr, start, end;
};

static int find_readonly_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct segment_query *q = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || q->addr < start || q->addr >= start + ph->p_memsz)
			continue;
		if (ph->p_flags == PF_R) {
			q->start = start;
			q->end = start + ph->p_memsz;
		}
		return 1;
	}
	return 0;
}

void rs_unmap_object_bytes(const void *(*elf_bytes)(size_t *size))
{
	size_t size, page = (size_t)sysconf(_SC_PAGESIZE);
	struct segment_query q = { .addr = (uintptr_t)elf_bytes(&size) };
	uintptr_t first, end;

	dl_iterate_phdr(find_readonly_segment, &q);
	first = (q.start + page - 1) & ~(page - 1);
	end = q.end & ~(page - 1);
	if (end > first)
		madvise((void *)first, end - first, MADV_DONTNEED);
}

const struct bpf_object_open_opts *rs_collector_open_opts(struct rs_collector *c,
							  const void *(*elf_bytes)(size_t *size))
{
	size_t size;
	const void *elf = elf_bytes(&size);

	rs_core_btf_close(&c->core_btf);
	c->open_opts = (struct bpf_object_open_opts){ .sz = sizeof(c->open_opts) };
	rs_core_btf_prepare(elf, size, &c->core_btf, &c->open_opts);
	/*
	 * Outside the ringside binary libbpf makes its own parse for tp_btf and
	 * fentry targets: once the last collector's cut is made, ours goes, so
	 * that its index and libbpf's copy never add up in the peak RSS.
	 */
	if (!c->next && !rs_libbpf_btf_routed())
		stop_keeping_btf(c->s);
	return &c->open_opts;
}

/* After load(): the cut has been read, and -v tells how CO-RE found the kernel's types. */
static void core_btf_loaded(struct rs_collector *c)
{
	const struct rs_core_btf *cb = &c->core_btf;
	const char *what;

	if (cb->fd >= 0)
		rs_note(c->s, "%s: CO-RE: %u relocations against %u kernel types, from a cut of %u "
			"types of the kernel's BTF%s", c->ops->name, cb->nr_relos, cb->nr_roots,
			cb->nr_types, cb->from_cache ? ", kept from a start earlier this boot" : "");
	else if (cb->why_not && cb->nr_relos)
		rs_note(c->s, "%s: CO-RE: libbpf searches the kernel's BTF for %u relocations (%s)",
			c->ops->name, cb->nr_relos, cb->why_not);
	rs_core_btf_close(&c->core_btf);
	what = rs_libbpf_btf_loaded();
	if (*what)
		rs_note(c->s, "%s: libbpf's kernel BTF: %s", c->ops->name, what);
}

int rs_collector_prepare(struct rs_collector *c, struct rs_filter_cfg *rodata_filter,
			 const void *(*elf_bytes)(size_t *size))
{
	struct bpf_map *rb = bpf_object__find_map_by_name(c->obj, "events");
	const void *elf;
	size_t size;
	int err;

	/* What libbpf looks up in the kernel's BTF for it: its externs now, its programs' targets at load. */
	c->elf_bytes = elf_bytes;
	elf = elf_bytes(&size);
	rs_libbpf_btf_loading(c->obj, c->core_btf.fd >= 0 || !c->core_btf.nr_relos, elf, size);
	rs_unmap_object_bytes(elf_bytes);

	*rodata_filter = c->s->filter;
	/* Wake the reader per 1/8 of the ring; poll() drains the rest on timeout. */
	rodata_filter->wakeup_bytes = (__u32)(c->s->opts.ringbuf_bytes / 8);
	if (!rb)
		return rs_fail(c->s, -ENOENT, "%s: BPF object has no events map", c->ops->name);
	rs_parts_autoload(c->obj, c->ops->parts, c->ops->nr_parts, c->choice);
	err = bpf_map__set_max_entries(rb, c->s->opts.ringbuf_bytes);
	if (err)
		return rs_fail(c->s, err, "%s: cannot size ring buffer to %zu bytes",
			       c->ops->name, c->s->opts.ringbuf_bytes);
	return 0;
}

int rs_load_failed(struct rs_collector *c, int err)
{
	/* The verifier answers EACCES too: that is not a privilege problem for root. */
	if ((err == -EACCES || err == -EINVAL) && !geteuid())
		return rs_fail(c->s, err, "%s: the kernel's verifier rejected the BPF program "
			       "(run with -v for its log)", c->ops->name);
	return rs_fail(c->s, err, "%s: BPF load failed: %s", c->ops->name, ringside_strerror(err));
}

int rs_collector_attach_all(struct rs_collector *c, const struct bpf_program *optional)
{
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, c->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(p))
			continue;
		link = bpf_program__attach(p);
		if (!link && p == optional) {
			rs_note(c->s, "%s: %s loaded but did not attach (%s); going on without it",
				c->ops->name, bpf_program__name(p), strerror(errno));
			continue;
		}
		if (!link) {
			err = -errno;
			return rs_fail(c->s, err, "%s: cannot attach %s: %s", c->ops->name,
				       bpf_program__name(p), ringside_strerror(err));
		}
		err = rs_collector_keep_link(c, link);
		if (err)
			return err;
	}
	return 0;
}

int rs_collector_keep_link_fd(struct rs_collector *c, int fd)
{
	if (c->nr_link_fds == c->cap_link_fds) {
		unsigned int cap = c->cap_link_fds ? c->cap_link_fds * 2 : 16;
		int *fds = realloc(c->link_fds, cap * sizeof(*fds));

		if (!fds) {
			close(fd);
			return -ENOMEM;
		}
		c->link_fds = fds;
		c->cap_link_fds = cap;
	}
	c->link_fds[c->nr_link_fds++] = fd;
	return 0;
}

int rs_collector_keep_link(struct rs_collector *c, struct bpf_link *link)
{
	if (c->nr_links == c->cap_links) {
		unsigned int cap = c->cap_links ? c->cap_links * 2 : 16;
		struct bpf_link **links = realloc(c->links, cap * sizeof(*links));

		if (!links) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		c->links = links;
		c->cap_links = cap;
	}
	c->links[c->nr_links++] = link;
	return 0;
}

/* Ring-buffer callback; ctx is the collector whose ring holds the record. */
static int deliver(void *ctx, void *data, size_t size)
{
	struct rs_collector *c = ctx;
	struct ringside_session *s = c->s;
	const struct rs_event_hdr *ev = data;
	int ret;

	if (size < sizeof(*ev))
		return 0;
	if (c->ops->inspect) {
		ret = c->ops->inspect(c, ev, size);
		if (ret < 0)
			return ret;
		if (ret > 0)
			return 0;
	}
	s->st.events++;
	s->st.bytes += size;
	if (s->opts.on_event) {
		ret = s->opts.on_event(s->opts.ctx, ev, size);
		if (ret < 0) {
			s->cb_err = ret;
			return ret;
		}
	}
	return 0;
}

static void *close_fd(void *arg)
{
	close((int)(long)arg);
	return NULL;
}

#define MAX_CLOSE_THREADS 64

/*
 * Releasing a uprobe_multi link waits for an RCU grace period (about 50 ms
 * here); links released from parallel threads share the wait: 40 links took
 * 80 ms instead of 2 s. Perf-event uprobes (bpf_link) serialize on a mutex.
 */
static void close_link_fds(int *fds, unsigned int n)
{
	pthread_t tid[MAX_CLOSE_THREADS];
	bool threaded[MAX_CLOSE_THREADS];

	while (n) {
		unsigned int batch = n < MAX_CLOSE_THREADS ? n : MAX_CLOSE_THREADS;

		for (unsigned int i = 0; i < batch; i++) {
			threaded[i] = batch > 1 &&
				      !pthread_create(&tid[i], NULL, close_fd, (void *)(long)fds[i]);
			if (!threaded[i])
				close(fds[i]);
		}
		for (unsigned int i = 0; i < batch; i++)
			if (threaded[i])
				pthread_join(tid[i], NULL);
		fds += batch;
		n -= batch;
	}
}

void rs_collector_drop_links(struct rs_collector *c, unsigned int nr_links, unsigned int nr_link_fds)
{
	if (c->nr_link_fds > nr_link_fds)
		close_link_fds(c->link_fds + nr_link_fds, c->nr_link_fds - nr_link_fds);
	c->nr_link_fds = nr_link_fds < c->nr_link_fds ? nr_link_fds : c->nr_link_fds;
	while (c->nr_links > nr_links)
		bpf_link__destroy(c->links[--c->nr_links]);
}

static void collector_unload(struct rs_collector *c)
{
	rs_collector_drop_links(c, 0, 0);
	if (c->obj && c->ops->destroy)
		c->ops->destroy(c);
	c->obj = NULL;
}

void ringside_session_detach(struct ringside_session *s)
{
	uint64_t lost = 0;

	if (!s)
		return;
	/* Keep the drop counts of what is being unloaded for the final summary. */
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		lost += rs_collector_drops(c, RS_DROP_RINGBUF);
		s->rows_lost_before += rs_collector_drops(c, RS_DROP_TOTALS);
	}
	s->lost_before += lost;
	ring_buffer__free(s->rb);
	s->rb = NULL;
	for (struct rs_collector *c = s->collectors; c; c = c->next)
		collector_unload(c);
	s->attached = false;
	s->st.collectors = 0;
	s->st.links = 0;
}

static int add_ring(struct ringside_session *s, struct rs_collector *c)
{
	struct bpf_map *map = bpf_object__find_map_by_name(c->obj, "events");
	int fd = map ? bpf_map__fd(map) : -1;
	int err;

	if (fd < 0)
		return rs_fail(s, -ENOENT, "%s: no events map", c->ops->name);
	if (!s->rb) {
		s->rb = ring_buffer__new(fd, deliver, c, NULL);
		if (!s->rb) {
			err = -errno;
			return rs_fail(s, err, "cannot create ring buffer reader: %s",
				       ringside_strerror(err));
		}
		return 0;
	}
	err = ring_buffer__add(s->rb, fd, deliver, c);
	return err ? rs_fail(s, err, "cannot add %s ring buffer", c->ops->name) : 0;
}

static bool part_used(const struct rs_collector *c, unsigned int part)
{
	return !c->ops->part_unused || !c->ops->part_unused(c, part);
}

/* The settled choices, noted for -v; an error when a part has none. */
static int note_choices(struct rs_collector *c)
{
	for (unsigned int i = 0; i < c->ops->nr_parts && i < RS_MAX_PARTS; i++) {
		const struct rs_part *part = &c->ops->parts[i];
		const struct rs_choice *ch = &c->choice[i];
		const struct rs_variant *v;

		if (ch->unused) {
			rs_note(c->s, "%s: %s: not needed here", c->ops->name, part->name);
			continue;
		}
		if (ch->variant < 0)
			return rs_fail(c->s, -RINGSIDE_ERR_KERNEL, "%s: this kernel offers no way to do "
				       "its %s: %s (%s)", c->ops->name, part->name, ch->decided_by, ch->why);
		v = &part->variants[ch->variant];
		if (ch->variant == 0)
			rs_note(c->s, "%s: %s by %s: %s", c->ops->name, part->name, v->name, v->gives);
		else
			rs_note(c->s, "%s: %s by %s, since %s is missing (%s): %s", c->ops->name,
				part->name, v->name, ch->decided_by, ch->why, v->gives);
	}
	return 0;
}

/*
 * Pick each part's variant from the kernel's features: settled from their
 * tests, and noted; or, for a load that need not wait for a test under way,
 * from what the kernel claims (settle_variants() checks it).
 */
static int choose_variants(struct rs_collector *c, bool settled)
{
	bool claimed = false;

	for (unsigned int i = 0; i < c->ops->nr_parts && i < RS_MAX_PARTS; i++) {
		if (!part_used(c, i)) {
			c->choice[i] = (struct rs_choice){ .variant = (int)c->ops->parts[i].nr_variants - 1,
							   .decided_by = "none", .unused = true };
			continue;
		}
		rs_part_choose(&c->ops->parts[i], &c->choice[i], settled);
		if (c->choice[i].variant < 0 && !settled)
			return choose_variants(c, true);
		claimed |= c->choice[i].claimed;
	}
	c->choices_settled = !claimed;
	return claimed ? 0 : note_choices(c);
}

/*
 * After the load: the choices that rested on a claim, as the tests settle
 * them. A collector loaded on a claim its test refuted (or that
 * RINGSIDE_FEATURES_OFF switched off) is loaded again with the settled
 * choice, before anything attaches.
 */
static int settle_variants(struct rs_collector *c)
{
	bool changed = false;
	int err;

	if (c->choices_settled)
		return 0;
	for (unsigned int i = 0; i < c->ops->nr_parts && i < RS_MAX_PARTS; i++) {
		int loaded = c->choice[i].variant;

		if (!c->choice[i].claimed)
			continue;
		rs_part_choose(&c->ops->parts[i], &c->choice[i], true);
		changed |= loaded != c->choice[i].variant;
	}
	c->choices_settled = true;
	err = note_choices(c);
	if (err || !changed)
		return err;
	rs_note(c->s, "%s: loaded again: a feature's test refuted what the kernel claimed", c->ops->name);
	if (c->ops->destroy)
		c->ops->destroy(c);
	c->obj = NULL;
	err = c->ops->load(c);
	core_btf_loaded(c);
	return err;
}

/*
 * The session's start is over: the feature tests' threads and their links'
 * releases are waited for, so that nothing of them outlives a caller that
 * stops here, unless another session is still starting. That one's attach
 * or close waits, and this one's would wait out the tests its collectors
 * started (the agent's kernel-gcm, failing where the kernel has neither
 * fentry nor kprobes, waited ~80 ms for gcm's uprobe tests).
 */
static void wait_for_probe_threads(void)
{
	if (rs_probe_sessions_starting())
		return;
	rs_features_prefetched();
	rs_probe_links_released();
}

/* Undo a failed attach: the kept BTF, whatever was loaded and attached, the probes' threads. */
static int attach_failed(struct ringside_session *s, const struct rs_collector *c, int err,
			 struct rs_uprobe_warm *warm)
{
	rs_uprobe_warm_stop(warm);
	stop_keeping_btf(s);
	if (!s->errmsg[0])
		rs_fail(s, err, "%s: %s", c->ops->name, ringside_strerror(err));
	ringside_session_detach(s);
	session_started(s);
	wait_for_probe_threads();
	return err;
}

int ringside_session_attach(struct ringside_session *s)
{
	struct rs_uprobe_warm *warm = NULL;
	int err;

	if (s->attached)
		return 0;
	if (!s->collectors)
		return rs_fail(s, -EINVAL, "no collector enabled");
	s->errmsg[0] = '\0';
	/*
	 * The features the collectors' best variants need, those no thread is
	 * probing first, so that a prefetch under way (feature_prefetch.h) is
	 * waited for only once there is nothing else to do.
	 */
	for (struct rs_collector *c = s->collectors; c; c = c->next)
		for (unsigned int i = 0; i < c->ops->nr_parts && i < RS_MAX_PARTS; i++)
			if (part_used(c, i) && c->ops->parts[i].variants[0].needs != RINGSIDE_FEAT_COUNT)
				rs_features_probe_unless_under_way(c->ops->parts[i].variants[0].needs);
	/* Every collector's variants first, from one parse of the kernel's BTF; then the loads. */
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		err = choose_variants(c, false);
		if (err)
			return attach_failed(s, c, err, NULL);
	}
	for (struct rs_collector *c = s->collectors; c && !warm; c = c->next)
		if (c->ops->attaches_uprobes)
			warm = rs_uprobe_warm_start();
	/*
	 * The view is kept through the loads: each cuts its CO-RE types from
	 * it (core_btf.h), and in the ringside binary what libbpf looks up for
	 * tp_btf and fentry targets and kfuncs is taken from it (libbpf_btf.h).
	 * A copy read before 6.16 is dropped before the rings are mapped
	 * (elsewhere after the last cut: rs_collector_open_opts()); a mapping
	 * stays (kernel_btf.c).
	 */
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		err = c->ops->load(c);
		core_btf_loaded(c);
		if (err)
			return attach_failed(s, c, err, warm);
	}
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		err = settle_variants(c);
		if (err)
			return attach_failed(s, c, err, warm);
	}
	stop_keeping_btf(s);
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		err = c->ops->attach(c);
		if (!err)
			err = add_ring(s, c);
		if (err)
			return attach_failed(s, c, err, warm);
		s->st.collectors++;
		s->st.links += c->nr_links + c->nr_link_fds;
	}
	if (warm) {
		unsigned int made = rs_uprobe_warm_stop(warm);

		rs_note(s, "uprobes: registration kept fast through the loads: %u no-op "
			"registration%s on ringside's own code, released after the start%s", made,
			made == 1 ? "" : "s", made ? "" : " (none: no uprobe_multi links here)");
	}
	s->attached = true;
	/* The feature probes' links are released (a grace period, ~100 ms) on
	 * threads from here, once no other session is starting: not waited
	 * for here, but by close. */
	session_started(s);
	/*
	 * Loading built what libbpf looks up in the kernel's BTF (up to a MB;
	 * outside the ringside binary libbpf parses its own 5.5 MB copy per
	 * object) and freed it; glibc keeps freed heap mapped. A tracer runs
	 * for hours: give it back.
	 */
	malloc_trim(0);
	/*
	 * The objects' bytes are read again after each skeleton's open: by the
	 * two-CPU load's opens, and by other sessions' opens beside this one
	 * (the agent's), each faulting a 256 KB window back in. They share one
	 * read-only segment, which any of them names: given back once.
	 */
	for (struct rs_collector *c = s->collectors; c; c = c->next)
		if (c->elf_bytes) {
			rs_unmap_object_bytes(c->elf_bytes);
			break;
		}
	return 0;
}

int ringside_session_poll(struct ringside_session *s, int timeout_ms)
{
	uint64_t before = s->st.events;
	int err;

	if (!s->rb)
		return rs_fail(s, -ENOTCONN, "session is not attached");
	s->cb_err = 0;
	for (struct rs_collector *c = s->collectors; c; c = c->next)
		if (c->ops->poll)
			c->ops->poll(c);
	err = ring_buffer__poll(s->rb, timeout_ms);
	/* Records below the wakeup threshold raise no epoll event: drain them. */
	if (err == 0 && !s->cb_err)
		err = ring_buffer__consume(s->rb);
	if (s->cb_err)
		return s->cb_err;
	if (err < 0 && err != -EINTR)
		return rs_fail(s, err, "ring buffer poll failed: %s", ringside_strerror(err));
	if (err == -EINTR)
		return -EINTR;
	return (int)(s->st.events - before);
}

int ringside_session_epoll_fd(const struct ringside_session *s)
{
	return s->rb ? ring_buffer__epoll_fd(s->rb) : -ENOTCONN;
}

int ringside_session_stats(const struct ringside_session *s, struct ringside_stats *st)
{
	uint64_t lost = s->lost_before, rows_lost = s->rows_lost_before;

	*st = s->st;
	for (struct rs_collector *c = s->collectors; c; c = c->next) {
		lost += rs_collector_drops(c, RS_DROP_RINGBUF);
		rows_lost += rs_collector_drops(c, RS_DROP_TOTALS);
	}
	st->lost = lost;
	st->rows_lost = rows_lost;
	return 0;
}

const char *ringside_session_errmsg(const struct ringside_session *s)
{
	return s ? s->errmsg : "";
}

const char *ringside_session_notes(const struct ringside_session *s)
{
	return s ? s->notes : "";
}

void ringside_session_close(struct ringside_session *s)
{
	struct rs_collector *c, *next;

	if (!s)
		return;
	ringside_session_detach(s);
	session_started(s);
	wait_for_probe_threads();
	for (c = s->collectors; c; c = next) {
		next = c->next;
		if (c->ops->release)
			c->ops->release(c);
		rs_core_btf_close(&c->core_btf);
		free(c->links);
		free(c->link_fds);
		free(c);
	}
	stop_keeping_btf(s);
	free(s->cgroup_path);
	free(s);
}
