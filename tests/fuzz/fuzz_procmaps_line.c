// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: one /proc/PID/maps text line (the pre-6.11 fallback). */
#include <stdint.h>

#include "fuzz.h"
#include <stdlib.h>
#include <string.h>

#include "ringside/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_cstr(data, size);
	struct ringside_vma v;

	if (!line)
		return 0;
	ringside_procmaps_parse_line(line, &v);
	free(line);
	return 0;
}
