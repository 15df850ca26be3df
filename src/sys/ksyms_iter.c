// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's text symbols through the ksym BPF iterator (ksyms_iter.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core_btf.h"
#include "ksym_lookup.h"
#include "ksyms.h"
#include "ksyms_iter.h"
#include "ksyms.skel.h"
#include "libbpf_btf.h"

/* Do the tags fit the program's read-only data? */
static bool tags_fit(const struct rs_ksym_tag *tags, size_t nr_tags)
{
	for (size_t i = 0; i < nr_tags; i++) {
		size_t len = strlen(tags[i].name);

		if (!len || len >= RS_KSYMS_ITER_NAME)
			return false;
	}
	return nr_tags <= RS_KSYMS_ITER_TAGS;
}

static void set_tags(struct ksyms_bpf *skel, const struct rs_ksym_tag *tags, size_t nr_tags)
{
	for (size_t i = 0; i < nr_tags; i++) {
		memcpy((char *)skel->rodata->tag_names[i], tags[i].name, strlen(tags[i].name) + 1);
		skel->rodata->first_byte[(unsigned char)tags[i].name[0]] = 1;
	}
	skel->rodata->nr_tags = (__u32)nr_tags;
}

/* The program loaded and its iterator made: an fd to read, or a negative errno. */
static int open_iter(struct ksyms_bpf **skel, const struct rs_ksym_tag *tags, size_t nr_tags,
		     struct bpf_link **link)
{
	struct bpf_object_open_opts opts = { .sz = sizeof(opts) };
	struct rs_core_btf cb;
	size_t size;
	const void *elf = ksyms_bpf__elf_bytes(&size);
	int err, fd;

	err = rs_libbpf_iter_sections();
	if (err)
		return err;
	rs_core_btf_prepare(elf, size, &cb, &opts);
	*skel = ksyms_bpf__open_opts(&opts);
	if (!*skel) {
		err = -errno;
		rs_core_btf_close(&cb);
		return err;
	}
	set_tags(*skel, tags, nr_tags);
	rs_libbpf_btf_loading((*skel)->obj, cb.fd >= 0 || !cb.nr_relos, elf, size);
	err = ksyms_bpf__load(*skel);
	rs_libbpf_btf_loaded();
	rs_core_btf_close(&cb);
	if (err)
		return err;
	*link = bpf_program__attach_iter((*skel)->progs.rs_ksyms_text, NULL);
	if (!*link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(*link));
	return fd < 0 ? -errno : fd;
}

int rs_ksyms_iter_walk(const struct rs_ksym_tag *tags, size_t nr_tags,
		       int (*emit)(void *arg, uint64_t start, uint64_t size, int rank), void *arg,
		       const atomic_bool *stop, size_t *nr_text)
{
	struct ksyms_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	struct rs_ksyms_iter_rec recs[16];	/* a dozen tagged functions, a read or two */
	size_t have = 0;	/* bytes in recs, a partial record at the end */
	int fd, err = 0;

	*nr_text = 0;
	if (!tags_fit(tags, nr_tags))
		return -E2BIG;
	fd = open_iter(&skel, tags, nr_tags, &link);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, (char *)recs + have, sizeof(recs) - have);
		size_t full;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : have ? -EPROTO : 0;
			break;
		}
		if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
			err = -ECANCELED;
			break;
		}
		have += (size_t)n;
		full = have / sizeof(recs[0]);
		for (size_t i = 0; i < full && !err; i++) {
			uint64_t size;

			recs[i].text[sizeof(recs[i].text) - 1] = '\0';
			size = rs_ksym_size_from_text(recs[i].text);
			err = recs[i].rank >= nr_tags || !size ? -EPROTO :
			      emit(arg, recs[i].addr, size, (int)recs[i].rank);
		}
		if (err)
			break;
		memmove(recs, (char *)recs + full * sizeof(recs[0]), have - full * sizeof(recs[0]));
		have -= full * sizeof(recs[0]);
	}
	close(fd);
	/* The walk's count, read from the program's .bss through its mapping. */
	if (!err)
		*nr_text = (size_t)skel->bss->nr_text;
out:
	bpf_link__destroy(link);
	ksyms_bpf__destroy(skel);
	return err;
}
