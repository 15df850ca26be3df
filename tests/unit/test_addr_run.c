// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rs_addr_run_fill(), the batch normalizer's inner loop, against the plain
 * definition: the run ends at the first address outside the mapping, and
 * every address before it gets its file offset and the mapping. Sorted runs
 * of every length around the four-address step, and unsorted input with one
 * address outside the mapping at every position of the run.
 */
#include <stdint.h>

#include "addr_run.h"
#include "unit.h"

#define MAX_RUN 40
#define START 0x7f0000001000ull
#define END 0x7f0000009000ull

static const struct ringside_mapping mapping = { .start = START, .end = END, .offset = 0x3000 };
static const struct rs_addr_run run = { START, END, 0x3000 - START, &mapping };
static const struct ringside_mapping *poison = (const void *)&run;	/* what no slot may keep */

/* The plain definition: the run's end, with the expected slots filled in. */
static size_t expected(const uint64_t *addrs, size_t i, size_t n, uint64_t *off)
{
	while (i < n && addrs[i] >= START && addrs[i] < END) {
		off[i] = addrs[i] - START + 0x3000;
		i++;
	}
	return i;
}

/* The call's answer and its slots from i up to the run's end match the definition. */
static int agrees(const uint64_t *addrs, size_t i, size_t n)
{
	uint64_t off[MAX_RUN + 2], want[MAX_RUN + 2];
	const struct ringside_mapping *maps[MAX_RUN + 2];
	size_t j, want_j = expected(addrs, i, n, want);
	int bad = 0;

	for (size_t k = 0; k < n; k++)
		maps[k] = poison;
	j = rs_addr_run_fill(&run, addrs, i, n, off, maps);
	bad |= j != want_j;
	for (size_t k = i; k < want_j; k++)
		bad |= off[k] != want[k] || maps[k] != &mapping;
	return !bad;
}

/*
 * Sorted: runs of 1..MAX_RUN addresses from the mapping's first byte to its
 * last, then what follows: nothing, the mapping's end, or an address far past.
 */
static void sorted_runs_every_length(void)
{
	uint64_t addrs[MAX_RUN + 2];

	for (size_t len = 1; len <= MAX_RUN; len++) {
		for (size_t k = 0; k < len; k++)
			addrs[k] = START + (END - 1 - START) * k / (len > 1 ? len - 1 : 1);
		CHECK(agrees(addrs, 0, len));
		addrs[len] = END;
		CHECK(agrees(addrs, 0, len + 1));
		addrs[len] = UINT64_MAX;
		CHECK(agrees(addrs, 0, len + 1));
		/* The run starting mid-array. */
		if (len > 2)
			CHECK(agrees(addrs, 2, len + 1));
	}
}

/* Unsorted: one address outside (below, at the end, far above) at each position. */
static void unsorted_outsider_everywhere(void)
{
	static const uint64_t outside[] = { START - 1, END, UINT64_MAX, 0 };
	uint64_t addrs[MAX_RUN + 2];

	for (size_t len = 2; len <= MAX_RUN; len++) {
		for (size_t pos = 1; pos < len; pos++) {
			for (size_t o = 0; o < sizeof(outside) / sizeof(outside[0]); o++) {
				/* Descending, so galloping on the mapping's end is misled. */
				for (size_t k = 0; k < len; k++)
					addrs[k] = END - 1 - k;
				addrs[pos] = outside[o];
				CHECK(agrees(addrs, 0, len));
				/* And ascending with the outsider, then more inside. */
				for (size_t k = 0; k < len; k++)
					addrs[k] = START + k;
				addrs[pos] = outside[o];
				CHECK(agrees(addrs, 0, len));
			}
		}
	}
}

int main(void)
{
	RUN(sorted_runs_every_length);
	RUN(unsorted_outsider_everywhere);
	UNIT_EXIT();
}
