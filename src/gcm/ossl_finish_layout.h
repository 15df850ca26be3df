/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where, at the probe inside OpenSSL's CRYPTO_gcm128_finish that
 * ossl_finish_points.c finds, the function holds what a counted message
 * needs: its context, tag and tag length (copies of its arguments), the
 * context's two lengths (loaded from len.u[0] and len.u[1], maybe already
 * times 8), and how far the stack pointer moved (the return address's
 * slot). Packed into the high half of the probe's attach cookie, read by
 * gcm_ossl_fin_regs (gcm.bpf.c). Registers are x86 numbers (rax 0 ... r15 15).
 */
#ifndef RINGSIDE_OSSL_FINISH_LAYOUT_H
#define RINGSIDE_OSSL_FINISH_LAYOUT_H

#define OSSL_FIN_CTX_SHIFT 0
#define OSSL_FIN_TAG_SHIFT 4
#define OSSL_FIN_TAGLEN_SHIFT 8
#define OSSL_FIN_AAD_SHIFT 12
#define OSSL_FIN_PAYLOAD_SHIFT 16
#define OSSL_FIN_AAD_X8 (1u << 20)	/* the AAD register holds len.u[0] << 3 */
#define OSSL_FIN_PAYLOAD_X8 (1u << 21)	/* the payload register holds len.u[1] << 3 */
#define OSSL_FIN_RA_WORDS_SHIFT 22	/* 8-byte words from the stack pointer to the return address */
#define OSSL_FIN_RA_WORDS_MAX 255

#define OSSL_FIN_REG(layout, shift) (((layout) >> (shift)) & 15)

#endif
