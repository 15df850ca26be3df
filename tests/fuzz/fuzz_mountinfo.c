// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: one /proc/self/mountinfo line (cgroup and btrfs mounts are found there). */
#include <stdint.h>

#include "fuzz.h"
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_cstr(data, size);
	static struct rs_mount_entry m;

	if (!line)
		return 0;
	rs_mountinfo_parse(line, &m);
	free(line);
	return 0;
}
