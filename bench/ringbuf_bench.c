// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring-buffer pipeline, end to end: BPF reserve/submit -> epoll -> decode
 * -> aggregate -> print, in a real `ringside gcm --events` writing JSON or
 * text to /dev/null. The producer (ringbuf_flood.bpf.c) queues records into
 * that tracer's own ring from a system-call tracepoint of this process, paced
 * to a rate or flat out. Per run: records delivered per second, the tracer's
 * CPU per record, its wakeups (voluntary context switches) and whether
 * delivered + lost equals produced, with ringside's batched wakeups and with a
 * wakeup per record. Asserts nothing about time; a broken count fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "ringside/events.h"
#include "ringbuf_flood.skel.h"

#define DEFAULT_RING_BYTES (1024 * 1024)	/* ringside gcm --events' default --ringbuf-size */
#define BURST 8
#define DEADLINE_S 60.0

struct bench_cfg {
	const char *ringside, *lib;
	double secs;
	unsigned long ring_bytes;	/* RING_KIB=N for another size than the default */
	char ring_arg[24];
};

struct tracer {
	pid_t pid;
	char err_path[64];
	int ring_fd, drops_fd;
	const volatile uint64_t *cons_pos, *prod_pos;
	void *cons_page, *prod_page;
};

struct run_result {
	uint64_t produced, delivered, lost;
	double secs, cpu_ns, wakeups;
	bool ok;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static bool file_has(const char *path, const char *text)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

/* The number after `key` on the last line of `path` holding key and also; -1 if none. */
static long long number_after(const char *path, const char *key, const char *also)
{
	char line[512];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p && (!also || strstr(line, also)))
			v = strtoll(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return v;
}

/* utime + stime of pid in ns, and its voluntary context switches. */
static void proc_usage(pid_t pid, double *cpu_ns, double *vcsw)
{
	char path[64], buf[4096], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		fclose(f);
		p = strrchr(buf, ')');
		/* fields after comm: state is 3, utime 14, stime 15 */
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st) == 2)
			*cpu_ns = (ut + st) * 1e9 / sysconf(_SC_CLK_TCK);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	*vcsw = (double)number_after(path, "voluntary_ctxt_switches:\t", NULL);
}

/* The tracer's ring and drop-counter maps, found among its open fds by type. */
static int find_maps(struct tracer *t)
{
	char dir[64], path[320], line[128];
	struct dirent *d;
	DIR *dp;
	int rings = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", t->pid);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	t->ring_fd = t->drops_fd = -1;
	while ((d = readdir(dp))) {
		unsigned int type = 0, id = 0, max = 0;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "map_type: %u", &type);
			sscanf(line, "map_id: %u", &id);
			sscanf(line, "max_entries: %u", &max);
		}
		fclose(f);
		if (!id)
			continue;
		if (type == BPF_MAP_TYPE_RINGBUF) {
			rings++;
			t->ring_fd = bpf_map_get_fd_by_id(id);
		} else if (type == BPF_MAP_TYPE_PERCPU_ARRAY && max == RS_DROP_SLOTS) {
			struct bpf_map_info info = { 0 };
			uint32_t len = sizeof(info);
			int fd = bpf_map_get_fd_by_id(id);

			if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
			    !strcmp(info.name, "drops"))
				t->drops_fd = fd;
			else if (fd >= 0)
				close(fd);
		}
	}
	closedir(dp);
	if (rings != 1 || t->ring_fd < 0 || t->drops_fd < 0)
		return -ENOENT;
	/* The positions, read-only: the consumer's page, then the producer's. */
	long ps = sysconf(_SC_PAGESIZE);

	t->cons_page = mmap(NULL, ps, PROT_READ, MAP_SHARED, t->ring_fd, 0);
	t->prod_page = mmap(NULL, ps, PROT_READ, MAP_SHARED, t->ring_fd, ps);
	if (t->cons_page == MAP_FAILED || t->prod_page == MAP_FAILED)
		return -errno;
	t->cons_pos = t->cons_page;
	t->prod_pos = t->prod_page;
	return 0;
}

static int tracer_start(const struct bench_cfg *cfg, bool json, struct tracer *t)
{
	const char *argv[] = { cfg->ringside, "gcm", "--events", "--lib", cfg->lib, "--comm",
			       "ringbuf_bench", "-v", "--ringbuf-size", cfg->ring_arg,
			       json ? "--json" : NULL, NULL };
	double deadline = now_s() + DEADLINE_S;
	int fd;

	snprintf(t->err_path, sizeof(t->err_path), "/tmp/ringbuf_bench.%d.err", getpid());
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		fd = open(t->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execv(cfg->ringside, (char **)argv);
		_exit(127);
	}
	while (!file_has(t->err_path, "tracing AES-GCM")) {
		if (now_s() > deadline || waitpid(t->pid, NULL, WNOHANG) == t->pid) {
			fprintf(stderr, "ringbuf_bench: ringside did not start (see %s)\n", t->err_path);
			return -ETIMEDOUT;
		}
		nap_ms(10);
	}
	return find_maps(t);
}

static void tracer_close_maps(struct tracer *t)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (t->cons_page && t->cons_page != MAP_FAILED)
		munmap(t->cons_page, ps);
	if (t->prod_page && t->prod_page != MAP_FAILED)
		munmap(t->prod_page, ps);
	if (t->ring_fd >= 0)
		close(t->ring_fd);
	if (t->drops_fd >= 0)
		close(t->drops_fd);
}

/* Stop the tracer; what it says it read and lost goes into r. */
static int tracer_stop(struct tracer *t, struct run_result *r)
{
	int status;

	kill(t->pid, SIGINT);
	waitpid(t->pid, &status, 0);
	long long seen = number_after(t->err_path, "ringside: records read: ", NULL);
	long long lost = number_after(t->err_path, "ringside: ", "events lost");

	if (lost < 0)
		lost = 0;
	if (seen < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ringbuf_bench: ringside failed (status %d, see %s)\n", status,
			t->err_path);
		return -EIO;
	}
	r->delivered = (uint64_t)seen;
	r->lost = (uint64_t)lost;
	unlink(t->err_path);
	return 0;
}

/* Something for the records' caller to resolve to. */
__attribute__((noinline)) static void flood_loop(double rate, double secs)
{
	double start = now_s(), end = start + secs;
	uint64_t calls = 0;

	/* Paced evenly: a late sleep must not turn into a burst that fills the ring. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	for (;;) {
		for (int i = 0; i < 8; i++)
			syscall(SYS_getppid);
		calls += 8;
		double t = now_s();

		if (t >= end)
			break;
		if (rate > 0) {
			double ahead = calls * BURST / rate - (t - start);

			if (ahead > 0.00005)
				usleep((useconds_t)(ahead * 1e6));
			else if (ahead < -0.0005)
				start += -ahead - 0.0005;	/* fell behind: do not catch up in a burst */
		}
	}
}

static int one_run(const struct bench_cfg *cfg, bool json, bool batched, double rate,
		   struct run_result *r)
{
	struct tracer t = { .ring_fd = -1, .drops_fd = -1 };
	struct ringbuf_flood_bpf *skel = NULL;
	double cpu0 = 0, cpu1 = 0, vc0 = 0, vc1 = 0, t0, deadline;
	int err;

	memset(r, 0, sizeof(*r));
	err = tracer_start(cfg, json, &t);
	if (err)
		goto out;
	skel = ringbuf_flood_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	skel->rodata->burst = BURST;
	skel->rodata->caller_addr = (uintptr_t)flood_loop + 4;
	skel->rodata->rs_filter.tgid = getpid();
	/* ringside's policy: wake the reader when an eighth of the ring waits. */
	skel->rodata->rs_filter.wakeup_bytes = batched ? cfg->ring_bytes / 8 : 0;
	err = bpf_map__reuse_fd(skel->maps.events, t.ring_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.drops, t.drops_fd);
	if (!err)
		err = ringbuf_flood_bpf__load(skel);
	if (!err)
		err = ringbuf_flood_bpf__attach(skel);
	if (err)
		goto out;
	proc_usage(t.pid, &cpu0, &vc0);
	t0 = now_s();
	flood_loop(rate, cfg->secs);
	ringbuf_flood_bpf__detach(skel);
	/* Done when the reader has caught up with everything queued. */
	deadline = now_s() + DEADLINE_S;
	while (*t.cons_pos != *t.prod_pos && now_s() < deadline)
		nap_ms(1);
	r->secs = now_s() - t0;
	proc_usage(t.pid, &cpu1, &vc1);
	r->cpu_ns = cpu1 - cpu0;
	r->wakeups = vc1 - vc0;
	r->produced = skel->bss->produced;
	err = tracer_stop(&t, r);
	t.pid = 0;
	r->ok = !err && r->delivered + r->lost == r->produced;
out:
	if (t.pid > 0) {
		kill(t.pid, SIGKILL);
		waitpid(t.pid, NULL, 0);
	}
	ringbuf_flood_bpf__destroy(skel);
	tracer_close_maps(&t);
	return err;
}

static const char *find_libcrypto(void)
{
	static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
					     "/lib/x86_64-linux-gnu/libcrypto.so.3",
					     "/usr/lib64/libcrypto.so.3", NULL };

	for (int i = 0; paths[i]; i++)
		if (!access(paths[i], R_OK))
			return paths[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = { .secs = 2.0, .ring_bytes = DEFAULT_RING_BYTES };
	static const double rates[] = { 5e5, 1e6, 0 };
	char self[4096], ringside[4200];
	ssize_t n;
	int failed = 0;

	if (geteuid()) {
		puts("ringbuf_bench: needs root (BPF)");
		return 0;
	}
	/* bench/ringbuf_bench sits beside ../ringside in the build directory. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(ringside, sizeof(ringside), "%s/../ringside", self);
	cfg.ringside = getenv("RINGSIDE") ? getenv("RINGSIDE") : ringside;
	cfg.lib = find_libcrypto();
	if (argc > 1)
		cfg.secs = atof(argv[1]);
	if (getenv("RING_KIB"))
		cfg.ring_bytes = strtoul(getenv("RING_KIB"), NULL, 10) * 1024;
	snprintf(cfg.ring_arg, sizeof(cfg.ring_arg), "%lu", cfg.ring_bytes);
	if (!cfg.lib) {
		puts("ringbuf_bench: no libcrypto.so.3 to attach ringside gcm to");
		return 1;
	}
	printf("ring %lu KiB%s, %d records per system call, %.1f s per run\n", cfg.ring_bytes / 1024,
	       cfg.ring_bytes == DEFAULT_RING_BYTES ? " (the default)" : "", BURST, cfg.secs);
	printf("%-5s %-9s %-9s %11s %11s %10s %8s %10s %9s %s\n", "out", "wakeups", "offered",
	       "produced", "delivered", "deliv/s", "lost", "cpu_ns/rec", "rec/wake", "check");
	for (int j = 0; j < 2; j++)
		for (int b = 1; b >= 0; b--)
			for (unsigned int i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
				struct run_result r;
				char offered[16];
				int err = one_run(&cfg, j == 0, b, rates[i], &r);

				if (err) {
					printf("ringbuf_bench: run failed: %s\n", strerror(-err));
					failed++;
					continue;
				}
				snprintf(offered, sizeof(offered), rates[i] ? "%.1fM/s" : "max",
					 rates[i] / 1e6);
				printf("%-5s %-9s %-9s %11llu %11llu %10.0f %8llu %10.0f %9.0f %s\n",
				       j == 0 ? "json" : "text", b ? "batched" : "per-rec", offered,
				       (unsigned long long)r.produced,
				       (unsigned long long)r.delivered, r.delivered / r.secs,
				       (unsigned long long)r.lost, r.cpu_ns / (r.delivered ? r.delivered : 1),
				       r.wakeups > 0 ? r.delivered / r.wakeups : 0,
				       r.ok ? "seen+lost=produced" : "MISMATCH");
				failed += !r.ok;
			}
	return failed ? 1 : 0;
}
