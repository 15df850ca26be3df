/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the resolver needs of procmaps.c beyond the public API. */
#ifndef RINGSIDE_PROCMAPS_INT_H
#define RINGSIDE_PROCMAPS_INT_H

#include "ringside/procmaps.h"

/*
 * Every VMA passing flags, from one read of the maps text, whatever mode pm
 * queries in: when a batch touches most of a process's VMAs, one read is
 * cheaper than a PROCMAP_QUERY per VMA.
 */
int rs_procmaps_text_foreach(struct ringside_procmaps *pm, uint32_t flags, ringside_vma_fn fn,
			     void *ctx);

/*
 * Read and take in the first lines of the maps text as
 * rs_procmaps_text_foreach() takes in all of them (parsed, build IDs read
 * if flags ask), from one read of up to RS_PROCMAPS_SAMPLE_BYTES: how many
 * whole lines it held, or a negative errno. What it took, timed by the
 * caller, prices a line of a full read.
 */
#define RS_PROCMAPS_SAMPLE_BYTES 4096
int rs_procmaps_text_sample(struct ringside_procmaps *pm, uint32_t flags);

#endif
