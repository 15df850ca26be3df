// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Raw BTF read in place: mapped file, the header's sections and an index of type starts (btf_reader.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "btf_reader.h"

struct rs_btf {
	const struct rs_btf *base;	/* a module's split BTF: vmlinux's view */
	const unsigned char *bytes;
	size_t size;
	enum { BYTES_LENT, BYTES_MAPPED, BYTES_READ } owner;
	const struct btf_header *hdr;
	const unsigned char *types;	/* the type section */
	const char *strs;		/* the string section */
	__u32 start_id;			/* this part's first id: 1, or one past the base's last */
	__u32 start_str;		/* this part's first string offset: 0, or the base's string length */
	__u32 nr_types;
	__u32 *every_64th;		/* where type start_id + 64 i starts in the type section */
};

/* Types between index entries: a lookup walks at most 63, a few hundred ns. */
#define STRIDE 64

size_t rs_btf_type_size(const struct btf_type *t)
{
	size_t vlen = btf_vlen(t), head = sizeof(*t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return head + sizeof(__u32);
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return head;
	case BTF_KIND_ARRAY:
		return head + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return head + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return head + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return head + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return head + vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return head + vlen * sizeof(struct btf_var_secinfo);
	default:
		return 0;	/* a kind this reader does not know: the bytes cannot be walked */
	}
}

/* The header and both sections inside the bytes, strings NUL-ended; every type's size; the index. */
static int index_types(struct rs_btf *b)
{
	const struct btf_header *h = (const void *)b->bytes;
	size_t at = 0, cap = 0;

	if (b->size < sizeof(*h) || h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > b->size ||
	    (size_t)h->type_off + h->type_len > b->size - h->hdr_len ||
	    (size_t)h->str_off + h->str_len > b->size - h->hdr_len ||
	    (h->hdr_len + (size_t)h->type_off) % 4)	/* types are read as 32-bit words */
		return -EINVAL;
	b->hdr = h;
	b->types = b->bytes + h->hdr_len + h->type_off;
	b->strs = (const char *)b->bytes + h->hdr_len + h->str_off;
	/* A split part's strings may be empty; a base's start with the empty name. */
	if (h->str_len ? b->strs[h->str_len - 1] != '\0' : !b->base)
		return -EINVAL;
	if (!b->base && b->strs[0] != '\0')
		return -EINVAL;
	/* Room for the most types the section could hold (each takes 12 bytes or more). */
	cap = h->type_len / sizeof(struct btf_type) / STRIDE + 1;
	b->every_64th = malloc(cap * sizeof(*b->every_64th));
	if (!b->every_64th)
		return -ENOMEM;
	while (at < h->type_len) {
		const struct btf_type *t = (const void *)(b->types + at);
		size_t size;

		if (h->type_len - at < sizeof(*t) || !(size = rs_btf_type_size(t)) ||
		    size > h->type_len - at)
			return -EINVAL;
		if (b->nr_types++ % STRIDE == 0)
			b->every_64th[(b->nr_types - 1) / STRIDE] = (__u32)at;
		at += size;
	}
	return 0;
}

static int view(const void *bytes, size_t size, const struct rs_btf *base, int owner,
		struct rs_btf **out)
{
	struct rs_btf *b = calloc(1, sizeof(*b));
	int err;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->base = base;
	b->bytes = bytes;
	b->size = size;
	b->owner = owner;
	b->start_id = base ? rs_btf_type_cnt(base) : 1;
	b->start_str = base ? base->start_str + base->hdr->str_len : 0;
	err = index_types(b);
	if (err) {
		b->owner = BYTES_LENT;	/* the caller still owns the bytes on failure */
		rs_btf_close(b);
		return err;
	}
	*out = b;
	return 0;
}

int rs_btf_view(const void *bytes, size_t size, const struct rs_btf *base, struct rs_btf **out)
{
	return view(bytes, size, base, BYTES_LENT, out);
}

/* The whole file into memory, for a kernel that will not map it (before 6.16). */
static void *read_whole(int fd, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t done = 0;

	while (buf && done < size) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n <= 0) {
			free(buf);
			errno = n ? errno : EIO;
			return NULL;
		}
		done += (size_t)n;
	}
	return buf;
}

int rs_btf_open(const char *path, const struct rs_btf *base, struct rs_btf **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err, owner = BYTES_MAPPED;
	struct stat st;
	void *bytes;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : st.st_size <= 0 ? -EINVAL : 0;
	if (err) {
		close(fd);
		return err;
	}
	/* Read-only and private: the only mapping the kernel allows. */
	bytes = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (bytes == MAP_FAILED) {
		owner = BYTES_READ;
		bytes = read_whole(fd, (size_t)st.st_size);
	}
	err = bytes ? 0 : -errno;
	close(fd);
	if (err)
		return err;
	err = view(bytes, (size_t)st.st_size, base, owner, out);
	if (err) {
		if (owner == BYTES_MAPPED)
			munmap(bytes, (size_t)st.st_size);
		else
			free(bytes);
	}
	return err;
}

void rs_btf_close(struct rs_btf *b)
{
	if (!b)
		return;
	if (b->owner == BYTES_MAPPED)
		munmap((void *)b->bytes, b->size);
	else if (b->owner == BYTES_READ)
		free((void *)b->bytes);
	free(b->every_64th);
	free(b);
}

__u32 rs_btf_type_cnt(const struct rs_btf *b)
{
	return b->start_id + b->nr_types;
}

const struct btf_type *rs_btf_type(const struct rs_btf *b, __u32 id)
{
	const unsigned char *at;
	__u32 i;

	if (id < b->start_id)
		return b->base ? rs_btf_type(b->base, id) : NULL;
	i = id - b->start_id;
	if (i >= b->nr_types)
		return NULL;
	at = b->types + b->every_64th[i / STRIDE];
	for (i %= STRIDE; i; i--)	/* sizes were checked at open */
		at += rs_btf_type_size((const void *)at);
	return (const void *)at;
}

const struct btf_type *rs_btf_next(const struct rs_btf *b, const struct btf_type *t, __u32 *id)
{
	if (!t) {
		*id = b->start_id;
		return b->nr_types ? (const void *)b->types : NULL;
	}
	if (++*id >= rs_btf_type_cnt(b))
		return NULL;
	return (const void *)((const unsigned char *)t + rs_btf_type_size(t));
}

const char *rs_btf_name(const struct rs_btf *b, __u32 offset)
{
	if (offset < b->start_str)
		return b->base ? rs_btf_name(b->base, offset) : NULL;
	offset -= b->start_str;
	return offset < b->hdr->str_len ? b->strs + offset : NULL;
}

/* This part's types only. */
static int find_own(const struct rs_btf *b, const char *name, __u16 kind)
{
	__u32 id;

	for (const struct btf_type *t = rs_btf_next(b, NULL, &id); t; t = rs_btf_next(b, t, &id)) {
		const char *n;

		if (btf_kind(t) != kind)
			continue;
		n = rs_btf_name(b, t->name_off);
		if (n && !strcmp(n, name))
			return (int)id;
	}
	return -ENOENT;
}

int rs_btf_find(const struct rs_btf *b, const char *name, __u16 kind)
{
	int id = b->base ? rs_btf_find(b->base, name, kind) : -ENOENT;

	return id > 0 ? id : find_own(b, name, kind);
}

bool rs_btf_mapped(const struct rs_btf *b)
{
	return b->owner == BYTES_MAPPED;
}

const void *rs_btf_raw(const struct rs_btf *b, size_t *size)
{
	*size = b->size;
	return b->bytes;
}
