// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Embedding libringside as an agent would, without HTTP: count the kernel's
 * AES-GCM requests until SIGINT/SIGTERM, then write the Prometheus text
 * exposition (what `ringside agent --collector.kernel-gcm` serves) to stdout.
 * Prints "ready" on stderr once attached.
 * Build: cc kernel_gcm_metrics.c $(pkg-config --cflags --libs ringside)
 */
#include <signal.h>
#include <stdio.h>
#include <ringside/ringside.h>
#include <ringside/kaead.h>
#include <ringside/metrics.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	struct ringside_session_opts so = { .sz = sizeof(so) };
	struct ringside_kaead_opts ko = { .sz = sizeof(ko), .aggregate = true };
	struct ringside_metrics_opts mo = { .sz = sizeof(mo), .format = RINGSIDE_METRICS_TEXT };
	struct ringside_session *s;
	int err;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = ringside_session_open(&so, &s);
	if (!err)
		err = ringside_session_enable_kaead(s, &ko);
	if (!err)
		err = ringside_session_attach(s);
	if (err) {
		fprintf(stderr, "kernel_gcm_metrics: %s\n", s ? ringside_session_errmsg(s) : ringside_strerror(err));
		ringside_session_close(s);
		return 1;
	}
	fprintf(stderr, "ready\n");
	while (!stop)
		ringside_session_poll(s, 200);	/* records are not needed: the counts are in the kernel */
	err = ringside_metrics_write(&s, 1, &mo, stdout);
	ringside_session_close(s);
	return err ? 1 : 0;
}
