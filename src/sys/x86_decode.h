/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: a small x86-64 decoder for the integer and SSE instructions
 * compilers emit in plain C functions, enough to follow a function's
 * control flow and to read what its first instructions do with registers.
 * Anything outside that subset (VEX/EVEX, x87, system instructions) is
 * refused, never guessed: a caller that cannot decode a function leaves it
 * alone. capstone (insn_scan.c) is the full decoder; this one costs nothing
 * to load (capstone's relocated tables are 3 MB of a command's RSS).
 */
#ifndef RINGSIDE_X86_DECODE_H
#define RINGSIDE_X86_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rs_x86_flow {
	RS_X86_NEXT,		/* falls through */
	RS_X86_JCC,		/* conditional: target or fall through */
	RS_X86_JMP,		/* relative jump to target */
	RS_X86_CALL,		/* relative call to target, then falls through */
	RS_X86_CALL_IND,	/* indirect call, then falls through */
	RS_X86_JMP_IND,		/* indirect jump */
	RS_X86_RET,
	RS_X86_TRAP,		/* int3, ud2, hlt: no way on */
};

/* x86 register numbers: rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7, r8-r15 8-15. */
#define RS_X86_RSP 4
#define RS_X86_NO_REG 0xff

struct rs_x86_insn {
	uint64_t addr;
	uint64_t target;	/* JCC, JMP, CALL */
	int64_t disp;		/* the memory operand's displacement */
	int64_t imm;
	uint16_t opcode;	/* one byte, or 0x0f00 | the second byte (0x0f38/0x0f3a: third in op3) */
	uint8_t op3;
	uint8_t len;
	uint8_t rex;		/* 0 without a REX prefix */
	bool opsize16;		/* 0x66 prefix */
	bool rep;		/* 0xf2 or 0xf3 prefix */
	bool has_modrm;
	uint8_t mod;		/* ModRM.mod: 3 is a register operand */
	uint8_t reg;		/* ModRM.reg with REX.R: a register or an opcode extension */
	uint8_t rm;		/* mod 3: the register (with REX.B); else RS_X86_NO_REG */
	uint8_t base;		/* memory operand: base register, RS_X86_NO_REG for none */
	uint8_t index;		/* ... index register, RS_X86_NO_REG for none */
	uint8_t scale;		/* ... 1, 2, 4 or 8 */
	bool rip_rel;		/* ... disp(%rip) */
	enum rs_x86_flow flow;
};

/*
 * Decode one instruction at code (left bytes, loaded at addr). 0, or
 * -EINVAL when it is outside the subset or runs past left.
 */
int rs_x86_decode(const uint8_t *code, size_t left, uint64_t addr, struct rs_x86_insn *out);

/* True for a 64-bit register write of the form "op reg/mem, reg" (REX.W set). */
static inline bool rs_x86_rex_w(const struct rs_x86_insn *in)
{
	return in->rex & 8;
}

/* add/sub $imm, %rsp: true, with the bytes it moves the stack pointer down by (negative: up). */
static inline bool rs_x86_rsp_adjust(const struct rs_x86_insn *in, int64_t *down)
{
	unsigned int ext = in->reg % 8;

	if ((in->opcode != 0x81 && in->opcode != 0x83) || !in->has_modrm || in->mod != 3 ||
	    in->rm != RS_X86_RSP || !rs_x86_rex_w(in) || (ext != 5 && ext != 0))
		return false;
	*down = ext == 5 ? in->imm : -in->imm;
	return true;
}

#endif
