// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profiler's built-in workloads. One child process in the profiled
 * cgroup holds anonymous memory and a file's page cache; each is either hot
 * (touched on every pass, so reclaiming it costs a refault soon after) or
 * cold (touched once when it comes in, never again, so reclaiming it costs
 * nothing). The kernel only knows what it is told by accesses: both halves
 * are used at start-up, as a service loads its data, then only the hot one.
 *
 * The child obeys commands on a pipe, one byte each: 'f' start over and use the hot set (reply 'k'),
 * 'w' plus a double: run the hot passes for that many seconds (reply the
 * pages touched, a uint64_t). It exits on EOF, so it dies with the profiler.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memcg_io.h"
#include "profile_workload.h"
#include "ringside/reclaim.h"

#define PAGE 4096UL
#define CHUNK (64UL << 10)

struct working_set {
	unsigned char *anon;
	size_t anon_len;
	int fd;
	size_t file_len;
	bool anon_hot, file_hot;
	unsigned char chunk[CHUNK];
	uint64_t generation;		/* written into anon pages, so each pass dirties them */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Non-zero and varied: zero pages and same-filled zram pages would make reclaim free. */
static void touch_anon_page(struct working_set *ws, size_t off)
{
	ws->anon[off] = (unsigned char)((off >> 12) + ws->generation) | 1;
}

static void anon_pass(struct working_set *ws)
{
	ws->generation++;
	for (size_t off = 0; off < ws->anon_len; off += PAGE)
		touch_anon_page(ws, off);
}

static void file_pass(struct working_set *ws)
{
	for (size_t off = 0; off < ws->file_len; off += CHUNK)
		if (pread(ws->fd, ws->chunk, CHUNK, (off_t)off) < 0)
			_exit(1);
}

/* The file's contents, written once and flushed: clean page cache, each page referenced once. */
static void write_file(struct working_set *ws)
{
	if (ftruncate(ws->fd, 0))
		_exit(1);
	for (size_t off = 0; off < ws->file_len; off += CHUNK)
		if (pwrite(ws->fd, ws->chunk, CHUNK, (off_t)off) != (ssize_t)CHUNK)
			_exit(1);
	if (fsync(ws->fd))
		_exit(1);
}

/*
 * Start over, so that every step begins from the same state whatever the
 * steps before it did: fresh anonymous memory written once, the file dropped
 * from the page cache (clean and unmapped, so it goes without leaving the
 * shadow entries that would make its return count as refaults) and read
 * twice, as a service loads its data at start-up. A file page read twice is
 * active; new anonymous pages start inactive with their accessed bit set.
 */
static void restart(struct working_set *ws)
{
	munmap(ws->anon, ws->anon_len);
	ws->anon = mmap(NULL, ws->anon_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ws->anon == MAP_FAILED)
		_exit(1);
	anon_pass(ws);
	/* Kernels without fadvise (tinyconfig lacks ADVISE_SYSCALLS): truncate and write it anew. */
	if (posix_fadvise(ws->fd, 0, 0, POSIX_FADV_DONTNEED))
		write_file(ws);
	file_pass(ws);
	file_pass(ws);
}

static uint64_t hot_pass(struct working_set *ws)
{
	uint64_t pages = 0;

	if (ws->anon_hot) {
		anon_pass(ws);
		pages += ws->anon_len / PAGE;
	}
	if (ws->file_hot) {
		file_pass(ws);
		pages += ws->file_len / PAGE;
	}
	return pages;
}

static void worker_main(int in, int out, int kind, uint64_t bytes, const char *file)
{
	static struct working_set ws;
	size_t anon = (bytes / 2) & ~(PAGE - 1), fsize = (bytes - anon) & ~(CHUNK - 1);
	char cmd;

	ws.anon_hot = kind != RINGSIDE_WORKLOAD_FILE_HOT;
	ws.file_hot = kind != RINGSIDE_WORKLOAD_ANON_HOT;
	ws.anon_len = anon;
	ws.file_len = fsize;
	ws.anon = mmap(NULL, anon, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ws.fd = open(file, O_RDWR | O_CLOEXEC);
	if (ws.anon == MAP_FAILED || ws.fd < 0)
		_exit(1);
	for (size_t i = 0; i < CHUNK; i++)
		ws.chunk[i] = (unsigned char)(i * 131 + 7);
	write_file(&ws);
	while (read(in, &cmd, 1) == 1) {
		if (cmd == 'f') {
			restart(&ws);
			hot_pass(&ws);
			hot_pass(&ws);
			if (write(out, "k", 1) != 1)
				_exit(1);
		} else if (cmd == 'w') {
			double window, t0 = mono_s();
			uint64_t ops = 0;

			if (read(in, &window, sizeof(window)) != sizeof(window))
				_exit(1);
			do
				ops += hot_pass(&ws);
			while (mono_s() - t0 < window);
			if (write(out, &ops, sizeof(ops)) != sizeof(ops))
				_exit(1);
		} else {
			_exit(1);
		}
	}
	_exit(0);
}

void rs_workload_name(struct rs_workload *w, const char *tmpdir)
{
	memset(w, 0, sizeof(*w));
	w->to = w->from = -1;
	snprintf(w->file, sizeof(w->file), "%s/ringside-profile.%d", tmpdir ? tmpdir : "/var/tmp", (int)getpid());
}

int rs_workload_start(struct rs_workload *w, int kind, uint64_t bytes, const char *cgroup)
{
	int to[2], from[2], fd, err;

	/* In a shared temp dir: a file or link already there is not ours to write. */
	fd = open(w->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w->created = true;
	close(fd);
	if (pipe2(to, O_CLOEXEC))
		return -errno;
	if (pipe2(from, O_CLOEXEC)) {
		err = -errno;
		close(to[0]);
		close(to[1]);
		return err;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		w->pid = 0;
		close(to[0]), close(to[1]), close(from[0]), close(from[1]);
		return err;
	}
	if (w->pid == 0) {
		char self[32];

		close(to[1]);
		close(from[0]);
		/* Not the profiler's signals: it is stopped by EOF or SIGKILL. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (rs_write_file(cgroup, "cgroup.procs", self) < 0)
			_exit(1);
		worker_main(to[0], from[1], kind, bytes, w->file);
	}
	close(to[0]);
	close(from[1]);
	w->to = to[1];
	w->from = from[0];
	return 0;
}

/* Wait for len bytes of reply; a signal (the user's Ctrl-C) may end the wait. */
static int reply(struct rs_workload *w, void *buf, size_t len, volatile int *stop)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(w->from, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR) {
			if (stop && *stop)
				return -EINTR;
			continue;
		}
		if (n <= 0)
			return -ECHILD;
		got += (size_t)n;
	}
	return 0;
}

int rs_workload_refill(struct rs_workload *w, volatile int *stop)
{
	char ack;

	if (!w->pid)
		return 0;
	if (write(w->to, "f", 1) != 1)
		return -ECHILD;
	return reply(w, &ack, 1, stop);
}

int rs_workload_window(struct rs_workload *w, double window_s, uint64_t *ops, volatile int *stop)
{
	char cmd[1 + sizeof(double)] = { 'w' };

	*ops = 0;
	if (!w->pid)
		return 0;
	memcpy(cmd + 1, &window_s, sizeof(window_s));
	if (write(w->to, cmd, sizeof(cmd)) != (ssize_t)sizeof(cmd))
		return -ECHILD;
	return reply(w, ops, sizeof(*ops), stop);
}

void rs_workload_stop(struct rs_workload *w)
{
	if (w->pid > 0) {
		close(w->to);
		close(w->from);
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
	}
	if (w->created) {
		unlink(w->file);
		w->created = false;
	}
	w->file[0] = '\0';
}
