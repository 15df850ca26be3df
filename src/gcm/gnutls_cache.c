// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* GnuTLS backend calibrations kept across runs (gnutls_cache.h). */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/procmaps.h"
#include "cache_file.h"
#include "gnutls_cache.h"

#define CACHE_MAGIC 0x42475352u	/* "RSGB" */
#define CACHE_VERSION 1

struct cache_head {
	uint32_t magic, version;
	uint32_t entry_size, count;
};

/*
 * The CPU features GnuTLS chooses its backend by (leaf 1's ECX: SSSE3,
 * PCLMUL, AES-NI, OSXSAVE, AVX; leaf 7's EBX/ECX: AVX2, SHA, VAES,
 * VPCLMULQDQ...; the OS's XSAVE state), whole registers, so that any
 * change of CPU or of what the OS enables is another file.
 */
static void cpu_sig(char *out, size_t len)
{
	unsigned int a = 0, b = 0, c1 = 0, d1 = 0, b7 = 0, c7 = 0, lo = 0, hi = 0;

	__get_cpuid(1, &a, &b, &c1, &d1);
	__get_cpuid_count(7, 0, &a, &b7, &c7, &d1);
	if (c1 & (1u << 27))	/* OSXSAVE: xgetbv is allowed */
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	snprintf(out, len, "%08x%08x%08x%08x", c1, b7, c7, lo);
}

/* The file's name for the library open as fd; false without a build ID to name it by. */
static bool cache_name(int fd, char *name, size_t len)
{
	uint8_t bid[RINGSIDE_BUILD_ID_MAX];
	char hex[2 * RINGSIDE_BUILD_ID_MAX + 1], sig[40];
	struct stat st;
	int n = ringside_read_build_id(fd, bid, sizeof(bid));

	if (n <= 0 || fstat(fd, &st) || !rs_cache_dir()[0])
		return false;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	cpu_sig(sig, sizeof(sig));
	snprintf(name, len, "gnutls-backends-%s-%llu-%s", hex, (unsigned long long)st.st_size, sig);
	return true;
}

int gnutls_cache_load(int lib_fd, struct gnutls_backend *out, unsigned int max)
{
	char name[256];
	struct cache_head h;
	size_t size;
	int fd, n = 0;

	if (!cache_name(lib_fd, name, sizeof(name)))
		return 0;
	fd = rs_cache_open(name, &size);
	if (fd < 0)
		return 0;
	if (read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) && h.magic == CACHE_MAGIC &&
	    h.version == CACHE_VERSION && h.entry_size == sizeof(*out) && h.count &&
	    h.count <= max && size == sizeof(h) + h.count * sizeof(*out) &&
	    read(fd, out, h.count * sizeof(*out)) == (ssize_t)(h.count * sizeof(*out)))
		n = (int)h.count;
	close(fd);
	return n;
}

void gnutls_cache_store(int lib_fd, const struct gnutls_backend *b, unsigned int n)
{
	struct cache_head h = { CACHE_MAGIC, CACHE_VERSION, sizeof(*b), n };
	const void *parts[] = { &h, b };
	const size_t lens[] = { sizeof(h), n * sizeof(*b) };
	char name[256];

	if (n && cache_name(lib_fd, name, sizeof(name)))
		rs_cache_write(name, parts, lens, 2);
}
