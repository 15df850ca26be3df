// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The guest kernels' static ringside has no cairo to link: charts are refused there. */
#include <errno.h>

#include "../tools/ringside/profile_chart.h"

int profile_chart_write(const struct ringside_profile_summary *sum, const char *title, const char *path,
			bool png)
{
	(void)sum, (void)title, (void)path, (void)png;
	return -ENOTSUP;
}
