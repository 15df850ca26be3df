/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: a read-only view of raw BTF in place.
 *
 * libbpf's btf__new() copies the bytes it is given (5.5 MB for the kernel's
 * BTF on 6.18) before it indexes them. ringside only asks the kernel's BTF
 * questions (is this function there, what does this struct hold) and copies
 * a few types out of it, so it reads /sys/kernel/btf/vmlinux where the file
 * is mapped (Linux 6.16+: the kernel's own pages, none of the process's
 * memory) and keeps only an index of where every 64th type starts (8 KiB;
 * a type by id is a walk of at most 63 from there, a name a walk of all).
 * Types are the UAPI's struct btf_type, so <bpf/btf.h>'s inline accessors
 * (btf_kind(), btf_members(), btf_params()...) read them.
 *
 * A module's BTF is split: its ids follow the base's and its string
 * offsets follow the base's strings, as the kernel numbers them.
 */
#ifndef RINGSIDE_BTF_READER_H
#define RINGSIDE_BTF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/btf.h>

struct rs_btf;

/*
 * Open the BTF file at path (mapped, or read where the kernel refuses the
 * mapping), on top of base for a module's split BTF (base NULL otherwise).
 * 0 or a negative errno: -EINVAL when the bytes are not well-formed BTF.
 * base must outlive the result.
 */
int rs_btf_open(const char *path, const struct rs_btf *base, struct rs_btf **out);
/* The same over bytes the caller keeps for the view's life (tests, fuzzing). */
int rs_btf_view(const void *bytes, size_t size, const struct rs_btf *base, struct rs_btf **out);
void rs_btf_close(struct rs_btf *btf);

/* One past the last id, as libbpf's btf__type_cnt(): ids run from 1 (0 is void). */
__u32 rs_btf_type_cnt(const struct rs_btf *btf);
/* Type id, from the base's ids too; NULL past the end (id 0 is void: NULL). */
const struct btf_type *rs_btf_type(const struct rs_btf *btf, __u32 id);
/*
 * This part's types in order, without the base's: t NULL gives the first
 * (its id in *id), then each the next, NULL after the last.
 *   for (t = rs_btf_next(btf, NULL, &id); t; t = rs_btf_next(btf, t, &id))
 */
const struct btf_type *rs_btf_next(const struct rs_btf *btf, const struct btf_type *t, __u32 *id);
/* The string at offset (a type's name_off); NULL past the end. */
const char *rs_btf_name(const struct rs_btf *btf, __u32 offset);
/* The first id, base first, with this name and kind; -ENOENT when none. */
int rs_btf_find(const struct rs_btf *btf, const char *name, __u16 kind);
/* Bytes a type takes, with what follows its struct btf_type (members, params...). */
size_t rs_btf_type_size(const struct btf_type *t);
/* True when the bytes are a mapping of the file (the kernel's pages), not a copy. */
bool rs_btf_mapped(const struct rs_btf *btf);
/* The raw bytes, header first (for libbpf's btf__new(), which copies them). */
const void *rs_btf_raw(const struct rs_btf *btf, size_t *size);

#endif
