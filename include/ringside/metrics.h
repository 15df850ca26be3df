/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus exposition of a session: what `ringside agent` serves, for an
 * embedding program that wants the same text without HTTP.
 *
 * Families are named ringside_* with unit suffixes (_total, _seconds,
 * _bytes) and carry HELP and TYPE; histograms have cumulative _bucket{le},
 * _sum and _count (log2 buckets; latencies in seconds, sizes in bytes).
 * Each family keeps at most max_series label sets: later ones are folded
 * into one series whose labels are all "__other__", and the number folded
 * is ringside_series_dropped_total{metric}. GCM families need the collector
 * in aggregate mode (ringside_gcm_opts.aggregate) to carry the process name.
 */
#ifndef RINGSIDE_METRICS_H
#define RINGSIDE_METRICS_H

#include <stdio.h>
#include "ringside/ringside.h"

#pragma GCC visibility push(default)

enum ringside_metrics_format {
	RINGSIDE_METRICS_TEXT = 0,	/* text/plain; version=0.0.4 */
	RINGSIDE_METRICS_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

#define RINGSIDE_METRICS_MAX_SERIES 2000

struct ringside_metrics_opts {
	size_t sz;			/* sizeof(struct ringside_metrics_opts) */
	enum ringside_metrics_format format;
	unsigned int max_series;	/* per family; 0: RINGSIDE_METRICS_MAX_SERIES */
	/* Collectors the caller wanted but could not start, exported as
	 * ringside_collector_up 0 (NULL-terminated names, or NULL). */
	const char *const *down;
};

/*
 * Write the families of every collector of the nr sessions (an agent may run
 * one session per collector, so that one failing does not stop the others),
 * then ringside's own and the process's, to out. Call it while no other
 * thread uses the sessions.
 */
int ringside_metrics_write(struct ringside_session *const *sessions, unsigned int nr,
			   const struct ringside_metrics_opts *opts, FILE *out);

/* The Content-Type header of a format. */
const char *ringside_metrics_content_type(enum ringside_metrics_format format);

#pragma GCC visibility pop

#endif
