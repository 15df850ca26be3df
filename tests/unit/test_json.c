// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer: escaping, UTF-8 repair, nesting, numbers. */
#include <math.h>

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

int main(void)
{
	RUN(basic);
	RUN(escaping);
	UNIT_EXIT();
}
