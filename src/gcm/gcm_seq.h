/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a GCM message ends, per library: its direction and result from the
 * call that ends it. One definition, compiled into the BPF probes
 * (gcm.bpf.c) and into the unit test that replays recorded call sequences
 * (tests/unit/test_gcm_seq.c). The table in README.md ("What each library's
 * calls mean") states the same rules for readers.
 *
 *   call that ends the message            direction               result
 *   tag handed to the caller (GCM_END_TAG_OUT: gnutls_cipher_tag,
 *     nettle *_digest, gcry_cipher_gettag)
 *                                         open if data was        open: unchecked,
 *                                         decrypted, else seal    seal: ok; error rc: error
 *   tag given to the library to compare (GCM_END_TAG_CHECK: gcry_cipher_checktag)
 *                                         open                    ok, tag-fail on
 *                                                                 GPG_ERR_CHECKSUM, else error
 *   one call is the whole message (GCM_END_ONESHOT: gnutls_aead_cipher_*,
 *     GnuTLS's AES-GCM backend)           the call's             ok, tag-fail on
 *                                                                 GNUTLS_E_DECRYPTION_FAILED
 *                                                                 (open), else error
 *   CRYPTO_gcm128_finish given a tag to check (GCM_END_OSSL_FINISH)
 *                                         open                    ok, tag-fail when
 *                                                                 finish fails
 *   CRYPTO_gcm128_finish without a tag (GCM_END_OSSL_TAG: CRYPTO_gcm128_tag,
 *     the tag handed to the caller; finish returns -1 by design)
 *                                         open if data was        open: unchecked,
 *                                         decrypted, else seal    seal: ok
 */
#ifndef RINGSIDE_GCM_SEQ_H
#define RINGSIDE_GCM_SEQ_H

#include "ringside/events.h"

enum gcm_end_call {
	GCM_END_TAG_OUT = 1,
	GCM_END_TAG_CHECK,
	GCM_END_ONESHOT,
	GCM_END_OSSL_FINISH,
	GCM_END_OSSL_TAG,
};

#define GCM_GNUTLS_E_DECRYPTION_FAILED (-24)
#define GCM_GPG_ERR_CHECKSUM 10

/* data_dir: what the message's data calls said (RS_GCM_DIR_UNKNOWN: none, only AAD). */
static inline __u8 gcm_end_dir(enum gcm_end_call call, __u8 data_dir, __u8 call_dir)
{
	switch (call) {
	case GCM_END_TAG_OUT:
	case GCM_END_OSSL_TAG:
		return data_dir == RS_GCM_OPEN ? RS_GCM_OPEN : RS_GCM_SEAL;
	case GCM_END_TAG_CHECK:
	case GCM_END_OSSL_FINISH:
		/* A tag to check makes an open even where no decrypt call was probed. */
		return RS_GCM_OPEN;
	case GCM_END_ONESHOT:
		return call_dir;
	}
	return RS_GCM_DIR_UNKNOWN;
}

/* rc: the ending call's return value (0 for calls that return nothing). */
static inline __u8 gcm_end_result(__u8 lib, enum gcm_end_call call, __u8 dir, int rc)
{
	switch (call) {
	case GCM_END_TAG_OUT:
		if (rc)
			return RS_GCM_ERROR;
		return dir == RS_GCM_OPEN ? RS_GCM_UNCHECKED : RS_GCM_OK;
	case GCM_END_TAG_CHECK:
		if (!rc)
			return RS_GCM_OK;
		return lib == RS_GCM_LIB_GCRYPT && (rc & 0xffff) == GCM_GPG_ERR_CHECKSUM ?
			       RS_GCM_TAG_FAIL : RS_GCM_ERROR;
	case GCM_END_ONESHOT:
		if (!rc)
			return RS_GCM_OK;
		return dir == RS_GCM_OPEN && rc == GCM_GNUTLS_E_DECRYPTION_FAILED ?
			       RS_GCM_TAG_FAIL : RS_GCM_ERROR;
	case GCM_END_OSSL_FINISH:
		return rc ? RS_GCM_TAG_FAIL : RS_GCM_OK;
	case GCM_END_OSSL_TAG:
		/* rc is -1 by design; the caller compares an open's tag itself. */
		return dir == RS_GCM_OPEN ? RS_GCM_UNCHECKED : RS_GCM_OK;
	}
	return RS_GCM_ERROR;
}

#endif
