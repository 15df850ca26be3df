// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON Lines writer (include/ringside/json.h). */
#include <math.h>
#include <string.h>

#include "decimal.h"
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

/*
 * A record is built in this thread's buffer and reaches its FILE in one
 * fwrite at ringside_json_end(): a member written straight to stdio took a
 * locked call per span or character, 3 us per GCM record, three times the
 * cost of everything else a record goes through. Bytes for another FILE, or
 * more than the buffer holds, flush what is pending first, so the order of
 * bytes on every FILE is the order of the calls.
 */
struct json_buf {
	FILE *out;
	size_t len;
	char data[8192];
};

static __thread struct json_buf tbuf;

static void flush_buf(void)
{
	if (tbuf.out && tbuf.len)
		fwrite(tbuf.data, 1, tbuf.len, tbuf.out);
	tbuf.len = 0;
}

/*
 * Room for n more bytes at the end of the buffer for out, flushing first if
 * need be; NULL when n is more than the buffer holds. The caller writes
 * there and adds what it wrote to tbuf.len: the common member is then one
 * check and one copy instead of a check per span or character.
 */
__attribute__((noinline)) static char *reserve_slow(FILE *out, size_t n)
{
	flush_buf();
	tbuf.out = out;
	return n > sizeof(tbuf.data) ? NULL : tbuf.data;
}

static inline char *reserve(FILE *out, size_t n)
{
	if (__builtin_expect(tbuf.out != out || tbuf.len + n > sizeof(tbuf.data), 0))
		return reserve_slow(out, n);	/* kept out of line: every member inlines this */
	return tbuf.data + tbuf.len;
}

static inline void emit(FILE *out, const void *p, size_t n)
{
	char *d = reserve(out, n);

	if (!d) {
		fwrite(p, 1, n, out);	/* more than the buffer holds; what was pending went first */
		return;
	}
	memcpy(d, p, n);
	tbuf.len += n;
}

static inline void emit_c(FILE *out, char c)
{
	*reserve(out, 1) = c;
	tbuf.len++;
}

/*
 * Bytes written as they are: printable ASCII other than the quote and
 * backslash. A table, for the short keys and tails a word test leaves.
 */
static const unsigned char plain_byte[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1,
};

/*
 * Does any byte of w need more than copying (below 0x20, '"', '\\', 0x7f
 * and up)? Eight bytes per test: the per-byte test was a third of a
 * record's cost. "A byte below n" is (w - n*ones) & ~w & high, exact as to
 * whether any byte matches; a byte equal to c is one below 1 in w ^ c*ones.
 */
static inline bool word_plain(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t quote = w ^ (ones * '"'), bslash = w ^ (ones * '\\'), del = w ^ (ones * 0x7f);

	return !((((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) |
		  ((del - ones) & ~del) | w) & high);
}

/* The end of the plain run in p[i, len). */
static size_t plain_end(const unsigned char *p, size_t i, size_t len)
{
	uint64_t w;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if (!word_plain(w))
			break;
	}
	while (i < len && plain_byte[p[i]])
		i++;
	return i;
}

/*
 * Copy p[0, n) to d if it is all plain and return n; otherwise return where
 * to go on looking, at or before the first byte that is not plain, d[0, i)
 * copied. Keys are mostly 3 to 12 bytes: a string of 4 or more is tested a
 * word at a time to its end, the last word (or the two halves of a short
 * one) overlapping bytes already tested.
 */
static inline size_t copy_plain(char *d, const unsigned char *p, size_t n)
{
	uint32_t head, tail;
	uint64_t w;
	size_t i = 0;

	if (n >= 8) {
		for (; i + 8 <= n; i += 8) {
			memcpy(&w, p + i, 8);
			if (!word_plain(w))
				return i;
			memcpy(d + i, &w, 8);
		}
		if (i < n) {
			memcpy(&w, p + n - 8, 8);
			if (!word_plain(w))
				return i;
			memcpy(d + n - 8, &w, 8);
		}
		return n;
	}
	if (n >= 4) {
		memcpy(&head, p, 4);
		memcpy(&tail, p + n - 4, 4);
		if (!word_plain((uint64_t)head << 32 | tail))
			return 0;
		memcpy(d, &head, 4);
		memcpy(d + n - 4, &tail, 4);
		return n;
	}
	for (; i < n && plain_byte[p[i]]; i++)
		d[i] = (char)p[i];
	return i;
}

/*
 * The rest of a quoted string from p[i], its opening quote and p[0, i)
 * written: plain runs are copied whole, only the rare other byte is looked
 * at alone.
 */
static void write_rest(FILE *out, const unsigned char *p, size_t i, size_t n)
{
	for (;;) {
		size_t run = plain_end(p, i, n), len;
		char esc[8];

		if (run > i)
			emit(out, p + i, run - i);
		i = run;
		if (i >= n)
			break;
		len = rs_utf8_len(p + i, n - i < 4 ? n - i : 4);
		switch (p[i]) {
		case '"': emit(out, "\\\"", 2); break;
		case '\\': emit(out, "\\\\", 2); break;
		case '\n': emit(out, "\\n", 2); break;
		case '\r': emit(out, "\\r", 2); break;
		case '\t': emit(out, "\\t", 2); break;
		default:
			if (!len)
				emit(out, "\\ufffd", 6);
			else if (p[i] < 0x20 || p[i] == 0x7f)
				emit(out, esc, (size_t)snprintf(esc, sizeof(esc), "\\u%04x", p[i]));
			else
				emit(out, p + i, len);
		}
		i += len ? len : 1;
	}
	emit_c(out, '"');
}

/* A plain string, the common case, goes straight into the buffer with its quotes. */
static void write_string(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strnlen((const char *)p, max), i = 0;
	char *d = reserve(out, n + 2);

	if (d) {
		d[0] = '"';
		i = copy_plain(d + 1, p, n);
		if (i == n) {
			d[n + 1] = '"';
			tbuf.len += n + 2;
			return;
		}
		tbuf.len += i + 1;
	} else {
		emit_c(out, '"');
	}
	write_rest(out, p, i, n);
}

void ringside_json_string(FILE *out, const char *s)
{
	write_string(out, s, (size_t)-1);
	flush_buf();
}

/* The separator and key before a member of the innermost level: with a plain key, one copy. */
static void member(struct ringside_json *j, const char *key)
{
	unsigned int d = j->depth ? j->depth - 1 : 0;
	bool comma = j->any[d];
	size_t n, k = 0;
	char *b;

	j->any[d] = true;
	if (!key || j->array[d]) {
		if (comma)
			emit_c(j->out, ',');
		return;
	}
	n = strlen(key);
	b = reserve(j->out, n + 4);
	if (b) {
		if (comma)
			b[k++] = ',';
		b[k++] = '"';
		if (copy_plain(b + k, (const unsigned char *)key, n) == n) {
			k += n;
			b[k++] = '"';
			b[k++] = ':';
			tbuf.len += k;
			return;
		}
	}
	/* Nothing of the above was kept: tbuf.len did not move. */
	if (comma)
		emit_c(j->out, ',');
	write_string(j->out, key, (size_t)-1);
	emit_c(j->out, ':');
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
	emit_c(j->out, array ? '[' : '{');
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
	emit_c(j->out, j->array[j->depth] ? ']' : '}');
}

void ringside_json_end(struct ringside_json *j)
{
	while (j->depth)
		ringside_json_close(j);
	emit_c(j->out, '\n');
	flush_buf();
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

/* Decimal digits of v (decimal.h), without printf's format parsing. */
static void emit_u64(FILE *out, uint64_t v, bool negative)
{
	char digits[RS_U64_DIGITS_MAX + 1], *p = rs_u64_digits(v, digits + sizeof(digits));

	if (negative)
		*--p = '-';
	emit(out, p, (size_t)(digits + sizeof(digits) - p));
}

void ringside_json_u64(struct ringside_json *j, const char *key, uint64_t v)
{
	member(j, key);
	emit_u64(j->out, v, false);
}

void ringside_json_i64(struct ringside_json *j, const char *key, int64_t v)
{
	member(j, key);
	/* The magnitude as unsigned: -INT64_MIN does not fit an int64_t. */
	emit_u64(j->out, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void ringside_json_double(struct ringside_json *j, const char *key, double v, int decimals)
{
	char num[64];
	int n;

	member(j, key);
	if (!isfinite(v)) {
		emit(j->out, "null", 4);
		return;
	}
	n = snprintf(num, sizeof(num), "%.*f", decimals, v);
	if (n >= (int)sizeof(num)) {
		/* Beyond 1e40 or so: as printf writes it, without the buffer. */
		flush_buf();
		fprintf(j->out, "%.*f", decimals, v);
		return;
	}
	emit(j->out, num, (size_t)n);
}

void ringside_json_bool(struct ringside_json *j, const char *key, bool v)
{
	member(j, key);
	emit(j->out, v ? "true" : "false", v ? 4 : 5);
}

void ringside_json_null(struct ringside_json *j, const char *key)
{
	member(j, key);
	emit(j->out, "null", 4);
}
