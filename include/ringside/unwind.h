/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stacks from a copy: the registers and the stack bytes a probe copied
 * (struct rs_stack_copy, events.h), unwound in user space with the call-frame
 * information (.eh_frame, .debug_frame) of the files the process maps, as
 * perf --call-graph dwarf does. This is what walks through code built
 * without frame pointers (Debian's crypto libraries). Not thread-safe: one
 * unwinder per thread.
 */
#ifndef RINGSIDE_UNWIND_H
#define RINGSIDE_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ringside/events.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

struct ringside_unwinder;

/*
 * elfutils' libdw is opened by the first call, not linked: -ENOENT when it
 * cannot be, with ringside_unwinder_unavailable() saying why.
 */
int ringside_unwinder_new(struct ringside_unwinder **out);
void ringside_unwinder_free(struct ringside_unwinder *u);
/* NULL when unwinders can be made, else why not (the library and the package to install). */
const char *ringside_unwinder_unavailable(void);

/*
 * Unwind copy (copy_size bytes as received) of a thread of process pid into
 * pcs: pcs[0] is the copied instruction pointer, the rest return addresses,
 * innermost first. The walk ends where the call-frame information or the
 * copied window ends. Returns the number of frames (0 when even the first
 * is not in a mapped file), or a negative errno: -ESRCH when the process is
 * gone, -EINVAL for a malformed copy.
 */
int ringside_unwind(struct ringside_unwinder *u, pid_t pid, const struct rs_stack_copy *copy,
		    size_t copy_size, uint64_t *pcs, unsigned int max);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
