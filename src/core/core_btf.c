// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's types an object's CO-RE relocations name, as libbpf's btf_custom_path (core_btf.h). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/btf.h>

#include "btf_cache.h"
#include "btf_copy.h"
#include "core_btf.h"
#include "kernel_btf.h"
#include "elf_section.h"

/* Distinct local types a cut serves; more go to libbpf's own search. */
#define MAX_ROOTS 64
/* The cache keeps which roots the kernel has as one 64-bit set (struct kept_cut). */
_Static_assert(MAX_ROOTS <= 64, "kept_cut.found holds a bit per root");

/*
 * .BTF.ext's header as clang writes it and libbpf reads it (not in the UAPI
 * headers): subsection offsets count from the header's end. The CO-RE part
 * is a record size, then per ELF section its name, a count and the records
 * (struct bpf_core_relo, UAPI).
 */
struct btf_ext_head {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

/* A local type a relocation starts from, as libbpf matches it: kind and name up to its ___flavour. */
struct root {
	const char *name;
	size_t len;
	__u16 kind;
	bool found;
};

struct cut {
	const struct rs_btf *kernel;
	struct btf *out;
	__u32 *out_id;		/* kernel type id -> its copy's id; 0: not copied */
	__u32 void_ptr;		/* the one pointer type every pointer becomes */
	struct root roots[MAX_ROOTS];
	unsigned int nr_roots;
};

/*
 * A name's length without a ___flavour suffix: "cgroup___ids" matches the
 * kernel's "cgroup". The suffix starts at the last ___ with a character
 * other than _ on either side, as libbpf reads names.
 */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = n >= 5 ? n - 4 : 0; i-- > 0;)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' && name[i + 3] == '_' &&
		    name[i + 4] != '_')
			return i + 1;
	return n;
}

static bool elf_section(Elf *elf, const char *want, Elf_Data **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = rs_elf_section(elf, want, &sh);

	*out = scn ? elf_getdata(scn, NULL) : NULL;
	return *out && (*out)->d_buf;
}

/* Record relo's local type among the roots; a reason to leave it to libbpf otherwise. */
static const char *add_root(struct cut *c, const struct btf *local, const struct bpf_core_relo *relo)
{
	const struct btf_type *t;
	const char *name;
	size_t len;

	t = btf__type_by_id(local, relo->type_id);
	switch (relo->kind) {
	case BPF_CORE_TYPE_ID_LOCAL:
		return NULL;	/* the object's own id: no kernel type involved */
	case BPF_CORE_TYPE_EXISTS:
	case BPF_CORE_TYPE_SIZE:
		/*
		 * libbpf takes any struct, union, enum or int of the name and
		 * kind for these, and a copy keeps its size; through a typedef
		 * or pointer it would compare the pointee the cut made void.
		 */
		if (t && (btf_is_composite(t) || btf_is_any_enum(t) || btf_is_int(t)))
			break;
		return "a type-based relocation on a pointer or typedef";
	case BPF_CORE_TYPE_ID_TARGET:	/* an id in the kernel's BTF, not the cut's */
	case BPF_CORE_TYPE_MATCHES:	/* compares every member's type, pointees too */
		return "type-id or type-match relocations";
	default:
		break;
	}
	name = t ? btf__name_by_offset(local, t->name_off) : NULL;
	if (!name || !*name)
		return "a relocation on an anonymous type";
	len = essential_len(name);
	for (unsigned int i = 0; i < c->nr_roots; i++)
		if (c->roots[i].kind == btf_kind(t) && c->roots[i].len == len &&
		    !strncmp(c->roots[i].name, name, len))
			return NULL;
	if (c->nr_roots == MAX_ROOTS)
		return "more relocated types than a cut holds";
	c->roots[c->nr_roots++] = (struct root){ name, len, btf_kind(t), false };
	return NULL;
}

/* Every relocation's local type from .BTF.ext, named through .BTF (both native-endian, as built). */
static const char *read_roots(struct cut *c, const void *elf_bytes, size_t size, struct btf **local,
			      unsigned int *nr_relos)
{
	Elf_Data *btf_data, *ext_data;
	const struct btf_ext_head *h;
	const char *why = NULL;
	const __u8 *p, *end;
	__u32 rec_size;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)elf_bytes, size);
	if (!elf)
		return "the object is not ELF";
	if (!elf_section(elf, ".BTF", &btf_data) || !elf_section(elf, ".BTF.ext", &ext_data)) {
		why = "the object has no BTF";
		goto out;
	}
	h = ext_data->d_buf;
	if (ext_data->d_size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > ext_data->d_size ||
	    h->core_relo_off + (size_t)h->core_relo_len > ext_data->d_size - h->hdr_len ||
	    h->core_relo_len < sizeof(rec_size)) {
		why = h->core_relo_len ? "unreadable .BTF.ext" : NULL;
		goto out;
	}
	*local = btf__new(btf_data->d_buf, (__u32)btf_data->d_size);
	if (!*local) {
		why = "unreadable .BTF";
		goto out;
	}
	p = (const __u8 *)h + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	memcpy(&rec_size, p, sizeof(rec_size));
	p += sizeof(rec_size);
	if (rec_size < sizeof(struct bpf_core_relo)) {
		why = "unreadable .BTF.ext";
		goto out;
	}
	while (!why && p + 2 * sizeof(__u32) <= end) {
		__u32 head[2];	/* section name offset, record count */

		memcpy(head, p, sizeof(head));
		p += sizeof(head);
		if (head[1] > (size_t)(end - p) / rec_size) {
			why = "unreadable .BTF.ext";
			break;
		}
		for (__u32 i = 0; i < head[1] && !why; i++, p += rec_size) {
			struct bpf_core_relo relo;

			memcpy(&relo, p, sizeof(relo));
			why = add_root(c, *local, &relo);
			(*nr_relos)++;
		}
	}
out:
	elf_end(elf);
	return why;
}

/* One walk of the kernel's types: every root's candidates, copied. */
static int copy_type(struct cut *c, __u32 id);

static int find_and_copy_roots(struct cut *c)
{
	__u64 by_first[256] = { 0 };	/* roots by their name's first byte */
	__u32 kinds = 0;
	const struct btf_type *t;
	__u32 id;

	for (unsigned int i = 0; i < c->nr_roots; i++) {
		by_first[(unsigned char)c->roots[i].name[0]] |= 1ULL << i;
		kinds |= 1U << c->roots[i].kind;
	}
	for (t = rs_btf_next(c->kernel, NULL, &id); t; t = rs_btf_next(c->kernel, t, &id)) {
		const char *name;
		__u64 maybe;

		if (!(kinds & (1U << btf_kind(t))))
			continue;
		name = rs_btf_name(c->kernel, t->name_off);
		maybe = name ? by_first[(unsigned char)name[0]] : 0;
		for (unsigned int i = 0; maybe; i++, maybe >>= 1) {
			struct root *r = &c->roots[i];
			int err;

			if (!(maybe & 1) || r->kind != btf_kind(t) || strncmp(name, r->name, r->len) ||
			    (name[r->len] && essential_len(name) != r->len))
				continue;
			err = copy_type(c, id);
			if (err < 0)
				return err;
			r->found = true;
		}
	}
	return 0;
}

/* A member, element or modifier's target, once copied. */
static struct btf_type *copied(struct cut *c, int out_id)
{
	return (struct btf_type *)btf__type_by_id(c->out, (__u32)out_id);
}

/*
 * Copy kernel type id with what it holds by value; pointers become void *.
 * The copy's references are set after their targets are copied: adding a
 * type may move the others, so each is looked up again.
 */
static int copy_type(struct cut *c, __u32 id)
{
	const struct btf_type *t = rs_btf_type(c->kernel, id);
	int out, sub;

	if (!id)
		return 0;
	if (!t)
		return -EINVAL;
	if (c->out_id[id])
		return (int)c->out_id[id];
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		if (!c->void_ptr) {
			out = btf__add_ptr(c->out, 0);
			if (out < 0)
				return out;
			c->void_ptr = (__u32)out;
		}
		return (int)(c->out_id[id] = c->void_ptr);
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ARRAY:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		break;
	default:
		return -EINVAL;	/* functions, variables: never held by value */
	}
	out = rs_btf_copy_type(c->out, c->kernel, t, true);
	if (out < 0)
		return out;
	c->out_id[id] = (__u32)out;
	if (btf_is_composite(t)) {
		for (__u16 i = 0; i < btf_vlen(t); i++) {
			sub = copy_type(c, btf_members(t)[i].type);
			if (sub < 0)
				return sub;
			btf_members(copied(c, out))[i].type = (__u32)sub;
		}
	} else if (btf_is_array(t)) {
		sub = copy_type(c, btf_array(t)->type);
		if (sub < 0)
			return sub;
		btf_array(copied(c, out))->type = (__u32)sub;
		sub = copy_type(c, btf_array(t)->index_type);
		if (sub < 0)
			return sub;
		btf_array(copied(c, out))->index_type = (__u32)sub;
	} else if (btf_is_typedef(t) || btf_is_mod(t)) {
		sub = copy_type(c, t->type);
		if (sub < 0)
			return sub;
		copied(c, out)->type = (__u32)sub;
	}
	return out;
}

/* The cut's bytes (raw BTF) in a memfd libbpf reads by path. */
static const char *publish(const void *raw, __u32 size, struct rs_core_btf *cb)
{
	int fd;

	if (!raw)
		return "out of memory";
	fd = memfd_create("ringside-core-btf", MFD_CLOEXEC);
	if (fd < 0)
		return "no memfd";
	for (__u32 done = 0; done < size;) {
		ssize_t n = write(fd, (const char *)raw + done, size - done);

		if (n <= 0) {
			close(fd);
			return "cannot write the memfd";
		}
		done += (__u32)n;
	}
	cb->fd = fd;
	snprintf(cb->path, sizeof(cb->path), "/proc/self/fd/%d", fd);
	return NULL;
}

/*
 * The question a cut answers, for the cache (btf_cache.h): each root's
 * kind and name as it is matched. The kernel's types are the boot's.
 */
static size_t cut_query(const struct cut *c, char *q, size_t len)
{
	size_t n = 0;

	for (unsigned int i = 0; i < c->nr_roots; i++) {
		const struct root *r = &c->roots[i];

		if (n + 2 + r->len > len)
			return 0;
		q[n++] = (char)r->kind;
		memcpy(q + n, r->name, r->len);
		n += r->len;
		q[n++] = '\0';
	}
	return n;
}

/* What the cache keeps of a cut: this, then its raw BTF. */
struct kept_cut {
	__u32 nr_types;
	__u32 pad;
	__u64 found;		/* the roots the kernel has, bit by bit */
};

static bool cut_from_cache(struct cut *c, const char *q, size_t qlen, struct rs_core_btf *cb,
			   const char **why)
{
	struct kept_cut *k;
	void *kept;
	size_t got = rs_btf_cache_get("core", q, qlen, &kept);

	if (got <= sizeof(*k)) {
		free(kept);
		return false;
	}
	k = kept;
	for (unsigned int i = 0; i < c->nr_roots && i < MAX_ROOTS; i++)
		c->roots[i].found = k->found >> i & 1;
	*why = publish((const char *)kept + sizeof(*k), (__u32)(got - sizeof(*k)), cb);
	cb->nr_types = k->nr_types;
	cb->from_cache = true;
	free(kept);
	return true;
}

static void cut_to_cache(const struct cut *c, const char *q, size_t qlen, const struct rs_core_btf *cb)
{
	struct kept_cut k = { .nr_types = cb->nr_types };
	__u32 size;
	const void *raw = btf__raw_data(c->out, &size);
	char *bytes = raw ? malloc(sizeof(k) + size) : NULL;

	if (!bytes)
		return;
	for (unsigned int i = 0; i < c->nr_roots && i < MAX_ROOTS; i++)
		k.found |= (__u64)c->roots[i].found << i;
	memcpy(bytes, &k, sizeof(k));
	memcpy(bytes + sizeof(k), raw, size);
	rs_btf_cache_put("core", q, qlen, bytes, sizeof(k) + size);
	free(bytes);
}

/*
 * libbpf looks for a type vmlinux lacks in every module's BTF, which the cut
 * does not hold; without modules' BTF it finds none either way (an older
 * kernel's type, read only under bpf_core_type_exists()).
 */
static bool kernel_has_module_btf(void)
{
	DIR *dir = opendir("/sys/kernel/btf");
	struct dirent *e;
	bool found = false;

	if (!dir)
		return true;	/* cannot tell: leave it to libbpf */
	while (!found && (e = readdir(dir)))
		found = e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux");
	closedir(dir);
	return found;
}

void rs_core_btf_prepare(const void *elf, size_t size, struct rs_core_btf *cb,
			 struct bpf_object_open_opts *opts)
{
	struct cut c = { 0 };
	struct btf *local = NULL;
	char query[MAX_ROOTS * 64];
	size_t qlen = 0;
	const char *why;
	bool cached = false, walked = false;

	*cb = (struct rs_core_btf){ .fd = -1 };
	why = read_roots(&c, elf, size, &local, &cb->nr_relos);
	cb->nr_roots = c.nr_roots;
	if (!why && !c.nr_roots)
		why = "no CO-RE relocations";
	if (!why) {
		qlen = cut_query(&c, query, sizeof(query));
		cached = qlen && cut_from_cache(&c, query, qlen, cb, &why);
	}
	if (!why && !cached) {
		c.kernel = rs_kernel_btf_get();
		walked = true;	/* every get is paired with a put, NULL too */
		c.out = c.kernel ? btf__new_empty() : NULL;
		c.out_id = c.kernel ? calloc(rs_btf_type_cnt(c.kernel), sizeof(*c.out_id)) : NULL;
		why = !c.kernel ? "no kernel BTF" : !c.out || !c.out_id ? "out of memory" :
		      find_and_copy_roots(&c) ? "a kernel type that cannot be copied" : NULL;
	}
	for (unsigned int i = 0; !why && i < c.nr_roots; i++)
		if (!c.roots[i].found && kernel_has_module_btf())
			why = "a type the kernel's BTF lacks (libbpf looks in modules' BTF)";
	if (!why && !cached) {
		__u32 raw_size;
		const void *raw = btf__raw_data(c.out, &raw_size);

		cb->nr_types = btf__type_cnt(c.out) - 1;
		why = publish(raw, raw_size, cb);
		if (!why && qlen)
			cut_to_cache(&c, query, qlen, cb);
	}
	if (!why)
		opts->btf_custom_path = cb->path;
	else
		rs_core_btf_close(cb);
	cb->why_not = why;
	free(c.out_id);
	btf__free(c.out);
	btf__free(local);
	if (walked)
		rs_kernel_btf_put();
}

void rs_core_btf_close(struct rs_core_btf *cb)
{
	if (cb->fd >= 0)
		close(cb->fd);
	cb->fd = -1;
}
