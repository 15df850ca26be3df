// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/procmaps.h"
#include "gobin.h"
#include "symtab.h"

struct rs_sym {
	uint64_t addr;
	uint64_t size;
	uint32_t name;	/* offset into names */
	uint8_t global;
};

struct rs_seg {
	uint64_t off, filesz, vaddr;
};

#define RS_MAX_SEGS 32

struct rs_symtab {
	struct rs_sym *syms;
	size_t nsyms;
	char *names;
	size_t names_len, names_cap;
	struct rs_seg segs[RS_MAX_SEGS];
	int nsegs;
	int from_debug;
};

static int add_name(struct rs_symtab *st, const char *name, uint32_t *off)
{
	size_t len = strlen(name) + 1;

	if (st->names_len + len > st->names_cap) {
		size_t cap = st->names_cap ? st->names_cap * 2 : 65536;
		char *p;

		while (cap < st->names_len + len)
			cap *= 2;
		p = realloc(st->names, cap);
		if (!p)
			return -ENOMEM;
		st->names = p;
		st->names_cap = cap;
	}
	memcpy(st->names + st->names_len, name, len);
	*off = (uint32_t)st->names_len;
	st->names_len += len;
	return 0;
}

/* Read the symbols of one section (SHT_SYMTAB or SHT_DYNSYM). */
static int read_symbols(struct rs_symtab *st, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct rs_sym *syms;
	size_t have = st->nsyms;

	if (!data || !n)
		return 0;
	syms = realloc(st->syms, (have + n) * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	st->syms = syms;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) ||
		    !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		syms[have].addr = sym.st_value;
		syms[have].size = sym.st_size;
		syms[have].global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		if (add_name(st, name, &syms[have].name))
			return -ENOMEM;
		have++;
	}
	st->nsyms = have;
	return 0;
}

static int cmp_sym(const void *a, const void *b, void *names_arg)
{
	const struct rs_sym *x = a, *y = b;
	const char *names = names_arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/*
	 * Aliases share an address; lookup takes the last of a run, so globals
	 * (the names people know) sort last. Aliases stay for rs_symtab_find().
	 */
	if (x->global != y->global)
		return (int)x->global - (int)y->global;
	return strcmp(names + y->name, names + x->name);
}

/* Symbols from .symtab when present (*full set), else .dynsym. */
static int load_symbols(struct rs_symtab *st, Elf *elf, bool *full)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, chosen;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	*full = symtab != NULL;
	if (!scn || !gelf_getshdr(scn, &chosen))
		return 0;
	return read_symbols(st, elf, scn, &chosen);
}

/*
 * A stripped Go program still names its functions in its own function
 * table (gobin.c): symbols for stack frames and callers from there, added
 * to the few C symbols a cgo program's .dynsym has.
 */
static int load_go_functions(struct rs_symtab *st, Elf *elf)
{
	struct rs_gobin *gb;
	struct rs_sym *syms;
	size_t len = 0;
	char *raw = elf_rawfile(elf, &len);
	unsigned int n;
	int err = 0;

	if (!raw || rs_gobin_load_mem(raw, len, &gb, NULL, 0))
		return 0;
	n = rs_gobin_nr_funcs(gb);
	syms = realloc(st->syms, (st->nsyms + n) * sizeof(*st->syms));
	if (syms)
		st->syms = syms;
	else
		err = -ENOMEM;
	for (unsigned int i = 0; !err && i < n; i++) {
		uint64_t entry = 0, next = 0;
		const char *name = rs_gobin_func_at(gb, i, &entry);
		struct rs_sym *sym = &st->syms[st->nsyms];

		if (!name || !*name || !entry)
			continue;
		if (!rs_gobin_func_at(gb, i + 1, &next) || next < entry)
			next = entry;
		sym->addr = entry;
		sym->size = next - entry;
		sym->global = 1;
		err = add_name(st, name, &sym->name);
		st->nsyms += !err;
	}
	rs_gobin_free(gb);
	return err;
}

static void load_segments(struct rs_symtab *st, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && st->nsegs < RS_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		st->segs[st->nsegs++] = (struct rs_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
}

static void finish(struct rs_symtab *st)
{
	/* A damaged or stripped file may leave no symbols (and syms NULL). */
	if (st->nsyms > 1)
		qsort_r(st->syms, st->nsyms, sizeof(*st->syms), cmp_sym, st->names);
}

/* Symbols from /usr/lib/debug/.build-id/xx/yyyy.debug, when installed. */
static int load_debug_file(struct rs_symtab *st, int fd, const char *debug_dir)
{
	uint8_t id[RINGSIDE_BUILD_ID_MAX];
	char path[512];
	int n = ringside_read_build_id(fd, id, sizeof(id)), dfd, err = -ENOENT;
	size_t len;
	Elf *elf;

	if (n <= 1)
		return -ENOENT;
	len = (size_t)snprintf(path, sizeof(path), "%s/.build-id/%02x/", debug_dir, id[0]);
	for (int i = 1; i < n && len + 3 < sizeof(path); i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%02x", id[i]);
	snprintf(path + len, sizeof(path) - len, ".debug");
	dfd = open(path, O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		return -ENOENT;
	elf = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		bool full;

		err = load_symbols(st, elf, &full);
		if (!err && st->nsyms)
			st->from_debug = 1;
		else if (!err)
			err = -ENOENT;
		elf_end(elf);
	}
	close(dfd);
	return err;
}

static int load(Elf *elf, int fd, const char *debug_dir, struct rs_symtab **out)
{
	struct rs_symtab *st;
	int err = 0;

	*out = NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	load_segments(st, elf);
	if (fd < 0 || !debug_dir || load_debug_file(st, fd, debug_dir)) {
		bool full = false;

		st->nsyms = 0;
		err = load_symbols(st, elf, &full);
		if (!err && !full)
			err = load_go_functions(st, elf);
	}
	if (err) {
		rs_symtab_free(st);
		return err;
	}
	finish(st);
	*out = st;
	return 0;
}

int rs_symtab_load_fd(int fd, const char *debug_dir, struct rs_symtab **out)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = load(elf, fd, debug_dir, out);
	if (elf)
		elf_end(elf);
	return err;
}

int rs_symtab_load_mem(const void *image, size_t len, struct rs_symtab **out)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, len);
	err = load(elf, -1, NULL, out);
	if (elf)
		elf_end(elf);
	return err;
}

void rs_symtab_free(struct rs_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st->names);
	free(st);
}

int rs_symtab_offset_to_vaddr(const struct rs_symtab *st, uint64_t off, uint64_t *vaddr)
{
	for (int i = 0; i < st->nsegs; i++) {
		const struct rs_seg *s = &st->segs[i];

		if (off >= s->off && off < s->off + s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int rs_symtab_vaddr_to_offset(const struct rs_symtab *st, uint64_t vaddr, uint64_t *off)
{
	for (int i = 0; i < st->nsegs; i++) {
		const struct rs_seg *s = &st->segs[i];

		if (vaddr >= s->vaddr && vaddr < s->vaddr + s->filesz) {
			*off = vaddr - s->vaddr + s->off;
			return 0;
		}
	}
	return -ENOENT;
}

const char *rs_symtab_lookup(const struct rs_symtab *st, uint64_t vaddr, uint64_t *sym_off)
{
	size_t lo = 0, hi = st->nsyms;
	const struct rs_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &st->syms[lo - 1];
	/* A sized symbol must cover vaddr; an unsized one covers up to the next. */
	if (s->size && vaddr >= s->addr + s->size)
		return NULL;
	*sym_off = vaddr - s->addr;
	return st->names + s->name;
}

int rs_symtab_find(const struct rs_symtab *st, const char *name, uint64_t *vaddr, uint64_t *size)
{
	for (size_t i = 0; i < st->nsyms; i++) {
		if (!strcmp(st->names + st->syms[i].name, name)) {
			*vaddr = st->syms[i].addr;
			if (size)
				*size = st->syms[i].size;
			return 0;
		}
	}
	return -ENOENT;
}

size_t rs_symtab_count(const struct rs_symtab *st)
{
	return st->nsyms;
}

int rs_symtab_from_debug_file(const struct rs_symtab *st)
{
	return st->from_debug;
}
