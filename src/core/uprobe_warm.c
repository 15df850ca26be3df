// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The registration warm-up of uprobe_warm.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "feature_probes.h"
#include "ringside/ringside.h"
#include "uprobe_multi.h"
#include "uprobe_warm.h"

/*
 * Well inside the 20-40 ms after which the writer side went slow again. 24
 * registrations cover a 190 ms load; a longer one pays one wait. Their
 * links are released with the feature probes' (MAX_RELEASES there).
 */
#define WARM_EVERY_NS (8 * 1000 * 1000L)
#define WARM_MAX_LINKS 24

struct rs_uprobe_warm {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	int prog_fd;
	uint64_t offset;
	struct ringside_vma vma;	/* the target's mapping: its file */
	int fds[WARM_MAX_LINKS];
	unsigned int nr_fds;
};

/* Where the warm-up registers: never called. */
__attribute__((noinline)) static int rs_uprobe_warm_target(int x)
{
	asm volatile("" : "+r"(x));
	return x;
}

static void *warm_run(void *arg)
{
	struct rs_uprobe_warm *w = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&w->lock);
	while (!w->stop && w->nr_fds < WARM_MAX_LINKS) {
		int fd;

		pthread_mutex_unlock(&w->lock);
		fd = rs_uprobe_multi_link(w->prog_fd, w->vma.name, &w->offset, NULL, 1, getpid(), false);
		pthread_mutex_lock(&w->lock);
		if (fd < 0)
			break;	/* no uprobe_multi here, or refused: nothing to keep warm */
		w->fds[w->nr_fds++] = fd;
		next.tv_nsec += WARM_EVERY_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &next) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct rs_uprobe_warm *rs_uprobe_warm_start(void)
{
	struct rs_uprobe_warm *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	w->prog_fd = -1;
	if (rs_own_code_offset((uintptr_t)rs_uprobe_warm_target, &w->vma, &w->offset) || (w->prog_fd = rs_uprobe_noop_prog(RS_BPF_TRACE_UPROBE_MULTI)) < 0 ||
	    pthread_create(&w->thread, NULL, warm_run, w)) {
		if (w->prog_fd >= 0)
			close(w->prog_fd);
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

unsigned int rs_uprobe_warm_stop(struct rs_uprobe_warm *w)
{
	unsigned int made;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	made = w->nr_fds;
	for (unsigned int i = 0; i < w->nr_fds; i++)
		rs_probe_close_later(w->fds[i]);
	close(w->prog_fd);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return made;
}
