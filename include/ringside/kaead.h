/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel AES-GCM collector: RS_EV_KAEAD records (struct rs_kaead_event)
 * for requests through the kernel crypto API (crypto_aead_encrypt/decrypt
 * on gcm(aes), rfc4106(gcm(aes)), rfc4543(gcm(aes)) and templates over
 * them): kTLS, IPsec, AF_ALG, dm-crypt... Needs fentry/fexit or kprobes.
 */
#ifndef RINGSIDE_KAEAD_H
#define RINGSIDE_KAEAD_H

#include "ringside/ringside.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct ringside_kaead_opts {
	size_t sz;		/* sizeof(struct ringside_kaead_opts) */
	/*
	 * Counting only (agents): the in-kernel totals, read by
	 * ringside_kaead_totals() and the exposition, are all; only tag
	 * failures still cross the ring buffer as records.
	 */
	bool aggregate;
};

/*
 * Enable the collector. Attaching fails with one sentence naming what the
 * kernel lacks when it allows neither fentry/fexit nor kprobes.
 */
int ringside_session_enable_kaead(struct ringside_session *s, const struct ringside_kaead_opts *opts);

/* Which way it attached ("fentry", "kprobe"); NULL before attach. */
const char *ringside_kaead_variant(const struct ringside_session *s);

/* Exact totals from the kernel, by submitter, direction, key size and driver. */
struct ringside_kaead_total {
	uint32_t tgid;
	uint8_t dir;		/* enum rs_gcm_dir */
	uint16_t key_bits;	/* 0: unknown (setkey before tracing began) */
	const char *driver;	/* the innermost driver ("?" if not named) */
	const char *alg;	/* that driver's algorithm name */
	uint64_t ops, aad_bytes, payload_bytes, tag_failures, errors;
	uint64_t async, async_done;	/* submitted asynchronously; completions seen */
	uint64_t latency_sum_ns;
};
int ringside_kaead_totals(struct ringside_session *s,
			  int (*fn)(void *ctx, const struct ringside_kaead_total *t), void *ctx);

/* What could not be followed, by enum rs_kaead_miss slot, summed over CPUs. */
uint64_t ringside_kaead_missed(const struct ringside_session *s, unsigned int slot);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
