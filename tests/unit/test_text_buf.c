// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CLI's printf-free columns (tools/ringside/text_buf.c) write what
 * snprintf writes for the same format: padded strings, numbers, hex,
 * microseconds with three decimals, and the same cut at a short buffer.
 */
#include <inttypes.h>
#include <stdint.h>

#include "text_buf.h"
#include "unit.h"

static const uint64_t numbers[] = { 0, 1, 9, 10, 99, 100, 999, 1000, 1001, 4194304, 12345678,
				    999999999999ULL, 1ULL << 43, UINT64_MAX };

static void padded_strings(void)
{
	static const char *const words[] = { "", "a", "seal", "openssl", "sixteen-letters!", "a-name-longer-than-any-width" };
	char got[64], want[64];
	int bad = 0;

	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		for (int width = -20; width <= 20; width++) {
			struct text_buf t = text_buf(got, sizeof(got));

			text_str(&t, words[w], width);
			text_end(&t);
			snprintf(want, sizeof(want), "%*s", width, words[w]);
			bad += strcmp(got, want) != 0;
		}
	}
	CHECK_EQ_INT(bad, 0);
	/* At most n bytes: a comm without its NUL. */
	struct text_buf t = text_buf(got, sizeof(got));

	text_strn(&t, "0123456789abcdefXYZ", 16, -18);
	text_end(&t);
	CHECK_EQ_STR(got, "0123456789abcdef  ");
}

static void numbers_as_printf(void)
{
	char got[64], want[64];
	int bad = 0;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		for (int width = -22; width <= 22; width++) {
			struct text_buf t = text_buf(got, sizeof(got));

			text_u64(&t, numbers[i], width);
			text_end(&t);
			snprintf(want, sizeof(want), "%*" PRIu64, width, numbers[i]);
			bad += strcmp(got, want) != 0;
		}
		struct text_buf t = text_buf(got, sizeof(got));

		text_hex(&t, numbers[i]);
		text_end(&t);
		snprintf(want, sizeof(want), "0x%" PRIx64, numbers[i]);
		bad += strcmp(got, want) != 0;
	}
	CHECK_EQ_INT(bad, 0);
}

/* "%.3f" of ns / 1000.0, for the listed values and a spread of others below 2^52 (52 days). */
static void usecs_as_printf(void)
{
	char got[64], want[64];
	uint64_t ns = 1;
	int bad = 0;

	for (int i = 0; i < 4000; i++) {
		uint64_t v = i < (int)(sizeof(numbers) / sizeof(numbers[0])) ? numbers[i] : ns;
		struct text_buf t = text_buf(got, sizeof(got));

		if (v >= 1ULL << 52)
			v >>= 12;
		text_usecs(&t, v, 10);
		text_end(&t);
		snprintf(want, sizeof(want), "%10.3f", v / 1000.0);
		bad += strcmp(got, want) != 0;
		ns = ns * 6364136223846793005ULL + 1442695040888963407ULL;
		ns >>= (unsigned int)(i % 53) + 11;
	}
	CHECK_EQ_INT(bad, 0);
}

/* A line longer than its buffer is cut where snprintf cuts it, and terminated. */
static void cut_at_the_end(void)
{
	for (size_t len = 1; len <= 12; len++) {
		char got[16], want[16];
		struct text_buf t = text_buf(got, len);

		text_str(&t, "ab", -4);
		text_u64(&t, 12345, 6);
		text_hex(&t, 0xbeef);
		CHECK_EQ_INT(text_end(&t), strlen(got));
		snprintf(want, len, "%-4s%6d0x%x", "ab", 12345, 0xbeef);
		CHECK_EQ_STR(got, want);
	}
}

int main(void)
{
	RUN(padded_strings);
	RUN(numbers_as_printf);
	RUN(usecs_as_printf);
	RUN(cut_at_the_end);
	UNIT_EXIT();
}
