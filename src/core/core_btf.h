/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's types an object's CO-RE relocations name, cut out of
 * the kernel's BTF and handed to libbpf as its btf_custom_path.
 *
 * libbpf looks for each relocated type's candidates by walking every type of
 * the kernel's BTF (125,000 here): 1.5 ms a walk, once per distinct local
 * type, 16 for reclaim, which made CO-RE most of a tracer's start-up. One walk
 * here finds them all; the copy holds each candidate with every member, the
 * structs, unions and arrays it embeds by value, and every pointer as a
 * pointer to void (field relocations only check that a pointer is a pointer,
 * and follow none), a few hundred types that libbpf searches in no time.
 */
#ifndef RINGSIDE_CORE_BTF_H
#define RINGSIDE_CORE_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

struct rs_core_btf {
	int fd;			/* memfd holding the cut BTF; -1: none */
	char path[32];		/* /proc/self/fd/N: libbpf opens the path at load */
	unsigned int nr_relos;	/* relocation records in the object */
	unsigned int nr_roots;	/* kernel types they name */
	unsigned int nr_types;	/* types in the cut, with what the roots embed */
	bool from_cache;	/* kept from an earlier start of this boot (btf_cache.h) */
	const char *why_not;	/* when fd is -1: why libbpf searches the kernel's BTF itself */
};

/*
 * Cut the kernel's BTF for the object elf (an X.bpf.o image) and point
 * opts->btf_custom_path at it. Where the cut would not answer as libbpf's own
 * search would (type-based relocations, a name the kernel's BTF lacks, which
 * libbpf would look up in module BTF), opts is left alone, cb->fd is -1 and
 * cb->why_not says why; libbpf then searches as usual. Close with
 * rs_core_btf_close() once the object is loaded.
 */
void rs_core_btf_prepare(const void *elf, size_t size, struct rs_core_btf *cb,
			 struct bpf_object_open_opts *opts);
void rs_core_btf_close(struct rs_core_btf *cb);

#endif
