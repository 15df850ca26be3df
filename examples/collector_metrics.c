// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Embedding libringside as an agent would, without HTTP: run one collector
 * counting in the kernel (kernel-gcm, the default, or reclaim) until
 * SIGINT/SIGTERM, then write the Prometheus text exposition (what
 * `ringside agent` serves for it) to stdout. Prints "ready" on stderr once
 * attached.
 * Build: cc collector_metrics.c $(pkg-config --cflags --libs ringside)
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ringside/ringside.h>
#include <ringside/kaead.h>
#include <ringside/metrics.h>
#include <ringside/reclaim.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The collector named (kernel-gcm or reclaim), in aggregate mode: counted in the kernel, no records. */
static int enable(struct ringside_session *s, const char *name)
{
	if (!strcmp(name, "reclaim")) {
		struct ringside_reclaim_opts ro = { .sz = sizeof(ro), .aggregate = true };

		return ringside_session_enable_reclaim(s, &ro);
	}
	struct ringside_kaead_opts ko = { .sz = sizeof(ko), .aggregate = true };

	return ringside_session_enable_kaead(s, &ko);
}

int main(int argc, char **argv)
{
	struct ringside_session_opts so = { .sz = sizeof(so) };
	struct ringside_metrics_opts mo = { .sz = sizeof(mo), .format = RINGSIDE_METRICS_TEXT };
	const char *name = argc > 1 ? argv[1] : "kernel-gcm";
	struct ringside_session *s;
	size_t said;
	int err;

	if (strcmp(name, "kernel-gcm") && strcmp(name, "reclaim")) {
		fprintf(stderr, "collector_metrics: unknown collector %s: give kernel-gcm or reclaim\n", name);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = ringside_session_open(&so, &s);
	if (!err)
		err = enable(s, name);
	if (!err)
		err = ringside_session_attach(s);
	if (err) {
		fprintf(stderr, "collector_metrics: %s\n", s ? ringside_session_errmsg(s) : ringside_strerror(err));
		ringside_session_close(s);
		return 1;
	}
	/* What the collector chose and how (its variants, where its kernel ranges came from). */
	said = strlen(ringside_session_notes(s));
	fprintf(stderr, "%sready\n", ringside_session_notes(s));
	while (!stop)
		ringside_session_poll(s, 200);	/* records are not needed: the counts are in the kernel */
	/* Notes made while it ran (reclaim's symbol walk replacing its first ranges). */
	fprintf(stderr, "%s", ringside_session_notes(s) + said);
	err = ringside_metrics_write(&s, 1, &mo, stdout);
	ringside_session_close(s);
	return err ? 1 : 0;
}
