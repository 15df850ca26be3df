// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a walk of the kernel's BTF found, kept for the boot: an answer comes
 * back whole for its own question only; another boot's file, a file cut
 * short, one others may write and an empty RINGSIDE_CACHE_DIR give nothing,
 * so the walk is made instead.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_cache.h"
#include "unit.h"

static char dir[64];

/* The one file of kind in dir, or "" */
static void kept_file(const char *prefix, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	path[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			snprintf(path, len, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
}

static void round_trip_and_refusals(void)
{
	static const char q[] = "\x04task_struct\0\x04kernfs_node", q2[] = "\x04task_struct\0\x04cgroup";
	static const char answer[] = "raw BTF bytes, as a cut makes them";
	char path[600];
	void *got;
	int fd;

	CHECK(mkdtemp(strcpy(dir, "/tmp/ringside-kbtf-XXXXXX")) != NULL);
	setenv("RINGSIDE_CACHE_DIR", dir, 1);
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), 0);
	CHECK(got == NULL);
	rs_btf_cache_put("core", q, sizeof(q), answer, sizeof(answer));
	kept_file("kbtf-core-", path, sizeof(path));
	CHECK(path[0] != '\0');
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), (long)sizeof(answer));
	CHECK(got && !memcmp(got, answer, sizeof(answer)));
	free(got);
	/* Another question, or another kind: not this answer. */
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q2, sizeof(q2), &got), 0);
	CHECK_EQ_INT((long)rs_btf_cache_get("lookups", q, sizeof(q), &got), 0);

	/* Another boot's: the boot id is the header's 36 bytes after magic and version. */
	fd = open(path, O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, "x", 1, 8) == 1);
	close(fd);
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), 0);
	rs_btf_cache_put("core", q, sizeof(q), answer, sizeof(answer));
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), (long)sizeof(answer));
	free(got);

	/* Writable by others, file or folder: not trusted. */
	chmod(path, 0666);
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), 0);
	chmod(path, 0644);
	chmod(dir, 0777);
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), 0);
	chmod(dir, 0700);

	/* Cut short: not used. */
	CHECK_EQ_INT(truncate(path, 60), 0);
	CHECK_EQ_INT((long)rs_btf_cache_get("core", q, sizeof(q), &got), 0);

	/* An empty RINGSIDE_CACHE_DIR: nothing kept, nothing read. */
	unlink(path);
	setenv("RINGSIDE_CACHE_DIR", "", 1);
	rs_btf_cache_put("core", q, sizeof(q), answer, sizeof(answer));
	setenv("RINGSIDE_CACHE_DIR", dir, 1);
	kept_file("kbtf-", path, sizeof(path));
	CHECK(path[0] == '\0');
	rmdir(dir);
}

int main(void)
{
	RUN(round_trip_and_refusals);
	UNIT_EXIT();
}
