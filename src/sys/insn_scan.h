/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: where a function's x86-64 machine code returns, by decoding it. */
#ifndef RINGSIDE_INSN_SCAN_H
#define RINGSIDE_INSN_SCAN_H

#include <stddef.h>
#include <stdint.h>

struct rs_func_exits {
	uint64_t *rets;		/* addresses of every RET in the function */
	unsigned int nr_rets;
	/* The first way out that is not a RET (a jump or tail call leaving the
	 * function, an undecodable byte): the caller's result would be lost there. */
	uint64_t escape_at;
	char escape[64];	/* "" when there is none */
};

/*
 * Decode code (len bytes, loaded at vaddr) from its start to its end with a
 * real disassembler (capstone). Trailing padding (int3) after the last
 * instruction is ignored. Returns 0 or a negative errno; free with
 * rs_func_exits_free().
 */
int rs_func_exits_find(const uint8_t *code, size_t len, uint64_t vaddr, struct rs_func_exits *out);
void rs_func_exits_free(struct rs_func_exits *fx);
/* NULL when the disassembler can be used, else why not (the library is opened on first use). */
const char *rs_insn_scan_unavailable(void);

#endif
