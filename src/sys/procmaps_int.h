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

#endif
