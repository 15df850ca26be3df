// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reclaim profiler: for each swappiness setting, refill the cgroup's
 * working set, ask for reclaim, and read what the reclaim collector saw.
 * Everything created (workload, temp file, zram swap) is removed and every
 * changed setting restored before returning; each change is written down in
 * the run's state journal first, so a killed run is repaired by the next.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "session_int.h"
#include "memcg_io.h"
#include "state_journal.h"
#include "ringside/reclaim.h"

struct profile {
	const struct ringside_reclaim_profile_opts *o;
	void (*on_note)(void *ctx, const char *line);	/* opts->on_note, if opts has it */
	void *ctx;			/* the caller's, for on_note */
	bool failed;			/* the first failure's reason is kept */
	bool v2, has_swap_key;
	char orig_swappiness[32], orig_limit[64];
	pid_t worker;
	int to_worker, from_worker;
	char tmpfile[256];
	int zram_id;
	char zram_dev[64];
	struct ringside_session *s;
	struct rs_journal journal;
	/* The request's reclaim records, summed: one per write, or one per pass
	 * on kernels without the syscall tracepoint. */
	struct {
		uint64_t reclaimed, anon, file, scanned_anon, scanned_file, ns;
		unsigned int records;
	} got;
};

static void note(struct profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct profile *p, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!p->on_note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->on_note(p->ctx, line);
}

static int fail(struct profile *p, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct profile *p, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!p->failed) {
		p->failed = true;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		rs_fail_last(err, "%s", msg);
	}
	return err < 0 ? err : -err;
}

/* ---- zram swap -------------------------------------------------------------- */

/* A version-1 swap header: what mkswap writes, minus the label and UUID. */
static int write_swap_header(const char *dev, uint64_t size)
{
	unsigned char page[4096] = { 0 };
	uint32_t version = 1, last_page = (uint32_t)(size / sizeof(page) - 1);
	int fd = open(dev, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	memcpy(page + 1024, &version, 4);
	memcpy(page + 1028, &last_page, 4);
	memcpy(page + sizeof(page) - 10, "SWAPSPACE2", 10);
	n = pwrite(fd, page, sizeof(page), 0);
	close(fd);
	return n == (ssize_t)sizeof(page) ? 0 : -EIO;
}

static void zram_teardown(struct profile *p);

static int zram_setup(struct profile *p, uint64_t size)
{
	char buf[32], dir[64];
	int err;

	p->zram_id = -1;
	err = rs_read_file("/sys/class/zram-control", "hot_add", buf, sizeof(buf));
	if (err < 0)
		return fail(p, err, "cannot create a zram device (/sys/class/zram-control/hot_add: %s): "
			    "is the zram module loaded?", strerror(-err));
	p->zram_id = atoi(buf);
	err = rs_journal_zram(&p->journal, p->zram_id);
	if (err < 0) {
		zram_teardown(p);
		return fail(p, err, "cannot write the state journal: %s", strerror(-err));
	}
	snprintf(dir, sizeof(dir), "/sys/block/zram%d", p->zram_id);
	snprintf(p->zram_dev, sizeof(p->zram_dev), "/dev/zram%d", p->zram_id);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)size);
	err = rs_write_file(dir, "disksize", buf);
	if (err >= 0)
		err = write_swap_header(p->zram_dev, size);
	if (err >= 0 && swapon(p->zram_dev, 0))
		err = -errno;
	if (err < 0)
		return fail(p, err, "cannot set up %s as swap: %s", p->zram_dev, strerror(-err));
	note(p, "created %s (%llu MiB) as swap for the profile", p->zram_dev,
	     (unsigned long long)(size >> 20));
	return 0;
}

static void zram_teardown(struct profile *p)
{
	char buf[16];

	if (p->zram_id < 0)
		return;
	swapoff(p->zram_dev);
	snprintf(buf, sizeof(buf), "%d", p->zram_id);
	rs_write_file("/sys/class/zram-control", "hot_remove", buf);
	p->zram_id = -1;
}

static bool have_swap(void)
{
	char buf[4096];
	int n = rs_read_file("/proc", "swaps", buf, sizeof(buf));

	/* A header line, then one line per swap area. */
	return n > 0 && strchr(buf, '\n') && strchr(buf, '\n')[1];
}

/* ---- the built-in workload ------------------------------------------------------ */

/* In the cgroup: anon memory and page cache, refilled on request. */
static void worker_main(int in, int out, uint64_t bytes, const char *file)
{
	size_t anon = bytes / 2, fsize = bytes - anon;
	unsigned char *mem = mmap(NULL, anon, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static unsigned char chunk[1 << 16];
	char cmd;
	int fd;

	if (mem == MAP_FAILED)
		_exit(1);
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (unsigned char)(i * 131 + 7);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		_exit(1);
	for (size_t off = 0; off < fsize; off += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) < 0)
			_exit(1);
	while (read(in, &cmd, 1) == 1 && cmd == 'r') {
		/* Non-zero, varied pages: the zero page and same-filled zram pages would cheat. */
		for (size_t i = 0; i < anon; i += 4096)
			mem[i] = (unsigned char)(i >> 12) | 1;
		for (off_t off = 0; off < (off_t)fsize; off += sizeof(chunk))
			if (pread(fd, chunk, sizeof(chunk), off) < 0)
				_exit(1);
		if (write(out, "k", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static int worker_start(struct profile *p, const char *cgroup, uint64_t bytes)
{
	int to[2], from[2];
	char pidbuf[32];
	const char *tmp = getenv("TMPDIR");

	snprintf(p->tmpfile, sizeof(p->tmpfile), "%s/ringside-profile.XXXXXX", tmp ? tmp : "/var/tmp");
	{
		int fd = mkstemp(p->tmpfile);

		if (fd < 0) {
			p->tmpfile[0] = '\0';
			return fail(p, -errno, "cannot create the workload's file: %s", strerror(errno));
		}
		close(fd);
	}
	if (rs_journal_file(&p->journal, p->tmpfile))
		return fail(p, -EIO, "cannot write the state journal for %s", p->tmpfile);
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return fail(p, -errno, "pipe: %s", strerror(errno));
	p->worker = fork();
	if (p->worker < 0)
		return fail(p, -errno, "fork: %s", strerror(errno));
	if (p->worker == 0) {
		char self[32];

		close(to[1]);
		close(from[0]);
		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (rs_write_file(cgroup, "cgroup.procs", self) < 0)
			_exit(1);
		worker_main(to[0], from[1], bytes, p->tmpfile);
	}
	close(to[0]);
	close(from[1]);
	/* It exits by itself when this process dies (EOF on the pipe); the record is for the rest. */
	rs_journal_process(&p->journal, p->worker);
	p->to_worker = to[1];
	p->from_worker = from[0];
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)p->worker);
	note(p, "workload PID %d in %s: %llu MiB anon + %llu MiB page cache", (int)p->worker, cgroup,
	     (unsigned long long)(bytes / 2 >> 20), (unsigned long long)((bytes - bytes / 2) >> 20));
	return 0;
}

static int worker_refill(struct profile *p)
{
	char ack;

	ssize_t n;

	if (p->worker <= 0)
		return 0;
	if (write(p->to_worker, "r", 1) != 1)
		return fail(p, -ECHILD, "the workload died (killed by the OOM killer? raise the limit)");
	/* A signal (the user's Ctrl-C) may cut the wait short. */
	while ((n = read(p->from_worker, &ack, 1)) < 0 && errno == EINTR)
		if (p->o->stop && *p->o->stop)
			return -EINTR;
	if (n != 1)
		return fail(p, -ECHILD, "the workload died (killed by the OOM killer? raise the limit)");
	return 0;
}

static void worker_stop(struct profile *p)
{
	if (p->worker > 0) {
		close(p->to_worker);
		close(p->from_worker);
		kill(p->worker, SIGKILL);
		waitpid(p->worker, NULL, 0);
		p->worker = 0;
	}
	if (p->tmpfile[0]) {
		unlink(p->tmpfile);
		p->tmpfile[0] = '\0';
	}
}

/* ---- one reclaim request ------------------------------------------------------------ */

static int on_event(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	struct profile *p = ctx;

	const struct rs_reclaim_event *r = (const void *)ev;

	if (ev->type == RS_EV_RECLAIM && size >= sizeof(*r) && (r->flags & RS_RECLAIM_F_WRITE)) {
		p->got.reclaimed += r->nr_reclaimed;
		p->got.anon += r->reclaimed_anon;
		p->got.file += r->reclaimed_file;
		p->got.scanned_anon += r->scanned_anon;
		p->got.scanned_file += r->scanned_file;
		p->got.ns += r->duration_ns;
		p->got.records++;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What writing to a file of a removed cgroup (or opening one) fails with. */
static bool cgroup_gone(int err)
{
	return err == -ENOENT || err == -ENODEV;
}

static int removed(struct profile *p, int err, const char *cg)
{
	return fail(p, err, "%s was removed during the profile", cg);
}

static int request(struct profile *p, const char *cg, int swappiness, struct ringside_reclaim_profile_row *row)
{
	char buf[96];
	int ret;
	double t0;

	memset(&p->got, 0, sizeof(p->got));
	t0 = now_s();
	if (p->v2) {
		if (p->has_swap_key)
			snprintf(buf, sizeof(buf), "%llu swappiness=%d", (unsigned long long)p->o->amount,
				 swappiness);
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->o->amount);
		row->method = p->has_swap_key ? "memory.reclaim swappiness=" : "memory.reclaim";
		ret = rs_write_file(cg, "memory.reclaim", buf);
	} else {
		char usage[32];
		unsigned long long u, limit;

		snprintf(buf, sizeof(buf), "%d", swappiness);
		ret = rs_write_file(cg, "memory.swappiness", buf);
		if (ret < 0 && !cgroup_gone(ret))
			return fail(p, ret, "%s/memory.swappiness: %s", cg, strerror(-ret));
		if (ret >= 0)
			ret = rs_read_file(cg, "memory.usage_in_bytes", usage, sizeof(usage));
		if (ret < 0)
			return cgroup_gone(ret) ? removed(p, ret, cg) :
						  fail(p, ret, "%s: %s", cg, strerror(-ret));
		u = strtoull(usage, NULL, 10);
		limit = u > p->o->amount + (4 << 20) ? u - p->o->amount : 4 << 20;
		row->method = "memory.swappiness + memory.limit_in_bytes";
		snprintf(buf, sizeof(buf), "%llu", limit);
		/* Lowering the limit reclaims in this thread, within this write. */
		ret = rs_write_file(cg, "memory.limit_in_bytes", buf);
		if (rs_write_file(cg, "memory.limit_in_bytes", p->orig_limit) < 0 && ret >= 0)
			ret = -EIO;
	}
	row->seconds = now_s() - t0;
	if (cgroup_gone(ret))
		return removed(p, ret, cg);
	row->err = ret < 0 ? ret : 0;
	/*
	 * The records were submitted before the write returned: one poll finds
	 * them all. A write that reclaimed nothing may have made none; the
	 * bounded wait covers a reader that is slow to be scheduled.
	 */
	for (int i = 0; i < 20 && !p->got.records; i++)
		ringside_session_poll(p->s, 50);
	ringside_session_poll(p->s, 0);
	if (p->got.records) {
		row->reclaimed = p->got.reclaimed * 4096;
		row->anon_pages = p->got.anon;
		row->file_pages = p->got.file;
		row->scanned_anon = p->got.scanned_anon;
		row->scanned_file = p->got.scanned_file;
		row->seconds = p->got.ns / 1e9;
	}
	return 0;
}

static void restore(struct profile *p, const char *cg)
{
	if (!p->v2 && p->orig_swappiness[0]) {
		rs_write_file(cg, "memory.swappiness", p->orig_swappiness);
		/* Each request restores it; this covers a request cut short. */
		rs_write_file(cg, "memory.limit_in_bytes", p->orig_limit);
	}
}

static void journal_note(void *ctx, const char *line)
{
	note(ctx, "%s", line);
}

int ringside_reclaim_profile(const struct ringside_reclaim_profile_opts *o,
			     ringside_profile_fn fn, void *ctx)
{
	struct profile p = { .o = o, .ctx = ctx, .zram_id = -1, .journal = { .fd = -1 } };
	/* The profile's own writes reclaim the cgroup: select by target, not by task. */
	struct ringside_session_opts so = { .sz = sizeof(so), .on_event = on_event, .ctx = &p };
	struct ringside_reclaim_opts ro = { .sz = sizeof(ro), .target_cgroup = o->cgroup };
	struct rs_cgroup_ref ref;
	const char *cg = o->cgroup;
	unsigned int rounds = o->rounds ? o->rounds : 1;
	char buf[64];
	pid_t holder;
	int err;

	rs_clear_last();
	if (o->sz >= offsetof(struct ringside_reclaim_profile_opts, on_note) + sizeof(p.on_note))
		p.on_note = o->on_note;
	if (!cg || (err = rs_cgroup_resolve(cg, &ref)))
		return fail(&p, cg ? err : -EINVAL, "%s is not a cgroup directory", cg ? cg : "(none)");
	p.v2 = ref.v2;
	/* The v1 root has usage_in_bytes; the v2 root has no memory.current. */
	if (p.v2 ? rs_read_file(cg, ref.level ? "memory.current" : "memory.stat", buf, sizeof(buf)) < 0 :
		   rs_read_file(cg, "memory.usage_in_bytes", buf, sizeof(buf)) < 0)
		return fail(&p, -RINGSIDE_ERR_NOMEMCG, "%s has no memory controller", cg);
	if (ref.level == 0)
		return fail(&p, -EINVAL, "%s is the root memory cgroup: its swappiness and limit are "
			    "the whole machine's; profile a child cgroup (mkdir %s/NAME)", cg, cg);
	if (!o->amount)
		return fail(&p, -EINVAL, "the amount to reclaim must be above 0");
	for (unsigned int i = 0; i < o->nr_swappiness; i++)
		if (o->swappiness[i] < 0 || o->swappiness[i] > 200)
			return fail(&p, -EINVAL, "swappiness %d is outside 0..200", o->swappiness[i]);
	err = rs_journal_begin(&p.journal, cg, &holder, journal_note, &p);
	if (err == -EBUSY)
		return fail(&p, err, "ringside PID %d is profiling %s: wait for it to end", (int)holder, cg);
	if (err)
		return fail(&p, err, "cannot create the state journal in %s: %s", rs_journal_dir(),
			    strerror(-err));
	if (p.v2) {
		p.has_swap_key = rs_memcg_probe_swappiness_key(cg) == 0;
		if (!p.has_swap_key)
			note(&p, "this kernel's memory.reclaim has no swappiness= key (Linux < 6.11): "
				 "vm.swappiness applies to every request");
	} else {
		if (rs_read_file(cg, "memory.swappiness", p.orig_swappiness, sizeof(p.orig_swappiness)) < 0 ||
		    rs_read_file(cg, "memory.limit_in_bytes", p.orig_limit, sizeof(p.orig_limit)) < 0 ||
		    rs_journal_setting(&p.journal, cg, "memory.limit_in_bytes") ||
		    rs_journal_setting(&p.journal, cg, "memory.swappiness")) {
			p.orig_swappiness[0] = '\0';
			rs_journal_end(&p.journal);
			return fail(&p, -EACCES, "cannot read %s's memory settings", cg);
		}
		p.orig_swappiness[strcspn(p.orig_swappiness, "\n")] = '\0';
		p.orig_limit[strcspn(p.orig_limit, "\n")] = '\0';
		note(&p, "cgroup v1: each setting is memory.swappiness, reclaim is asked for by "
			 "lowering memory.limit_in_bytes by the amount, then restoring it");
	}
	err = ringside_session_open(&so, &p.s);
	if (!err)
		err = ringside_session_enable_reclaim(p.s, &ro);
	if (!err)
		err = ringside_session_attach(p.s);
	if (err) {
		fail(&p, err, "cannot trace reclaim: %s", p.s ? ringside_session_errmsg(p.s) :
								 ringside_strerror(err));
		goto out;
	}
	if (o->zram_bytes && (err = zram_setup(&p, o->zram_bytes)))
		goto out;
	if (!have_swap())
		note(&p, "no swap: anonymous memory cannot be reclaimed, only page cache; "
			 "--setup-zram SIZE adds a zram swap device for the profile");
	if (o->workload_bytes && (err = worker_start(&p, cg, o->workload_bytes)))
		goto out;
	for (unsigned int i = 0; i < o->nr_swappiness && !err; i++) {
		for (unsigned int r = 0; r < rounds && !err; r++) {
			struct ringside_reclaim_profile_row row = { .swappiness = o->swappiness[i],
								    .round = r + 1,
								    .requested = o->amount };

			if (o->stop && *o->stop) {
				err = -EINTR;
				break;
			}
			err = worker_refill(&p);
			if (!err)
				err = request(&p, cg, o->swappiness[i], &row);
			if (!err && fn)
				err = fn(ctx, &row);
		}
	}
out:
	worker_stop(&p);
	restore(&p, cg);
	zram_teardown(&p);
	ringside_session_close(p.s);
	rs_journal_end(&p.journal);
	return err;
}
