// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer: escaping, UTF-8 repair, nesting, numbers. */
#include <math.h>
#include <stdint.h>

#include "ringside/json.h"
#include "unit.h"

/* Run fn on a writer into a memory buffer; the text, without the final newline. */
static const char *written(void (*fn)(struct ringside_json *j))
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct ringside_json j;

	ringside_json_begin(&j, f);
	fn(&j);
	ringside_json_end(&j);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void members(struct ringside_json *j)
{
	ringside_json_str(j, "type", "t");
	ringside_json_u64(j, "big", UINT64_MAX);
	ringside_json_i64(j, "neg", -5);
	ringside_json_double(j, "ratio", 0.125, 3);
	ringside_json_double(j, "nan", NAN, 3);
	ringside_json_bool(j, "yes", true);
	ringside_json_null(j, "none");
}

static void nesting(struct ringside_json *j)
{
	ringside_json_array(j, "a");
	ringside_json_str(j, NULL, "x");
	ringside_json_object(j, NULL);
	ringside_json_u64(j, "n", 1);
	ringside_json_close(j);
	ringside_json_array(j, NULL);
	ringside_json_close(j);
	ringside_json_close(j);
	ringside_json_object(j, "o");
	/* left open: end() closes it */
	ringside_json_bool(j, "deep", false);
}

static void hostile(struct ringside_json *j)
{
	/* A comm or path can hold quotes, backslashes, control bytes and bytes
	 * that are not UTF-8: the output stays valid JSON and valid UTF-8. */
	ringside_json_str(j, "q", "a\"b\\c\n\t\x01\x7f");
	ringside_json_str(j, "utf8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	ringside_json_str(j, "bad", "x\xff" "y\xc3" "z\xed\xa0\x80!\xc0\xaf");
	ringside_json_strn(j, "comm", "0123456789abcdefGHIJ", 16);
	ringside_json_str(j, "null", NULL);
}

static void basic(void)
{
	CHECK_EQ_STR(written(members), "{\"type\":\"t\",\"big\":18446744073709551615,\"neg\":-5,"
				       "\"ratio\":0.125,\"nan\":null,\"yes\":true,\"none\":null}");
	CHECK_EQ_STR(written(nesting), "{\"a\":[\"x\",{\"n\":1},[]],\"o\":{\"deep\":false}}");
}

static void escaping(void)
{
	CHECK_EQ_STR(written(hostile),
		     "{\"q\":\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\","
		     "\"utf8\":\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80\","
		     "\"bad\":\"x\\ufffdy\\ufffdz\\ufffd\\ufffd\\ufffd!\\ufffd\\ufffd\","
		     "\"comm\":\"0123456789abcdef\",\"null\":\"\"}");
}

static void numbers(struct ringside_json *j)
{
	ringside_json_i64(j, "min", INT64_MIN);
	ringside_json_u64(j, "zero", 0);
	ringside_json_i64(j, "zero_i", 0);
	ringside_json_double(j, "huge", 1e300, 0);
}

/*
 * Records are built in a per-thread buffer: one longer than the buffer, and
 * records to two FILEs interleaved member by member, still come out whole
 * and in call order.
 */
static void buffering(void)
{
	static char big_in[20000], big_out[20100], a[256], b[256];
	char want[40], huge[512];
	struct ringside_json ja, jb;
	FILE *f, *fa, *fb;

	/* The fallback past the formatting buffer: as printf writes it. */
	snprintf(huge, sizeof(huge), "{\"min\":-9223372036854775808,\"zero\":0,\"zero_i\":0,"
		 "\"huge\":%.0f}", 1e300);
	CHECK_EQ_STR(written(numbers), huge);
	memset(big_in, 'x', sizeof(big_in) - 1);
	f = fmemopen(big_out, sizeof(big_out), "w");
	ringside_json_begin(&ja, f);
	ringside_json_str(&ja, "s", big_in);
	ringside_json_u64(&ja, "n", 7);
	ringside_json_end(&ja);
	fclose(f);
	CHECK_EQ_INT(strlen(big_out), 6 + 19999 + 8 + 1);
	CHECK_EQ_INT(strncmp(big_out + 6 + 19999, "\",\"n\":7}\n", 8), 0);
	fa = fmemopen(a, sizeof(a), "w");
	fb = fmemopen(b, sizeof(b), "w");
	ringside_json_begin(&ja, fa);
	ringside_json_begin(&jb, fb);
	for (int i = 0; i < 3; i++) {
		ringside_json_u64(&ja, i == 0 ? "a0" : i == 1 ? "a1" : "a2", (uint64_t)i);
		ringside_json_u64(&jb, i == 0 ? "b0" : i == 1 ? "b1" : "b2", (uint64_t)i);
	}
	ringside_json_end(&ja);
	ringside_json_end(&jb);
	fclose(fa);
	fclose(fb);
	snprintf(want, sizeof(want), "{\"a0\":0,\"a1\":1,\"a2\":2}\n");
	CHECK_EQ_STR(a, want);
	snprintf(want, sizeof(want), "{\"b0\":0,\"b1\":1,\"b2\":2}\n");
	CHECK_EQ_STR(b, want);
}

/* The escape of one byte alone, as JSON needs it (ASCII only: the others are UTF-8's). */
static void one_byte_expected(unsigned char c, char *out, size_t len)
{
	if (c == '"' || c == '\\')
		snprintf(out, len, "\\%c", c);
	else if (c == '\n' || c == '\r' || c == '\t')
		snprintf(out, len, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
	else if (c < 0x20 || c == 0x7f)
		snprintf(out, len, "\\u%04x", c);
	else if (c >= 0x80)
		snprintf(out, len, "\\ufffd");	/* a lone byte of 0x80 and up is not UTF-8 */
	else
		snprintf(out, len, "%c", c);
}

/*
 * Strings are checked eight bytes at a time, short ones as two overlapping
 * halves, and keys go the same way into the record: every byte value at
 * every position of strings of 1 to 19 bytes (below a word, one word with
 * an overlapping tail, two words and a tail), as a value and as a key, is
 * escaped as the byte-at-a-time rule says, with plain bytes copied around it.
 */
static void word_at_a_time(void)
{
	char in[20], want[96], esc[8], got[128];
	int bad = 0;

	for (int len = 1; len <= 19; len++) {
		for (int c = 1; c < 256; c++) {
			for (int at = 0; at < len; at++) {
				FILE *f = fmemopen(got, sizeof(got), "w");
				struct ringside_json j;

				memset(in, 'a', (size_t)len);
				in[len] = '\0';
				in[at] = (char)c;
				one_byte_expected((unsigned char)c, esc, sizeof(esc));
				snprintf(want, sizeof(want), "\"%.*s%s%s\"", at, in, esc, in + at + 1);
				ringside_json_string(f, in);
				fclose(f);
				bad += strcmp(got, want) != 0;

				f = fmemopen(got, sizeof(got), "w");
				ringside_json_begin(&j, f);
				ringside_json_u64(&j, "k", 1);
				ringside_json_u64(&j, in, 2);
				ringside_json_end(&j);
				fclose(f);
				snprintf(want, sizeof(want), "{\"k\":1,\"%.*s%s%s\":2}\n", at, in, esc,
					 in + at + 1);
				bad += strcmp(got, want) != 0;
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	RUN(basic);
	RUN(escaping);
	RUN(buffering);
	RUN(word_at_a_time);
	UNIT_EXIT();
}
