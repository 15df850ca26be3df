// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "memcg_io.h"

int rs_write_file(const char *dir, const char *file, const char *text)
{
	char path[4200];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? -errno : (int)n;
	close(fd);
	return err;
}

int rs_read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4200];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

int rs_memcg_v2_self(char *path, size_t len)
{
	char ctl[512];
	int err = rs_cgroup_self_path(NULL, path, len);

	if (err)
		return err;
	err = rs_read_file(path, "cgroup.controllers", ctl, sizeof(ctl));
	if (err < 0)
		return err;
	return word_in(ctl, "memory") ? 0 : -EOPNOTSUPP;
}

int rs_memcg_probe_swappiness_key(const char *dir)
{
	char ctl[512], child[4200];
	bool scratch;
	int err;

	/*
	 * A request for 0 bytes reclaims nothing, so it is a harmless probe.
	 * Prefer a scratch child (children get memory.* files only when dir
	 * delegates memory); a leaf such as a profile's target is asked itself.
	 */
	err = rs_read_file(dir, "cgroup.subtree_control", ctl, sizeof(ctl));
	if (err < 0)
		return err;
	scratch = word_in(ctl, "memory");
	snprintf(child, sizeof(child), "%s/ringside-probe-%d", dir, (int)getpid());
	if (scratch && mkdir(child, 0755))
		return -errno;
	err = rs_write_file(scratch ? child : dir, "memory.reclaim", "0 swappiness=60");
	if (scratch)
		rmdir(child);
	return err < 0 ? err : 0;
}
