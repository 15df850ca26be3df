// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* memory.reclaim request parsing, case by case as mm/memcontrol.c does it. */
#include <errno.h>
#include <string.h>

#include "ringside/reclaim.h"
#include "unit.h"

static int parse(const char *s, uint64_t *bytes, int *sw)
{
	return ringside_reclaim_parse_request(s, strlen(s), bytes, sw);
}

static void amounts_and_suffixes(void)
{
	uint64_t b;
	int sw;

	CHECK_EQ_INT(parse("4096", &b, &sw), 0);
	CHECK_EQ_INT(b, 4096);
	CHECK_EQ_INT(sw, -1);
	CHECK_EQ_INT(parse("64M", &b, &sw), 0);
	CHECK_EQ_INT(b, 64ULL << 20);
	CHECK_EQ_INT(parse("1g\n", &b, &sw), 0);	/* echo's newline is stripped */
	CHECK_EQ_INT(b, 1ULL << 30);
	CHECK_EQ_INT(parse("  2k  ", &b, &sw), 0);
	CHECK_EQ_INT(b, 2048);
	CHECK_EQ_INT(parse("0x10K", &b, &sw), 0);	/* memparse takes any C base */
	CHECK_EQ_INT(b, 16 * 1024);
	CHECK_EQ_INT(parse("1E", &b, &sw), 0);
	CHECK_EQ_INT(b, 1ULL << 60);
}

static void swappiness_key(void)
{
	uint64_t b;
	int sw;

	CHECK_EQ_INT(parse("64M swappiness=60", &b, &sw), 0);
	CHECK_EQ_INT(sw, 60);
	CHECK_EQ_INT(parse("64M   swappiness=0  ", &b, &sw), 0);	/* runs of spaces */
	CHECK_EQ_INT(sw, 0);
	CHECK_EQ_INT(parse("1G swappiness=200", &b, &sw), 0);
	CHECK_EQ_INT(sw, 200);
	/* The suffix ends the number; the key may follow without a space. */
	CHECK_EQ_INT(parse("64Mswappiness=10", &b, &sw), 0);
	CHECK_EQ_INT(sw, 10);
	/* Whitespace after the amount is stripped, tabs included. */
	CHECK_EQ_INT(parse("64M\tswappiness=60", &b, &sw), 0);
	CHECK_EQ_INT(sw, 60);
	/* A repeated key: the last one wins. */
	CHECK_EQ_INT(parse("1M swappiness=1 swappiness=2", &b, &sw), 0);
	CHECK_EQ_INT(sw, 2);
}

static void rejected(void)
{
	static const char *const bad[] = {
		"", "   ", "M", "-1", "abc", "64 M",
		"64M swappiness=201", "64M swappiness=-1", "64M swappiness=",
		"64M swappiness=60x", "64M swappiness", "64M swapiness=60",
		"64M foo=1", "64M swappiness=60 extra",
		"1M swappiness=1\tswappiness=2",	/* only spaces separate keys */
		"1M swappiness=+7", "1M swappiness=\n1",	/* simple_strtol takes no '+' or space */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t b;
		int sw;

		if (parse(bad[i], &b, &sw) != -EINVAL) {
			printf("  accepted \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
}

int main(void)
{
	RUN(amounts_and_suffixes);
	RUN(swappiness_key);
	RUN(rejected);
	UNIT_EXIT();
}
