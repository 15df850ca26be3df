/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A child process whose mappings hold still: it builds them, reports ready
 * through a pipe, and waits to be killed. Shared by tests and benchmarks that
 * read another process's maps.
 */
#ifndef RINGSIDE_FROZEN_CHILD_H
#define RINGSIDE_FROZEN_CHILD_H

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* nmaps unmergeable single-page VMAs (alternating protections). */
static inline void frozen_make_many_mappings(int nmaps)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *base;

	if (nmaps <= 0)
		return;
	base = mmap(NULL, (size_t)nmaps * ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return;
	for (int i = 0; i < nmaps; i += 2)
		mprotect(base + (size_t)i * ps, ps, PROT_READ | PROT_WRITE);
}

/* Fork; the child runs setup() (may be NULL), adds nmaps mappings and freezes. */
static inline pid_t frozen_child_spawn(void (*setup)(void), int nmaps)
{
	int pfd[2];
	char c;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (setup)
			setup();
		frozen_make_many_mappings(nmaps);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (pid > 0 && read(pfd[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pfd[0]);
	return pid;
}

static inline void frozen_child_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#endif
