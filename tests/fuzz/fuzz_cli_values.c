// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: every CLI option value parser (sizes, whole numbers,
 * seconds, PIDs, the --swappiness list through the common number parser),
 * and the quoting of long arguments in error lines.
 */
#include <stdint.h>

#include "fuzz.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = fuzz_cstr(data, size);
	unsigned long long v;
	double secs;
	struct cli_opts o = { 0 };

	if (!arg)
		return 0;
	cli_parse_size(arg, &v);
	cli_parse_uint(arg, 0, 200, &v);
	cli_parse_uint(arg, 1, ~0ULL, &v);
	cli_parse_seconds(arg, &secs);
	cli_quote(arg);
	/* Value options print their errors: run with -close_fd_mask=2 (make fuzz does). */
	cli_common_opt('p', arg, &o);
	cli_common_opt('d', arg, &o);
	cli_common_opt(1005, arg, &o);
	cli_common_opt(1006, arg, &o);
	cli_common_opt(1003, arg, &o);
	free(arg);
	return 0;
}
