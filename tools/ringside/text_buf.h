/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Text built without printf, for what is written once per record: columns
 * padded as printf's %-Ns, %Ns and %Nu pad them, and hex numbers. In a flood
 * of records, printf's format parsing was the largest part of the reader's
 * time per record. Output is cut at the buffer's end, as snprintf's is.
 */
#ifndef RINGSIDE_TEXT_BUF_H
#define RINGSIDE_TEXT_BUF_H

#include <stddef.h>
#include <stdint.h>

struct text_buf {
	char *start, *p, *end;	/* end: the byte kept for the terminating NUL */
};

static inline struct text_buf text_buf(char *buf, size_t len)
{
	struct text_buf t = { buf, buf, buf + len - 1 };

	return t;
}

/* s, at most n bytes of it; width > 0 aligns it right in width, < 0 left in -width. */
void text_strn(struct text_buf *t, const char *s, size_t n, int width);
void text_str(struct text_buf *t, const char *s, int width);
/* Decimal, aligned as text_strn's width says. */
void text_u64(struct text_buf *t, uint64_t v, int width);
/* "0x" and lower-case hex digits. */
void text_hex(struct text_buf *t, uint64_t v);
/* ns as microseconds with three decimals (printf's "%.3f" of ns / 1000.0). */
void text_usecs(struct text_buf *t, uint64_t ns, int width);
/* NUL-terminate; the length written. */
size_t text_end(struct text_buf *t);

#endif
