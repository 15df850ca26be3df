// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Go's function table (runtime/symtab.go's moduledata source, the
 * "pclntab") and build info, read from the file as the Go runtime and
 * debug/buildinfo read them. Three table generations exist:
 *   Go 1.16-1.17 (magic 0xfffffffa): header words nfunc, nfiles, funcname,
 *     cu, filetab, pctab, pcln offsets; functab of (entry, funcoff) pointers;
 *   Go 1.18-1.19 (0xfffffff0) and 1.20+ (0xfffffff1): a textStart word after
 *     nfiles; functab of 32-bit (entryoff, funcoff) pairs relative to it.
 * Every offset comes from the file and is checked before use: the reader is
 * fuzzed (tests/fuzz/fuzz_gobin.c).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "gobin.h"
#include "elf_section.h"

#define PCLN_116 0xfffffffau
#define PCLN_118 0xfffffff0u
#define PCLN_120 0xfffffff1u
#define PCLN_HDR_WORDS_116 7
#define PCLN_HDR_WORDS_118 8

struct gobin_seg {
	uint64_t vaddr, filesz, off;
};

struct rs_gobin {
	const uint8_t *img;
	size_t len;
	void *mapped;			/* rs_gobin_load_fd's own mapping */
	struct gobin_seg segs[16];
	unsigned int nsegs;
	char version[32];
	unsigned int format;		/* 116, 118, 120 */
	const uint8_t *tab;		/* the pclntab */
	size_t tab_len;
	uint64_t nfunc, text_start, funcname_off, pcln_off;
};

static int why_set(char *why, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int why_set(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	if (n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The file's bytes at [off, off + n), or NULL. */
static const uint8_t *file_at(const struct rs_gobin *gb, uint64_t off, uint64_t n)
{
	if (off > gb->len || n > gb->len - off)
		return NULL;
	return gb->img + off;
}

int rs_gobin_vaddr_to_offset(const struct rs_gobin *gb, uint64_t vaddr, uint64_t *off)
{
	for (unsigned int i = 0; i < gb->nsegs; i++) {
		const struct gobin_seg *s = &gb->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->off + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

const uint8_t *rs_gobin_bytes(const struct rs_gobin *gb, uint64_t vaddr, size_t len)
{
	for (unsigned int i = 0; i < gb->nsegs; i++) {
		const struct gobin_seg *s = &gb->segs[i];

		/* The whole range inside one segment's file bytes. */
		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz && len <= s->filesz - (vaddr - s->vaddr))
			return file_at(gb, s->off + (vaddr - s->vaddr), len);
	}
	return NULL;
}

/* A section's bytes in the file, by name; NULL when absent or out of the file. */
static const uint8_t *section(const struct rs_gobin *gb, Elf *elf, const char *name, size_t *len,
			      uint64_t *addr)
{
	GElf_Shdr sh;
	const uint8_t *p;

	if (!rs_elf_section(elf, name, &sh))
		return NULL;
	p = file_at(gb, sh.sh_offset, sh.sh_size);
	if (p) {
		*len = sh.sh_size;
		if (addr)
			*addr = sh.sh_addr;
	}
	return p;
}

/* A symbol's address from .symtab (unstripped binaries only). */
static int symbol(Elf *elf, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*value = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* debug/buildinfo's varint: 7 bits a byte, low first. */
static int uvarint(const uint8_t *p, size_t n, uint64_t *v, size_t *used)
{
	*v = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*used = i + 1;
			return 0;
		}
	}
	return -EINVAL;
}

static void keep_version(struct rs_gobin *gb, const uint8_t *s, uint64_t n)
{
	if (n < 3 || n >= sizeof(gb->version) || memcmp(s, "go", 2))
		return;
	for (uint64_t i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return;
	memcpy(gb->version, s, n);
	gb->version[n] = '\0';
}

/*
 * Build info: a 32-byte header "\xff Go buildinf:", pointer size, flags. Since
 * Go 1.18 (flag 2) the version follows inline as a varint-prefixed string;
 * before, the header holds the address of a Go string header.
 */
static const char buildinfo_magic[] = "\xff Go buildinf:";
#define BUILDINFO_MAGIC_LEN 14

static void read_buildinfo(struct rs_gobin *gb, const uint8_t *bi, size_t n)
{
	if (n < 32 || memcmp(bi, buildinfo_magic, BUILDINFO_MAGIC_LEN) || bi[14] != 8)
		return;
	if (bi[15] & 2) {
		uint64_t slen;
		size_t used;

		if (!uvarint(bi + 32, n - 32, &slen, &used) && slen <= n - 32 - used)
			keep_version(gb, bi + 32 + used, slen);
		return;
	}
	{
		const uint8_t *hdr = rs_gobin_bytes(gb, rd64(bi + 16), 16), *s;

		if (hdr && rd64(hdr + 8) < sizeof(gb->version) && (s = rs_gobin_bytes(gb, rd64(hdr), rd64(hdr + 8))))
			keep_version(gb, s, rd64(hdr + 8));
	}
}

static const uint8_t *find_buildinfo(const struct rs_gobin *gb, Elf *elf, size_t *n)
{
	const uint8_t *p = section(gb, elf, ".go.buildinfo", n, NULL);
	size_t nph = 0;
	GElf_Phdr ph;

	if (p || elf_getphdrnum(elf, &nph))
		return p;
	/* Section headers stripped: the linker puts it first in the writable segment. */
	for (size_t i = 0; i < nph; i++) {
		const uint8_t *seg;
		uint64_t span;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_W))
			continue;
		span = ph.p_filesz < 65536 ? ph.p_filesz : 65536;
		seg = file_at(gb, ph.p_offset, span);
		for (uint64_t off = 0; seg && off + 32 <= span; off += 16) {
			if (!memcmp(seg + off, buildinfo_magic, BUILDINFO_MAGIC_LEN)) {
				*n = gb->len - (ph.p_offset + off);
				return seg + off;
			}
		}
	}
	return NULL;
}

/* Whether tab holds a pclntab header this reader knows, for 64-bit x86. */
static unsigned int pcln_format(const uint8_t *tab, size_t len)
{
	uint32_t magic;

	if (len < 8 + 8 * PCLN_HDR_WORDS_118 || tab[4] || tab[5] || tab[6] != 1 || tab[7] != 8)
		return 0;
	magic = rd32(tab);
	return magic == PCLN_116 ? 116 : magic == PCLN_118 ? 118 : magic == PCLN_120 ? 120 : 0;
}

static int parse_pcln(struct rs_gobin *gb, const uint8_t *tab, size_t len, uint64_t text_hint,
		      char *why, size_t whylen)
{
	unsigned int fmt = pcln_format(tab, len);
	uint64_t w[PCLN_HDR_WORDS_118], ftab_bytes;

	if (!fmt) {
		if (len >= 4 && rd32(tab) == 0xfffffffbu)
			return why_set(why, whylen, -ENOTSUP, "its function table is of Go 1.2-1.15, "
				       "which ringside does not read (Go 1.16 or later is needed)");
		return why_set(why, whylen, -EINVAL, "its function table (.gopclntab) has an unknown header");
	}
	for (unsigned int i = 0; i < PCLN_HDR_WORDS_118; i++)
		w[i] = rd64(tab + 8 + 8 * i);
	gb->format = fmt;
	gb->tab = tab;
	gb->tab_len = len;
	gb->nfunc = w[0];
	if (fmt == 116) {
		gb->funcname_off = w[2];
		gb->pcln_off = w[6];
		gb->text_start = 0;
		ftab_bytes = 16;
	} else {
		gb->text_start = w[2] ? w[2] : text_hint;
		gb->funcname_off = w[3];
		gb->pcln_off = w[7];
		ftab_bytes = 8;
	}
	/* nfunc pairs and the end entry must fit in the table. */
	if (!gb->nfunc || gb->nfunc > len / ftab_bytes || gb->pcln_off > len ||
	    (gb->nfunc + 1) * ftab_bytes > len - gb->pcln_off || gb->funcname_off >= len)
		return why_set(why, whylen, -EINVAL, "its function table (.gopclntab) is truncated "
			       "or damaged (%llu functions do not fit in %zu bytes)",
			       (unsigned long long)gb->nfunc, len);
	return 0;
}

/* The pclntab: its section, its symbol, or a header found in read-only data. */
static int find_pcln(struct rs_gobin *gb, Elf *elf, char *why, size_t whylen)
{
	uint64_t text = 0, sym;
	size_t n = 0;
	const uint8_t *tab;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	section(gb, elf, ".text", &n, &text);
	if (!symbol(elf, "runtime.text", &sym))
		text = sym;
	tab = section(gb, elf, ".gopclntab", &n, NULL);
	if (tab)
		return parse_pcln(gb, tab, n, text, why, whylen);
	if (!symbol(elf, "runtime.pclntab", &sym)) {
		uint64_t off;

		if (!rs_gobin_vaddr_to_offset(gb, sym, &off) && off < gb->len)
			return parse_pcln(gb, gb->img + off, gb->len - off, text, why, whylen);
	}
	/* PIE and externally linked programs keep it inside .data.rel.ro. */
	while ((scn = elf_nextscn(elf, scn))) {
		const uint8_t *p;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || (sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || !(p = file_at(gb, sh.sh_offset, sh.sh_size)))
			continue;
		for (uint64_t off = 0; off + 8 <= sh.sh_size; off += 8) {
			if (pcln_format(p + off, sh.sh_size - off) &&
			    !parse_pcln(gb, p + off, sh.sh_size - off, text, NULL, 0))
				return 0;
		}
	}
	return why_set(why, whylen, -ENOENT, "no Go function table (.gopclntab) found");
}

static void load_segments(struct rs_gobin *gb, Elf *elf)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && gb->nsegs < sizeof(gb->segs) / sizeof(gb->segs[0]); i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		gb->segs[gb->nsegs++] = (struct gobin_seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
}

int rs_gobin_load_mem(const void *image, size_t len, struct rs_gobin **out, char *why, size_t whylen)
{
	struct rs_gobin *gb;
	const uint8_t *bi;
	size_t bi_len = 0;
	GElf_Ehdr eh;
	Elf *elf;
	int err;

	*out = NULL;
	if (whylen)
		why[0] = '\0';
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	gb = calloc(1, sizeof(*gb));
	if (!gb) {
		elf_end(elf);
		return -ENOMEM;
	}
	gb->img = image;
	gb->len = len;
	load_segments(gb, elf);
	/* Every Go program since 1.13 carries build info; without it, no Go program. */
	bi = find_buildinfo(gb, elf, &bi_len);
	if (bi) {
		read_buildinfo(gb, bi, bi_len);
		err = find_pcln(gb, elf, why, whylen);
	} else {
		err = -ENOEXEC;
	}
	elf_end(elf);
	if (err) {
		free(gb);
		return err;
	}
	*out = gb;
	return 0;
}

int rs_gobin_load_fd(int fd, struct rs_gobin **out, char *why, size_t whylen)
{
	struct stat st;
	void *img;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size <= 0)
		return -ENOEXEC;
	img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		return -errno;
	err = rs_gobin_load_mem(img, st.st_size, out, why, whylen);
	if (err) {
		munmap(img, st.st_size);
		return err;
	}
	(*out)->mapped = img;
	return 0;
}

void rs_gobin_free(struct rs_gobin *gb)
{
	if (!gb)
		return;
	if (gb->mapped)
		munmap(gb->mapped, gb->len);
	free(gb);
}

const char *rs_gobin_version(const struct rs_gobin *gb)
{
	return gb->version;
}

void rs_gobin_version_num(const struct rs_gobin *gb, unsigned int *major, unsigned int *minor)
{
	if (sscanf(gb->version, "go%u.%u", major, minor) != 2)
		*major = *minor = 0;
}

unsigned int rs_gobin_table_format(const struct rs_gobin *gb)
{
	return gb->format;
}

unsigned int rs_gobin_nr_funcs(const struct rs_gobin *gb)
{
	return (unsigned int)gb->nfunc;
}

/* The i-th functab entry (i == nfunc: the end of the last function). */
static uint64_t ftab_entry(const struct rs_gobin *gb, uint64_t i)
{
	const uint8_t *f = gb->tab + gb->pcln_off;

	if (gb->format == 116)
		return rd64(f + 16 * i);
	return gb->text_start + rd32(f + 8 * i);
}

const char *rs_gobin_func_at(const struct rs_gobin *gb, unsigned int i, uint64_t *entry)
{
	const uint8_t *f = gb->tab + gb->pcln_off;
	uint64_t funcoff, nameoff, at;
	const char *name;

	if (i >= gb->nfunc)
		return NULL;
	funcoff = gb->format == 116 ? rd64(f + 16 * i + 8) : rd32(f + 8 * i + 4);
	/* _func: entry (a pointer before 1.18, a 32-bit offset since), then int32 nameoff. */
	at = gb->pcln_off + funcoff + (gb->format == 116 ? 8 : 4);
	if (funcoff > gb->tab_len || at > gb->tab_len - 4)
		return "";
	nameoff = (uint32_t)rd32(gb->tab + at);
	if (nameoff >= gb->tab_len - gb->funcname_off)
		return "";
	name = (const char *)gb->tab + gb->funcname_off + nameoff;
	if (!memchr(name, '\0', gb->tab_len - gb->funcname_off - nameoff))
		return "";
	*entry = ftab_entry(gb, i);
	return name;
}

int rs_gobin_func(const struct rs_gobin *gb, const char *name, uint64_t *entry, uint64_t *end)
{
	for (uint64_t i = 0; i < gb->nfunc; i++) {
		const char *n = rs_gobin_func_at(gb, (unsigned int)i, entry);

		if (n && !strcmp(n, name)) {
			*end = ftab_entry(gb, i + 1);
			return *end > *entry ? 0 : -EINVAL;
		}
	}
	return -ENOENT;
}
