/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: what a walk of the kernel's BTF found, kept for the rest of the
 * boot (cache_file.h). A CO-RE cut is a function of the kernel's BTF and
 * of the types an object names, and each walk that made one took 3-5 ms
 * of a start here, one per collector (the agent: four). Within a boot the
 * kernel's BTF cannot change (modules bring BTF of their own, which a cut
 * does not read), so a file names the boot it is from
 * (/proc/sys/kernel/random/boot_id) and holds the question it answers
 * whole: any other boot's, or another question's, is not read.
 */
#ifndef RINGSIDE_BTF_CACHE_H
#define RINGSIDE_BTF_CACHE_H

#include <stddef.h>

/*
 * The bytes kept for query (qlen bytes) under kind (a word of the file's
 * name) this boot, into *out (malloc'd, the caller's to free): their size,
 * or 0 when none are kept.
 */
size_t rs_btf_cache_get(const char *kind, const void *query, size_t qlen, void **out);
/* Keep len bytes as the answer to query for this boot; failures only lose them. */
void rs_btf_cache_put(const char *kind, const void *query, size_t qlen, const void *bytes, size_t len);

#endif
