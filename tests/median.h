/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The median of a run of timings: shared by the benchmarks and the GCM workload's loops. */
#ifndef RINGSIDE_MEDIAN_H
#define RINGSIDE_MEDIAN_H

#include <stdlib.h>

static inline int median_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* v sorted in place; its middle value (the upper one of two when n is even); 0 when empty. */
static inline double median_double(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), median_cmp_double);
	return v[n / 2];
}

#endif
