// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

/* Undo the octal escapes the kernel writes for space, tab, newline and backslash. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

bool rs_mountinfo_parse(const char *line, struct rs_mount_entry *m)
{
	/* The optional fields end at a lone "-"; what follows is fixed. */
	const char *sep = strstr(line, " - ");

	if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", m->mp) != 1 ||
	    sscanf(sep + 3, "%63s %*s %511s", m->fstype, m->super) != 2)
		return false;
	unescape(m->mp);
	return true;
}

int rs_mountinfo_foreach(rs_mount_fn fn, void *ctx)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct rs_mount_entry *m = malloc(sizeof(*m));
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f || !m) {
		ret = f ? -ENOMEM : -errno;
		goto out;
	}
	while (!ret && getline(&line, &cap, f) > 0)
		if (rs_mountinfo_parse(line, m))
			ret = fn(ctx, m);
out:
	free(line);
	free(m);
	if (f)
		fclose(f);
	return ret;
}
