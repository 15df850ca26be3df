// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF side's one-pass swappiness= reader (reclaim_req.h) against the
 * library's full parser: on every request text the kernel would accept,
 * both must find the same value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/events.h"
#include "ringside/reclaim.h"
#include "reclaim_req.h"
#include "unit.h"

/* As the BPF side runs it: step by step, at most RS_RECLAIM_REQ_LEN characters. */
static int one_pass(const char *text)
{
	struct rs_req_scan scan;
	size_t len = strlen(text);

	rs_req_scan_init(&scan);
	for (size_t i = 0; i <= len && i < RS_RECLAIM_REQ_LEN; i++)
		if (rs_req_scan_step(&scan, text[i]))
			break;
	if (len >= RS_RECLAIM_REQ_LEN)
		rs_req_scan_step(&scan, '\0');
	return scan.found;
}

/* Both readers on one text; the text must be accepted by the full parser. */
static int agree(const char *text)
{
	uint64_t bytes;
	int full, quick;

	if (ringside_reclaim_parse_request(text, strlen(text), &bytes, &full))
		return -2;	/* not a text the kernel accepts */
	quick = one_pass(text);
	if (quick != full)
		printf("  \"%s\": full parser %d, one-pass reader %d\n", text, full, quick);
	return quick == full;
}

static void accepted_shapes(void)
{
	static const char *const texts[] = {
		"4096", "64M", "1g\n", "64M swappiness=60", "64M   swappiness=0  ",
		"1G swappiness=200", "64Mswappiness=10", "64M\tswappiness=60",
		"1M swappiness=1 swappiness=2", "1M swappiness=0x3c", "1M swappiness=0X10",
		"1M swappiness=010", "1M swappiness=0", "1M swappiness=00",
		"64swappiness=5", "0x10swappiness=1", " 1M swappiness=199\n", "1M swappiness=60 ",
		"1M swappiness=100 swappiness=0",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		CHECK_EQ_INT(agree(texts[i]), 1);
}

/* Random texts over the characters that matter; only the accepted ones count. */
static void random_texts(void)
{
	static const char *const parts[] = {
		"1", "64", "M", "k", "0x", "0", "7", "9", "f", " ", "  ", "\t", "\n", "+", "-",
		"swappiness=", "swap", "s", "=", "200", "x",
	};
	unsigned int seed = 12345, accepted = 0;

	for (int n = 0; n < 200000; n++) {
		char text[RS_RECLAIM_REQ_LEN];
		size_t len = 0;
		int parts_n;

		seed = seed * 1103515245u + 12345u;
		parts_n = 1 + (seed >> 16) % 7;
		text[0] = '\0';
		for (int p = 0; p < parts_n; p++) {
			const char *part;

			seed = seed * 1103515245u + 12345u;
			part = parts[(seed >> 16) % (sizeof(parts) / sizeof(parts[0]))];
			if (len + strlen(part) >= sizeof(text))
				break;
			memcpy(text + len, part, strlen(part) + 1);
			len += strlen(part);
		}
		switch (agree(text)) {
		case -2:
			break;
		case 1:
			accepted++;
			break;
		default:
			CHECK(0);
			return;
		}
	}
	printf("  %u accepted random texts agree\n", accepted);
	CHECK(accepted > 1000);
}

int main(void)
{
	RUN(accepted_shapes);
	RUN(random_texts);
	UNIT_EXIT();
}
