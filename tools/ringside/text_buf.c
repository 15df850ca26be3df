// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Padded columns and numbers without printf (text_buf.h says why). */
#include <string.h>

#include "decimal.h"
#include "text_buf.h"

static void put(struct text_buf *t, const char *s, size_t n)
{
	size_t room = (size_t)(t->end - t->p);

	if (n > room)
		n = room;
	memcpy(t->p, s, n);
	t->p += n;
}

static void pad(struct text_buf *t, size_t n)
{
	size_t room = (size_t)(t->end - t->p);

	if (n > room)
		n = room;
	memset(t->p, ' ', n);
	t->p += n;
}

void text_strn(struct text_buf *t, const char *s, size_t n, int width)
{
	size_t len = strnlen(s, n), w = (size_t)(width < 0 ? -width : width);
	size_t fill = len < w ? w - len : 0;

	if (width > 0)
		pad(t, fill);
	put(t, s, len);
	if (width < 0)
		pad(t, fill);
}

void text_str(struct text_buf *t, const char *s, int width)
{
	text_strn(t, s, (size_t)-1, width);
}

void text_u64(struct text_buf *t, uint64_t v, int width)
{
	char buf[RS_U64_DIGITS_MAX], *d = rs_u64_digits(v, buf + sizeof(buf));

	text_strn(t, d, (size_t)(buf + sizeof(buf) - d), width);
}

void text_hex(struct text_buf *t, uint64_t v)
{
	char buf[2 + 16], *d = buf + sizeof(buf);

	do {
		*--d = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--d = 'x';
	*--d = '0';
	put(t, d, (size_t)(buf + sizeof(buf) - d));
}

void text_usecs(struct text_buf *t, uint64_t ns, int width)
{
	char buf[32], *end = buf + sizeof(buf), *d = end - 3;
	uint64_t frac = ns % 1000;

	/* printf's digits for any ns below 2^52 (52 days): ns / 1000.0 is then within half a thousandth of this. */
	d[0] = (char)('0' + frac / 100);
	d[1] = (char)('0' + frac / 10 % 10);
	d[2] = (char)('0' + frac % 10);
	*--d = '.';
	d = rs_u64_digits(ns / 1000, d);
	text_strn(t, d, (size_t)(end - d), width);
}

size_t text_end(struct text_buf *t)
{
	*t->p = '\0';
	return (size_t)(t->p - t->start);
}
