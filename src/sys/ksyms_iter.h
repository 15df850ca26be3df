/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: what ksyms.bpf.c and ksyms.c share about the iterator's tags. */
#ifndef RINGSIDE_KSYMS_ITER_H
#define RINGSIDE_KSYMS_ITER_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Tags the iterator compares (more: the text file is read instead). */
#define RS_KSYMS_ITER_TAGS 16
/* A tag's name with its NUL, at most (longer: the text file is read instead). */
#define RS_KSYMS_ITER_NAME 48

/* "%pS" of a tagged function's address: "name+0x0/0xSIZE [module]". */
#define RS_KSYMS_ITER_TEXT 128

/* What the iterator writes for each tagged function, and only for those. */
struct rs_ksyms_iter_rec {
	__u64 addr;
	__u32 rank;		/* the index of its tag */
	__u32 pad;
	char text[RS_KSYMS_ITER_TEXT];
};

#ifndef __bpf__
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_ksym_tag;

/*
 * The tagged functions of the running kernel, in the order /proc/kallsyms
 * lists them, through the BPF iterator: emit(arg, start, size, rank) for
 * each, size the kernel's own (its "%pS"), rank the index in tags of the
 * tag it is named by; a non-zero return stops the walk with it. *nr_text
 * counts every text symbol with an address (0: kptr_restrict hides them).
 * 0 when walked, -ECANCELED when *stop was seen set, -EPROTO for a record
 * without a size, or a negative errno for a kernel or tag set the iterator
 * cannot serve (the caller then reads the text file).
 */
int rs_ksyms_iter_walk(const struct rs_ksym_tag *tags, size_t nr_tags,
		       int (*emit)(void *arg, uint64_t start, uint64_t size, int rank), void *arg,
		       const atomic_bool *stop, size_t *nr_text);
#endif

#endif
