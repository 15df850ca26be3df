/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: an ELF section found by name, for the readers of Go binaries and BPF objects. */
#ifndef RINGSIDE_ELF_SECTION_H
#define RINGSIDE_ELF_SECTION_H

#include <string.h>
#include <gelf.h>

/* The first section called name that has bytes in the file (not NOBITS), its header in *sh; NULL if none. */
static inline Elf_Scn *rs_elf_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

#endif
