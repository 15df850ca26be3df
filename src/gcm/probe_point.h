/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: where in a function's prologue a uprobe is cheapest. */
#ifndef RINGSIDE_PROBE_POINT_H
#define RINGSIDE_PROBE_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_probe_point {
	uint32_t skip;		/* bytes past the function's start */
	bool emulated;		/* the kernel emulates the probed instruction */
	uint32_t argmap;	/* probe_argmap.h; 0: arguments and return address as at entry */
};

/*
 * x86-64 uprobes emulate push and branches but single-step everything else
 * out of line, which costs about 20 times more. Given the first bytes of a
 * function, skip leading instructions that neither move the stack pointer nor
 * write an argument register (endbr64, lea of a global into a scratch
 * register) when an emulated instruction follows. At the chosen point the
 * arguments and the return address at [rsp] are still those of the entry, so
 * entry and return probes both work there.
 */
struct rs_probe_point rs_probe_point_choose(const uint8_t *code, size_t len);

/*
 * For a probe that reads its first nargs arguments through an argument map
 * and takes no return probe, where the function's first instruction is
 * single-stepped: follow its straight-line start to the first instruction
 * the kernel emulates, tracking which register holds each argument whole
 * and how far the stack pointer moved, and place the probe there (skip,
 * emulated, argmap). code/size: the whole function, since no branch may
 * come back into the instructions skipped. 0 when placed; -ENOTSUP with
 * why when anything is not certain (a store, an instruction it does not
 * follow, an argument overwritten everywhere, a branch back), and the probe
 * stays at the entry.
 */
int rs_probe_point_follow(const uint8_t *code, size_t size, unsigned int nargs,
			  struct rs_probe_point *out, char *why, size_t whylen);

#endif
