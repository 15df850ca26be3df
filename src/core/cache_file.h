/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: files kept across runs in $RINGSIDE_CACHE_DIR (default
 * /var/cache/ringside; empty: nothing kept). A file is read back only from a
 * folder and file this user (or root) owns that nobody else may write, and
 * is written whole or not at all (a temporary file renamed over it), so a
 * reader never sees half of one. What is kept is always something a start
 * can find again by itself: a file that is missing, stale or unreadable
 * only costs that work.
 */
#ifndef RINGSIDE_CACHE_FILE_H
#define RINGSIDE_CACHE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* The folder, or "" when nothing is kept. */
const char *rs_cache_dir(void);
/* name in the folder opened for reading if it and the folder are trusted: an fd, or -1. */
int rs_cache_open(const char *name, size_t *size);
/* Write the parts (parts[i] of lens[i] bytes) as name, whole or not at all. */
void rs_cache_write(const char *name, const void *const parts[], const size_t lens[], unsigned int n);

#endif
