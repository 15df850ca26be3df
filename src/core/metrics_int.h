/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: building metric families for the exposition (metrics.c). A
 * collector's metrics() op adds series to families by label values; the
 * family folds series past the cap and writes itself in the chosen format.
 */
#ifndef RINGSIDE_METRICS_INT_H
#define RINGSIDE_METRICS_INT_H

#include <stddef.h>
#include <stdint.h>
#include "ringside/metrics.h"

enum rs_metric_type { RS_COUNTER, RS_GAUGE, RS_HISTOGRAM, RS_INFO };

#define RS_METRIC_MAX_LABELS 6

struct rs_metrics;
struct rs_family;

/*
 * A family: name without the _total suffix of counters (added to samples);
 * unit is the name's unit suffix ("seconds", "bytes") or NULL. Label names
 * are NULL-terminated. For histograms, scale turns a log2 slot's bound into
 * the unit (1e-9 for nanoseconds to seconds).
 */
struct rs_family *rs_family_new(struct rs_metrics *m, const char *name, enum rs_metric_type type,
				const char *unit, const char *help, const char *const *labels,
				double scale);
/* Add v to the series of these label values (counters, gauges). */
void rs_family_add(struct rs_family *f, const char *const *values, double v);
/* Add count values in log2 slot (ringside_hist_slot()) and sum to a histogram series. */
void rs_family_observe(struct rs_family *f, const char *const *values, unsigned int slot,
		       uint64_t count, double sum);
/* Write the family and free it. */
void rs_family_end(struct rs_family *f);
/* Histogram slot b's upper bound as an le label value: (2^b - 1) * scale, exact. */
void rs_bucket_le(char *buf, size_t len, unsigned int b, double scale);

#endif
