// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-library rules that turn a call sequence into a message (direction,
 * result, AAD and payload bytes), replayed on the sequences real callers
 * make: the same gcm_seq.h the BPF probes compile. The model below does what
 * the probes do between the calls (a message starts at its IV, AAD and data
 * calls add up, the data call says the direction); gcm_seq.h decides the end.
 */
#include <linux/types.h>

#include "unit.h"
#include "gcm_seq.h"
#include "ringside/gcm.h"

enum step_kind { IV, AAD, ENC, DEC, END };

struct step {
	enum step_kind kind;
	unsigned long long len;		/* AAD, ENC, DEC */
	enum gcm_end_call end;		/* END */
	__u8 call_dir;			/* END of a one-shot call */
	int rc;				/* END: the ending call's return value */
};

struct message {
	__u8 dir, result;
	unsigned long long aad, payload;
	int ended;
};

static struct message replay(__u8 lib, const struct step *steps, unsigned int n)
{
	struct message m = { .dir = RS_GCM_DIR_UNKNOWN };

	for (unsigned int i = 0; i < n; i++) {
		const struct step *s = &steps[i];

		switch (s->kind) {
		case IV:
			m = (struct message){ .dir = RS_GCM_DIR_UNKNOWN };
			break;
		case AAD:
			m.aad += s->len;
			break;
		case ENC:
		case DEC:
			m.payload += s->len;
			m.dir = s->kind == ENC ? RS_GCM_SEAL : RS_GCM_OPEN;
			break;
		case END:
			if (s->end == GCM_END_ONESHOT) {
				m.aad = s->len >> 32;
				m.payload = s->len & 0xffffffff;
			}
			m.dir = gcm_end_dir(s->end, m.dir, s->call_dir);
			m.result = gcm_end_result(lib, s->end, m.dir, s->rc);
			m.ended = 1;
			break;
		}
	}
	return m;
}

#define REPLAY(lib, ...)                                                              \
	({                                                                            \
		const struct step steps_[] = { __VA_ARGS__ };                         \
		replay(lib, steps_, sizeof(steps_) / sizeof(steps_[0]));              \
	})
#define END_(call, ...) { .kind = END, .end = call, __VA_ARGS__ }
/* A one-shot call's AAD and payload ride in len: aad << 32 | payload. */
#define ONESHOT(dir, aad, payload, ret)                                                \
	{ .kind = END, .end = GCM_END_ONESHOT, .call_dir = dir,                       \
	  .len = (unsigned long long)(aad) << 32 | (payload), .rc = ret }

static void expect(struct message m, __u8 dir, __u8 result, unsigned long long aad,
		   unsigned long long payload)
{
	CHECK(m.ended);
	CHECK_EQ_STR(ringside_gcm_dir_name(m.dir), ringside_gcm_dir_name(dir));
	CHECK_EQ_INT(m.result, result);
	CHECK_EQ_INT(m.aad, aad);
	CHECK_EQ_INT(m.payload, payload);
}

/* gcry_error_t carries its source in the top byte: GPG_ERR_SOURCE_GCRYPT is 1. */
#define GCRY_ERR(code) ((1 << 24) | (code))

static void libgcrypt_sequences(void)
{
	/* A sealer: setiv, authenticate, encrypt, gettag. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { AAD, 13 }, { ENC, 100 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 13, 100);
	/* An opener that lets the library compare: checktag 0, then GPG_ERR_CHECKSUM. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { AAD, 13 }, { DEC, 100 },
		      END_(GCM_END_TAG_CHECK)),
	       RS_GCM_OPEN, RS_GCM_OK, 13, 100);
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { DEC, 64 },
		      END_(GCM_END_TAG_CHECK, .rc = GCRY_ERR(GCM_GPG_ERR_CHECKSUM))),
	       RS_GCM_OPEN, RS_GCM_TAG_FAIL, 0, 64);
	/* Another error from checktag (GPG_ERR_INV_LENGTH, 139) is not a tag failure. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { DEC, 64 },
		      END_(GCM_END_TAG_CHECK, .rc = GCRY_ERR(139))),
	       RS_GCM_OPEN, RS_GCM_ERROR, 0, 64);
	/* A packet decoder (TLS key log): decrypt, then gettag to compare itself. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { AAD, 13 }, { DEC, 1400 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_OPEN, RS_GCM_UNCHECKED, 13, 1400);
	/* GMAC: AAD only, the tag out: a seal of no payload. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { AAD, 32 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 32, 0);
	/* Two messages on one handle: the second IV starts afresh. */
	expect(REPLAY(RS_GCM_LIB_GCRYPT, { IV }, { DEC, 10 }, END_(GCM_END_TAG_OUT), { IV },
		      { ENC, 20 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 0, 20);
}

static void gnutls_sequences(void)
{
	/* gnutls_cipher_*: init with IV, add_auth, encrypt2, tag. */
	expect(REPLAY(RS_GCM_LIB_GNUTLS, { IV }, { AAD, 5 }, { ENC, 16 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 5, 16);
	/* ...decrypt2 then tag: the application compares. */
	expect(REPLAY(RS_GCM_LIB_GNUTLS, { IV }, { AAD, 5 }, { DEC, 16 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_OPEN, RS_GCM_UNCHECKED, 5, 16);
	/* gnutls_aead_cipher_* and the backend: one call each. */
	expect(REPLAY(RS_GCM_LIB_GNUTLS, ONESHOT(RS_GCM_SEAL, 13, 1024, 0)),
	       RS_GCM_SEAL, RS_GCM_OK, 13, 1024);
	expect(REPLAY(RS_GCM_LIB_GNUTLS, ONESHOT(RS_GCM_OPEN, 5, 1024, 0)),
	       RS_GCM_OPEN, RS_GCM_OK, 5, 1024);
	expect(REPLAY(RS_GCM_LIB_GNUTLS, ONESHOT(RS_GCM_OPEN, 5, 1024, GCM_GNUTLS_E_DECRYPTION_FAILED)),
	       RS_GCM_OPEN, RS_GCM_TAG_FAIL, 5, 1024);
	/* GNUTLS_E_INVALID_REQUEST (-50): an error, not a forgery. */
	expect(REPLAY(RS_GCM_LIB_GNUTLS, ONESHOT(RS_GCM_OPEN, 5, 1024, -50)),
	       RS_GCM_OPEN, RS_GCM_ERROR, 5, 1024);
	expect(REPLAY(RS_GCM_LIB_GNUTLS, ONESHOT(RS_GCM_SEAL, 5, 1024, -50)),
	       RS_GCM_SEAL, RS_GCM_ERROR, 5, 1024);
}

static void nettle_sequences(void)
{
	expect(REPLAY(RS_GCM_LIB_NETTLE, { IV }, { AAD, 8 }, { ENC, 300 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 8, 300);
	expect(REPLAY(RS_GCM_LIB_NETTLE, { IV }, { AAD, 8 }, { DEC, 300 }, END_(GCM_END_TAG_OUT)),
	       RS_GCM_OPEN, RS_GCM_UNCHECKED, 8, 300);
	/* Data in several calls adds up. */
	expect(REPLAY(RS_GCM_LIB_NETTLE, { IV }, { ENC, 16 }, { ENC, 16 }, { ENC, 5 },
		      END_(GCM_END_TAG_OUT)),
	       RS_GCM_SEAL, RS_GCM_OK, 0, 37);
}

static void openssl_sequences(void)
{
	/* EVP seal: setiv, AAD and data inside the context, CRYPTO_gcm128_tag (finish without a tag: -1). */
	expect(REPLAY(RS_GCM_LIB_OPENSSL, { IV }, { ENC, 64 }, END_(GCM_END_OSSL_TAG, .rc = -1)),
	       RS_GCM_SEAL, RS_GCM_OK, 0, 64);
	/* EVP open: finish with the expected tag: 0 matches, else a tag failure. */
	expect(REPLAY(RS_GCM_LIB_OPENSSL, { IV }, { DEC, 64 }, END_(GCM_END_OSSL_FINISH)),
	       RS_GCM_OPEN, RS_GCM_OK, 0, 64);
	expect(REPLAY(RS_GCM_LIB_OPENSSL, { IV }, { DEC, 64 }, END_(GCM_END_OSSL_FINISH, .rc = -1)),
	       RS_GCM_OPEN, RS_GCM_TAG_FAIL, 0, 64);
	/* A given tag makes an open even when no decrypt call was probed (in-place ctr32 code). */
	expect(REPLAY(RS_GCM_LIB_OPENSSL, { IV }, END_(GCM_END_OSSL_FINISH)),
	       RS_GCM_OPEN, RS_GCM_OK, 0, 0);
	/*
	 * An open whose caller compares the tag (OpenSSL 1.1's TLS 1.2 records,
	 * direct users of the layer): decrypt, then CRYPTO_gcm128_tag. Its -1
	 * is no tag failure: the caller has not compared yet.
	 */
	expect(REPLAY(RS_GCM_LIB_OPENSSL, { IV }, { AAD, 13 }, { DEC, 64 }, END_(GCM_END_OSSL_TAG, .rc = -1)),
	       RS_GCM_OPEN, RS_GCM_UNCHECKED, 13, 64);
}

int main(void)
{
	RUN(libgcrypt_sequences);
	RUN(gnutls_sequences);
	RUN(nettle_sequences);
	RUN(openssl_sequences);
	UNIT_EXIT();
}
