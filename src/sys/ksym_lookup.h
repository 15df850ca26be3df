/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's own lookup of function names (ksym_lookup.bpf.c),
 * for a start that cannot wait for the walk of every symbol (ksyms.h).
 */
#ifndef RINGSIDE_KSYM_LOOKUP_H
#define RINGSIDE_KSYM_LOOKUP_H

/* Names looked up in one run (more: the walk serves). */
#define RS_KSYM_LOOKUP_MAX 16
/* A name with its NUL, at most. */
#define RS_KSYM_LOOKUP_NAME 64
/* "%pS" of an address: "name+0x0/0xSIZE [module]". */
#define RS_KSYM_LOOKUP_TEXT 128

#ifndef __bpf__
#include <stddef.h>
#include <stdint.h>

struct rs_ksym_tag;
struct rs_ksym_range;

/*
 * The first function of each tag's name as kallsyms_lookup_name() finds it,
 * its end from the size the kernel prints for it (%pS), through a BPF
 * syscall program (Linux 5.16+): out[] gets one range per name found, in
 * tag order, rank set. Microseconds of kernel time where the walk takes
 * 30 ms, but a name that is several static functions yields only the first
 * (the walk finds them all). 0, or a negative errno when the kernel cannot
 * run the program or more than RS_KSYM_LOOKUP_MAX tags are asked.
 */
int rs_ksym_lookup_first(const struct rs_ksym_tag *tags, size_t nr_tags,
			 struct rs_ksym_range *out, size_t *n);
/*
 * The size in "%pS" text of a symbol's first byte: "NAME+0x0/0xSIZE", a
 * module's name after it; 0 for anything else.
 */
uint64_t rs_ksym_size_from_text(const char *text);
#endif

#endif
