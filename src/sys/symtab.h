/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: one ELF file's symbols and load segments, for address lookup. */
#ifndef RINGSIDE_SYMTAB_H
#define RINGSIDE_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct rs_symtab;

/*
 * Load from an open ELF file, or from an in-memory image (the vdso).
 * debug_dir: where to look for a separate debug file by build ID
 * (normally "/usr/lib/debug"); NULL to not look.
 */
int rs_symtab_load_fd(int fd, const char *debug_dir, struct rs_symtab **out);
int rs_symtab_load_mem(const void *image, size_t len, struct rs_symtab **out);
void rs_symtab_free(struct rs_symtab *st);

/* File offset → ELF virtual address through the PT_LOAD segments. */
int rs_symtab_offset_to_vaddr(const struct rs_symtab *st, uint64_t off, uint64_t *vaddr);
/* ELF virtual address → file offset (where a uprobe goes). */
int rs_symtab_vaddr_to_offset(const struct rs_symtab *st, uint64_t vaddr, uint64_t *off);
/* Nearest symbol at or below vaddr that covers it; NULL when none. */
const char *rs_symtab_lookup(const struct rs_symtab *st, uint64_t vaddr, uint64_t *sym_off);
/* Address of a named function or object (for probes); 0 and -ENOENT when absent. */
int rs_symtab_find(const struct rs_symtab *st, const char *name, uint64_t *vaddr, uint64_t *size);
size_t rs_symtab_count(const struct rs_symtab *st);
/* Whether symbols came from a separate debug file. */
int rs_symtab_from_debug_file(const struct rs_symtab *st);

#endif
