// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The in-place BTF reader (src/core/btf_reader.c) reads what libbpf's own
 * parse reads: every type's bytes and name of the kernel's BTF, lookups by
 * name, and a split part's ids and strings over its base; a type of every
 * kind is copied into libbpf's BTF as it was (src/core/btf_copy.c). And the BTF
 * libbpf gets for an object's load in the ringside binary
 * (src/core/libbpf_btf.c) answers each of that object's lookups with the
 * kernel's own id and the types libbpf's checks follow from it.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* The skeletons' rodata types first, as the collectors include them. */
#include "session_int.h"
#include "ringside/btrfs.h"
#include "ringside/gcm.h"
#include "ringside/reclaim.h"
#include "btf_copy.h"
#include "btf_reader.h"
#include "bpf_prices.skel.h"
#include "btrfs.skel.h"
#include "core_btf.h"
#include "gcm.skel.h"
#include "kernel_btf.h"
#include "libbpf_btf.h"
#include "reclaim.skel.h"
#include "unit.h"

static int have_kernel_btf(void)
{
	if (geteuid() == 0 && !access(RS_VMLINUX_BTF_PATH, R_OK))
		return 1;
	printf("SKIP %s: needs root and the kernel's BTF\n", unit_.name);
	unit_.failed = -1;
	return 0;
}

/* Every id: the same bytes and name as libbpf's parse; lookups by name agree. */
static void kernel_btf_as_libbpf_reads_it(void)
{
	struct btf *full;
	const struct rs_btf *k;
	__u32 walked = 0, id;
	const char *names[][2] = {
		{ "task_struct", "s" }, { "btf_trace_sched_switch", "t" }, { "vfs_read", "f" },
		{ "cgroup_subsys_id", "e" }, { "no_such_type_here", "s" },
	};

	if (!have_kernel_btf())
		return;
	full = btf__parse(RS_VMLINUX_BTF_PATH, NULL);
	k = rs_kernel_btf_get();
	CHECK(full && k);
	if (!full || !k)
		goto out;
	CHECK_EQ_INT(rs_btf_type_cnt(k), btf__type_cnt(full));
	for (const struct btf_type *t = rs_btf_next(k, NULL, &id); t; t = rs_btf_next(k, t, &id)) {
		const struct btf_type *want = btf__type_by_id(full, id);
		size_t size = rs_btf_type_size(t);

		walked++;
		if (!want || rs_btf_type(k, id) != t || memcmp(t, want, size) ||
		    strcmp(rs_btf_name(k, t->name_off), btf__name_by_offset(full, want->name_off))) {
			printf("  type %u differs\n", id);
			unit_.failed++;
			break;
		}
	}
	CHECK_EQ_INT(walked + 1, btf__type_cnt(full));
	CHECK(rs_btf_type(k, 0) == NULL && rs_btf_type(k, rs_btf_type_cnt(k)) == NULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		__u16 kind = names[i][1][0] == 's' ? BTF_KIND_STRUCT :
			     names[i][1][0] == 't' ? BTF_KIND_TYPEDEF :
			     names[i][1][0] == 'f' ? BTF_KIND_FUNC : BTF_KIND_ENUM;

		CHECK_EQ_INT(rs_btf_find(k, names[i][0], kind),
			     btf__find_by_name_kind(full, names[i][0], kind));
	}
out:
	rs_kernel_btf_put();
	btf__free(full);
}

/* A split part (a module's BTF) numbers its types and strings after its base's. */
static void split_btf_over_its_base(void)
{
	struct btf *base = btf__new_empty(), *split = NULL;
	struct rs_btf *rbase = NULL, *rsplit = NULL;
	const void *raw_base, *raw_split;
	__u32 base_size = 0, split_size = 0;
	int int_id, st, td;

	CHECK(base != NULL);
	if (!base)
		return;
	int_id = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	st = btf__add_struct(base, "pair", 8);
	btf__add_field(base, "a", int_id, 0, 0);
	btf__add_field(base, "b", int_id, 32, 0);
	split = btf__new_empty_split(base);
	td = split ? btf__add_typedef(split, "pair_t", st) : -1;
	if (split)
		btf__add_func_proto(split, td);
	raw_split = split ? btf__raw_data(split, &split_size) : NULL;
	raw_base = btf__raw_data(base, &base_size);
	CHECK(raw_base && raw_split && td == 3);
	CHECK_EQ_INT(rs_btf_view(raw_base, base_size, NULL, &rbase), 0);
	CHECK_EQ_INT(rbase ? rs_btf_view(raw_split, split_size, rbase, &rsplit) : -1, 0);
	if (rsplit) {
		const struct btf_type *t = rs_btf_type(rsplit, (__u32)td);

		CHECK_EQ_INT(rs_btf_type_cnt(rsplit), 5);
		CHECK_EQ_INT(rs_btf_find(rsplit, "pair_t", BTF_KIND_TYPEDEF), td);
		CHECK_EQ_INT(rs_btf_find(rsplit, "pair", BTF_KIND_STRUCT), st);
		CHECK(t && btf_is_typedef(t) && t->type == (__u32)st);
		CHECK_EQ_STR(rs_btf_name(rsplit, t->name_off), "pair_t");
		t = rs_btf_type(rsplit, (__u32)st);
		CHECK(t && btf_vlen(t) == 2);
		CHECK_EQ_STR(rs_btf_name(rsplit, btf_members(t)[1].name_off), "b");
		CHECK(rs_btf_type(rsplit, 5) == NULL);
	}
	/* Bytes cut short are refused, not read past. */
	CHECK_EQ_INT(rs_btf_view(raw_base, base_size - 1, NULL, &(struct rs_btf *){ NULL }), -EINVAL);
	rs_btf_close(rsplit);
	rs_btf_close(rbase);
	btf__free(split);
	btf__free(base);
}

/* One of every kind, bitfields, a signed enum64 and a union among them. */
static struct btf *every_kind(void)
{
	struct btf *b = btf__new_empty();
	int i, st, p, fp;

	if (!b)
		return NULL;
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	st = btf__add_struct(b, "task_struct", 16);
	btf__add_field(b, "pid", i, 0, 0);
	btf__add_field(b, "flags", i, 35, 3);
	p = btf__add_ptr(b, st);
	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", p);
	btf__add_typedef(b, "btf_trace_x", btf__add_ptr(b, fp));
	btf__add_enum(b, "cgroup_subsys_id", 4);
	btf__add_enum_value(b, "memory_cgrp_id", 4);
	btf__add_array(b, i, i, 8);
	btf__add_func(b, "vfs_read", BTF_FUNC_GLOBAL, fp);
	btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i);
	btf__add_datasec(b, ".data", 4);
	btf__add_datasec_var_info(b, 11, 0, 4);
	btf__add_enum64(b, "e64", 8, true);
	btf__add_enum64_value(b, "big", (__u64)-5LL);
	btf__add_float(b, "double", 8);
	btf__add_decl_tag(b, "tag", 10, -1);
	btf__add_type_tag(b, "user", p);
	btf__add_const(b, i);
	btf__add_volatile(b, i);
	btf__add_restrict(b, p);
	btf__add_fwd(b, "fwd_union", BTF_FWD_UNION);
	btf__add_union(b, "u", 4);
	btf__add_field(b, "a", i, 0, 0);
	return b;
}

/* The same kind, info word, size or type and trailing words; names by text. */
static int same_type(const struct btf *a, const struct btf_type *ta, const struct rs_btf *b,
		     const struct btf_type *tb)
{
	size_t size = rs_btf_type_size(tb);
	const __u32 *wa = (const __u32 *)ta, *wb = (const __u32 *)tb;

	if (rs_btf_type_size(ta) != size ||
	    strcmp(btf__name_by_offset(a, ta->name_off), rs_btf_name(b, tb->name_off)))
		return 0;
	for (size_t w = 1; w < size / 4; w++) {
		/* Members', values' and parameters' names: each entry's first word. */
		int named = w >= 3 && ((btf_is_composite(tb) && (w - 3) % 3 == 0) ||
				       ((btf_is_enum(tb) || btf_is_func_proto(tb)) && (w - 3) % 2 == 0) ||
				       (btf_is_enum64(tb) && (w - 3) % 3 == 0));

		if (named ? strcmp(btf__name_by_offset(a, wa[w]), rs_btf_name(b, wb[w])) : wa[w] != wb[w])
			return 0;
	}
	return 1;
}

/* Every kind copied as it is, ids kept; without members a struct is its name and size. */
static void copies_every_kind(void)
{
	struct btf *src = every_kind(), *out = btf__new_empty(), *stubs = btf__new_empty();
	struct rs_btf *view = NULL;
	const void *raw = NULL;
	__u32 size = 0, id;
	unsigned int copied = 0;

	if (src)
		raw = btf__raw_data(src, &size);
	CHECK(raw && out && stubs && !rs_btf_view(raw, size, NULL, &view));
	for (const struct btf_type *t = view ? rs_btf_next(view, NULL, &id) : NULL; t;
	     t = rs_btf_next(view, t, &id)) {
		int got = rs_btf_copy_type(out, view, t, true);

		if (btf_is_datasec(t) || btf_is_decl_tag(t)) {
			CHECK_EQ_INT(got, -EINVAL);
			got = btf__add_ptr(out, 0);	/* keep the numbering */
			rs_btf_copy_type(stubs, view, rs_btf_type(view, 1), false);
			continue;
		}
		CHECK_EQ_INT(got, (int)id);
		if (got == (int)id && !same_type(out, btf__type_by_id(out, id), view, t)) {
			printf("  type %u copied differently\n", id);
			unit_.failed++;
		}
		copied++;
		got = rs_btf_copy_type(stubs, view, t, false);
		CHECK_EQ_INT(got, (int)id);
		if (got == (int)id && (btf_is_composite(t) || btf_is_any_enum(t))) {
			const struct btf_type *stub = btf__type_by_id(stubs, id);

			CHECK(btf_vlen(stub) == 0 && btf_kind(stub) == btf_kind(t) && stub->size == t->size &&
			      btf_kflag(stub) == btf_kflag(t));
		}
	}
	CHECK_EQ_INT(copied, 18);
	rs_btf_close(view);
	btf__free(stubs);
	btf__free(out);
	btf__free(src);
}

/* Kinds, names, sizes and ints of a chain libbpf compares (bpf_core_types_are_compat()). */
static int same_chain(const struct btf *a, __u32 ia, const struct btf *b, __u32 ib, int depth)
{
	const struct btf_type *ta = btf__type_by_id(a, ia), *tb = btf__type_by_id(b, ib);

	if (!ia || !ib || depth > 16)
		return ia == ib;
	if (!ta || !tb || btf_kind(ta) != btf_kind(tb) ||
	    strcmp(btf__name_by_offset(a, ta->name_off), btf__name_by_offset(b, tb->name_off)))
		return 0;
	switch (btf_kind(ta)) {
	case BTF_KIND_INT:
		return ta->size == tb->size && *(const __u32 *)(ta + 1) == *(const __u32 *)(tb + 1);
	case BTF_KIND_FUNC_PROTO:
		if (btf_vlen(ta) != btf_vlen(tb))
			return 0;
		for (__u16 i = 0; i < btf_vlen(ta); i++)
			if (!same_chain(a, btf_params(ta)[i].type, b, btf_params(tb)[i].type, depth + 1))
				return 0;
		return same_chain(a, ta->type, b, tb->type, depth + 1);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: case BTF_KIND_FLOAT:
		return ta->size == tb->size || btf_is_fwd(ta);
	case BTF_KIND_ARRAY:
		return same_chain(a, btf_array(ta)->type, b, btf_array(tb)->type, depth + 1);
	default:
		return same_chain(a, ta->type, b, tb->type, depth + 1);
	}
}

static void lookups_for(const char *name, const void *(*elf_bytes)(size_t *size), const char *kfunc)
{
	struct bpf_object_open_opts opts = { .sz = sizeof(opts) };
	struct btf *full = btf__parse(RS_VMLINUX_BTF_PATH, NULL), *got;
	struct bpf_program *p;
	struct bpf_object *obj;
	struct rs_core_btf cb;
	unsigned int checked = 0;
	size_t size;
	const void *elf = elf_bytes(&size);
	const char *what;

	rs_core_btf_prepare(elf, size, &cb, &opts);
	opts.object_name = name;
	obj = bpf_object__open_mem(elf, size, &opts);
	CHECK(full && obj && cb.fd >= 0);
	if (!full || !obj)
		goto out;
	rs_libbpf_btf_loading(obj, cb.fd >= 0, elf, size);
	got = rs_libbpf_vmlinux_btf();
	what = rs_libbpf_btf_loaded();
	CHECK(got != NULL && strstr(what, "numbered as the kernel's"));
	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p), *target = strchr(sec, '/');
		char want[160];
		int id;

		if (bpf_program__type(p) != BPF_PROG_TYPE_TRACING || !target)
			continue;
		snprintf(want, sizeof(want), "%s%s",
			 bpf_program__expected_attach_type(p) == BPF_TRACE_RAW_TP ? "btf_trace_" : "",
			 target + 1);
		id = btf__find_by_name_kind(full, want, bpf_program__expected_attach_type(p) ==
					    BPF_TRACE_RAW_TP ? BTF_KIND_TYPEDEF : BTF_KIND_FUNC);
		if (id <= 0)
			continue;	/* not in this kernel: that variant is not loaded here */
		checked++;
		CHECK_EQ_INT(got ? btf__find_by_name_kind(got, want, btf_kind(btf__type_by_id(full, id))) : -1,
			     id);
	}
	/* A kfunc: its id and the prototype libbpf compares with the object's. */
	if (kfunc && got) {
		int id = btf__find_by_name_kind(full, kfunc, BTF_KIND_FUNC);

		if (id > 0) {
			checked++;
			CHECK_EQ_INT(btf__find_by_name_kind(got, kfunc, BTF_KIND_FUNC), id);
			CHECK(same_chain(got, (__u32)id, full, (__u32)id, 0));
		}
	}
	printf("  %s: %u lookups answered with the kernel's ids (%s)\n", name, checked, what);
	CHECK(checked > 0);
	btf__free(got);
out:
	bpf_object__close(obj);
	rs_core_btf_close(&cb);
	btf__free(full);
}

static void libbpf_gets_the_kernels_ids(void)
{
	if (!have_kernel_btf())
		return;
	lookups_for("gcm_bpf", gcm_bpf__elf_bytes, NULL);
	lookups_for("reclaim_bpf", reclaim_bpf__elf_bytes, NULL);
	lookups_for("btrfs_bpf", btrfs_bpf__elf_bytes, NULL);
	/* The bench's prices object calls a kfunc (none of the collectors does). */
	lookups_for("bpf_prices_bpf", bpf_prices_bpf__elf_bytes, "bpf_session_is_return");
}

/* Without a registered object (or a lookup it cannot tell), libbpf gets the whole. */
static void libbpf_gets_the_whole_otherwise(void)
{
	struct btf *got;
	const struct rs_btf *k;

	if (!have_kernel_btf())
		return;
	k = rs_kernel_btf_get();
	got = rs_libbpf_vmlinux_btf();
	CHECK(got && k && btf__type_cnt(got) == rs_btf_type_cnt(k));
	CHECK(got && btf__find_by_name_kind(got, "task_struct", BTF_KIND_STRUCT) > 0);
	btf__free(got);
	rs_kernel_btf_put();
}

int main(void)
{
	libbpf_set_print(NULL);
	RUN(kernel_btf_as_libbpf_reads_it);
	RUN(split_btf_over_its_base);
	RUN(copies_every_kind);
	RUN(libbpf_gets_the_kernels_ids);
	RUN(libbpf_gets_the_whole_otherwise);
	UNIT_EXIT();
}
