// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a walk of the kernel's BTF found, kept for the boot (btf_cache.h). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_cache.h"
#include "cache_file.h"

#define KBTF_MAGIC 0x424b5352u	/* "RSKB" */
#define KBTF_VERSION 1
#define BOOT_ID_LEN 36		/* 8-4-4-4-12 hex digits and dashes */

struct kbtf_head {
	uint32_t magic, version;
	char boot_id[BOOT_ID_LEN];
	uint32_t qlen, len;	/* the query's bytes, then the answer's */
};

static bool boot_id(char out[BOOT_ID_LEN])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, out, BOOT_ID_LEN) == BOOT_ID_LEN;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The file's name: kind and a 64-bit FNV-1a of the query (which the file holds whole). */
static void file_name(const char *kind, const void *query, size_t qlen, char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < qlen; i++)
		h = (h ^ ((const unsigned char *)query)[i]) * 0x100000001b3ULL;
	snprintf(name, len, "kbtf-%s-%016llx", kind, (unsigned long long)h);
}

size_t rs_btf_cache_get(const char *kind, const void *query, size_t qlen, void **out)
{
	struct kbtf_head h;
	char name[128], boot[BOOT_ID_LEN];
	void *kept_query = NULL, *bytes = NULL;
	size_t size, got = 0;
	int fd;

	*out = NULL;
	file_name(kind, query, qlen, name, sizeof(name));
	fd = rs_cache_open(name, &size);
	if (fd < 0)
		return 0;
	if (boot_id(boot) && read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) && h.magic == KBTF_MAGIC &&
	    h.version == KBTF_VERSION && !memcmp(h.boot_id, boot, BOOT_ID_LEN) && h.qlen == qlen &&
	    h.len && size == sizeof(h) + (size_t)h.qlen + h.len && (kept_query = malloc(qlen ? qlen : 1)) &&
	    (bytes = malloc(h.len)) && read(fd, kept_query, qlen) == (ssize_t)qlen &&
	    !memcmp(kept_query, query, qlen) && read(fd, bytes, h.len) == (ssize_t)h.len) {
		*out = bytes;
		got = h.len;
		bytes = NULL;
	}
	free(kept_query);
	free(bytes);
	close(fd);
	return got;
}

void rs_btf_cache_put(const char *kind, const void *query, size_t qlen, const void *bytes, size_t len)
{
	struct kbtf_head h = { .magic = KBTF_MAGIC, .version = KBTF_VERSION, .qlen = (uint32_t)qlen,
			       .len = (uint32_t)len };
	const void *parts[] = { &h, query, bytes };
	const size_t lens[] = { sizeof(h), qlen, len };
	char name[128];

	if (!len || qlen > UINT32_MAX || len > UINT32_MAX || !rs_cache_dir()[0] || !boot_id(h.boot_id))
		return;
	file_name(kind, query, qlen, name, sizeof(name));
	rs_cache_write(name, parts, lens, 3);
}
