/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: a Go program's own function table. Go binaries keep their
 * function names and addresses in .gopclntab even when stripped (the runtime
 * needs them for tracebacks), and their toolchain version in .go.buildinfo.
 */
#ifndef RINGSIDE_GOBIN_H
#define RINGSIDE_GOBIN_H

#include <stddef.h>
#include <stdint.h>

struct rs_gobin;

/*
 * Read an ELF image (not copied: it must outlive the result). Returns 0,
 * -ENOEXEC with why = "" when the file is no Go program at all, or another
 * negative errno with why saying what is wrong with the Go program's tables.
 */
int rs_gobin_load_mem(const void *image, size_t len, struct rs_gobin **out, char *why, size_t whylen);
/* The same for an open file, which the result maps for its lifetime. */
int rs_gobin_load_fd(int fd, struct rs_gobin **out, char *why, size_t whylen);
void rs_gobin_free(struct rs_gobin *gb);

/* "go1.19.8"; "" when the build info is missing. */
const char *rs_gobin_version(const struct rs_gobin *gb);
/* Major and minor of that version (1, 19); 0 and 0 when unknown. */
void rs_gobin_version_num(const struct rs_gobin *gb, unsigned int *major, unsigned int *minor);
/* The pclntab header generation: 116, 118 or 120 (the Go release that introduced it). */
unsigned int rs_gobin_table_format(const struct rs_gobin *gb);
unsigned int rs_gobin_nr_funcs(const struct rs_gobin *gb);

/* A function by its full Go name: its entry and end (next function's entry) addresses. */
int rs_gobin_func(const struct rs_gobin *gb, const char *name, uint64_t *entry, uint64_t *end);
/* The i-th function's name and entry, for walking the table; NULL past the end. */
const char *rs_gobin_func_at(const struct rs_gobin *gb, unsigned int i, uint64_t *entry);
/* ELF virtual address → file offset, and the file's bytes at it (NULL when not in the file). */
int rs_gobin_vaddr_to_offset(const struct rs_gobin *gb, uint64_t vaddr, uint64_t *off);
const uint8_t *rs_gobin_bytes(const struct rs_gobin *gb, uint64_t vaddr, size_t len);

#endif
