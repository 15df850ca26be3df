// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON Lines writer (include/ringside/json.h). */
#include <math.h>
#include <string.h>

#include "ringside/json.h"
#include "session_int.h"

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
size_t rs_utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void write_string(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strnlen((const char *)p, max);

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		size_t len = rs_utf8_len(p + i, n - i);

		switch (p[i]) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (!len)
				fputs("\\ufffd", out);
			else if (p[i] < 0x20 || p[i] == 0x7f)
				fprintf(out, "\\u%04x", p[i]);
			else
				fwrite(p + i, 1, len, out);
		}
		i += len ? len : 1;
	}
	fputc('"', out);
}

void ringside_json_string(FILE *out, const char *s)
{
	write_string(out, s, (size_t)-1);
}

/* The separator and key before a member of the innermost level. */
static void member(struct ringside_json *j, const char *key)
{
	unsigned int d = j->depth ? j->depth - 1 : 0;

	if (j->any[d])
		fputc(',', j->out);
	j->any[d] = true;
	if (key && !j->array[d]) {
		write_string(j->out, key, (size_t)-1);
		fputc(':', j->out);
	}
}

static void open_level(struct ringside_json *j, const char *key, bool array)
{
	if (j->depth)
		member(j, key);
	if (j->depth < RINGSIDE_JSON_DEPTH) {
		j->array[j->depth] = array;
		j->any[j->depth] = false;
		j->depth++;
	}
	fputc(array ? '[' : '{', j->out);
}

void ringside_json_begin(struct ringside_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	open_level(j, NULL, false);
}

void ringside_json_close(struct ringside_json *j)
{
	if (!j->depth)
		return;
	j->depth--;
	fputc(j->array[j->depth] ? ']' : '}', j->out);
}

void ringside_json_end(struct ringside_json *j)
{
	while (j->depth)
		ringside_json_close(j);
	fputc('\n', j->out);
}

void ringside_json_object(struct ringside_json *j, const char *key)
{
	open_level(j, key, false);
}

void ringside_json_array(struct ringside_json *j, const char *key)
{
	open_level(j, key, true);
}

void ringside_json_str(struct ringside_json *j, const char *key, const char *s)
{
	member(j, key);
	write_string(j->out, s, (size_t)-1);
}

void ringside_json_strn(struct ringside_json *j, const char *key, const char *s, size_t len)
{
	member(j, key);
	write_string(j->out, s, len);
}

void ringside_json_u64(struct ringside_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void ringside_json_i64(struct ringside_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->out, "%lld", (long long)v);
}

void ringside_json_double(struct ringside_json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.*f", decimals, v);
	else
		fputs("null", j->out);
}

void ringside_json_bool(struct ringside_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void ringside_json_null(struct ringside_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}
