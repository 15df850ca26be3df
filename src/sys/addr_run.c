// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A profile's sorted batch falls in long runs inside one mapping (in
 * bench/resolve_bench, 10,000 addresses over six text mappings), so this
 * loop is most of a batch's own time once its VMAs are cached. Checking and
 * storing one address a step costs about a nanosecond here; on sorted input
 * the run's end is found by galloping instead, and the run is filled four
 * addresses a step with AVX2 where the CPU has it (0.2-0.4 ns). Every
 * address is still checked against the bounds on the way, so unsorted input
 * falls back to the plain loop and gets the same answer.
 */
#include <string.h>

#include "addr_run.h"

static size_t fill_plain(const struct rs_addr_run *run, const uint64_t *addrs, size_t i, size_t n,
			 uint64_t *file_offset, const struct ringside_mapping **mapping)
{
	/* Bounds in locals: the stores could alias *run for the compiler. */
	uint64_t start = run->start, len = run->end - run->start, delta = run->delta;
	const struct ringside_mapping *m = run->mapping;

	while (i < n && addrs[i] - start < len) {
		file_offset[i] = addrs[i] + delta;
		mapping[i] = m;
		i++;
	}
	return i;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
typedef uint64_t u64x4 __attribute__((vector_size(32)));

/* One past the last address below end, were addrs[i..n) sorted. */
static size_t gallop_end(const uint64_t *addrs, size_t i, size_t n, uint64_t end)
{
	size_t lo = i, step = 1, hi;

	while (step < n - lo && addrs[lo + step] < end) {
		lo += step;
		step *= 2;
	}
	hi = step < n - lo ? lo + step : n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (addrs[mid] < end)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

/* Fill [i, j) if every address in it is inside the run; false if one is not. */
__attribute__((target("avx2"))) static int fill_avx2(const struct rs_addr_run *run,
							const uint64_t *addrs, size_t i, size_t j,
							uint64_t *file_offset,
							const struct ringside_mapping **mapping)
{
	uint64_t start = run->start, len = run->end - run->start, delta = run->delta;
	uint64_t m = (uint64_t)(uintptr_t)run->mapping, outside;
	u64x4 v_start = { start, start, start, start }, v_len = { len, len, len, len };
	u64x4 v_delta = { delta, delta, delta, delta }, v_m = { m, m, m, m }, v_out = { 0 };
	size_t k = i;

	for (; j - k >= 4; k += 4) {
		u64x4 a;

		memcpy(&a, addrs + k, sizeof(a));
		v_out |= (u64x4)(a - v_start >= v_len);
		a += v_delta;
		memcpy(file_offset + k, &a, sizeof(a));
		memcpy(mapping + k, &v_m, sizeof(v_m));
	}
	outside = v_out[0] | v_out[1] | v_out[2] | v_out[3];
	for (; k < j; k++) {
		outside |= addrs[k] - start >= len;
		file_offset[k] = addrs[k] + delta;
		mapping[k] = run->mapping;
	}
	return !outside;
}

static int cpu_has_avx2(void)
{
	static int known = -1;	/* racing threads agree on the answer */

	if (known < 0)
		known = __builtin_cpu_supports("avx2") ? 1 : 0;
	return known;
}

size_t rs_addr_run_fill(const struct rs_addr_run *run, const uint64_t *addrs, size_t i, size_t n,
			uint64_t *file_offset, const struct ringside_mapping **mapping)
{
	_Static_assert(sizeof(void *) == sizeof(uint64_t), "pointers stored as 64-bit lanes");
	size_t j;

	if (!cpu_has_avx2())
		return fill_plain(run, addrs, i, n, file_offset, mapping);
	j = gallop_end(addrs, i, n, run->end);
	if (fill_avx2(run, addrs, i, j, file_offset, mapping))
		return j;
	/* Not sorted: what was stored is rewritten up to the run's true end. */
	return fill_plain(run, addrs, i, n, file_offset, mapping);
}
#else
size_t rs_addr_run_fill(const struct rs_addr_run *run, const uint64_t *addrs, size_t i, size_t n,
			uint64_t *file_offset, const struct ringside_mapping **mapping)
{
	return fill_plain(run, addrs, i, n, file_offset, mapping);
}
#endif
