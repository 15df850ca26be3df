// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Function names through the kernel's own lookup (ksym_lookup.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ksym_lookup.h"
#include "ksyms.h"
#include "ksym_lookup.skel.h"

/* The name may be another at the same address (an alias): the size is the address's all the same. */
uint64_t rs_ksym_size_from_text(const char *text)
{
	const char *p = strchr(text, '+');
	char *end;
	uint64_t size;

	if (!p || strncmp(p, "+0x0/0x", 7))
		return 0;
	size = strtoull(p + 7, &end, 16);
	return end != p + 7 && (*end == '\0' || *end == ' ') ? size : 0;
}

int rs_ksym_lookup_first(const struct rs_ksym_tag *tags, size_t nr_tags,
			 struct rs_ksym_range *out, size_t *n)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct ksym_lookup_bpf *skel;
	int err = 0;

	*n = 0;
	if (nr_tags > RS_KSYM_LOOKUP_MAX)
		return -E2BIG;
	for (size_t i = 0; i < nr_tags; i++)
		if (strlen(tags[i].name) >= RS_KSYM_LOOKUP_NAME)
			return -ENAMETOOLONG;
	skel = ksym_lookup_bpf__open();
	if (!skel)
		return -errno;
	/* The .bss image is the map's first value: the names go in with the load. */
	for (size_t i = 0; i < nr_tags; i++)
		strcpy(skel->bss->names[i], tags[i].name);
	skel->bss->nr_names = (__u32)nr_tags;
	err = ksym_lookup_bpf__load(skel);
	if (!err && bpf_prog_test_run_opts(bpf_program__fd(skel->progs.rs_ksym_lookup), &run))
		err = -errno;
	for (size_t i = 0; !err && i < nr_tags; i++) {
		uint64_t addr = skel->bss->addrs[i], size;

		if (!addr)
			continue;	/* not in this kernel */
		size = rs_ksym_size_from_text(skel->bss->sym_text[i]);
		if (!size) {
			err = -EPROTO;
			break;
		}
		out[(*n)++] = (struct rs_ksym_range){ addr, addr + size, tags[i].tag, (uint8_t)i };
	}
	if (err)
		*n = 0;
	ksym_lookup_bpf__destroy(skel);
	return err;
}
