// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counter files of the kernel: memory.stat and /proc/vmstat are "name value"
 * lines, pressure files are "some|full avg10=.. avg60=.. avg300=.. total=N".
 * Both are read whole in one read() so that one snapshot is consistent as the
 * kernel wrote it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv_stat.h"

/* memory.stat is about 3 KiB, /proc/vmstat about 5 KiB on 6.x kernels. */
#define KV_FILE_MAX 16384

static int read_whole(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4200];
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	n = n < 0 ? -errno : got;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[got] = '\0';
	return (int)got;
}

int rs_kv_read(const char *dir, const char *file, const char *const *keys, uint64_t *vals, size_t n)
{
	char *buf = malloc(KV_FILE_MAX), *line, *save = NULL;
	int found = 0, err;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		vals[i] = UINT64_MAX;
	err = read_whole(dir, file, buf, KV_FILE_MAX);
	if (err < 0) {
		free(buf);
		return err;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		for (size_t i = 0; i < n; i++) {
			/* The first line of a name wins (memory.stat repeats none, but be exact). */
			if (vals[i] == UINT64_MAX && !strcmp(line, keys[i])) {
				vals[i] = strtoull(sp + 1, NULL, 10);
				found++;
				break;
			}
		}
	}
	free(buf);
	return found;
}

int rs_psi_read(const char *dir, const char *file, struct rs_psi *out)
{
	char buf[512], *line, *save = NULL;
	int err = read_whole(dir, file, buf, sizeof(buf));
	bool some = false;

	memset(out, 0, sizeof(*out));
	if (err < 0)
		return err;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *total = strstr(line, " total=");

		if (!total)
			continue;
		if (!strncmp(line, "some ", 5)) {
			out->some_us = strtoull(total + 7, NULL, 10);
			some = true;
		} else if (!strncmp(line, "full ", 5)) {
			out->full_us = strtoull(total + 7, NULL, 10);
			out->has_full = true;
		}
	}
	return some ? 0 : -EINVAL;
}
