// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the text of a memory.reclaim (or limit) write as the
 * tracer copies it from the writer's buffer: not NUL-terminated, any bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/reclaim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that reading past len is caught. */
	char *text = malloc(size ? size : 1);
	uint64_t bytes = 0;
	int swappiness = -1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	ringside_reclaim_parse_request(text, size, &bytes, &swappiness);
	free(text);
	return 0;
}
