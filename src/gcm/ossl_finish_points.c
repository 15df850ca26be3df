// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossl_finish_points.h"
#include "symtab.h"
#include "x86_decode.h"

/* finish is a few hundred bytes in every OpenSSL; more is not the function this expects. */
#define FINISH_MAX_BYTES 4096
/* The context's len block (GCM128_CONTEXT: Yi, EKi, EK0, len, ...; gcm.bpf.c's OSSL_GCM_LEN_OFF). */
#define LEN_AAD_OFF 48
#define LEN_PAYLOAD_OFF 56

static int refuse(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -ENOTSUP;
}

/* ---- the straight-line start: what each register holds ------------------- */

enum val_kind { V_UNKNOWN, V_ARG, V_LEN };

struct reg_val {
	uint8_t kind;
	uint8_t arg;		/* V_ARG: 0 ctx (rdi), 1 tag (rsi), 2 len (rdx) */
	bool x8;		/* V_LEN: shifted left by 3 */
	int64_t off;		/* V_LEN: loaded from ctx + off */
};

struct start_state {
	struct reg_val r[16];
	uint64_t sp_moved;	/* bytes pushed or subtracted since entry */
};

static bool set_reg(struct start_state *s, unsigned int reg, struct reg_val v)
{
	if (reg >= 16 || reg == RS_X86_RSP)
		return false;
	s->r[reg] = v;
	return true;
}

static const struct reg_val unknown_val;

/* One instruction of the start; false when it does something this does not follow. */
static bool step(struct start_state *s, const struct rs_x86_insn *in)
{
	unsigned int op = in->opcode, ext = in->reg % 8;
	bool wide = rs_x86_rex_w(in), reg_form = in->has_modrm && in->mod == 3;
	int64_t down;

	if (op >= 0x50 && op <= 0x57) {		/* push */
		s->sp_moved += 8;
		return true;
	}
	if ((op == 0x0f1e && in->rep) || op == 0x0f1f || (op == 0x90 && !(in->rex & 1)))
		return true;			/* endbr64, nops */
	switch (op) {
	case 0x89:	/* mov reg -> r/m */
		if (!reg_form)
			return in->base == RS_X86_RSP;	/* a store to its own frame only */
		return set_reg(s, in->rm, wide ? s->r[in->reg] : unknown_val);
	case 0x8b:	/* mov r/m -> reg */
		if (reg_form)
			return set_reg(s, in->reg, wide ? s->r[in->rm] : unknown_val);
		if (wide && in->base < 16 && in->index == RS_X86_NO_REG && !in->rip_rel &&
		    s->r[in->base].kind == V_ARG && s->r[in->base].arg == 0)
			return set_reg(s, in->reg, (struct reg_val){ V_LEN, 0, false, in->disp });
		return set_reg(s, in->reg, unknown_val);
	case 0x8d:	/* lea: len * 8 as (,%reg,8), else an address */
		if (wide && in->base == RS_X86_NO_REG && in->index < 16 && in->scale == 8 &&
		    !in->disp && !in->rip_rel && s->r[in->index].kind == V_LEN && !s->r[in->index].x8) {
			struct reg_val v = s->r[in->index];

			v.x8 = true;
			return set_reg(s, in->reg, v);
		}
		return set_reg(s, in->reg, unknown_val);
	case 0xc1:	/* shl $3 of a length; other shifts and rotates clobber */
		if (!reg_form)
			return false;
		if (ext == 4 && wide && in->imm == 3 && s->r[in->rm].kind == V_LEN && !s->r[in->rm].x8) {
			s->r[in->rm].x8 = true;
			return true;
		}
		return set_reg(s, in->rm, unknown_val);
	case 0x81:
	case 0x83:	/* add/sub on rsp move the frame; cmp writes nothing */
		if (rs_x86_rsp_adjust(in, &down)) {
			s->sp_moved += (uint64_t)down;
			return true;
		}
		if (ext == 7)
			return true;
		return reg_form && set_reg(s, in->rm, unknown_val);
	case 0x84: case 0x85: case 0x38: case 0x39: case 0x3a: case 0x3b:
		return true;	/* test, cmp */
	case 0x01: case 0x09: case 0x21: case 0x29: case 0x31:	/* op reg -> r/m */
		return reg_form && set_reg(s, in->rm, unknown_val);
	case 0x03: case 0x0b: case 0x23: case 0x2b: case 0x33:	/* op r/m -> reg */
		return set_reg(s, in->reg, unknown_val);
	}
	if (op >= 0xb8 && op <= 0xbf)		/* mov $imm, reg */
		return set_reg(s, (op & 7) | (in->rex & 1 ? 8 : 0), unknown_val);
	return false;
}

/* The register holding want, or -1. */
static int find_reg(const struct start_state *s, enum val_kind kind, unsigned int arg, int64_t off,
		    bool *x8)
{
	for (int i = 0; i < 16; i++) {
		const struct reg_val *v = &s->r[i];

		if (v->kind != kind || (kind == V_ARG && v->arg != arg) || (kind == V_LEN && v->off != off))
			continue;
		if (x8)
			*x8 = v->x8;
		return i;
	}
	return -1;
}

/* ---- the whole body: every path from the entry ---------------------------- */

struct body {
	const uint8_t *code;
	uint64_t vaddr, size;
	int32_t *owner;		/* per byte: the offset of the instruction covering it, -1 none */
	uint32_t *todo;		/* offsets still to decode */
	size_t nr_todo;
	uint64_t exit_at, exit_to;	/* the one jump out */
	unsigned int nr_exits;
};

static int body_push(struct body *b, uint64_t to, char *why, size_t whylen)
{
	if (to < b->vaddr || to >= b->vaddr + b->size)
		return refuse(why, whylen, "a branch to 0x%llx leaves it", (unsigned long long)to);
	b->todo[b->nr_todo++] = (uint32_t)(to - b->vaddr);
	return 0;
}

/*
 * Decode every instruction a path from the entry reaches; each byte belongs
 * to one instruction. regs_at: the probe on the first branch, which no
 * branch may reach again (it would count one message twice).
 */
static int walk_body(struct body *b, uint64_t regs_at, char *why, size_t whylen)
{
	b->todo[b->nr_todo++] = 0;
	while (b->nr_todo) {
		uint32_t off = b->todo[--b->nr_todo];
		struct rs_x86_insn in;

		while (b->owner[off] != (int32_t)off) {
			if (b->owner[off] >= 0)
				return refuse(why, whylen, "a jump into the middle of an instruction at +0x%x", off);
			if (rs_x86_decode(b->code + off, b->size - off, b->vaddr + off, &in))
				return refuse(why, whylen, "an instruction at +0x%x it does not decode", off);
			for (unsigned int i = 0; i < in.len; i++) {
				if (b->owner[off + i] >= 0)
					return refuse(why, whylen, "overlapping instructions at +0x%x", off + i);
				b->owner[off + i] = (int32_t)off;
			}
			if ((in.flow == RS_X86_JCC || in.flow == RS_X86_JMP) && in.target <= regs_at &&
			    in.target >= b->vaddr)
				return refuse(why, whylen, "a jump back to its start at +0x%x", off);
			switch (in.flow) {
			case RS_X86_JCC:
				if (body_push(b, in.target, why, whylen))
					return -ENOTSUP;
				break;
			case RS_X86_JMP:
				if (in.target >= b->vaddr && in.target < b->vaddr + b->size) {
					if (body_push(b, in.target, why, whylen))
						return -ENOTSUP;
				} else {
					if (b->nr_exits++)
						return refuse(why, whylen, "more than one jump out of it");
					b->exit_at = in.addr;
					b->exit_to = in.target;
				}
				goto next_path;
			case RS_X86_JMP_IND:
				return refuse(why, whylen, "an indirect jump at +0x%x", off);
			case RS_X86_RET:
			case RS_X86_TRAP:
				goto next_path;
			default:
				break;
			}
			off += in.len;
			if (off >= b->size)
				return refuse(why, whylen, "code running past its end");
		}
next_path:;
	}
	return 0;
}

/* ---- where the jump out goes ---------------------------------------------- */

/* The name of the dynamic symbol whose PLT/GOT slot is at got, in buf; false if none. */
static bool slot_symbol(int fd, uint64_t got, char *buf, size_t len)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return false;
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		Elf_Scn *symscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    symsh.sh_type != SHT_DYNSYM || !(data = elf_getdata(scn, NULL)) ||
		    !(syms = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned int type;

			if (!gelf_getrela(data, (int)i, &r) || r.r_offset != got)
				continue;
			type = (unsigned int)GELF_R_TYPE(r.r_info);
			if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) &&
			    gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) &&
			    (name = elf_strptr(elf, symsh.sh_link, sym.st_name))) {
				snprintf(buf, len, "%s", name);
				found = true;
			}
			break;
		}
	}
	elf_end(elf);
	return found;
}

/* Whether a jump to `to` reaches CRYPTO_memcmp: its address, or a PLT stub's slot naming it. */
static bool jumps_to_memcmp(int fd, const struct rs_symtab *st, uint64_t to)
{
	uint64_t memcmp_at, size, off;
	uint8_t stub[16];
	struct rs_x86_insn in;
	char name[64];

	if (!rs_symtab_find(st, "CRYPTO_memcmp", &memcmp_at, &size) && to == memcmp_at)
		return true;
	if (rs_symtab_vaddr_to_offset(st, to, &off) ||
	    pread(fd, stub, sizeof(stub), (off_t)off) != (ssize_t)sizeof(stub))
		return false;
	/* A PLT entry: [endbr64] [bnd] jmp *slot(%rip) */
	if (rs_x86_decode(stub, sizeof(stub), to, &in))
		return false;
	if (in.opcode == 0x0f1e && in.rep) {
		size_t at = in.len;

		if (rs_x86_decode(stub + at, sizeof(stub) - at, to + at, &in))
			return false;
	}
	if (in.flow != RS_X86_JMP_IND || !in.rip_rel)
		return false;
	return slot_symbol(fd, in.addr + in.len + (uint64_t)in.disp, name, sizeof(name)) &&
	       !strcmp(name, "CRYPTO_memcmp");
}

int ossl_finish_scan(const uint8_t *code, uint64_t size, uint64_t vaddr, struct ossl_finish_points *out,
		     uint64_t *exit_to, char *why, size_t whylen)
{
	struct start_state s = { 0 };
	struct body b = { 0 };
	struct rs_x86_insn in;
	int ctx, tag, taglen, aad, payload, err;
	bool aad_x8 = false, payload_x8 = false;

	memset(out, 0, sizeof(*out));
	if (size > FINISH_MAX_BYTES)
		return refuse(why, whylen, "%llu bytes long", (unsigned long long)size);
	/* The start, to the first branch. */
	s.r[7] = (struct reg_val){ V_ARG, 0, false, 0 };
	s.r[6] = (struct reg_val){ V_ARG, 1, false, 0 };
	s.r[2] = (struct reg_val){ V_ARG, 2, false, 0 };
	for (uint64_t at = 0;; at += in.len) {
		if (at >= size || rs_x86_decode(code + at, size - at, vaddr + at, &in))
			return refuse(why, whylen, "an instruction at +0x%llx it does not decode",
				      (unsigned long long)at);
		if (in.flow != RS_X86_NEXT)
			break;
		if (!step(&s, &in))
			return refuse(why, whylen, "an instruction at +0x%llx it does not follow",
				      (unsigned long long)at);
	}
	ctx = find_reg(&s, V_ARG, 0, 0, NULL);
	tag = find_reg(&s, V_ARG, 1, 0, NULL);
	taglen = find_reg(&s, V_ARG, 2, 0, NULL);
	aad = find_reg(&s, V_LEN, 0, LEN_AAD_OFF, &aad_x8);
	payload = find_reg(&s, V_LEN, 0, LEN_PAYLOAD_OFF, &payload_x8);
	if (in.flow != RS_X86_JCC || ctx < 0 || tag < 0 || taglen < 0 || aad < 0 || payload < 0 ||
	    s.sp_moved % 8 || s.sp_moved / 8 > OSSL_FIN_RA_WORDS_MAX)
		return refuse(why, whylen, "its first branch (+0x%llx) is reached without both lengths "
			      "and its arguments in registers", (unsigned long long)(in.addr - vaddr));
	out->func_vaddr = vaddr;
	out->regs_vaddr = in.addr;
	out->layout = (uint32_t)ctx << OSSL_FIN_CTX_SHIFT | (uint32_t)tag << OSSL_FIN_TAG_SHIFT |
		      (uint32_t)taglen << OSSL_FIN_TAGLEN_SHIFT | (uint32_t)aad << OSSL_FIN_AAD_SHIFT |
		      (uint32_t)payload << OSSL_FIN_PAYLOAD_SHIFT | (aad_x8 ? OSSL_FIN_AAD_X8 : 0) |
		      (payload_x8 ? OSSL_FIN_PAYLOAD_X8 : 0) |
		      (uint32_t)(s.sp_moved / 8) << OSSL_FIN_RA_WORDS_SHIFT;
	/* Every path on: one way out besides returns, a tail jump. */
	b.code = code;
	b.vaddr = vaddr;
	b.size = size;
	b.owner = malloc(size * sizeof(*b.owner));
	b.todo = malloc((size + 1) * sizeof(*b.todo));
	if (!b.owner || !b.todo) {
		snprintf(why, whylen, "out of memory");
		err = -ENOMEM;
	} else {
		memset(b.owner, 0xff, size * sizeof(*b.owner));
		err = walk_body(&b, out->regs_vaddr, why, whylen);
	}
	if (!err && b.nr_exits != 1)
		err = refuse(why, whylen, "no tail jump out of it");
	free(b.owner);
	free(b.todo);
	if (err)
		return err;
	out->cmp_vaddr = b.exit_at;
	*exit_to = b.exit_to;
	return 0;
}

int ossl_finish_points_find(int fd, const struct rs_symtab *st, struct ossl_finish_points *out,
			    char *why, size_t whylen)
{
	uint64_t vaddr, size, off, exit_to;
	uint8_t *code;
	int err;

	memset(out, 0, sizeof(*out));
	if (rs_symtab_find(st, "CRYPTO_gcm128_finish", &vaddr, &size) || !size ||
	    rs_symtab_vaddr_to_offset(st, vaddr, &off))
		return refuse(why, whylen, "its size or place in the file is unknown");
	if (size > FINISH_MAX_BYTES)
		return refuse(why, whylen, "%llu bytes long", (unsigned long long)size);
	code = malloc(size);
	if (!code) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (pread(fd, code, size, (off_t)off) != (ssize_t)size)
		err = refuse(why, whylen, "its code could not be read");
	else
		err = ossl_finish_scan(code, size, vaddr, out, &exit_to, why, whylen);
	free(code);
	if (!err && !jumps_to_memcmp(fd, st, exit_to)) {
		memset(out, 0, sizeof(*out));
		err = refuse(why, whylen, "its tail jump does not go to CRYPTO_memcmp");
	}
	return err;
}
