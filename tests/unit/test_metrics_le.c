// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A histogram bucket's le bound (rs_bucket_le) holds every value its slot
 * counts and none of the next slot's: for whole numbers, values equal to a
 * power of two included, in bytes (scale 1) and in seconds of ns (1e-9).
 */
#include <stdint.h>
#include <stdlib.h>

#include "metrics_int.h"
#include "ringside/ringside.h"
#include "unit.h"

static void known_bounds(void)
{
	char le[48];

	rs_bucket_le(le, sizeof(le), 0, 1);
	CHECK_EQ_STR(le, "0");
	rs_bucket_le(le, sizeof(le), 5, 1);
	CHECK_EQ_STR(le, "31");
	rs_bucket_le(le, sizeof(le), 63, 1);
	CHECK_EQ_STR(le, "9223372036854775807");
	rs_bucket_le(le, sizeof(le), 0, 1e-9);
	CHECK_EQ_STR(le, "0");
	rs_bucket_le(le, sizeof(le), 10, 1e-9);
	CHECK_EQ_STR(le, "0.000001023");
	rs_bucket_le(le, sizeof(le), 30, 1e-9);
	CHECK_EQ_STR(le, "1.073741823");
	rs_bucket_le(le, sizeof(le), 33, 1e-9);
	CHECK_EQ_STR(le, "8.589934591");
}

/*
 * Every value around each power of two: it is at most its slot's bound and
 * above the bound of the slot before. Bytes compare exactly as integers;
 * seconds as ns, the bound's digits without its decimal point.
 */
static void values_fall_inside(void)
{
	int bad = 0;

	for (unsigned int p = 0; p < 63; p++) {
		for (int d = -1; d <= 1; d++) {
			uint64_t v = (1ULL << p) + (uint64_t)(int64_t)d;
			unsigned int slot = ringside_hist_slot(v);
			char le[48], below[48];

			rs_bucket_le(le, sizeof(le), slot, 1);
			bad += strtoull(le, NULL, 10) < v;
			if (slot) {
				rs_bucket_le(below, sizeof(below), slot - 1, 1);
				bad += strtoull(below, NULL, 10) >= v;
			}
			if (p < 50) {
				long double secs;

				rs_bucket_le(le, sizeof(le), slot, 1e-9);
				secs = strtold(le, NULL);
				bad += (uint64_t)(secs * 1e9L + 0.5L) < v;
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	RUN(known_bounds);
	RUN(values_fall_inside);
	UNIT_EXIT();
}
