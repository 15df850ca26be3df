// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One type of an in-place BTF added to BTF libbpf builds (btf_copy.h). */
#include <errno.h>
#include <bpf/btf.h>

#include "btf_copy.h"

/* A struct's or union's members, or an enum's values, by name. */
static int copy_members(struct btf *out, const struct rs_btf *from, const struct btf_type *t)
{
	const char *name;
	int err = 0;

	for (__u16 i = 0; !err && i < btf_vlen(t); i++) {
		switch (btf_kind(t)) {
		case BTF_KIND_ENUM:
			name = rs_btf_name(from, btf_enum(t)[i].name_off);
			err = name ? btf__add_enum_value(out, name, btf_enum(t)[i].val) : -EINVAL;
			break;
		case BTF_KIND_ENUM64:
			name = rs_btf_name(from, btf_enum64(t)[i].name_off);
			err = name ? btf__add_enum64_value(out, name, btf_enum64_value(btf_enum64(t) + i)) :
				     -EINVAL;
			break;
		default:
			name = rs_btf_name(from, btf_members(t)[i].name_off);
			err = name ? btf__add_field(out, name, (int)btf_members(t)[i].type, 0, 0) : -EINVAL;
			break;
		}
	}
	return err;
}

int rs_btf_copy_type(struct btf *out, const struct rs_btf *from, const struct btf_type *t,
		     bool members)
{
	const char *name = rs_btf_name(from, t->name_off);
	struct btf_type *copy;
	int id, err = 0;

	if (!name)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		id = btf__add_int(out, name, (size_t)t->size, btf_int_encoding(t));
		break;
	case BTF_KIND_FLOAT:
		id = btf__add_float(out, name, (size_t)t->size);
		break;
	case BTF_KIND_FWD:
		id = btf__add_fwd(out, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_STRUCT:
		id = btf__add_struct(out, name, t->size);
		break;
	case BTF_KIND_UNION:
		id = btf__add_union(out, name, t->size);
		break;
	case BTF_KIND_ENUM:
		id = btf__add_enum(out, name, t->size);
		break;
	case BTF_KIND_ENUM64:
		id = btf__add_enum64(out, name, t->size, btf_kflag(t));
		break;
	case BTF_KIND_ARRAY:
		id = btf__add_array(out, (int)btf_array(t)->index_type, (int)btf_array(t)->type,
				    btf_array(t)->nelems);
		break;
	case BTF_KIND_PTR:
		id = btf__add_ptr(out, (int)t->type);
		break;
	case BTF_KIND_TYPEDEF:
		id = btf__add_typedef(out, name, (int)t->type);
		break;
	case BTF_KIND_VOLATILE:
		id = btf__add_volatile(out, (int)t->type);
		break;
	case BTF_KIND_CONST:
		id = btf__add_const(out, (int)t->type);
		break;
	case BTF_KIND_RESTRICT:
		id = btf__add_restrict(out, (int)t->type);
		break;
	case BTF_KIND_TYPE_TAG:
		id = btf__add_type_tag(out, name, (int)t->type);
		break;
	case BTF_KIND_FUNC:
		id = btf__add_func(out, name, (enum btf_func_linkage)btf_vlen(t), (int)t->type);
		break;
	case BTF_KIND_VAR:
		id = btf__add_var(out, name, (int)btf_var(t)->linkage, (int)t->type);
		break;
	case BTF_KIND_FUNC_PROTO:
		id = btf__add_func_proto(out, (int)t->type);
		for (__u16 i = 0; id > 0 && !err && i < btf_vlen(t); i++) {
			const char *param = members ? rs_btf_name(from, btf_params(t)[i].name_off) : NULL;

			err = btf__add_func_param(out, param, (int)btf_params(t)[i].type);
		}
		break;
	default:
		return -EINVAL;	/* DATASEC, DECL_TAG */
	}
	if (id <= 0)
		return id ? id : -EINVAL;
	if (members && (btf_is_composite(t) || btf_is_any_enum(t)))
		err = copy_members(out, from, t);
	if (err)
		return err;
	/*
	 * libbpf's adders encode bitfields, an enum's sign and a FUNC's linkage
	 * their own way: the original's words go back over theirs.
	 */
	copy = (struct btf_type *)btf__type_by_id(out, (__u32)id);
	if (!members && (btf_is_composite(t) || btf_is_any_enum(t))) {
		copy->info = (__u32)btf_kind(t) << 24 | (__u32)btf_kflag(t) << 31;
		return id;
	}
	copy->info = t->info;
	if (btf_is_int(t))
		*(__u32 *)(copy + 1) = *(const __u32 *)(t + 1);
	else if (btf_is_composite(t))
		for (__u16 i = 0; i < btf_vlen(t); i++)
			btf_members(copy)[i].offset = btf_members(t)[i].offset;
	return id;
}
