// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A function's exits, for return probes that are plain uprobes on its RET
 * instructions (Go: a uretprobe's rewritten return address breaks its stack
 * unwinding). Decoding the whole body, rather than searching for 0xc3 bytes,
 * is what finds only real instructions; any other way out (a jump leaving
 * the body, an indirect jump) is reported so that the caller can refuse the
 * function instead of missing its returns.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_bind.h"
#include "insn_scan.h"

/* capstone, opened when a Go binary is first decoded (dl_bind.h). */
#define CS_FNS(X) X(cs_open) X(cs_option) X(cs_malloc) X(cs_disasm_iter) X(cs_insn_group) \
		  X(cs_free) X(cs_close)
RS_DL_LIBRARY(cs, "libcapstone.so.4", "libcapstone4", CS_FNS)

const char *rs_insn_scan_unavailable(void)
{
	return cs_unavailable();
}

static int push_ret(struct rs_func_exits *fx, uint64_t at)
{
	uint64_t *n = realloc(fx->rets, (fx->nr_rets + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	fx->rets = n;
	fx->rets[fx->nr_rets++] = at;
	return 0;
}

static void escape(struct rs_func_exits *fx, uint64_t at, const char *what)
{
	if (fx->escape[0])
		return;
	fx->escape_at = at;
	snprintf(fx->escape, sizeof(fx->escape), "%s", what);
}

/* Whether the bytes from p on are only padding (int3 or zeros). */
static int only_padding(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xcc && p[i] != 0)
			return 0;
	return 1;
}

/* A jump's way out: 0 when it stays in [lo, hi). */
static void check_jump(struct rs_func_exits *fx, const cs_insn *insn, uint64_t lo, uint64_t hi)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		uint64_t to = (uint64_t)x->operands[0].imm;

		if (to < lo || to >= hi)
			escape(fx, insn->address, "a jump out of the function");
		return;
	}
	escape(fx, insn->address, "an indirect jump");
}

int rs_func_exits_find(const uint8_t *code, size_t len, uint64_t vaddr, struct rs_func_exits *out)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = vaddr;
	cs_insn *insn;
	csh h;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (rs_insn_scan_unavailable())
		return -ENOSYS;
	if (cs.cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOSYS;
	cs.cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs.cs_malloc(h);
	if (!insn) {
		cs.cs_close(&h);
		return -ENOMEM;
	}
	while (left && !err) {
		uint64_t here = at;

		if (!cs.cs_disasm_iter(h, &p, &left, &at, insn)) {
			if (!only_padding(p, left))
				escape(out, here, "an undecodable instruction");
			break;
		}
		if (cs.cs_insn_group(h, insn, CS_GRP_RET))
			err = push_ret(out, insn->address);
		else if (cs.cs_insn_group(h, insn, CS_GRP_JUMP))
			check_jump(out, insn, vaddr, vaddr + len);
	}
	cs.cs_free(insn, 1);
	cs.cs_close(&h);
	if (err)
		rs_func_exits_free(out);
	return err;
}

void rs_func_exits_free(struct rs_func_exits *fx)
{
	free(fx->rets);
	memset(fx, 0, sizeof(*fx));
}
