// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: raw BTF as the kernel exports it (src/core/btf_reader.c),
 * then every type walked, looked up by id, named, and searched by name.
 */
#include <stdint.h>

#include <bpf/btf.h>

#include "btf_reader.h"
#include "fuzz.h"

/* Every name a type holds, members' and parameters' too. */
static void read_names(const struct rs_btf *btf, const struct btf_type *t)
{
	const char *name = rs_btf_name(btf, t->name_off);
	size_t sum = name ? strlen(name) : 0;

	if (btf_is_composite(t))
		for (__u16 i = 0; i < btf_vlen(t); i++) {
			name = rs_btf_name(btf, btf_members(t)[i].name_off);
			sum += name ? strlen(name) : 0;
			rs_btf_type(btf, btf_members(t)[i].type);
		}
	else if (btf_is_func_proto(t))
		for (__u16 i = 0; i < btf_vlen(t); i++)
			rs_btf_type(btf, btf_params(t)[i].type);
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The kernel's file is page-aligned: a copy gives the same alignment. */
	void *bytes = malloc(size ? size : 1);
	struct rs_btf *btf = NULL;
	__u32 id;

	if (!bytes)
		return 0;
	memcpy(bytes, data, size);
	if (!rs_btf_view(bytes, size, NULL, &btf)) {
		for (const struct btf_type *t = rs_btf_next(btf, NULL, &id); t; t = rs_btf_next(btf, t, &id)) {
			if (rs_btf_type(btf, id) != t)
				abort();	/* the index and the walk disagree */
			read_names(btf, t);
		}
		rs_btf_type(btf, rs_btf_type_cnt(btf));
		rs_btf_find(btf, "task_struct", BTF_KIND_STRUCT);
		rs_btf_find(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
		rs_btf_close(btf);
	}
	free(bytes);
	return 0;
}
