// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The guest kernels' static ringside cannot open cairo (no shared libraries there): charts are refused. */
#include <errno.h>

#include "../tools/ringside/profile_chart.h"

int profile_chart_write(const struct ringside_profile_summary *sum, const char *title, const char *path,
			bool png)
{
	(void)sum, (void)title, (void)path, (void)png;
	return -ENOTSUP;
}

const char *profile_chart_unavailable(void)
{
	return "this static build has no cairo to open: draw charts with the packaged ringside";
}
