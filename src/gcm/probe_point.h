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

#endif
