/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The reclaim profile's chart: what each swappiness took, and what it cost. */
#ifndef RINGSIDE_PROFILE_CHART_H
#define RINGSIDE_PROFILE_CHART_H

#include <stdbool.h>

#include "ringside/reclaim.h"

/*
 * Draw the summary to path as SVG, or as PNG when png is set (cairo).
 * title names the workload. Returns 0 or -errno; -ENOTSUP in a build
 * without cairo (the guest kernels' static binary).
 */
int profile_chart_write(const struct ringside_profile_summary *sum, const char *title, const char *path,
			bool png);
/* NULL when charts can be drawn, else why not (cairo is opened on first use). */
const char *profile_chart_unavailable(void);

#endif
