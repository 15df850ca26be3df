// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reclaim profiler: for each trial and each swappiness setting (in a
 * shuffled order), refill the cgroup's working set, ask for reclaim, read
 * what the reclaim collector saw, then watch what it cost while the workload
 * runs on: refaults and major faults from the cgroup's memory.stat, swap-ins
 * and PSI stall time, the workload's throughput.
 * Everything created (workload, temp file, zram swap) is removed and every
 * changed setting restored before returning; each change is written down in
 * the run's state journal first, so a killed run is repaired by the next.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "kv_stat.h"
#include "profile_workload.h"
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
	struct rs_workload wl;
	int zram_id;
	char zram_dev[64];
	struct ringside_session *s;
	struct rs_journal journal;
	/* The request's reclaim records, summed: one per write, or one per pass
	 * on kernels without the syscall tracepoint. */
	struct {
		uint64_t reclaimed, anon, file, scanned_anon, scanned_file, ns;
		unsigned int records;
		struct ringside_hist lat;
	} got;
	/* Options of later ABI versions, defaulted when the caller's struct predates them. */
	int kind;
	double window_s;
	bool attach;
	int (*read_metric)(void *ctx, double *value);
	void (*on_progress)(void *ctx, unsigned int done, unsigned int total, int swappiness, double eta_s);
	struct ringside_reclaim_profile_totals *totals;
	/* memory.stat names: v1's hierarchical total_* or v2's (hierarchical already). */
	const char *const *cost_keys;
	const char *psi_dir, *psi_file, *psi_scope;
};

/* Cost counters of the cgroup: refaults by type, major faults. */
enum { COST_REFAULT_ANON, COST_REFAULT_FILE, COST_MAJFAULT, NR_COST };
static const char *const cost_keys_v1[NR_COST] = { "total_workingset_refault_anon",
						   "total_workingset_refault_file", "total_pgmajfault" };
static const char *const cost_keys_v2[NR_COST] = { "workingset_refault_anon", "workingset_refault_file",
						   "pgmajfault" };
/* The machine's: reclaim per type (to check the tracer), swap-ins. */
enum { VM_STEAL_ANON, VM_STEAL_FILE, VM_SCAN_ANON, VM_SCAN_FILE, VM_PSWPIN, NR_VM };
static const char *const vm_keys[NR_VM] = { "pgsteal_anon", "pgsteal_file", "pgscan_anon", "pgscan_file",
					    "pswpin" };

/* A counter's increase; 0 when either reading lacks it. */
static uint64_t delta(uint64_t before, uint64_t after)
{
	return before == UINT64_MAX || after == UINT64_MAX || after < before ? 0 : after - before;
}

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

/* ---- one reclaim request ------------------------------------------------------------ */

static int on_event(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	struct profile *p = ctx;
	const struct rs_reclaim_event *r = (const void *)ev;

	if (ev->type == RS_EV_RECLAIM && size >= sizeof(*r) && (r->flags & RS_RECLAIM_F_WRITE)) {
		p->got.lat.slot[ringside_hist_slot(r->duration_ns)]++;
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

/* A workload call's result: -ECHILD (its pipe closed) named as what it most likely is. */
static int workload_result(struct profile *p, int err)
{
	return err == -ECHILD ? fail(p, err, "the workload died (killed by the OOM killer? raise the limit)") : err;
}

static uint64_t usage_bytes(struct profile *p, const char *cg, int *err)
{
	char buf[32];

	*err = rs_read_file(cg, p->v2 ? "memory.current" : "memory.usage_in_bytes", buf, sizeof(buf));
	return *err < 0 ? 0 : strtoull(buf, NULL, 10);
}

/*
 * A request can end past its goal: the kernel reclaims in batches of
 * SWAP_CLUSTER_MAX (32) pages per LRU list, frees a large folio whole (up
 * to a PMD, 2 MiB: measured here, 8 MiB taken for a 7 MiB request from
 * large page-cache folios), and a v1 limit write also reclaims what the
 * service charges meanwhile. An attached profile asks for an eighth less
 * and two large folios less, so that it never takes more than the amount
 * from a running service.
 */
#define LARGE_FOLIO_MARGIN (2 * (2ULL << 20))
#define ATTACH_MIN_AMOUNT (8ULL << 20)

static uint64_t attach_ask(uint64_t amount)
{
	return amount - amount / 8 - LARGE_FOLIO_MARGIN;
}

static int request(struct profile *p, const char *cg, int swappiness, struct ringside_reclaim_profile_row *row)
{
	uint64_t ask = p->attach ? attach_ask(p->o->amount) : p->o->amount;
	uint64_t vm0[NR_VM], vm1[NR_VM];
	char buf[96];
	int ret;
	double t0;

	memset(&p->got, 0, sizeof(p->got));
	rs_kv_read("/proc", "vmstat", vm_keys, vm0, NR_VM);
	t0 = now_s();
	if (p->v2) {
		if (p->has_swap_key)
			snprintf(buf, sizeof(buf), "%llu swappiness=%d", (unsigned long long)ask, swappiness);
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ask);
		row->method = p->has_swap_key ? "memory.reclaim swappiness=" : "memory.reclaim";
		ret = rs_write_file(cg, "memory.reclaim", buf);
	} else {
		unsigned long long u, limit;

		snprintf(buf, sizeof(buf), "%d", swappiness);
		ret = rs_write_file(cg, "memory.swappiness", buf);
		if (ret < 0 && !cgroup_gone(ret))
			return fail(p, ret, "%s/memory.swappiness: %s", cg, strerror(-ret));
		if (ret >= 0)
			u = usage_bytes(p, cg, &ret);
		if (ret < 0)
			return cgroup_gone(ret) ? removed(p, ret, cg) :
						  fail(p, ret, "%s: %s", cg, strerror(-ret));
		limit = u > ask + (4 << 20) ? u - ask : 4 << 20;
		row->method = "memory.swappiness + memory.limit_in_bytes";
		snprintf(buf, sizeof(buf), "%llu", limit);
		/* Lowering the limit reclaims in this thread, within this write. */
		ret = rs_write_file(cg, "memory.limit_in_bytes", buf);
		if (rs_write_file(cg, "memory.limit_in_bytes", p->orig_limit) < 0 && ret >= 0)
			ret = -EIO;
	}
	row->seconds = now_s() - t0;
	rs_kv_read("/proc", "vmstat", vm_keys, vm1, NR_VM);
	if (cgroup_gone(ret))
		return removed(p, ret, cg);
	row->err = ret < 0 ? ret : 0;
	row->vm_steal_anon = delta(vm0[VM_STEAL_ANON], vm1[VM_STEAL_ANON]);
	row->vm_steal_file = delta(vm0[VM_STEAL_FILE], vm1[VM_STEAL_FILE]);
	row->vm_scan_anon = delta(vm0[VM_SCAN_ANON], vm1[VM_SCAN_ANON]);
	row->vm_scan_file = delta(vm0[VM_SCAN_FILE], vm1[VM_SCAN_FILE]);
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
		row->calls = p->got.records;
		row->lat_hist = p->got.lat;
	}
	return 0;
}

/* ---- what the step cost: the observation window ---------------------------------------- */

struct cost_reading {
	uint64_t stat[NR_COST];
	uint64_t pswpin;
	struct rs_psi psi;
	bool has_psi;
	double metric;
	bool has_metric;
	double at;
};

static int read_cost(struct profile *p, const char *cg, struct cost_reading *c)
{
	uint64_t vm[NR_VM];
	int err = rs_kv_read(cg, "memory.stat", p->cost_keys, c->stat, NR_COST);

	if (err < 0)
		return cgroup_gone(err) ? removed(p, err, cg) : fail(p, err, "%s/memory.stat: %s", cg, strerror(-err));
	rs_kv_read("/proc", "vmstat", vm_keys, vm, NR_VM);
	c->pswpin = vm[VM_PSWPIN];
	c->has_psi = p->psi_scope && !rs_psi_read(p->psi_dir, p->psi_file, &c->psi);
	c->has_metric = p->read_metric && !p->read_metric(p->ctx, &c->metric);
	c->at = now_s();
	return 0;
}

/* Sleep for the window, or until told to stop. */
static int idle_window(struct profile *p, double seconds)
{
	double end = now_s() + seconds;

	while (now_s() < end) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (p->o->stop && *p->o->stop)
			return -EINTR;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int observe(struct profile *p, const char *cg, struct ringside_reclaim_profile_row *row)
{
	struct cost_reading a, b;
	int err = read_cost(p, cg, &a);

	if (err)
		return err;
	if (p->wl.pid) {
		err = workload_result(p, rs_workload_window(&p->wl, p->window_s, &row->workload_ops, p->o->stop));
	} else {
		err = idle_window(p, p->window_s);
	}
	if (err)
		return err;
	err = read_cost(p, cg, &b);
	if (err)
		return err;
	row->window_s = b.at - a.at;
	row->refault_anon = delta(a.stat[COST_REFAULT_ANON], b.stat[COST_REFAULT_ANON]);
	row->refault_file = delta(a.stat[COST_REFAULT_FILE], b.stat[COST_REFAULT_FILE]);
	row->majfaults = delta(a.stat[COST_MAJFAULT], b.stat[COST_MAJFAULT]);
	row->swapins = delta(a.pswpin, b.pswpin);
	if (a.has_psi && b.has_psi) {
		row->psi_scope = p->psi_scope;
		row->stall_some_us = delta(a.psi.some_us, b.psi.some_us);
		row->stall_full_us = delta(a.psi.full_us, b.psi.full_us);
	}
	row->metric_rate = a.has_metric && b.has_metric && row->window_s > 0 ?
				   (b.metric - a.metric) / row->window_s : NAN;
	if (p->totals) {
		p->totals->window_refault_anon += row->refault_anon;
		p->totals->window_refault_file += row->refault_file;
		p->totals->window_majfaults += row->majfaults;
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

/* ---- checks before anything changes ----------------------------------------------------- */

static int check_request(struct profile *p, const struct rs_cgroup_ref *ref)
{
	const struct ringside_reclaim_profile_opts *o = p->o;
	const char *cg = o->cgroup;
	char buf[64];

	/* The v1 root has usage_in_bytes; the v2 root has no memory.current. */
	if (p->v2 ? rs_read_file(cg, ref->level ? "memory.current" : "memory.stat", buf, sizeof(buf)) < 0 :
		    rs_read_file(cg, "memory.usage_in_bytes", buf, sizeof(buf)) < 0)
		return fail(p, -RINGSIDE_ERR_NOMEMCG, "%s has no memory controller", cg);
	if (ref->level == 0)
		return fail(p, -EINVAL, "%s is the root memory cgroup: its swappiness and limit are "
			    "the whole machine's; profile a child cgroup (mkdir %s/NAME)", cg, cg);
	if (!o->amount)
		return fail(p, -EINVAL, "the amount to reclaim must be above 0");
	for (unsigned int i = 0; i < o->nr_swappiness; i++)
		if (o->swappiness[i] < 0 || o->swappiness[i] > 200)
			return fail(p, -EINVAL, "swappiness %d is outside 0..200", o->swappiness[i]);
	if (p->attach) {
		int err;
		uint64_t used;

		if (o->workload_bytes)
			return fail(p, -EINVAL, "--attach profiles the cgroup's own tasks: drop --workload");
		if (o->amount < ATTACH_MIN_AMOUNT)
			return fail(p, -EINVAL, "an attached profile needs --amount of at least %llu MiB (the "
				    "kernel frees large folios whole; smaller steps could take more than asked)",
				    ATTACH_MIN_AMOUNT >> 20);
		err = rs_read_file(cg, "cgroup.procs", buf, sizeof(buf));
		if (err == 0)
			return fail(p, -ESRCH, "%s has no tasks: --attach profiles a running cgroup "
				    "(or use --workload SIZE for a built-in one)", cg);
		used = usage_bytes(p, cg, &err);
		if (err >= 0 && o->amount >= used)
			return fail(p, -EINVAL, "the amount (%llu MiB) is not below what %s uses (%llu MiB): "
				    "ask for less", (unsigned long long)(o->amount >> 20), cg,
				    (unsigned long long)(used >> 20));
	} else if (o->workload_bytes && o->amount >= o->workload_bytes) {
		return fail(p, -EINVAL, "the amount (%llu MiB) is not below the workload's size (%llu MiB): "
			    "ask for less or run a larger --workload", (unsigned long long)(o->amount >> 20),
			    (unsigned long long)(o->workload_bytes >> 20));
	}
	return 0;
}

/* v1 before Linux 5.8 refuses memory.swappiness above 100: find out before the sweep. */
static int check_v1_swappiness_range(struct profile *p, const char *cg)
{
	int top = -1, err;
	char buf[16];

	for (unsigned int i = 0; i < p->o->nr_swappiness; i++)
		if (p->o->swappiness[i] > top)
			top = p->o->swappiness[i];
	if (top <= 100)
		return 0;
	snprintf(buf, sizeof(buf), "%d", top);
	err = rs_write_file(cg, "memory.swappiness", buf);
	rs_write_file(cg, "memory.swappiness", p->orig_swappiness);
	if (err == -EINVAL)
		return fail(p, err, "this kernel's memory.swappiness takes 0..100 (Linux < 5.8): drop "
			    "swappiness %d from the list", top);
	return 0;
}

/* ---- the sweep ------------------------------------------------------------------------- */

#define OPT(o, field, dflt) \
	((o)->sz >= offsetof(struct ringside_reclaim_profile_opts, field) + sizeof((o)->field) ? (o)->field : (dflt))

static void shuffle(int *v, unsigned int n, unsigned int *seed)
{
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)rand_r(seed) % i;
		int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

static int sweep(struct profile *p, const char *cg, ringside_profile_fn fn, void *ctx)
{
	const struct ringside_reclaim_profile_opts *o = p->o;
	unsigned int trials = o->rounds ? o->rounds : 1, total = trials * o->nr_swappiness, done = 0;
	unsigned int seed = OPT(o, seed, 0);
	int order[32];
	double t0 = now_s();
	int err = 0;

	for (unsigned int t = 0; t < trials && !err; t++) {
		memcpy(order, o->swappiness, o->nr_swappiness * sizeof(int));
		if (OPT(o, shuffle, false))
			shuffle(order, o->nr_swappiness, &seed);
		for (unsigned int i = 0; i < o->nr_swappiness && !err; i++, done++) {
			struct ringside_reclaim_profile_row row = { .swappiness = order[i], .round = t + 1,
								    .order = i + 1, .requested = o->amount,
								    .metric_rate = NAN };

			if (o->stop && *o->stop)
				return -EINTR;
			if (p->on_progress)
				p->on_progress(ctx, done, total, order[i],
					       done ? (now_s() - t0) / done * (total - done) : -1);
			err = workload_result(p, rs_workload_refill(&p->wl, o->stop));
			if (!err && !done && !p->attach && o->workload_bytes) {
				/* Now that the workload is in: is the amount below what the cgroup holds? */
				uint64_t used = usage_bytes(p, cg, &err);

				if (err >= 0 && o->amount >= used)
					return fail(p, -EINVAL, "the amount (%llu MiB) is not below what %s "
						    "uses (%llu MiB): ask for less",
						    (unsigned long long)(o->amount >> 20), cg,
						    (unsigned long long)(used >> 20));
				err = 0;
			}
			if (!err)
				err = request(p, cg, order[i], &row);
			if (!err)
				err = observe(p, cg, &row);
			if (!err && fn)
				err = fn(ctx, &row);
		}
	}
	if (!err && p->on_progress)
		p->on_progress(ctx, total, total, -1, 0);
	return err;
}

int ringside_reclaim_profile(const struct ringside_reclaim_profile_opts *o,
			     ringside_profile_fn fn, void *ctx)
{
	struct profile p = { .o = o, .ctx = ctx, .zram_id = -1, .journal = { .fd = -1 } };
	/* The profile's own writes reclaim the cgroup: select by target, not by task. */
	struct ringside_session_opts so = { .sz = sizeof(so), .on_event = on_event, .ctx = &p };
	struct ringside_reclaim_opts ro = { .sz = sizeof(ro), .target_cgroup = o->cgroup };
	struct ringside_reclaim_profile_totals totals = { 0 };
	uint64_t start[NR_COST] = { UINT64_MAX, UINT64_MAX, UINT64_MAX }, end[NR_COST];
	struct rs_cgroup_ref ref;
	const char *cg = o->cgroup;
	pid_t holder;
	int err;

	rs_clear_last();
	p.on_note = OPT(o, on_note, NULL);
	p.kind = OPT(o, workload_kind, RINGSIDE_WORKLOAD_MIXED);
	p.window_s = OPT(o, window_s, 0.0);
	if (!(p.window_s > 0))
		p.window_s = 1.0;
	p.attach = OPT(o, attach, false);
	p.read_metric = OPT(o, read_metric, NULL);
	p.on_progress = OPT(o, on_progress, NULL);
	p.totals = OPT(o, totals, NULL) ? &totals : NULL;
	if (!cg || (err = rs_cgroup_resolve(cg, &ref)))
		return fail(&p, cg ? err : -EINVAL, "%s is not a cgroup directory", cg ? cg : "(none)");
	p.v2 = ref.v2;
	if ((err = check_request(&p, &ref)))
		return err;
	p.cost_keys = p.v2 ? cost_keys_v2 : cost_keys_v1;
	/* PSI: the cgroup's own on v2; v1 has none, so the machine's, said as such. */
	p.psi_dir = p.v2 ? cg : "/proc/pressure";
	p.psi_file = p.v2 ? "memory.pressure" : "memory";
	err = rs_journal_begin(&p.journal, cg, &holder, journal_note, &p);
	if (err == -EBUSY)
		return fail(&p, err, "ringside PID %d is profiling %s: wait for it to end", (int)holder, cg);
	if (err)
		return fail(&p, err, "cannot create the state journal in %s: %s", rs_journal_dir(),
			    strerror(-err));
	{
		struct rs_psi probe;

		p.psi_scope = rs_psi_read(p.psi_dir, p.psi_file, &probe) ? NULL : p.v2 ? "cgroup" : "system";
		if (!p.psi_scope)
			note(&p, "no PSI (kernel without CONFIG_PSI or booted with psi=0): stall time not measured");
		else if (!p.v2)
			note(&p, "cgroup v1 has no per-cgroup PSI: stall time is the whole machine's "
				 "(/proc/pressure/memory)");
	}
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
		if ((err = check_v1_swappiness_range(&p, cg)))
			goto out;
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
	if (rs_kv_read(cg, "memory.stat", p.cost_keys, start, NR_COST) < NR_COST)
		note(&p, "%s/memory.stat lacks refault or major-fault counters: their costs read as 0", cg);
	if (o->workload_bytes) {
		rs_workload_name(&p.wl, getenv("TMPDIR"));
		err = rs_journal_file(&p.journal, p.wl.file);
		if (!err)
			err = rs_workload_start(&p.wl, p.kind, o->workload_bytes, cg);
		if (!err && p.wl.pid)
			/* It exits by itself when this process dies (EOF on the pipe); the record is for the rest. */
			rs_journal_process(&p.journal, p.wl.pid);
		if (err) {
			fail(&p, err, "cannot start the workload: %s", strerror(-err));
			goto out;
		}
		note(&p, "workload PID %d in %s: %llu MiB anon + %llu MiB page cache, %s hot",
		     (int)p.wl.pid, cg, (unsigned long long)(o->workload_bytes / 2 >> 20),
		     (unsigned long long)((o->workload_bytes - o->workload_bytes / 2) >> 20),
		     p.kind == RINGSIDE_WORKLOAD_ANON_HOT ? "anon" :
		     p.kind == RINGSIDE_WORKLOAD_FILE_HOT ? "page cache" : "both");
	}
	if (OPT(o, shuffle, false) && o->nr_swappiness > 1)
		note(&p, "%u trials of %u settings, each trial in its own shuffled order (seed %u)",
		     o->rounds ? o->rounds : 1, o->nr_swappiness, OPT(o, seed, 0));
	err = sweep(&p, cg, fn, ctx);
out:
	rs_workload_stop(&p.wl);
	if (!err && p.totals && rs_kv_read(cg, "memory.stat", p.cost_keys, end, NR_COST) >= 0) {
		totals.refault_anon = delta(start[COST_REFAULT_ANON], end[COST_REFAULT_ANON]);
		totals.refault_file = delta(start[COST_REFAULT_FILE], end[COST_REFAULT_FILE]);
		totals.majfaults = delta(start[COST_MAJFAULT], end[COST_MAJFAULT]);
		*o->totals = totals;
	}
	restore(&p, cg);
	zram_teardown(&p);
	ringside_session_close(p.s);
	rs_journal_end(&p.journal);
	return err;
}
