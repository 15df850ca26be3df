/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: two probe points inside OpenSSL's CRYPTO_gcm128_finish that let
 * a message's end cost one probe hit and no read of user memory.
 *
 * finish(ctx, tag, len) loads the context's AAD and payload lengths into
 * registers before its first branch. A probe on that branch (an emulated
 * jcc) sees them there, and the arguments, so a seal (no tag; finish then
 * returns -1, by its source in every OpenSSL since 1.0.1) ends there. An
 * open with a tag of at most 16 bytes returns CRYPTO_memcmp(Xi, tag, len)
 * by a tail jump: a second probe on that jump reads the two tags and
 * compares them as memcmp will. Found by decoding the function
 * (x86_decode.h) and refused, leaving finish probed at its entry, unless
 * every step is certain: the straight-line start up to the branch, no jump
 * back into it, one way out that is not a return, and that way the tail
 * jump to CRYPTO_memcmp (directly or through its PLT slot).
 */
#ifndef RINGSIDE_OSSL_FINISH_POINTS_H
#define RINGSIDE_OSSL_FINISH_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "ossl_finish_layout.h"

struct rs_symtab;

struct ossl_finish_points {
	uint64_t regs_vaddr;	/* the first branch: lengths in registers */
	uint64_t cmp_vaddr;	/* the tail jump to CRYPTO_memcmp */
	uint64_t func_vaddr;	/* finish itself */
	uint32_t layout;	/* OSSL_FIN_* (ossl_finish_layout.h) */
};

/*
 * fd: the library; st: its symbols. 0, or a negative errno with why (one
 * phrase: what was not certain).
 */
int ossl_finish_points_find(int fd, const struct rs_symtab *st, struct ossl_finish_points *out,
			    char *why, size_t whylen);
/*
 * The decoding alone, on finish's code (size bytes at vaddr): the two points,
 * and where its one tail jump goes (exit_to), which the caller must show to
 * be CRYPTO_memcmp. For tests: code that is not certain is refused the same.
 */
int ossl_finish_scan(const uint8_t *code, uint64_t size, uint64_t vaddr, struct ossl_finish_points *out,
		     uint64_t *exit_to, char *why, size_t whylen);

#endif
