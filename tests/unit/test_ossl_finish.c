// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The small x86 decoder (src/sys/x86_decode.c) against capstone over every
 * exported function of this machine's libcrypto, and the search for the
 * probe points inside OpenSSL's CRYPTO_gcm128_finish
 * (src/gcm/ossl_finish_points.c): found in the real library, found in a
 * hand-assembled function, refused in each way the code could be uncertain.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "unit.h"
#include "dl_bind.h"
#include "ossl_finish_points.h"
#include "symtab.h"
#include "x86_decode.h"

#define CS_FNS(X) X(cs_open) X(cs_option) X(cs_malloc) X(cs_disasm_iter) X(cs_insn_group) \
		  X(cs_free) X(cs_close)
RS_DL_LIBRARY(cs, "libcapstone.so.4", "libcapstone4", CS_FNS)

/* This machine's libcrypto, as the tracer finds it. */
static const char *libcrypto_path(void)
{
	static char path[512];
	Dl_info info;
	void *lib = dlopen("libcrypto.so.3", RTLD_NOW), *fn;

	if (!lib || !(fn = dlsym(lib, "CRYPTO_gcm128_finish")) || !dladdr(fn, &info))
		return NULL;
	snprintf(path, sizeof(path), "%s", info.dli_fname);
	return path;
}

/* Whether capstone and the small decoder say the same of one instruction. */
static bool agree(csh h, const cs_insn *ci, const struct rs_x86_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	bool imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	if (in->len != ci->size)
		return false;
	switch (in->flow) {
	case RS_X86_JCC:
		return cs.cs_insn_group(h, ci, CS_GRP_JUMP) && ci->id != X86_INS_JMP && imm &&
		       in->target == (uint64_t)x->operands[0].imm;
	case RS_X86_JMP:
		return ci->id == X86_INS_JMP && imm && in->target == (uint64_t)x->operands[0].imm;
	case RS_X86_JMP_IND:
		return ci->id == X86_INS_JMP && !imm;
	case RS_X86_CALL:
		return cs.cs_insn_group(h, ci, CS_GRP_CALL) && imm &&
		       in->target == (uint64_t)x->operands[0].imm;
	case RS_X86_CALL_IND:
		return cs.cs_insn_group(h, ci, CS_GRP_CALL) && !imm;
	case RS_X86_RET:
		return cs.cs_insn_group(h, ci, CS_GRP_RET);
	case RS_X86_TRAP:
		return ci->id == X86_INS_INT3 || ci->id == X86_INS_UD2 || ci->id == X86_INS_HLT;
	case RS_X86_NEXT:
		return !cs.cs_insn_group(h, ci, CS_GRP_JUMP) && !cs.cs_insn_group(h, ci, CS_GRP_CALL) &&
		       !cs.cs_insn_group(h, ci, CS_GRP_RET);
	}
	return false;
}

/*
 * Every instruction capstone finds in every exported function: where the
 * small decoder accepts one, its length, branch kind and target must be
 * capstone's. It may refuse (then a caller leaves the code alone); it may
 * never be wrong.
 */
static void decoder_agrees_with_capstone(void)
{
	const char *path = libcrypto_path();
	unsigned long accepted = 0, refused = 0, wrong = 0;
	struct rs_symtab *st = NULL;
	Elf_Scn *scn = NULL;
	cs_insn *ci;
	Elf *elf;
	csh h;
	int fd;

	if (!path || cs_unavailable()) {
		printf("SKIP decoder_agrees_with_capstone: %s\n", path ? cs_unavailable() : "no libcrypto.so.3");
		unit_.failed = -1;
		return;
	}
	fd = open(path, O_RDONLY);
	CHECK(rs_symtab_load_fd(fd, NULL, &st) == 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf != NULL);
	CHECK(cs.cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK);
	cs.cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs.cs_malloc(h);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			uint8_t code[8192];
			uint64_t off;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_size > sizeof(code) || !sym.st_value || !st ||
			    rs_symtab_vaddr_to_offset(st, sym.st_value, &off) ||
			    pread(fd, code, sym.st_size, (off_t)off) != (ssize_t)sym.st_size)
				continue;
			const uint8_t *p = code;
			size_t left = sym.st_size;
			uint64_t at = sym.st_value;

			while (left) {
				uint64_t here = at;
				struct rs_x86_insn in;
				size_t off = (size_t)(p - code);

				if (!cs.cs_disasm_iter(h, &p, &left, &at, ci))
					break;
				if (rs_x86_decode(code + off, sym.st_size - off, here, &in)) {
					refused++;
				} else if (agree(h, ci, &in)) {
					accepted++;
				} else {
					if (wrong++ < 5)
						printf("  disagree at 0x%llx (%s %s): len %u vs %u, flow %d\n",
						       (unsigned long long)here, ci->mnemonic, ci->op_str, in.len,
						       ci->size, in.flow);
				}
			}
		}
	}
	printf("  %lu instructions decoded as capstone does, %lu refused\n", accepted, refused);
	CHECK_EQ_INT(wrong, 0);
	/* The subset is what compilers emit for C: most of a C library. */
	CHECK(accepted > 4 * refused);
	cs.cs_free(ci, 1);
	cs.cs_close(&h);
	elf_end(elf);
	rs_symtab_free(st);
	close(fd);
}

static void decoder_refuses_outside_subset(void)
{
	static const uint8_t vex[] = { 0xc5, 0xf8, 0x77 };		/* vzeroupper */
	static const uint8_t far_jmp[] = { 0xff, 0x2c, 0x24 };		/* ljmp *(%rsp) */
	static const uint8_t cut[] = { 0x48, 0x8b, 0x47 };		/* mov 0x..(%rdi),%rax without its disp */
	static const uint8_t ok[] = { 0x48, 0x8b, 0x47, 0x38 };	/* mov 0x38(%rdi),%rax */
	struct rs_x86_insn in;

	CHECK(rs_x86_decode(vex, sizeof(vex), 0, &in) < 0);
	CHECK(rs_x86_decode(far_jmp, sizeof(far_jmp), 0, &in) < 0);
	CHECK(rs_x86_decode(cut, sizeof(cut), 0, &in) < 0);
	CHECK(rs_x86_decode(ok, sizeof(ok), 0x1000, &in) == 0);
	CHECK_EQ_INT(in.len, 4);
	CHECK_EQ_INT(in.opcode, 0x8b);
	CHECK_EQ_INT(in.base, 7);
	CHECK_EQ_INT(in.reg, 0);
	CHECK_EQ_INT(in.disp, 0x38);
	CHECK(rs_x86_rex_w(&in));
}

/*
 * A finish of the same shape, assembled by hand: the lengths loaded unscaled
 * into rax and rcx, the context copied to rbx, one push.
 */
static const uint8_t toy_finish[] = {
	0x53,				/*  0: push %rbx */
	0x48, 0x89, 0xfb,		/*  1: mov %rdi,%rbx */
	0x48, 0x8b, 0x47, 0x30,		/*  4: mov 0x30(%rdi),%rax */
	0x48, 0x8b, 0x4f, 0x38,		/*  8: mov 0x38(%rdi),%rcx */
	0x48, 0x85, 0xf6,		/* 12: test %rsi,%rsi */
	0x74, 0x0a,			/* 15: je 27 */
	0x5b,				/* 17: pop %rbx */
	0xe9, 0x00, 0x10, 0x00, 0x00,	/* 18: jmp 23+0x1000 (CRYPTO_memcmp) */
	0x0f, 0x1f, 0x40, 0x00,		/* 23: nopl 0x0(%rax) */
	0xb8, 0xff, 0xff, 0xff, 0xff,	/* 27: mov $-1,%eax */
	0x5b,				/* 32: pop %rbx */
	0xc3,				/* 33: ret */
};
#define TOY_AT 0x400000

static int scan_toy(const uint8_t *code, struct ossl_finish_points *p, uint64_t *to, char *why)
{
	return ossl_finish_scan(code, sizeof(toy_finish), TOY_AT, p, to, why, 160);
}

static void finds_points_in_hand_assembled_finish(void)
{
	struct ossl_finish_points p;
	uint64_t to = 0;
	char why[160] = "";

	CHECK_EQ_INT(scan_toy(toy_finish, &p, &to, why), 0);
	CHECK_EQ_STR(why, "");
	CHECK_EQ_INT(p.regs_vaddr, TOY_AT + 15);
	CHECK_EQ_INT(p.cmp_vaddr, TOY_AT + 18);
	CHECK_EQ_INT(to, TOY_AT + 23 + 0x1000);
	CHECK_EQ_INT(OSSL_FIN_REG(p.layout, OSSL_FIN_CTX_SHIFT), 3);	/* rbx, the first copy */
	CHECK_EQ_INT(OSSL_FIN_REG(p.layout, OSSL_FIN_TAG_SHIFT), 6);	/* rsi */
	CHECK_EQ_INT(OSSL_FIN_REG(p.layout, OSSL_FIN_TAGLEN_SHIFT), 2);	/* rdx */
	CHECK_EQ_INT(OSSL_FIN_REG(p.layout, OSSL_FIN_AAD_SHIFT), 0);	/* rax */
	CHECK_EQ_INT(OSSL_FIN_REG(p.layout, OSSL_FIN_PAYLOAD_SHIFT), 1);	/* rcx */
	CHECK_EQ_INT(p.layout & (OSSL_FIN_AAD_X8 | OSSL_FIN_PAYLOAD_X8), 0);
	CHECK_EQ_INT(p.layout >> OSSL_FIN_RA_WORDS_SHIFT, 1);		/* one push */
}

/* One byte changed: refused, and why says what was not certain. */
static void refuse_mutant(size_t at, uint8_t byte, const char *why_has)
{
	uint8_t code[sizeof(toy_finish)];
	struct ossl_finish_points p;
	uint64_t to;
	char why[160] = "";

	memcpy(code, toy_finish, sizeof(code));
	code[at] = byte;
	CHECK(scan_toy(code, &p, &to, why) < 0);
	if (!strstr(why, why_has))
		printf("  mutant +%zu=0x%02x: why \"%s\", expected \"%s\"\n", at, byte, why, why_has);
	CHECK(strstr(why, why_has) != NULL);
}

static void refuses_what_is_not_certain(void)
{
	/* The payload loaded from another offset: no length in a register. */
	refuse_mutant(11, 0x40, "without both lengths");
	/* mov %rdi,%rbx made mov %rax,%rdi: the context is lost, and the loads are from an unknown base. */
	refuse_mutant(3, 0xc7, "without both lengths");
	/* The branch jumps back to the start: a message would be counted twice. */
	refuse_mutant(16, 0xef, "jump back");
	/* A conditional branch out of the function. */
	refuse_mutant(16, 0x7f, "leaves it");
	/* No tail jump at all: a RET where the jump was. */
	refuse_mutant(18, 0xc3, "no tail jump");
	/* An instruction outside the decoder's subset in the start (VEX). */
	refuse_mutant(12, 0xc5, "does not");
}

/* The real library: both points found, the tail jump is to CRYPTO_memcmp's PLT slot. */
static void finds_points_in_system_libcrypto(void)
{
	const char *path = libcrypto_path();
	struct ossl_finish_points p;
	struct rs_symtab *st = NULL;
	char why[160] = "";
	uint64_t vaddr, size;
	int fd;

	if (!path) {
		printf("SKIP finds_points_in_system_libcrypto: no libcrypto.so.3\n");
		unit_.failed = -1;
		return;
	}
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && rs_symtab_load_fd(fd, NULL, &st) == 0);
	if (!st)
		return;
	CHECK_EQ_INT(ossl_finish_points_find(fd, st, &p, why, sizeof(why)), 0);
	if (why[0])
		printf("  refused: %s\n", why);
	CHECK(rs_symtab_find(st, "CRYPTO_gcm128_finish", &vaddr, &size) == 0);
	CHECK_EQ_INT(p.func_vaddr, vaddr);
	CHECK(p.regs_vaddr > vaddr && p.regs_vaddr < p.cmp_vaddr && p.cmp_vaddr < vaddr + size);
	CHECK(OSSL_FIN_REG(p.layout, OSSL_FIN_CTX_SHIFT) != 4);
	CHECK(p.layout >> OSSL_FIN_RA_WORDS_SHIFT >= 1);
	printf("  %s: first branch +0x%llx, tail jump +0x%llx, layout 0x%x\n", path,
	       (unsigned long long)(p.regs_vaddr - vaddr), (unsigned long long)(p.cmp_vaddr - vaddr),
	       p.layout);
	rs_symtab_free(st);
	close(fd);
}

int main(void)
{
	RUN(decoder_agrees_with_capstone);
	RUN(decoder_refuses_outside_subset);
	RUN(finds_points_in_hand_assembled_finish);
	RUN(refuses_what_is_not_certain);
	RUN(finds_points_in_system_libcrypto);
	return unit_.total_failed ? 1 : 0;
}
