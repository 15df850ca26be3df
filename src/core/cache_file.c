// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Files kept across runs (cache_file.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_file.h"

const char *rs_cache_dir(void)
{
	const char *dir = getenv("RINGSIDE_CACHE_DIR");

	return dir ? dir : "/var/cache/ringside";
}

/* Owned by us (or root) and writable by nobody else: what we may trust. */
static bool trusted(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int rs_cache_open(const char *name, size_t *size)
{
	char path[512];
	struct stat st;
	int fd;

	if (!rs_cache_dir()[0] || stat(rs_cache_dir(), &st) || !trusted(&st) ||
	    snprintf(path, sizeof(path), "%s/%s", rs_cache_dir(), name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !trusted(&st)) {
		close(fd);
		return -1;
	}
	*size = (size_t)st.st_size;
	return fd;
}

void rs_cache_write(const char *name, const void *const parts[], const size_t lens[], unsigned int n)
{
	char path[512], tmp[540];
	struct stat st;
	bool ok = true;
	int fd;

	if (!rs_cache_dir()[0] ||
	    snprintf(path, sizeof(path), "%s/%s", rs_cache_dir(), name) >= (int)sizeof(path))
		return;
	/* The default folder is made (root's, 0755) if missing; one named by the user is not. */
	if (!getenv("RINGSIDE_CACHE_DIR"))
		mkdir(rs_cache_dir(), 0755);
	if (stat(rs_cache_dir(), &st) || !trusted(&st))
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d.%lu.tmp", path, (int)getpid(), (unsigned long)gettid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (unsigned int i = 0; ok && i < n; i++)
		ok = write(fd, parts[i], lens[i]) == (ssize_t)lens[i];
	ok = !close(fd) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
}
