/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: one type of a BTF read in place (btf_reader.h) added to BTF that
 * libbpf builds, for the CO-RE cut (core_btf.c) and libbpf's lookups
 * (libbpf_btf.c).
 */
#ifndef RINGSIDE_BTF_COPY_H
#define RINGSIDE_BTF_COPY_H

#include <stdbool.h>
#include <linux/btf.h>

#include "btf_reader.h"

struct btf;

/*
 * Add t (a type of from) to out as the next id; its references keep from's
 * ids, for the caller to renumber or keep. With members, a struct, union or
 * enum keeps its members or values with their names, and every bitfield
 * offset and flag as from has it; without, it is its kind, name and size
 * alone (all libbpf compares of a kfunc's argument), and a prototype's
 * parameters lose their names. DATASECs and DECL_TAGs are not copied
 * (-EINVAL). The new id, or a negative errno.
 */
int rs_btf_copy_type(struct btf *out, const struct rs_btf *from, const struct btf_type *t,
		     bool members);

#endif
