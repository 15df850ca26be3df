// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: a program a user names with --binary or that runs on
 * the machine, read as a Go program: build info, the function table, the
 * AES-GCM entry points looked up the way go_gcm.c does, and each found
 * function's machine code decoded for its RETs.
 */
#include <stddef.h>
#include <stdint.h>

#include "gobin.h"
#include "insn_scan.h"

static void decode(const struct rs_gobin *gb, uint64_t entry, uint64_t end)
{
	struct rs_func_exits fx;
	const uint8_t *code;

	if (end <= entry || end - entry > 65536 || !(code = rs_gobin_bytes(gb, entry, end - entry)))
		return;
	if (!rs_func_exits_find(code, end - entry, entry, &fx))
		rs_func_exits_free(&fx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"crypto/aes.(*gcmAsm).Seal", "crypto/cipher.(*gcm).Open", "no.such",
	};
	struct rs_gobin *gb;
	unsigned int major, minor;
	uint64_t entry = 0, end = 0, off;
	char why[256];

	if (rs_gobin_load_mem(data, size, &gb, why, sizeof(why)))
		return 0;
	rs_gobin_version(gb);
	rs_gobin_version_num(gb, &major, &minor);
	rs_gobin_table_format(gb);
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!rs_gobin_func(gb, names[i], &entry, &end)) {
			rs_gobin_vaddr_to_offset(gb, entry, &off);
			decode(gb, entry, end);
		}
	/* Walk a bounded prefix of the table, as the symbolizer does. */
	for (unsigned int i = 0; i < rs_gobin_nr_funcs(gb) && i < 4096; i++)
		rs_gobin_func_at(gb, i, &entry);
	rs_gobin_free(gb);
	return 0;
}
