// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc_stat.h"

/*
 * Read /proc/PID/stat and return the text after the command name, which may
 * hold spaces and parens: fields resume after the last ')'. NULL if gone.
 */
const char *rs_proc_stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
int rs_proc_start_time(pid_t pid, uint64_t *out)
{
	char buf[1024];
	const char *f = rs_proc_stat_fields(pid, buf, sizeof(buf));
	unsigned long long start;

	if (!f)
		return -ESRCH;
	if (sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start) != 1)
		return -EINVAL;
	*out = start;
	return 0;
}

