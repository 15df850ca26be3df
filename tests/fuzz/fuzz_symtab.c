// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: an ELF file a user can point --lib at. Loaded both from
 * memory and from a file descriptor (which also reads the build-ID note and
 * the separate-debug-file lookup), then queried the way the resolver and the
 * probe chooser do.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symtab.h"
#include "ringside/procmaps.h"

static void exercise(struct rs_symtab *st)
{
	uint64_t vaddr = 0, off = 0, size = 0, sym_off = 0;

	rs_symtab_count(st);
	rs_symtab_find(st, "CRYPTO_gcm128_init", &vaddr, &size);
	rs_symtab_lookup(st, vaddr + 1, &sym_off);
	rs_symtab_lookup(st, 0x1000, &sym_off);
	rs_symtab_vaddr_to_offset(st, vaddr, &off);
	rs_symtab_offset_to_vaddr(st, 0x1000, &vaddr);
	rs_symtab_from_debug_file(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_symtab *st = NULL;
	uint8_t id[64];
	int fd;

	if (!rs_symtab_load_mem(data, size, &st)) {
		exercise(st);
		rs_symtab_free(st);
	}
	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		ringside_read_build_id(fd, id, sizeof(id));
		st = NULL;
		/* A debug dir that holds nothing: the lookup path runs, finds nothing. */
		if (!rs_symtab_load_fd(fd, "/nonexistent-debug", &st)) {
			exercise(st);
			rs_symtab_free(st);
		}
	}
	close(fd);
	return 0;
}
