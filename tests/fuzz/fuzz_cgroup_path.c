// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: a --cgroup argument, resolved against this machine's
 * real cgroup mounts (realpath, statfs, mountinfo, the v1 controller list).
 */
#include <stdint.h>

#include "fuzz.h"
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = fuzz_cstr(data, size);
	struct rs_cgroup_ref ref;

	if (!path)
		return 0;
	rs_cgroup_resolve(path, &ref);
	free(path);
	return 0;
}
