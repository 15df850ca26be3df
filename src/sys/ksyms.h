/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: kernel text symbols for telling what a kernel stack was doing. */
#ifndef RINGSIDE_KSYMS_H
#define RINGSIDE_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

/* A function whose presence on a stack means something; tag 0 is reserved. */
struct rs_ksym_tag {
	const char *name;
	uint8_t tag;
};

struct rs_ksyms;

/* A tagged function's text: [start, end), its tag and its rank (index in the tags array). */
struct rs_ksym_range {
	uint64_t start, end;
	uint8_t tag, rank;
};

/*
 * Ready to load the named functions' text ranges from /proc/kallsyms:
 * -EPERM at once when kptr_restrict hides addresses. Nothing is read until
 * rs_ksyms_start() or the first lookup. tags must outlive ks.
 */
int rs_ksyms_load(const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out);
/*
 * Read the file on a thread from now on, off the caller's path (a tracer
 * starts it once attached: the read costs more than the whole start-up).
 */
void rs_ksyms_start(struct rs_ksyms *ks);
/*
 * Wait for the load, or read on this thread if none was started: 0, or why
 * the ranges are empty (every lookup then answers 0).
 */
int rs_ksyms_wait(const struct rs_ksyms *ks);
/* Would rs_ksyms_wait() return at once (the read ended, or none is due)? */
bool rs_ksyms_ready(const struct rs_ksyms *ks);
/* The same from any kallsyms-format text (the fuzz target feeds it). */
int rs_ksyms_parse(FILE *f, const struct rs_ksym_tag *tags, size_t nr_tags, struct rs_ksyms **out);
void rs_ksyms_free(struct rs_ksyms *ks);
/* Tag of the function containing ip, 0 when untagged. */
uint8_t rs_ksyms_tag(const struct rs_ksyms *ks, uint64_t ip);
/*
 * The tag on a stack that ranks first in the tags array given at load
 * (callers list the most telling functions first); 0 when none.
 */
uint8_t rs_ksyms_stack_tag(const struct rs_ksyms *ks, const __u64 *ips, unsigned int n);
/* Every tagged function found, best rank first (a name may be several static functions). */
const struct rs_ksym_range *rs_ksyms_ranges(const struct rs_ksyms *ks, size_t *n);

#endif
