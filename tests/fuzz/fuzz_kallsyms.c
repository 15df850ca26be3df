// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: kallsyms text (what btrfs and reclaim triggers are read
 * from), then lookups of the tagged functions and of stacks over it.
 */
#include <stdint.h>
#include <stdio.h>

#include "ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rs_ksym_tag tags[] = {
		{ "btrfs_balance", 1 }, { "btrfs_reclaim_bgs_work", 2 }, { "kswapd", 3 },
	};
	const __u64 stack[] = { 0xffffffff81000000ULL, 0xffffffffc0001234ULL, 0, ~0ULL };
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	struct rs_ksyms *ks = NULL;
	size_t n;

	if (!f)
		return 0;
	if (!size) {
		fclose(f);
		return 0;
	}
	if (!rs_ksyms_parse(f, tags, sizeof(tags) / sizeof(tags[0]), &ks)) {
		rs_ksyms_tag(ks, stack[0]);
		rs_ksyms_stack_tag(ks, stack, 4);
		rs_ksyms_ranges(ks, &n);
		rs_ksyms_free(ks);
	}
	fclose(f);
	return 0;
}
