// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_argmap.h"
#include "probe_point.h"
#include "x86_decode.h"

/* Instructions arch/x86/kernel/uprobes.c handles without single-stepping. */
static bool x86_emulated(const uint8_t *p, size_t len)
{
	if (len < 1)
		return false;
	if (p[0] >= 0x50 && p[0] <= 0x57)		/* push r64 */
		return true;
	if (len >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)	/* push r8..r15 */
		return true;
	if (p[0] == 0xe8 || p[0] == 0xe9 || p[0] == 0xeb)	/* call, jmp */
		return true;
	if (p[0] >= 0x70 && p[0] <= 0x7f)			/* jcc rel8 */
		return true;
	return len >= 2 && p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f;	/* jcc rel32 */
}

/* Registers a skipped instruction may write: not rsp, not an argument register. */
static bool scratch_reg(unsigned int reg)
{
	switch (reg) {
	case 0:		/* rax */
	case 3:		/* rbx */
	case 5:		/* rbp */
	case 10: case 11: case 12: case 13: case 14: case 15:
		return true;
	}
	return false;
}

/* Length of a skippable instruction at p, 0 when it must not be skipped. */
static size_t x86_skippable(const uint8_t *p, size_t len)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (len >= 4 && !memcmp(p, endbr64, 4))
		return 4;
	/* lea disp32(%rip), r64: REX.W [+R] 8d, ModRM mod=00 rm=101 */
	if (len >= 7 && (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x8d && (p[2] & 0xc7) == 0x05) {
		unsigned int reg = ((p[2] >> 3) & 7) | (p[0] == 0x4c ? 8 : 0);

		return scratch_reg(reg) ? 7 : 0;
	}
	return 0;
}

struct rs_probe_point rs_probe_point_choose(const uint8_t *code, size_t len)
{
	struct rs_probe_point pp = { 0, x86_emulated(code, len) };
	size_t off = 0;

	if (pp.emulated)
		return pp;
	for (int i = 0; i < 3; i++) {
		size_t n = x86_skippable(code + off, len - off);

		if (!n)
			break;
		off += n;
		if (x86_emulated(code + off, len - off)) {
			pp.skip = (uint32_t)off;
			pp.emulated = true;
			break;
		}
	}
	return pp;
}

/* ---- following a prologue's registers ------------------------------------ */

#define FOLLOW_MAX_INSNS 16
#define FOLLOW_FUNC_MAX (64u << 10)
#define REG_UNKNOWN 0xff

/* rdi, rsi, rdx, rcx, r8, r9: where the SysV ABI passes arguments 0-5. */
static const uint8_t arg_regs[6] = { 7, 6, 2, 1, 8, 9 };

static int follow_refuse(char *why, size_t whylen, const char *what, uint64_t at)
{
	snprintf(why, whylen, "%s at +0x%llx", what, (unsigned long long)at);
	return -ENOTSUP;
}

struct follow_state {
	uint8_t holds[16];	/* per register: the argument it holds whole, REG_UNKNOWN if none */
	int64_t sp_moved;	/* bytes subtracted from rsp since the entry */
};

static bool clobber(struct follow_state *s, unsigned int reg)
{
	if (reg >= 16 || reg == RS_X86_RSP)
		return false;
	s->holds[reg] = REG_UNKNOWN;
	return true;
}

/* One instruction before the probe point; false for anything not followed exactly. */
static bool follow_step(struct follow_state *s, const struct rs_x86_insn *in)
{
	unsigned int op = in->opcode, ext = in->reg % 8;
	bool wide = rs_x86_rex_w(in), reg_form = in->has_modrm && in->mod == 3;
	int64_t down;

	if ((op == 0x0f1e && in->rep) || op == 0x0f1f || (op == 0x90 && !(in->rex & 1)))
		return true;			/* endbr64, nops */
	switch (op) {
	case 0x89:	/* mov reg -> r/m: a register copy; no store is followed */
		if (!reg_form || in->rm == RS_X86_RSP)
			return false;
		s->holds[in->rm] = wide ? s->holds[in->reg] : REG_UNKNOWN;
		return true;
	case 0x8b:	/* mov r/m -> reg: a copy, or a load */
		if (in->reg == RS_X86_RSP)
			return false;
		s->holds[in->reg] = reg_form && wide ? s->holds[in->rm] : REG_UNKNOWN;
		return true;
	case 0x8d:	/* lea: an address, no memory access */
		return clobber(s, in->reg);
	case 0x81:
	case 0x83:	/* add/sub on rsp move the frame; cmp reads only */
		if (rs_x86_rsp_adjust(in, &down)) {
			s->sp_moved += down;
			return true;
		}
		if (ext == 7)
			return true;
		return reg_form && clobber(s, in->rm);
	case 0x84: case 0x85: case 0x38: case 0x39: case 0x3a: case 0x3b:
		return true;		/* test, cmp: read only */
	case 0x01: case 0x09: case 0x21: case 0x29: case 0x31:	/* op reg -> r/m */
		return reg_form && clobber(s, in->rm);
	case 0x03: case 0x0b: case 0x23: case 0x2b: case 0x33:	/* op r/m -> reg */
		return clobber(s, in->reg);
	case 0xc7:		/* mov $imm32, r/m */
		return reg_form && ext == 0 && clobber(s, in->rm);
	}
	if (op >= 0xb8 && op <= 0xbf)	/* mov $imm, reg */
		return clobber(s, (op & 7) | (in->rex & 1 ? 8 : 0));
	return false;
}

/*
 * Every path from the entry: 0 when none branches to a point in (0, at],
 * which would reach the probe without the start's effects.
 */
static int no_branch_into_start(const uint8_t *code, size_t size, uint32_t at, char *why, size_t whylen)
{
	uint8_t *seen = calloc((size + 7) / 8, 1);
	uint32_t *todo = malloc((size + 1) * sizeof(*todo));
	size_t nr_todo = 0;
	int err = 0;

	if (!seen || !todo) {
		err = follow_refuse(why, whylen, "out of memory", 0);
		goto out;
	}
	todo[nr_todo++] = 0;
	while (nr_todo && !err) {
		uint32_t off = todo[--nr_todo];

		while (!err && !(seen[off / 8] & (1u << (off % 8)))) {
			struct rs_x86_insn in;

			seen[off / 8] |= (uint8_t)(1u << (off % 8));
			if (rs_x86_decode(code + off, size - off, off, &in)) {
				err = follow_refuse(why, whylen, "an instruction it does not decode", off);
				break;
			}
			if (in.flow == RS_X86_JCC || in.flow == RS_X86_JMP) {
				if (in.target > 0 && in.target <= at) {
					err = follow_refuse(why, whylen, "a branch back into its start", off);
					break;
				}
				if (in.target < size && nr_todo <= size)
					todo[nr_todo++] = (uint32_t)in.target;
				if (in.flow == RS_X86_JMP)
					break;
			} else if (in.flow == RS_X86_JMP_IND) {
				err = follow_refuse(why, whylen, "an indirect jump", off);
				break;
			} else if (in.flow == RS_X86_RET || in.flow == RS_X86_TRAP) {
				break;
			}
			off += in.len;
			if (off >= size)
				err = follow_refuse(why, whylen, "code running past its end", off);
		}
	}
out:
	free(seen);
	free(todo);
	return err;
}

int rs_probe_point_follow(const uint8_t *code, size_t size, unsigned int nargs,
			  struct rs_probe_point *out, char *why, size_t whylen)
{
	struct follow_state s;
	struct rs_x86_insn in;
	uint32_t map = RS_ARGMAP_ON, at = 0;
	int insns = 0;

	if (nargs > RS_ARGMAP_ARGS || size > FOLLOW_FUNC_MAX)
		return follow_refuse(why, whylen, "more than it follows", 0);
	memset(s.holds, REG_UNKNOWN, sizeof(s.holds));
	for (unsigned int i = 0; i < 6; i++)
		s.holds[arg_regs[i]] = (uint8_t)i;
	s.sp_moved = 0;
	for (;; at += in.len) {
		if (at >= size || rs_x86_decode(code + at, size - at, at, &in))
			return follow_refuse(why, whylen, "an instruction it does not decode", at);
		if (x86_emulated(code + at, size - at))
			break;
		if (in.flow != RS_X86_NEXT || ++insns > FOLLOW_MAX_INSNS || !follow_step(&s, &in))
			return follow_refuse(why, whylen, "an instruction it does not follow", at);
	}
	if (!at)
		return follow_refuse(why, whylen, "an emulated first instruction", 0);
	if (s.sp_moved < 0 || s.sp_moved % 8 || s.sp_moved / 8 > RS_ARGMAP_RA_MAX)
		return follow_refuse(why, whylen, "a stack pointer it cannot place", at);
	for (unsigned int n = 0; n < nargs; n++) {
		int reg = -1;

		/* Its own register first: the map then matches the entry's where it can. */
		for (int r = 0; r < 16 && reg < 0; r++)
			if (s.holds[(arg_regs[n] + r) % 16] == n)
				reg = (arg_regs[n] + r) % 16;
		if (reg < 0)
			return follow_refuse(why, whylen, "an argument no register holds", at);
		map |= (uint32_t)reg << (4 * n);
	}
	if (no_branch_into_start(code, size, at, why, whylen))
		return -ENOTSUP;
	out->skip = at;
	out->emulated = true;
	out->argmap = map | (uint32_t)(s.sp_moved / 8) << RS_ARGMAP_RA_SHIFT;
	return 0;
}
