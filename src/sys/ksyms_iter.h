/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: what ksyms.bpf.c and ksyms.c share about the iterator's tags. */
#ifndef RINGSIDE_KSYMS_ITER_H
#define RINGSIDE_KSYMS_ITER_H

/* Tags the iterator compares (more: the text file is read instead). */
#define RS_KSYMS_ITER_TAGS 16
/* A tag's name with its NUL, at most (longer: the text file is read instead). */
#define RS_KSYMS_ITER_NAME 48

#ifndef __bpf__
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_ksym_tag;

/*
 * Every text symbol of the running kernel in the order /proc/kallsyms lists
 * them, through the BPF iterator: emit(arg, address, rank) for each, rank
 * the index in tags of the tag it is named by, -1 for none; a non-zero
 * return stops the walk with it. 0 when walked, -ECANCELED when *stop
 * was seen set, or a negative errno for a kernel or tag set the iterator
 * cannot serve (the caller then reads the text file).
 */
int rs_ksyms_iter_walk(const struct rs_ksym_tag *tags, size_t nr_tags,
		       int (*emit)(void *arg, uint64_t addr, int rank), void *arg,
		       const atomic_bool *stop);
#endif

#endif
