// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Choosing each collector part's program variant from the kernel's features. */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "kernel_btf.h"
#include "variants.h"
#include "feature_prefetch.h"

/* The parameters of a function's prototype in btf; 0 for other kinds. */
static int params_of(const struct rs_btf *btf, int id)
{
	const struct btf_type *t = rs_btf_type(btf, id);

	if (!t || !btf_is_func(t))
		return 0;
	t = rs_btf_type(btf, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

/*
 * Is name a function or a tracepoint's btf_trace_ typedef in the kernel's (or
 * module's) BTF? -1 when not; else a function's number of parameters (0 for
 * a typedef).
 */
static int btf_has(const char *name, const char *module)
{
	const struct rs_btf *vmlinux = rs_kernel_btf_get(), *btf = vmlinux;
	struct rs_btf *mod = NULL;
	int id = -1, found = -1;

	if (vmlinux && module) {
		/* Built in, the module's types are in vmlinux; else in its own BTF. */
		id = rs_btf_find(vmlinux, name, BTF_KIND_FUNC);
		if (id <= 0)
			btf = mod = rs_kernel_btf_module(vmlinux, module);
	}
	if (id <= 0 && btf) {
		id = rs_btf_find(btf, name, BTF_KIND_FUNC);
		if (id <= 0)
			id = rs_btf_find(btf, name, BTF_KIND_TYPEDEF);
	}
	if (id > 0)
		found = params_of(btf, id);
	rs_btf_close(mod);
	rs_kernel_btf_put();
	return found;
}

/* Can v run here (as far as claimed, unless settled)? why says what decided, in one phrase. */
static bool possible(const struct rs_variant *v, bool settled, const char **feature, char *why,
		     size_t len, bool *claim_only)
{
	*feature = "none";
	snprintf(why, len, "needs no kernel feature beyond the collector's own");
	if (v->needs != RINGSIDE_FEAT_COUNT) {
		bool present;

		if (settled) {
			const struct ringside_feature_result *r = ringside_feature(v->needs);

			snprintf(why, len, "%s", r->why);
			present = r->present;
		} else {
			present = rs_feature_claimed(v->needs, why, len, claim_only);
		}
		*feature = rs_feature_name(v->needs);
		if (!present)
			return false;
	}
	if (v->btf_name) {
		int params = btf_has(v->btf_name, v->btf_module);

		if (params < 0) {
			snprintf(why, len, "%s is not in the kernel's BTF%s%s", v->btf_name,
				 v->btf_module ? " nor module " : "", v->btf_module ? v->btf_module : "");
			return false;
		}
		if (params < (int)v->btf_min_params) {
			snprintf(why, len, "%s takes %d arguments here, not the %u this variant reads",
				 v->btf_name, params, v->btf_min_params);
			return false;
		}
	}
	return true;
}

void rs_part_choose(const struct rs_part *part, struct rs_choice *out, bool settled)
{
	memset(out, 0, sizeof(*out));
	out->variant = -1;
	for (unsigned int i = 0; i < part->nr_variants; i++) {
		const char *feature;
		char why[sizeof(out->why)];
		bool claim_only = false;
		bool ok = possible(&part->variants[i], settled, &feature, why, sizeof(why), &claim_only);

		out->claimed |= claim_only;

		/* The best variant's feature is what decided, either way. */
		if (i == 0) {
			out->decided_by = feature;
			out->present = ok;
			snprintf(out->why, sizeof(out->why), "%s", why);
		}
		if (ok) {
			out->variant = (int)i;
			return;
		}
		/* None possible: the fallbacks' reasons too, so the one error line is whole. */
		if (i > 0) {
			size_t used = strlen(out->why);

			snprintf(out->why + used, sizeof(out->why) - used, "; and %s missing: %s", feature, why);
		}
	}
}

/* Does prog name start with one of the space-separated prefixes? */
static bool has_prefix(const char *name, const char *prefixes)
{
	const char *p = prefixes;

	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n && !strncmp(name, p, n))
			return true;
		p += n;
		p += strspn(p, " ");
	}
	return false;
}

void rs_parts_autoload(struct bpf_object *obj, const struct rs_part *parts, unsigned int nr_parts,
		       const struct rs_choice *chosen)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);

		for (unsigned int i = 0; i < nr_parts; i++) {
			for (unsigned int v = 0; v < parts[i].nr_variants; v++) {
				if (has_prefix(name, parts[i].variants[v].progs)) {
					bpf_program__set_autoload(prog, chosen[i].variant == (int)v);
					goto next;
				}
			}
		}
next:;
	}
}
