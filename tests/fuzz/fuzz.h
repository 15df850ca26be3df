/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the libFuzzer targets share. */
#ifndef RINGSIDE_FUZZ_H
#define RINGSIDE_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a NUL-terminated string in a buffer of its exact size (+1), for ASan. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
