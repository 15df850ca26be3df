// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "probe_point.h"

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
