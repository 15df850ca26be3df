// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Lengths and operands from the Intel SDM's opcode maps (Vol. 2, App. A),
 * for the subset listed in x86_decode.h. Each opcode's form is a row of
 * flags: whether a ModRM byte follows, what immediate, whether it branches.
 */
#include <errno.h>
#include <string.h>

#include "x86_decode.h"

enum {
	F_BAD = 0,		/* not in the subset */
	F_OK = 1 << 0,		/* no operand bytes */
	F_MODRM = 1 << 1,
	F_IMM8 = 1 << 2,
	F_IMMZ = 1 << 3,	/* 32 bits, 16 with 0x66 */
	F_REL8 = 1 << 4,
	F_REL32 = 1 << 5,
	F_IMMV = 1 << 6,	/* mov r, imm: 64 bits with REX.W */
	F_GRP3 = 1 << 7,	/* f6/f7: /0 and /1 take an immediate */
	F_IMM16 = 1 << 8,
};

/* One-byte opcodes. */
static uint16_t form1(uint8_t op)
{
	if (op < 0x40 && (op & 7) < 4)
		return F_MODRM;		/* ALU r/m forms: add..cmp */
	if (op < 0x40 && (op & 7) == 4)
		return F_IMM8;		/* ALU al, imm8 */
	if (op < 0x40 && (op & 7) == 5)
		return F_IMMZ;		/* ALU eax, imm32 */
	if (op >= 0x50 && op <= 0x5f)
		return F_OK;		/* push, pop */
	if (op >= 0x70 && op <= 0x7f)
		return F_REL8;		/* jcc */
	if (op >= 0x84 && op <= 0x8b)
		return F_MODRM;		/* test, xchg, mov */
	if (op >= 0x90 && op <= 0x99)
		return F_OK;		/* nop, xchg, cwde/cdqe, cdq/cqo */
	if (op >= 0xb0 && op <= 0xb7)
		return F_IMM8;
	if (op >= 0xb8 && op <= 0xbf)
		return F_IMMV;
	if (op >= 0xd0 && op <= 0xd3)
		return F_MODRM;		/* shifts by 1, by cl */
	switch (op) {
	case 0x63: case 0x8d: case 0x8f: case 0xfe: case 0xff:
		return F_MODRM;		/* movsxd, lea, pop r/m, inc/dec, group 5 */
	case 0x68: return F_IMMZ;
	case 0x6a: case 0xa8: return F_IMM8;
	case 0x69: case 0x81: case 0xc7: return F_MODRM | F_IMMZ;
	case 0x6b: case 0x80: case 0x83: case 0xc0: case 0xc1: case 0xc6:
		return F_MODRM | F_IMM8;
	case 0xa9: return F_IMMZ;
	case 0xc2: return F_IMM16;	/* ret imm16 */
	case 0xc3: case 0xc9: case 0xcc: case 0xf4: return F_OK;	/* ret, leave, int3, hlt */
	case 0xe8: case 0xe9: return F_REL32;
	case 0xeb: return F_REL8;
	case 0xf6: case 0xf7: return F_MODRM | F_GRP3;	/* test r/m, imm: /0, /1 */
	}
	return F_BAD;
}

/* Two-byte opcodes (0f xx). */
static uint16_t form2(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f)
		return F_REL32;		/* jcc */
	if (op >= 0xc8 && op <= 0xcf)
		return F_OK;		/* bswap */
	if ((op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) || (op >= 0x40 && op <= 0x6f) ||
	    (op >= 0x74 && op <= 0x7f && op != 0x77) || (op >= 0x90 && op <= 0x9f) ||
	    (op >= 0xd0 && op <= 0xfe))
		return F_MODRM;		/* SSE, cmovcc, setcc */
	switch (op) {
	case 0x0b: case 0x77: return F_OK;	/* ud2, emms */
	case 0x18: case 0x1e: case 0x1f: return F_MODRM;	/* prefetch, endbr64 (f3 0f 1e fa), nop r/m */
	case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba: case 0xc2:
	case 0xc4: case 0xc5: case 0xc6:
		return F_MODRM | F_IMM8;
	case 0xa3: case 0xa5: case 0xab: case 0xad: case 0xaf: case 0xb0: case 0xb1: case 0xb3:
	case 0xb6: case 0xb7: case 0xbb: case 0xbc: case 0xbd: case 0xbe: case 0xbf: case 0xc0:
	case 0xc1:
		return F_MODRM;
	}
	return F_BAD;
}

static bool take(const uint8_t **p, size_t *left, size_t n)
{
	if (*left < n)
		return false;
	*p += n;
	*left -= n;
	return true;
}

static int64_t read_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	/* sign-extend */
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	return (int64_t)v;
}

/* The ModRM byte, a SIB byte and the displacement that follow it. */
static int decode_modrm(const uint8_t **p, size_t *left, struct rs_x86_insn *in)
{
	const uint8_t *at = *p;
	uint8_t modrm, rm;
	unsigned int disp_len = 0;

	if (!take(p, left, 1))
		return -EINVAL;
	modrm = at[0];
	in->has_modrm = true;
	in->mod = modrm >> 6;
	in->reg = ((modrm >> 3) & 7) | (in->rex & 4 ? 8 : 0);
	rm = modrm & 7;
	in->base = in->index = in->rm = RS_X86_NO_REG;
	in->scale = 1;
	if (in->mod == 3) {
		in->rm = rm | (in->rex & 1 ? 8 : 0);
		return 0;
	}
	if (rm == 4) {
		uint8_t sib, idx, base;

		if (!take(p, left, 1))
			return -EINVAL;
		sib = at[1];
		in->scale = (uint8_t)(1u << (sib >> 6));
		idx = ((sib >> 3) & 7) | (in->rex & 2 ? 8 : 0);
		base = sib & 7;
		in->index = idx == 4 ? RS_X86_NO_REG : idx;
		if (base == 5 && in->mod == 0)
			disp_len = 4;	/* no base */
		else
			in->base = base | (in->rex & 1 ? 8 : 0);
	} else if (rm == 5 && in->mod == 0) {
		in->rip_rel = true;
		disp_len = 4;
	} else {
		in->base = rm | (in->rex & 1 ? 8 : 0);
	}
	if (in->mod == 1)
		disp_len = 1;
	else if (in->mod == 2)
		disp_len = 4;
	if (disp_len) {
		const uint8_t *d = *p;

		if (!take(p, left, disp_len))
			return -EINVAL;
		in->disp = read_le(d, disp_len);
	}
	return 0;
}

static enum rs_x86_flow flow_of(const struct rs_x86_insn *in)
{
	switch (in->opcode) {
	case 0xc2: case 0xc3: return RS_X86_RET;
	case 0xcc: case 0xf4: case 0x0f0b: return RS_X86_TRAP;
	case 0xe8: return RS_X86_CALL;
	case 0xe9: case 0xeb: return RS_X86_JMP;
	case 0xff:
		if (in->reg % 8 == 2)
			return RS_X86_CALL_IND;
		if (in->reg % 8 == 4)
			return RS_X86_JMP_IND;
		return RS_X86_NEXT;
	}
	if ((in->opcode >= 0x70 && in->opcode <= 0x7f) || (in->opcode >= 0x0f80 && in->opcode <= 0x0f8f))
		return RS_X86_JCC;
	return RS_X86_NEXT;
}

int rs_x86_decode(const uint8_t *code, size_t left, uint64_t addr, struct rs_x86_insn *out)
{
	const uint8_t *p = code;
	struct rs_x86_insn in;
	uint16_t form;
	uint8_t op;

	memset(&in, 0, sizeof(in));
	in.addr = addr;
	in.base = in.index = in.rm = RS_X86_NO_REG;
	for (;; take(&p, &left, 1)) {	/* legacy prefixes */
		if (!left)
			return -EINVAL;
		if (*p == 0x66)
			in.opsize16 = true;
		else if (*p == 0xf2 || *p == 0xf3)
			in.rep = true;
		else if (*p != 0x2e && *p != 0x3e)	/* branch hints, notrack */
			break;
	}
	if ((*p & 0xf0) == 0x40) {
		in.rex = *p;
		take(&p, &left, 1);
	}
	if (!left)
		return -EINVAL;
	op = *p;
	take(&p, &left, 1);
	if (op != 0x0f) {
		in.opcode = op;
		form = form1(op);
	} else {
		if (!left)
			return -EINVAL;
		op = *p;
		take(&p, &left, 1);
		in.opcode = (uint16_t)(0x0f00 | op);
		if (op == 0x38 || op == 0x3a) {
			if (!left)
				return -EINVAL;
			in.op3 = *p;
			take(&p, &left, 1);
			form = op == 0x38 ? F_MODRM : F_MODRM | F_IMM8;
		} else {
			form = form2(op);
		}
	}
	if (form == F_BAD)
		return -EINVAL;
	if ((form & F_MODRM) && decode_modrm(&p, &left, &in))
		return -EINVAL;
	/* Group 5's far call and jump (/3, /5) and /7 are not in the subset. */
	if (in.opcode == 0xff && (in.reg % 8 == 3 || in.reg % 8 == 5 || in.reg % 8 == 7))
		return -EINVAL;
	if ((form & F_GRP3) && in.reg % 8 < 2)
		form |= in.opcode == 0xf6 ? F_IMM8 : F_IMMZ;
	{
		unsigned int n = 0;
		const uint8_t *imm = p;

		if (form & (F_IMM8 | F_REL8))
			n = 1;
		else if (form & F_IMM16)
			n = 2;
		else if (form & F_IMMZ)
			n = in.opsize16 ? 2 : 4;
		else if (form & F_REL32)
			n = 4;
		else if (form & F_IMMV)
			n = rs_x86_rex_w(&in) ? 8 : in.opsize16 ? 2 : 4;
		if (n && !take(&p, &left, n))
			return -EINVAL;
		if (n)
			in.imm = read_le(imm, n);
	}
	in.len = (uint8_t)(p - code);
	if (in.len > 15)
		return -EINVAL;
	in.flow = flow_of(&in);
	if (form & (F_REL8 | F_REL32))
		in.target = addr + in.len + (uint64_t)in.imm;
	*out = in;
	return 0;
}
