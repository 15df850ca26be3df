// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BTF libbpf gets for one object's load: what it looks up, or the whole (libbpf_btf.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>

#include "btf_copy.h"
#include "kernel_btf.h"
#include "libbpf_btf.h"
#include "elf_section.h"

/* Names one object's load looks up; more, and it gets the whole. */
#define MAX_LOOKUPS 32
#define MAX_NAME 128	/* libbpf's own limit on a prefixed target name */

struct lookup {
	char name[MAX_NAME];
	__u16 kind;
	int id;		/* in the kernel's BTF, once found */
};

/* This thread's next load. */
static __thread struct {
	const struct bpf_object *obj;
	bool core_cut;
	struct lookup extra[8];
	unsigned int nr_extra;
	bool extra_overflow;
	bool own_targets;	/* a program whose target ringside finds (RS_ITER_SEC) */
	char what[160];		/* what libbpf got, for -v */
} loading;

/*
 * Defined (true) by the ringside binary's libbpf_vmlinux_btf.c only; a
 * program that links the library without it leaves this weak reference
 * unresolved, and its libbpf parses the kernel's BTF on its own.
 */
extern const bool rs_libbpf_asks_ringside __attribute__((weak));

bool rs_libbpf_btf_routed(void)
{
	return &rs_libbpf_asks_ringside && rs_libbpf_asks_ringside;
}

void rs_libbpf_btf_need(const char *name, __u16 kind)
{
	struct lookup *l;

	if (loading.nr_extra == sizeof(loading.extra) / sizeof(loading.extra[0]) ||
	    strlen(name) >= MAX_NAME) {
		loading.extra_overflow = true;
		return;
	}
	l = &loading.extra[loading.nr_extra++];
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = kind;
}

/* Is name a variable of the object's .ksyms section (a typed __ksym)? */
static bool ksym_var(const struct btf *own, const char *name)
{
	int sec = btf__find_by_name_kind(own, ".ksyms", BTF_KIND_DATASEC);
	const struct btf_type *t = sec > 0 ? btf__type_by_id(own, (__u32)sec) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (__u16 i = 0; t && i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(own, v->type);
		const char *var_name = var ? btf__name_by_offset(own, var->name_off) : NULL;

		if (var && btf_is_var(var) && var_name && !strcmp(var_name, name))
			return true;
	}
	return false;
}

/*
 * The object's externs libbpf finds by name in the kernel's BTF: its ELF
 * symbols left undefined are its externs; a function among them is a kfunc
 * (whose linkage libbpf rewrites at open, so the BTF alone cannot tell it
 * from a global subprogram), a variable of .ksyms a typed ksym; the rest
 * (.kconfig) are not looked up there.
 */
static void extern_lookups(const struct bpf_object *obj, const void *elf_bytes, size_t size)
{
	const struct btf *own = bpf_object__btf(obj);
	Elf_Data *syms;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)elf_bytes, size);
	scn = elf ? rs_elf_section(elf, ".symtab", &sh) : NULL;
	syms = scn ? elf_getdata(scn, NULL) : NULL;
	if (!syms || !own || !sh.sh_entsize) {
		loading.extra_overflow = true;	/* cannot tell: libbpf gets the whole */
		goto out;
	}
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(syms, (int)i, &sym) || sym.st_shndx != SHN_UNDEF ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (btf__find_by_name_kind(own, name, BTF_KIND_FUNC) > 0)
			rs_libbpf_btf_need(name, BTF_KIND_FUNC);
		else if (ksym_var(own, name))
			rs_libbpf_btf_need(name, BTF_KIND_VAR);
	}
out:
	elf_end(elf);
}

void rs_libbpf_btf_loading(const struct bpf_object *obj, bool core_cut, const void *elf_bytes,
			   size_t size)
{
	loading.obj = obj;
	loading.core_cut = core_cut;
	loading.nr_extra = 0;
	loading.extra_overflow = false;
	loading.own_targets = false;
	loading.what[0] = '\0';
	if (obj)
		extern_lookups(obj, elf_bytes, size);
}

const char *rs_libbpf_btf_loaded(void)
{
	static __thread char what[sizeof(loading.what)];

	snprintf(what, sizeof(what), "%s", loading.what);
	rs_libbpf_btf_loading(NULL, false, NULL, 0);
	return what;
}

static bool add_lookup(struct lookup *ls, unsigned int *n, const char *prefix, const char *name,
		       __u16 kind)
{
	if (*n == MAX_LOOKUPS ||
	    snprintf(ls[*n].name, MAX_NAME, "%s%s", prefix, name) >= MAX_NAME)
		return false;
	ls[*n].kind = kind;
	ls[(*n)++].id = 0;
	return true;
}

/*
 * What libbpf 1.1 looks up in the kernel's BTF for obj: each loaded tracing
 * program's target as its section names it (libbpf_prepare_prog_load()), each
 * extern function (a kfunc) and typed __ksym variable. False when a lookup
 * cannot be told from here (a program type whose target this does not know).
 */
static bool object_lookups(const struct bpf_object *obj, struct lookup *ls, unsigned int *n)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, (struct bpf_object *)obj) {
		enum bpf_prog_type type = bpf_program__type(p);
		const char *sec = bpf_program__section_name(p), *target;
		const char *prefix = "";
		__u16 kind = BTF_KIND_FUNC;

		if (!bpf_program__autoload(p))
			continue;
		if (type == BPF_PROG_TYPE_EXT || type == BPF_PROG_TYPE_STRUCT_OPS)
			return false;
		if (type != BPF_PROG_TYPE_TRACING && type != BPF_PROG_TYPE_LSM)
			continue;
		switch (bpf_program__expected_attach_type(p)) {
		case BPF_TRACE_RAW_TP:
			prefix = "btf_trace_";
			kind = BTF_KIND_TYPEDEF;
			break;
		case BPF_LSM_MAC:
		case BPF_LSM_CGROUP:
			prefix = "bpf_lsm_";
			break;
		case BPF_TRACE_ITER:
			prefix = "bpf_iter_";
			break;
		case BPF_TRACE_FENTRY:
		case BPF_TRACE_FEXIT:
		case BPF_MODIFY_RETURN:
			break;
		default:
			return false;
		}
		/* Its target is ringside's to find (rs_libbpf_iter_sections()). */
		if (sec && !strncmp(sec, RS_ITER_SEC, strlen(RS_ITER_SEC))) {
			loading.own_targets = true;
			continue;
		}
		target = sec ? strchr(sec, '/') : NULL;
		if (!target || !add_lookup(ls, n, prefix, target + 1, kind))
			return false;
	}
	return true;
}

/* One walk of the kernel's types finds every lookup: libbpf's first match, as its search. */
static bool find_all(const struct rs_btf *k, struct lookup *ls, unsigned int n)
{
	__u32 kinds = 0, left = n;
	__u64 by_first[256] = { 0 };
	const struct btf_type *t;
	__u32 id;

	for (unsigned int i = 0; i < n; i++) {
		by_first[(unsigned char)ls[i].name[0]] |= 1ULL << i;
		kinds |= 1U << ls[i].kind;
	}
	for (t = rs_btf_next(k, NULL, &id); left && t; t = rs_btf_next(k, t, &id)) {
		const char *name;
		__u64 maybe;

		if (!(kinds & (1U << btf_kind(t))))
			continue;
		name = rs_btf_name(k, t->name_off);
		maybe = name ? by_first[(unsigned char)name[0]] : 0;
		for (unsigned int i = 0; maybe; i++, maybe >>= 1)
			if ((maybe & 1) && !ls[i].id && ls[i].kind == btf_kind(t) &&
			    !strcmp(name, ls[i].name)) {
				ls[i].id = (int)id;
				left--;
			}
	}
	return !left;
}

/* The ids libbpf reads, growing; few, so a list. */
struct id_set {
	__u32 *ids;
	unsigned int n, cap;
};

static bool id_add(struct id_set *s, __u32 id)
{
	if (!id)
		return true;	/* void */
	for (unsigned int i = 0; i < s->n; i++)
		if (s->ids[i] == id)
			return true;
	if (s->n == s->cap) {
		__u32 *grown = realloc(s->ids, (s->cap = s->cap ? 2 * s->cap : 32) * sizeof(*grown));

		if (!grown)
			return false;
		s->ids = grown;
	}
	s->ids[s->n++] = id;
	return true;
}

/*
 * With each found id, every type libbpf's kfunc and ksym checks follow from
 * it (bpf_core_types_are_compat()): through functions, prototypes, pointers,
 * arrays, typedefs and modifiers, down to ints, floats, enums and structs,
 * of which it compares the kind, size and name only.
 */
static bool close_over(const struct rs_btf *k, struct id_set *s)
{
	for (unsigned int i = 0; i < s->n; i++) {
		const struct btf_type *t = rs_btf_type(k, s->ids[i]);
		bool ok = true;

		if (!t)
			return false;
		switch (btf_kind(t)) {
		case BTF_KIND_FUNC_PROTO:
			for (__u16 p = 0; ok && p < btf_vlen(t); p++)
				ok = id_add(s, btf_params(t)[p].type);
			ok = ok && id_add(s, t->type);	/* the return type */
			break;
		case BTF_KIND_FUNC: case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR:
			ok = id_add(s, t->type);
			break;
		case BTF_KIND_ARRAY:
			ok = id_add(s, btf_array(t)->type) && id_add(s, btf_array(t)->index_type);
			break;
		default:
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * BTF numbered as the kernel's, up to the highest id in s: the types in s
 * with their names (a struct or enum without members, as libbpf compares
 * them), every other id an unnamed pointer to void, which no name lookup
 * matches. The few real types are built by libbpf's adders (their names in
 * its string table), then the whole is laid out once, placeholders and all,
 * for libbpf to parse: adding tens of thousands of placeholders one by one
 * took 4-6 ms of a start per object (reclaim's 15,771 ids, btrfs's more),
 * through a buffer grown and copied as it went.
 */
static struct btf *numbered_like_kernel(const struct rs_btf *k, const struct id_set *s)
{
	const struct btf_type placeholder = { .info = BTF_KIND_PTR << 24 };
	struct btf *real = btf__new_empty(), *btf = NULL;
	__u32 last = s->ids[s->n - 1], real_size, types_len = 0, strs_len;
	const struct btf_header *rh;
	struct btf_header *h;
	const char *rb;
	char *raw = NULL, *at;

	for (unsigned int i = 0; real && i < s->n; i++) {
		int id = rs_btf_copy_type(real, k, rs_btf_type(k, s->ids[i]), false);

		if (id != (int)i + 1)
			goto out;
		types_len += (__u32)rs_btf_type_size(btf__type_by_id(real, (__u32)id));
	}
	rb = real ? btf__raw_data(real, &real_size) : NULL;
	if (!rb)
		goto out;
	rh = (const struct btf_header *)rb;
	strs_len = rh->str_len;
	types_len += (last - s->n) * (__u32)sizeof(placeholder);
	raw = malloc(sizeof(*h) + types_len + strs_len);
	if (!raw)
		goto out;
	h = (struct btf_header *)raw;
	*h = (struct btf_header){ .magic = BTF_MAGIC, .version = BTF_VERSION,
				  .hdr_len = sizeof(*h), .type_off = 0, .type_len = types_len,
				  .str_off = types_len, .str_len = strs_len };
	at = raw + sizeof(*h);
	for (__u32 want = 1, next = 0, from = 0; want <= last; want++) {
		if (next < s->n && s->ids[next] == want) {
			const char *t = rb + rh->hdr_len + rh->type_off + from;
			size_t len = rs_btf_type_size((const struct btf_type *)t);

			memcpy(at, t, len);
			at += len;
			from += (__u32)len;
			next++;
		} else {
			memcpy(at, &placeholder, sizeof(placeholder));
			at += sizeof(placeholder);
		}
	}
	memcpy(at, rb + rh->hdr_len + rh->str_off, strs_len);
	btf = btf__new(raw, (__u32)(sizeof(*h) + types_len + strs_len));
	if (!btf || btf__type_cnt(btf) != last + 1) {
		btf__free(btf);
		btf = NULL;
		goto out;
	}
	snprintf(loading.what, sizeof(loading.what),
		 "%u types it looks up, numbered as the kernel's: %u ids, %u KiB", s->n, last,
		 (types_len + strs_len) >> 10);
out:
	free(raw);
	btf__free(real);
	return btf;
}

/* libbpf's lookups for this thread's object, if all are known and in vmlinux. */
static struct btf *lookups_only(const struct rs_btf *k)
{
	struct lookup ls[MAX_LOOKUPS];
	struct id_set s = { 0 };
	unsigned int n = 0;
	struct btf *btf = NULL;

	if (!loading.obj || !loading.core_cut || loading.extra_overflow ||
	    !object_lookups(loading.obj, ls, &n))
		return NULL;
	for (unsigned int i = 0; i < loading.nr_extra; i++)
		if (!add_lookup(ls, &n, "", loading.extra[i].name, loading.extra[i].kind))
			return NULL;
	/* Every target is ringside's to find: libbpf asks only because the programs trace. */
	if (!n && loading.own_targets) {
		snprintf(loading.what, sizeof(loading.what), "none (its iterator's target found here)");
		return btf__new_empty();
	}
	if (!n || !find_all(k, ls, n))
		return NULL;	/* none: libbpf asked anyway; one missing: modules' BTF */
	for (unsigned int i = 0; i < n; i++)
		if (!id_add(&s, (__u32)ls[i].id))
			goto out;
	if (close_over(k, &s)) {
		qsort(s.ids, s.n, sizeof(*s.ids), cmp_id);
		btf = numbered_like_kernel(k, &s);
	}
out:
	free(s.ids);
	return btf;
}

struct btf *rs_libbpf_vmlinux_btf(void)
{
	const struct rs_btf *k = rs_kernel_btf_get();
	struct btf *btf = NULL;
	const void *raw;
	size_t size;
	int err = ENOENT;	/* no kernel BTF */

	if (k) {
		btf = lookups_only(k);
		if (!btf) {
			raw = rs_btf_raw(k, &size);
			btf = btf__new(raw, (__u32)size);
			err = btf ? 0 : errno ? errno : ENOMEM;
			if (btf && loading.obj)
				snprintf(loading.what, sizeof(loading.what),
					 "a copy of the whole (%zu KiB): a lookup not known here or "
					 "not in vmlinux", size >> 10);
		}
	}
	rs_kernel_btf_put();
	/* libbpf takes a NULL result's error from errno: set it, never stale. */
	if (!btf)
		errno = err;
	return btf;
}

/*
 * An iterator program's target, found in ringside's view of the kernel's
 * BTF (the FUNC bpf_iter_<name> its section names) and handed to the load.
 */
static int iter_prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	const char *sec = bpf_program__section_name(prog);
	const struct rs_btf *k = rs_kernel_btf_get();
	struct lookup l;
	unsigned int n = 0;
	int err = 0;

	(void)cookie;
	if (!k || !sec || !add_lookup(&l, &n, "bpf_iter_", sec + strlen(RS_ITER_SEC), BTF_KIND_FUNC) ||
	    !find_all(k, &l, n))
		err = -ESRCH;
	else
		opts->attach_btf_id = (__u32)l.id;
	rs_kernel_btf_put();
	return err;
}

static int iter_handler = -1;

static void register_iter_sections(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, hopts, .prog_prepare_load_fn = iter_prepare_load);

	iter_handler = libbpf_register_prog_handler(RS_ITER_SEC, BPF_PROG_TYPE_TRACING, BPF_TRACE_ITER,
						    &hopts);
}

int rs_libbpf_iter_sections(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_iter_sections);
	return iter_handler < 0 ? iter_handler : 0;
}
