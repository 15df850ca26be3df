/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: GnuTLS backend calibrations kept across runs. What the
 * calibration children find depends only on the library's build and the
 * CPU's features, and finding it costs a start six processes that each load
 * GnuTLS (40-60 ms of a system-wide start on a 2-CPU machine). Kept in
 * $RINGSIDE_CACHE_DIR (default /var/cache/ringside; empty: no cache), one
 * file per library build ID, size and CPU feature set, written by the
 * calibration and read back only from a directory and file this user owns
 * that nobody else may write.
 */
#ifndef RINGSIDE_GNUTLS_CACHE_H
#define RINGSIDE_GNUTLS_CACHE_H

#include "gnutls_backend.h"

/* The backends cached for the library open as lib_fd: how many (0: none, or unusable). */
int gnutls_cache_load(int lib_fd, struct gnutls_backend *out, unsigned int max);
/* Keep n backends found for it; failures only lose the cache. */
void gnutls_cache_store(int lib_fd, const struct gnutls_backend *b, unsigned int n);

#endif
