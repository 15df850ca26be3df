/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal unit-test harness: PASS/FAIL/SKIP lines for tests/run-tests.sh. */
#ifndef RINGSIDE_UNIT_H
#define RINGSIDE_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_state {
	int failed;		/* failures in the current case */
	int total_failed;
	const char *name;
};

/* One per test program: the harness's state, passed to nothing else. */
static struct unit_state unit_;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			unit_.failed++;                                              \
		}                                                                    \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                           \
	do {                                                                         \
		long long a_ = (long long)(a), b_ = (long long)(b);                  \
		if (a_ != b_) {                                                      \
			printf("  %s:%d: %s == %lld, expected %s == %lld\n", __FILE__,   \
			       __LINE__, #a, a_, #b, b_);                            \
			unit_.failed++;                                              \
		}                                                                    \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                           \
	do {                                                                         \
		const char *a_ = (a), *b_ = (b);                                     \
		if (strcmp(a_, b_)) {                                                \
			printf("  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,     \
			       __LINE__, #a, a_, b_);                                \
			unit_.failed++;                                              \
		}                                                                    \
	} while (0)

#define RUN(fn)                                                                      \
	do {                                                                         \
		unit_.failed = 0;                                                    \
		unit_.name = #fn;                                                    \
		fn();                                                                \
		if (unit_.failed < 0) {                                              \
			/* SKIP already printed its line */                          \
		} else if (unit_.failed) {                                           \
			printf("FAIL %s: %d checks failed\n", #fn, unit_.failed);        \
			unit_.total_failed++;                                        \
		} else {                                                             \
			printf("PASS %s\n", #fn);                                    \
		}                                                                    \
		fflush(stdout);                                                      \
	} while (0)

/* Mark the current case skipped: "return SKIP("why");" from a void case. */
static inline void unit_skip(const char *why)
{
	printf("SKIP %s: %s\n", unit_.name, why);
	unit_.failed = -1000000;
}
#define SKIP(why) unit_skip(why)

#define UNIT_EXIT() return unit_.total_failed ? 1 : 0

#endif
