// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reclaim profile's summary: means, spreads and the recommendation. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "ringside/reclaim.h"
#include "unit.h"

/* A step of 1000 reclaimed pages (anon share as given) and refaults after it. */
static struct ringside_reclaim_profile_row step(int swappiness, unsigned int trial, unsigned int anon_pages,
						unsigned int refaults)
{
	struct ringside_reclaim_profile_row r = { .swappiness = swappiness, .round = trial,
						  .requested = 1000 * 4096ULL, .reclaimed = 1000 * 4096ULL,
						  .anon_pages = anon_pages, .file_pages = 1000 - anon_pages,
						  .refault_anon = refaults, .metric_rate = NAN };
	return r;
}

static bool has(const struct ringside_profile_summary *s, int swappiness)
{
	for (unsigned int i = 0; i < s->nr_recommended; i++)
		if (s->recommended[i] == swappiness)
			return true;
	return false;
}

static void means_spreads_and_order(void)
{
	struct ringside_reclaim_profile_row rows[] = {
		step(200, 1, 1000, 900), step(0, 1, 0, 0), step(200, 2, 1000, 1000), step(0, 2, 0, 20),
	};
	struct ringside_profile_summary s;

	CHECK_EQ_INT(ringside_reclaim_profile_summarize(rows, 4, &s), 0);
	CHECK_EQ_INT(s.nr_settings, 2);
	CHECK_EQ_INT(s.settings[0].swappiness, 0);	/* sorted */
	CHECK_EQ_INT(s.settings[1].trials, 2);
	CHECK(fabs(s.settings[1].cost.mean - 0.95) < 1e-9);
	CHECK(fabs(s.settings[1].cost.sd - sqrt(0.005)) < 1e-9);	/* sample sd of 0.9, 1.0 */
	CHECK(fabs(s.settings[1].anon_share.mean - 1.0) < 1e-9);
	CHECK(isnan(s.settings[0].stall_ms.mean));	/* no PSI in the rows */
	CHECK(has(&s, 0) && !has(&s, 200) && !s.no_difference && !s.no_spread);
	CHECK(strstr(s.text, "swappiness 0: fewest refaults") && strstr(s.text, "200 costs more"));
}

static void overlap_is_no_difference(void)
{
	struct ringside_reclaim_profile_row rows[] = {
		step(0, 1, 0, 100), step(0, 2, 0, 300), step(60, 1, 500, 150), step(60, 2, 500, 350),
		step(200, 1, 1000, 110), step(200, 2, 1000, 105),
	};
	struct ringside_profile_summary s;

	CHECK_EQ_INT(ringside_reclaim_profile_summarize(rows, 6, &s), 0);
	CHECK(s.no_difference && s.nr_recommended == 3);
	CHECK(strstr(s.text, "no difference measurable between swappiness 0..200"));
}

static void short_settings_are_not_recommended(void)
{
	struct ringside_reclaim_profile_row rows[] = { step(0, 1, 0, 0), step(200, 1, 1000, 800) };
	struct ringside_profile_summary s;

	rows[0].reclaimed = 100 * 4096ULL;	/* a tenth of the request */
	rows[0].file_pages = 100;
	rows[0].err = -16;
	CHECK_EQ_INT(ringside_reclaim_profile_summarize(rows, 2, &s), 0);
	CHECK(s.settings[0].short_of_amount && s.settings[0].failed == 1);
	CHECK(has(&s, 200) && !has(&s, 0) && s.no_spread);
	CHECK(strstr(s.text, "(short)") && strstr(s.text, "one trial"));
}

static void nothing_to_summarize(void)
{
	struct ringside_profile_summary s;

	CHECK(ringside_reclaim_profile_summarize(NULL, 0, &s) < 0);
}

int main(void)
{
	RUN(means_spreads_and_order);
	RUN(overlap_is_no_difference);
	RUN(short_settings_are_not_recommended);
	RUN(nothing_to_summarize);
	UNIT_EXIT();
}
