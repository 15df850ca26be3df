// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GnuTLS backend cache: what is stored comes back whole; a file or
 * folder others may write, a short or foreign file, and an empty
 * RINGSIDE_CACHE_DIR give nothing, so the calibration runs instead.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "gnutls_cache.h"
#include "unit.h"

static char dir[64];

/* The one cache file in dir, or "" */
static void cache_file(char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	path[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "gnutls-backends-", 16))
			snprintf(path, len, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
}

static void sample(struct gnutls_backend *b, unsigned int n)
{
	memset(b, 0, n * sizeof(*b));
	for (unsigned int i = 0; i < n; i++) {
		b[i].seal_vaddr = 0x1000 + i;
		b[i].open_vaddr = 0x2000 + i;
		b[i].disc.in_use = 1;
		b[i].disc.off = 8 * i;
		b[i].disc.value[0] = 10 + (int)i;
	}
}

static void round_trip_and_refusals(void)
{
	struct gnutls_backend want[3], got[8];
	char path[600];
	int lib = open("/proc/self/exe", O_RDONLY);	/* any ELF file with a build ID */

	CHECK(lib >= 0);
	CHECK(mkdtemp(strcpy(dir, "/tmp/ringside-cache-XXXXXX")) != NULL);
	setenv("RINGSIDE_CACHE_DIR", dir, 1);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 0);
	sample(want, 3);
	gnutls_cache_store(lib, want, 3);
	cache_file(path, sizeof(path));
	CHECK(path[0] != '\0');
	memset(got, 0, sizeof(got));
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 3);
	CHECK(!memcmp(got, want, sizeof(want)));
	/* More than the caller has room for: nothing. */
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 2), 0);

	/* Writable by others: not trusted. */
	chmod(path, 0666);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 0);
	chmod(path, 0644);
	chmod(dir, 0777);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 0);
	chmod(dir, 0700);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 3);

	/* Cut short: not used. */
	CHECK_EQ_INT(truncate(path, 20), 0);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 0);
	/* Stored again, whole. */
	gnutls_cache_store(lib, want, 3);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 3);

	/* An empty RINGSIDE_CACHE_DIR: no cache at all. */
	setenv("RINGSIDE_CACHE_DIR", "", 1);
	CHECK_EQ_INT(gnutls_cache_load(lib, got, 8), 0);
	setenv("RINGSIDE_CACHE_DIR", dir, 1);

	unlink(path);
	rmdir(dir);
	close(lib);
}

int main(void)
{
	RUN(round_trip_and_refusals);
	UNIT_EXIT();
}
