// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known AES-GCM schedule through the real libcrypto, libgnutls and
 * libgcrypt and nettle, for ringside's tests and demo. It prints what it did as lines
 *   expect LIB DIR BITS ops=N aad=A payload=P tagfail=F unchecked=U
 * (one per library × direction × key size) so a test can compare ringside's
 * view with the ground truth. LIB "tls" counts TLS 1.3 records (libssl over
 * libcrypto, so ringside reports them as openssl); the record layer decides
 * how many, and SSL's message callback counts them here. Their payload
 * sizes are the record layer's and are printed as 0.
 *
 * Usage: gcm_workload [--wait] [--hold] [--exec-after] [--rounds N] [--only LIST]
 *        gcm_workload --seal-loop SIZE SECONDS   (benchmark: prints ops/s,
 *                                                  and "sealed N" on stderr)
 *        gcm_workload --nettle-loop SECONDS   (benchmark: 16-byte seals through
 *                                               nettle's aes128 context API,
 *                                               four calls each: ops/s)
 *        gcm_workload --paired-loop SECONDS COPY [FLOOR]   (benchmark: 16-byte
 *                                        seals in batches taking turns between
 *                                        the linked libcrypto, COPY and FLOOR,
 *                                        copies of it loaded with dlmopen;
 *                                        prints the median ns a seal costs
 *                                        more through the linked one than
 *                                        through COPY, and through FLOOR;
 *                                        "sealed N" for the linked one)
 *        gcm_workload --interleave N   (N pairs of OpenSSL seals on two
 *                                        contexts, the second's IV set before
 *                                        the first's tag: "sealed 2N")
 *        gcm_workload --names N   (one OpenSSL seal under each of N process
 *                                  names n00000..: label sets for an agent)
 *   --wait: print "ready PID" and wait for SIGUSR1 before starting.
 *   --hold: after the schedule, stay alive until SIGUSR1 (so callers resolve).
 *   --exec-after: exec /bin/sleep 5 instead of running the schedule.
 *   --only: comma-separated subset of openssl,tls,gnutls,gcrypt,nettle;
 *     "hops" (only when named: it needs two CPUs) runs OpenSSL's
 *     CRYPTO_gcm128_* calls directly on one context, the thread moved
 *     between two CPUs between them: re-keys and TLS 1.2-style opens seen
 *     on one CPU, the context's next message ended on the other.
 *   --preopened N: open a GnuTLS and a libgcrypt AES-128-GCM handle first,
 *     print "ready PID", and after SIGUSR1 seal N messages through each (a
 *     trace started in between never sees the handles made): prints
 *     "preopened gnutls=N gcrypt=N".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gcrypt.h>
#include <nettle/gcm.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <openssl/aes.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/modes.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "../median.h"

#define AAD_LEN 13
#define TAG_LEN 16
#define MAX_MSG 16384

static const size_t sizes[] = { 16, 64, 1420, 16384 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* L_TLS: libssl records, sealed by libcrypto; payload sizes are the record layer's. */
enum { L_OPENSSL, L_GNUTLS, L_GCRYPT, L_TLS, L_NETTLE, NLIBS };
static const char *const lib_names[NLIBS] = { "openssl", "gnutls", "libgcrypt", "tls", "nettle" };

struct tally {
	unsigned long ops, aad, payload, tagfail;
	unsigned long unchecked;	/* opens whose tag the program compared itself */
};

/* [lib][dir: 0 seal, 1 open][key: 0 128, 1 192, 2 256] */
struct schedule {
	struct tally t[NLIBS][2][3];
	int rounds;
};

static int key_index(int bits)
{
	return bits == 128 ? 0 : bits == 192 ? 1 : 2;
}

static void count(struct schedule *s, int lib, int open, int bits, size_t aad, size_t payload,
		  bool tagfail)
{
	struct tally *t = &s->t[lib][open][key_index(bits)];

	t->ops++;
	t->aad += aad;
	t->payload += payload;
	t->tagfail += tagfail;
}

static void count_unchecked_open(struct schedule *s, int lib, int bits, size_t aad, size_t payload)
{
	count(s, lib, 1, bits, aad, payload, false);
	s->t[lib][1][key_index(bits)].unchecked++;
}

static void die(const char *what)
{
	fprintf(stderr, "gcm_workload: %s failed\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

static unsigned char key[32], iv[12], aad[AAD_LEN], msg[MAX_MSG], ct[MAX_MSG + 64], pt[MAX_MSG + 64];

/* ---- OpenSSL EVP: streaming Init/Update/Final, and one-shot EVP_Cipher ---- */

static const EVP_CIPHER *ossl_cipher(int bits)
{
	return bits == 128 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

static void ossl_seal(EVP_CIPHER_CTX *c, int bits, size_t len, unsigned char *tag)
{
	int n;

	if (!EVP_EncryptInit_ex(c, ossl_cipher(bits), NULL, key, iv) ||
	    !EVP_EncryptUpdate(c, NULL, &n, aad, AAD_LEN) ||
	    !EVP_EncryptUpdate(c, ct, &n, msg, (int)len) ||
	    !EVP_EncryptFinal_ex(c, ct + n, &n) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag))
		die("EVP seal");
}

/* An open given the first tag_len bytes of the tag: finish compares only those. */
static bool ossl_open_cut(EVP_CIPHER_CTX *c, int bits, size_t len, unsigned char *tag, int tag_len)
{
	int n;

	if (!EVP_DecryptInit_ex(c, ossl_cipher(bits), NULL, key, iv) ||
	    !EVP_DecryptUpdate(c, NULL, &n, aad, AAD_LEN) ||
	    !EVP_DecryptUpdate(c, pt, &n, ct, (int)len) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, tag_len, tag))
		die("EVP open");
	return EVP_DecryptFinal_ex(c, pt + n, &n) == 1;
}

static bool ossl_open(EVP_CIPHER_CTX *c, int bits, size_t len, unsigned char *tag)
{
	return ossl_open_cut(c, bits, len, tag, TAG_LEN);
}

/* EVP_Cipher() on an AEAD: AAD with out == NULL, data, then in == NULL finishes. */
static void ossl_seal_oneshot(EVP_CIPHER_CTX *c, int bits, size_t len)
{
	unsigned char tag[TAG_LEN];

	if (!EVP_CipherInit_ex(c, ossl_cipher(bits), NULL, key, iv, 1) ||
	    EVP_Cipher(c, NULL, aad, AAD_LEN) < 0 ||
	    EVP_Cipher(c, ct, msg, (unsigned int)len) < 0 ||
	    EVP_Cipher(c, NULL, NULL, 0) < 0 ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag))
		die("EVP_Cipher seal");
}

static void run_openssl(struct schedule *s)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	static const int bits[] = { 128, 256 };
	unsigned char tag[TAG_LEN];

	for (int r = 0; r < s->rounds; r++) {
		for (size_t b = 0; b < 2; b++) {
			for (size_t i = 0; i < NSIZES; i++) {
				ossl_seal(c, bits[b], sizes[i], tag);
				count(s, L_OPENSSL, 0, bits[b], AAD_LEN, sizes[i], false);
				if (!ossl_open(c, bits[b], sizes[i], tag))
					die("EVP open of a good message");
				count(s, L_OPENSSL, 1, bits[b], AAD_LEN, sizes[i], false);
			}
			ossl_seal_oneshot(c, bits[b], 256);
			count(s, L_OPENSSL, 0, bits[b], AAD_LEN, 256, false);
		}
	}
	/* The deliberate tag failure. */
	ossl_seal(c, 128, 64, tag);
	count(s, L_OPENSSL, 0, 128, AAD_LEN, 64, false);
	tag[0] ^= 1;
	if (ossl_open(c, 128, 64, tag))
		die("EVP open of a forged message succeeding");
	count(s, L_OPENSSL, 1, 128, AAD_LEN, 64, true);
	/*
	 * Every byte of the compare counts, and none past the tag's length: a
	 * tag forged in its last byte fails, a 12-byte tag whose missing
	 * bytes differ from the computed one's passes, and one forged in its
	 * 12th byte fails.
	 */
	ossl_seal(c, 256, 64, tag);
	count(s, L_OPENSSL, 0, 256, AAD_LEN, 64, false);
	tag[TAG_LEN - 1] ^= 0x80;
	if (ossl_open(c, 256, 64, tag))
		die("EVP open of a message forged in its tag's last byte succeeding");
	count(s, L_OPENSSL, 1, 256, AAD_LEN, 64, true);
	if (!ossl_open_cut(c, 256, 64, tag, 12))
		die("EVP open of a good message with a 12-byte tag");
	count(s, L_OPENSSL, 1, 256, AAD_LEN, 64, false);
	tag[11] ^= 1;
	if (ossl_open_cut(c, 256, 64, tag, 12))
		die("EVP open of a 12-byte tag forged in its last byte succeeding");
	count(s, L_OPENSSL, 1, 256, AAD_LEN, 64, true);
	EVP_CIPHER_CTX_free(c);
}

/* ---- OpenSSL's GCM128 layer directly, the thread moving between CPUs ---- */

/* Run the calling thread on cpu; sched_setaffinity moves it before returning. */
static void hop(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * AES_* is deprecated in OpenSSL 3, but it is what the GCM128 layer takes
 * (an AES_KEY and its block function), as libssl's TLS 1.2 path does.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void gcm128_key(GCM128_CONTEXT *g, AES_KEY *ks, int bits)
{
	if (AES_set_encrypt_key(key, bits, ks))
		die("AES key");
	CRYPTO_gcm128_init(g, ks, (block128_f)AES_encrypt);
}

/* new() keys the context too: ks must hold a key schedule. */
static GCM128_CONTEXT *gcm128_new(AES_KEY *ks)
{
	GCM128_CONTEXT *g;

	if (AES_set_encrypt_key(key, 128, ks))
		die("AES key");
	g = CRYPTO_gcm128_new(ks, (block128_f)AES_encrypt);
	if (!g)
		die("CRYPTO_gcm128_new");
	return g;
}
#pragma GCC diagnostic pop

/*
 * One message through the layer: a seal, or an open as OpenSSL 1.1's TLS
 * 1.2 record layer makes one (decrypt, then CRYPTO_gcm128_tag: the caller
 * compares the tag itself, so the open is unchecked).
 */
static void gcm128_message(struct schedule *s, GCM128_CONTEXT *g, int bits, bool open)
{
	unsigned char tag[TAG_LEN];

	CRYPTO_gcm128_setiv(g, iv, sizeof(iv));
	if (CRYPTO_gcm128_aad(g, aad, AAD_LEN) ||
	    (open ? CRYPTO_gcm128_decrypt(g, ct, pt, 64) : CRYPTO_gcm128_encrypt(g, msg, ct, 64)))
		die("GCM128 message");
	CRYPTO_gcm128_tag(g, tag, TAG_LEN);
	if (open)
		count_unchecked_open(s, L_OPENSSL, bits, AAD_LEN, 64);
	else
		count(s, L_OPENSSL, 0, bits, AAD_LEN, 64, false);
}

/*
 * Each step on the CPU named: a state a tracer might keep per CPU (the key
 * size, a direction) is changed on one CPU and the context's next message
 * ends on the other, or on the same one after a change there.
 */
static void run_hops(struct schedule *s)
{
	GCM128_CONTEXT *g;
	AES_KEY ks128, ks256;
	cpu_set_t allowed;
	int cpu[2], n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("sched_getaffinity");
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &allowed))
			cpu[n++] = i;
	if (n < 2)
		die("hops: fewer than two CPUs allowed");
	g = gcm128_new(&ks128);
	for (int r = 0; r < s->rounds; r++) {
		hop(cpu[0]);
		gcm128_key(g, &ks128, 128);
		gcm128_message(s, g, 128, false);
		hop(cpu[1]);
		gcm128_key(g, &ks256, 256);
		gcm128_message(s, g, 256, false);
		hop(cpu[0]);			/* re-keyed on the other CPU */
		gcm128_message(s, g, 256, false);
		hop(cpu[1]);			/* an open after a seal on this CPU */
		gcm128_message(s, g, 256, true);
		hop(cpu[0]);
		gcm128_message(s, g, 256, false);
		gcm128_message(s, g, 256, true);	/* both on one CPU */
		gcm128_message(s, g, 256, false);
	}
	CRYPTO_gcm128_release(g);
	/* Back to every CPU it had. */
	if (sched_setaffinity(0, sizeof(allowed), &allowed))
		die("sched_setaffinity");
}

/* ---- TLS 1.3 over a socketpair ------------------------------------------ */

struct tls_side {
	struct schedule *s;
	int bits;
};

/* TLS 1.3 protected records pass here with SSL3_RT_INNER_CONTENT_TYPE. */
static void tls_msg_cb(int write_p, int version, int content_type, const void *buf, size_t len,
		       SSL *ssl, void *arg)
{
	struct tls_side *side = arg;

	(void)version;
	(void)buf;
	(void)len;
	(void)ssl;
	/* TLS 1.3 authenticates the 5-byte record header as AAD. */
	if (content_type == SSL3_RT_INNER_CONTENT_TYPE)
		count(side->s, L_TLS, !write_p, side->bits, 5, 0, false);
}

static EVP_PKEY *tls_key;
static X509 *tls_cert;

static void tls_make_cert(void)
{
	X509_NAME *name;

	tls_key = EVP_EC_gen("P-256");
	tls_cert = X509_new();
	if (!tls_key || !tls_cert)
		die("key generation");
	ASN1_INTEGER_set(X509_get_serialNumber(tls_cert), 1);
	X509_gmtime_adj(X509_getm_notBefore(tls_cert), 0);
	X509_gmtime_adj(X509_getm_notAfter(tls_cert), 3600);
	X509_set_pubkey(tls_cert, tls_key);
	name = X509_get_subject_name(tls_cert);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"ringside", -1, -1, 0);
	X509_set_issuer_name(tls_cert, name);
	if (!X509_sign(tls_cert, tls_key, EVP_sha256()))
		die("certificate signing");
}

/* Drive both ends in one thread: non-blocking sockets, alternate until done. */
static void tls_pump(SSL *a, SSL *b)
{
	for (int i = 0; i < 1000; i++) {
		int ra = SSL_do_handshake(a), rb = SSL_do_handshake(b);

		if (ra == 1 && rb == 1)
			return;
	}
	die("TLS handshake");
}

static void run_tls(struct schedule *s)
{
	static const char *const suites[] = { "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384" };
	static const int bits[] = { 128, 256 };

	tls_make_cert();
	for (int k = 0; k < 2; k++) {
		SSL_CTX *sctx = SSL_CTX_new(TLS_server_method()), *cctx = SSL_CTX_new(TLS_client_method());
		struct tls_side side = { s, bits[k] };
		SSL *srv, *cli;
		int sv[2];
		char buf[MAX_MSG];

		if (!sctx || !cctx || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("TLS setup");
		SSL_CTX *ctxs[] = { sctx, cctx };

		for (int c = 0; c < 2; c++) {
			SSL_CTX_set_min_proto_version(ctxs[c], TLS1_3_VERSION);
			SSL_CTX_set_ciphersuites(ctxs[c], suites[k]);
			/* No session tickets: the handshake's record count stays small. */
			SSL_CTX_set_num_tickets(ctxs[c], 0);
		}
		if (SSL_CTX_use_certificate(sctx, tls_cert) != 1 || SSL_CTX_use_PrivateKey(sctx, tls_key) != 1)
			die("TLS certificate");
		srv = SSL_new(sctx);
		cli = SSL_new(cctx);
		SSL_set_fd(srv, sv[0]);
		SSL_set_fd(cli, sv[1]);
		SSL_set_msg_callback(srv, tls_msg_cb);
		SSL_set_msg_callback_arg(srv, &side);
		SSL_set_msg_callback(cli, tls_msg_cb);
		SSL_set_msg_callback_arg(cli, &side);
		SSL_set_accept_state(srv);
		SSL_set_connect_state(cli);
		/* One thread drives both ends: non-blocking, alternating steps. */
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		fcntl(sv[1], F_SETFL, O_NONBLOCK);
		tls_pump(cli, srv);
		for (int r = 0; r < s->rounds; r++) {
			for (size_t i = 0; i < NSIZES; i++) {
				if (SSL_write(cli, msg, (int)sizes[i]) != (int)sizes[i])
					die("SSL_write");
				for (size_t got = 0; got < sizes[i];) {
					int n = SSL_read(srv, buf, sizeof(buf));

					if (n <= 0)
						die("SSL_read");
					got += (size_t)n;
				}
			}
		}
		SSL_free(cli);
		SSL_free(srv);
		SSL_CTX_free(cctx);
		SSL_CTX_free(sctx);
		close(sv[0]);
		close(sv[1]);
	}
	X509_free(tls_cert);
	EVP_PKEY_free(tls_key);
}

/* ---- GnuTLS: the AEAD API, and gnutls_cipher_* on a GCM algorithm -------- */

static void run_gnutls(struct schedule *s)
{
	static const gnutls_cipher_algorithm_t algs[] = { GNUTLS_CIPHER_AES_128_GCM,
							  GNUTLS_CIPHER_AES_256_GCM };
	static const int bits[] = { 128, 256 };

	for (int k = 0; k < 2; k++) {
		gnutls_datum_t kd = { key, (unsigned int)bits[k] / 8 };
		gnutls_aead_cipher_hd_t h;

		if (gnutls_aead_cipher_init(&h, algs[k], &kd) < 0)
			die("gnutls_aead_cipher_init");
		for (int r = 0; r < s->rounds; r++) {
			for (size_t i = 0; i < NSIZES; i++) {
				size_t clen = sizeof(ct), plen = sizeof(pt);

				if (gnutls_aead_cipher_encrypt(h, iv, sizeof(iv), aad, AAD_LEN, TAG_LEN,
							       msg, sizes[i], ct, &clen) < 0)
					die("gnutls_aead_cipher_encrypt");
				count(s, L_GNUTLS, 0, bits[k], AAD_LEN, sizes[i], false);
				if (gnutls_aead_cipher_decrypt(h, iv, sizeof(iv), aad, AAD_LEN, TAG_LEN,
							       ct, clen, pt, &plen) < 0)
					die("gnutls_aead_cipher_decrypt");
				count(s, L_GNUTLS, 1, bits[k], AAD_LEN, sizes[i], false);
			}
		}
		if (k == 0) {
			size_t clen = sizeof(ct), plen = sizeof(pt);

			if (gnutls_aead_cipher_encrypt(h, iv, sizeof(iv), aad, AAD_LEN, TAG_LEN, msg, 64,
						       ct, &clen) < 0)
				die("gnutls_aead_cipher_encrypt");
			count(s, L_GNUTLS, 0, 128, AAD_LEN, 64, false);
			ct[0] ^= 1;
			if (gnutls_aead_cipher_decrypt(h, iv, sizeof(iv), aad, AAD_LEN, TAG_LEN, ct, clen,
						       pt, &plen) != GNUTLS_E_DECRYPTION_FAILED)
				die("gnutls forged message not rejected");
			count(s, L_GNUTLS, 1, 128, AAD_LEN, 64, true);
		}
		gnutls_aead_cipher_deinit(h);
	}
	/* gnutls_cipher_*: the application gets the tag and compares it itself. */
	{
		gnutls_datum_t kd = { key, 16 }, ivd = { iv, sizeof(iv) };
		gnutls_cipher_hd_t h;
		unsigned char tag[TAG_LEN];

		if (gnutls_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &kd, &ivd) < 0 ||
		    gnutls_cipher_add_auth(h, aad, AAD_LEN) < 0 ||
		    gnutls_cipher_encrypt2(h, msg, 1024, ct, 1024) < 0 ||
		    gnutls_cipher_tag(h, tag, TAG_LEN) < 0)
			die("gnutls_cipher seal");
		count(s, L_GNUTLS, 0, 128, AAD_LEN, 1024, false);
		gnutls_cipher_set_iv(h, iv, sizeof(iv));
		if (gnutls_cipher_add_auth(h, aad, AAD_LEN) < 0 ||
		    gnutls_cipher_decrypt2(h, ct, 1024, pt, 1024) < 0 ||
		    gnutls_cipher_tag(h, tag, TAG_LEN) < 0)
			die("gnutls_cipher open");
		count_unchecked_open(s, L_GNUTLS, 128, AAD_LEN, 1024);
		gnutls_cipher_deinit(h);
	}
}

/* ---- libgcrypt -------------------------------------------------------------- */

static void gcry_check(gcry_error_t e, const char *what)
{
	if (e) {
		fprintf(stderr, "gcm_workload: %s: %s\n", what, gcry_strerror(e));
		exit(1);
	}
}

static void run_gcrypt(struct schedule *s)
{
	static const int algs[] = { GCRY_CIPHER_AES128, GCRY_CIPHER_AES256 };
	static const int bits[] = { 128, 256 };

	if (!gcry_check_version(NULL))
		die("gcry_check_version");
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	for (int k = 0; k < 2; k++) {
		gcry_cipher_hd_t h;
		unsigned char tag[TAG_LEN];

		gcry_check(gcry_cipher_open(&h, algs[k], GCRY_CIPHER_MODE_GCM, 0), "gcry_cipher_open");
		gcry_check(gcry_cipher_setkey(h, key, (size_t)bits[k] / 8), "setkey");
		for (int r = 0; r < s->rounds; r++) {
			for (size_t i = 0; i < NSIZES; i++) {
				gcry_check(gcry_cipher_setiv(h, iv, sizeof(iv)), "setiv");
				gcry_check(gcry_cipher_authenticate(h, aad, AAD_LEN), "authenticate");
				gcry_check(gcry_cipher_encrypt(h, ct, sizes[i], msg, sizes[i]), "encrypt");
				gcry_check(gcry_cipher_gettag(h, tag, TAG_LEN), "gettag");
				count(s, L_GCRYPT, 0, bits[k], AAD_LEN, sizes[i], false);
				gcry_check(gcry_cipher_setiv(h, iv, sizeof(iv)), "setiv");
				gcry_check(gcry_cipher_authenticate(h, aad, AAD_LEN), "authenticate");
				gcry_check(gcry_cipher_decrypt(h, pt, sizes[i], ct, sizes[i]), "decrypt");
				gcry_check(gcry_cipher_checktag(h, tag, TAG_LEN), "checktag");
				count(s, L_GCRYPT, 1, bits[k], AAD_LEN, sizes[i], false);
			}
		}
		if (k == 0) {
			gcry_check(gcry_cipher_setiv(h, iv, sizeof(iv)), "setiv");
			gcry_check(gcry_cipher_authenticate(h, aad, AAD_LEN), "authenticate");
			gcry_check(gcry_cipher_decrypt(h, pt, 64, ct, 64), "decrypt");
			tag[0] ^= 1;
			if (gcry_err_code(gcry_cipher_checktag(h, tag, TAG_LEN)) != GPG_ERR_CHECKSUM)
				die("libgcrypt forged tag not rejected");
			count(s, L_GCRYPT, 1, 128, AAD_LEN, 64, true);
			/* A decoder's pattern: decrypt, then fetch the tag to compare it itself. */
			for (size_t i = 0; i < NSIZES; i++) {
				unsigned char got[TAG_LEN];

				gcry_check(gcry_cipher_setiv(h, iv, sizeof(iv)), "setiv");
				gcry_check(gcry_cipher_authenticate(h, aad, AAD_LEN), "authenticate");
				gcry_check(gcry_cipher_decrypt(h, pt, sizes[i], ct, sizes[i]), "decrypt");
				gcry_check(gcry_cipher_gettag(h, got, TAG_LEN), "gettag after decrypt");
				count_unchecked_open(s, L_GCRYPT, 128, AAD_LEN, sizes[i]);
			}
		}
		gcry_cipher_close(h);
	}
}

/* ---- nettle: the context API; an open's caller compares the tag (unchecked) - */

static void run_nettle(struct schedule *s)
{
	struct gcm_aes128_ctx c128;
	struct gcm_aes256_ctx c256;
	uint8_t tag[TAG_LEN], check[TAG_LEN];

	nettle_gcm_aes128_set_key(&c128, key);
	nettle_gcm_aes256_set_key(&c256, key);
	for (int r = 0; r < s->rounds; r++) {
		for (size_t i = 0; i < NSIZES; i++) {
			nettle_gcm_aes128_set_iv(&c128, sizeof(iv), iv);
			nettle_gcm_aes128_update(&c128, AAD_LEN, aad);
			nettle_gcm_aes128_encrypt(&c128, sizes[i], ct, msg);
			nettle_gcm_aes128_digest(&c128, TAG_LEN, tag);
			count(s, L_NETTLE, 0, 128, AAD_LEN, sizes[i], false);
			nettle_gcm_aes128_set_iv(&c128, sizeof(iv), iv);
			nettle_gcm_aes128_update(&c128, AAD_LEN, aad);
			nettle_gcm_aes128_decrypt(&c128, sizes[i], pt, ct);
			nettle_gcm_aes128_digest(&c128, TAG_LEN, check);
			if (memcmp(tag, check, TAG_LEN))
				die("nettle tag mismatch");
			count_unchecked_open(s, L_NETTLE, 128, AAD_LEN, sizes[i]);
			/* 256-bit: seals only. */
			nettle_gcm_aes256_set_iv(&c256, sizeof(iv), iv);
			nettle_gcm_aes256_update(&c256, AAD_LEN, aad);
			nettle_gcm_aes256_encrypt(&c256, sizes[i], ct, msg);
			nettle_gcm_aes256_digest(&c256, TAG_LEN, tag);
			count(s, L_NETTLE, 0, 256, AAD_LEN, sizes[i], false);
		}
	}
}

static void print_expect(const struct schedule *s)
{
	static const int bits[] = { 128, 192, 256 };

	for (int l = 0; l < NLIBS; l++)
		for (int d = 0; d < 2; d++)
			for (int k = 0; k < 3; k++) {
				const struct tally *t = &s->t[l][d][k];

				if (t->ops)
					printf("expect %s %s %d ops=%lu aad=%lu payload=%lu tagfail=%lu "
					       "unchecked=%lu\n", lib_names[l], d ? "open" : "seal",
					       bits[k], t->ops, t->aad, t->payload, t->tagfail,
					       t->unchecked);
			}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Benchmark: seal SIZE-byte messages for SECONDS the way TLS does, with the
 * key set once and a fresh IV, AAD, data and tag per message.
 */
/* The EVP calls of a seal, from the linked libcrypto or from a copy. */
struct evp_seal {
	EVP_CIPHER_CTX *(*ctx_new)(void);
	void (*ctx_free)(EVP_CIPHER_CTX *);
	const EVP_CIPHER *(*aes_128_gcm)(void);
	int (*init)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *, const unsigned char *,
		    const unsigned char *);
	int (*update)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int);
	int (*final)(EVP_CIPHER_CTX *, unsigned char *, int *);
	int (*ctrl)(EVP_CIPHER_CTX *, int, int, void *);
	EVP_CIPHER_CTX *c;
};

/* A copy's EVP calls, loaded in a namespace of its own: its calls stay inside it. */
static void evp_from_copy(struct evp_seal *e, const char *path)
{
	void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "gcm_workload: %s\n", dlerror());
		exit(1);
	}
	*(void **)&e->ctx_new = dlsym(h, "EVP_CIPHER_CTX_new");
	*(void **)&e->ctx_free = dlsym(h, "EVP_CIPHER_CTX_free");
	*(void **)&e->aes_128_gcm = dlsym(h, "EVP_aes_128_gcm");
	*(void **)&e->init = dlsym(h, "EVP_EncryptInit_ex");
	*(void **)&e->update = dlsym(h, "EVP_EncryptUpdate");
	*(void **)&e->final = dlsym(h, "EVP_EncryptFinal_ex");
	*(void **)&e->ctrl = dlsym(h, "EVP_CIPHER_CTX_ctrl");
	if (!e->ctx_new || !e->ctx_free || !e->aes_128_gcm || !e->init || !e->update || !e->final ||
	    !e->ctrl)
		die("EVP symbols of the copy");
}

/* The linked libcrypto's EVP calls (ctx set by the user). */
#define EVP_LINKED { EVP_CIPHER_CTX_new, EVP_CIPHER_CTX_free, EVP_aes_128_gcm, EVP_EncryptInit_ex, \
		     EVP_EncryptUpdate, EVP_EncryptFinal_ex, EVP_CIPHER_CTX_ctrl, NULL }

/* n seals of size bytes, each with its IV, AAD and tag; the seconds they took. */
static double evp_seals(struct evp_seal *e, int n, size_t size)
{
	unsigned char tag[TAG_LEN];
	double t0 = now();
	int len;

	for (int i = 0; i < n; i++) {
		iv[0] = (unsigned char)i;
		if (!e->init(e->c, NULL, NULL, NULL, iv) || !e->update(e->c, NULL, &len, aad, AAD_LEN) ||
		    !e->update(e->c, ct, &len, msg, (int)size) || !e->final(e->c, ct + len, &len) ||
		    !e->ctrl(e->c, EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag))
			die("EVP seal");
	}
	return now() - t0;
}

static int seal_loop(size_t len, double secs)
{
	struct evp_seal e = EVP_LINKED;
	unsigned long ops = 0;
	double start = now(), end;

	if (len > MAX_MSG)
		len = MAX_MSG;
	e.c = e.ctx_new();
	if (!e.c || !e.init(e.c, e.aes_128_gcm(), NULL, key, NULL))
		die("EVP key setup");
	do {
		evp_seals(&e, 256, len);
		ops += 256;
		end = now();
	} while (end - start < secs);
	printf("%.0f\n", ops / (end - start));
	/* The exact count, for tests that compare ringside's totals with it. */
	fprintf(stderr, "sealed %lu\n", ops);
	e.ctx_free(e.c);
	return 0;
}

/* nettle's AES-128-GCM context API on 16-byte messages: four probed calls a message. */
static int nettle_loop(double secs)
{
	struct gcm_aes128_ctx c;
	uint8_t tag[TAG_LEN];
	unsigned long ops = 0;
	double start = now(), end;

	nettle_gcm_aes128_set_key(&c, key);
	do {
		for (int i = 0; i < 256; i++) {
			nettle_gcm_aes128_set_iv(&c, sizeof(iv), iv);
			nettle_gcm_aes128_update(&c, AAD_LEN, aad);
			nettle_gcm_aes128_encrypt(&c, 16, ct, msg);
			nettle_gcm_aes128_digest(&c, TAG_LEN, tag);
		}
		ops += 256;
		end = now();
	} while (end - start < secs);
	printf("%.0f\n", ops / (end - start));
	fprintf(stderr, "sealed %lu\n", ops);
	return 0;
}

static void print_median(double *v, size_t n, const char *end)
{
	double med = median_double(v, n);

	printf("%.0f%s", med > -0.5 && med < 0.5 ? 0.0 : med, end);	/* never "-0" */
}

/*
 * What a seal costs more through the linked libcrypto (a tracer's probes
 * on it) than through an unprobed copy, and through a second copy (a floor's
 * no-op probes on it), measured in one process: batches of 256 seals taking
 * turns, the order rotating each round, the medians of each round's
 * differences. These VMs change speed by half within seconds, the probe
 * hits' cost with it; a round takes a millisecond or two, so the drift
 * falls out and tracer and floor are measured under the same conditions.
 */
static int paired_loop(double secs, const char *copy, const char *floor_copy)
{
#ifdef __SANITIZE_ADDRESS__
	/* A copy's namespace brings its own C library, which crashes under ASan. */
	fprintf(stderr, "gcm_workload: --paired-loop needs a build without AddressSanitizer\n");
	return 77;
#endif
	enum { BATCH = 256, MAX_ROUNDS = 1 << 16 };
	struct evp_seal side[3] = { EVP_LINKED };
	static double traced[MAX_ROUNDS], floored[MAX_ROUNDS];
	int nsides = floor_copy ? 3 : 2;
	double end = now() + secs;
	size_t n = 0;

	evp_from_copy(&side[1], copy);
	if (floor_copy)
		evp_from_copy(&side[2], floor_copy);
	for (int k = 0; k < nsides; k++) {
		side[k].c = side[k].ctx_new();
		if (!side[k].c || !side[k].init(side[k].c, side[k].aes_128_gcm(), NULL, key, NULL))
			die("EVP key setup");
		evp_seals(&side[k], BATCH, 16);	/* warm */
	}
	while (n < MAX_ROUNDS && now() < end) {
		double t[3];

		for (int k = 0; k < nsides; k++) {
			int at = (int)((k + n) % nsides);

			t[at] = evp_seals(&side[at], BATCH, 16);
		}
		traced[n] = (t[0] - t[1]) / BATCH * 1e9;
		floored[n] = nsides == 3 ? (t[2] - t[1]) / BATCH * 1e9 : 0;
		n++;
	}
	print_median(traced, n, floor_copy ? " " : "\n");
	if (floor_copy)
		print_median(floored, n, "\n");
	fprintf(stderr, "sealed %lu\n", (unsigned long)(n + 1) * BATCH);
	for (int k = 0; k < nsides; k++)
		side[k].ctx_free(side[k].c);
	return 0;
}

/*
 * Seals on contexts a and b, interleaved: a's IV and AAD, b's IV and AAD,
 * a's data and tag, b's data and tag. OpenSSL sets the IV at the first
 * update after it is given, so each context's CRYPTO_gcm128_setiv comes
 * before the other's finish: a start marked per CPU is then b's when a ends.
 */
static int interleave(unsigned long pairs)
{
	EVP_CIPHER_CTX *c[2] = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	unsigned char tag[TAG_LEN];
	int n;

	for (int k = 0; k < 2; k++)
		if (!c[k] || !EVP_EncryptInit_ex(c[k], EVP_aes_128_gcm(), NULL, key, NULL))
			die("EVP key setup");
	for (unsigned long i = 0; i < pairs; i++) {
		iv[0] = (unsigned char)i;
		for (int k = 0; k < 2; k++)
			if (!EVP_EncryptInit_ex(c[k], NULL, NULL, NULL, iv) ||
			    !EVP_EncryptUpdate(c[k], NULL, &n, aad, AAD_LEN))
				die("EVP seal start");
		for (int k = 0; k < 2; k++)
			if (!EVP_EncryptUpdate(c[k], ct, &n, msg, 64) || !EVP_EncryptFinal_ex(c[k], ct + n, &n) ||
			    !EVP_CIPHER_CTX_ctrl(c[k], EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag))
				die("EVP seal end");
	}
	fprintf(stderr, "sealed %lu\n", 2 * pairs);
	for (int k = 0; k < 2; k++)
		EVP_CIPHER_CTX_free(c[k]);
	return 0;
}

/* One seal under each of n process names (prctl): n label sets for an agent, one process. */
static int names(unsigned long n)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	unsigned char tag[TAG_LEN];
	char name[16];
	int len;

	if (!EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, key, NULL))
		die("EVP key setup");
	for (unsigned long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%05lu", i);
		prctl(PR_SET_NAME, name);
		if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv) ||
		    !EVP_EncryptUpdate(c, ct, &len, msg, 16) ||
		    !EVP_EncryptFinal_ex(c, ct + len, &len) ||
		    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag))
			die("EVP seal");
	}
	printf("named %lu\n", n);
	EVP_CIPHER_CTX_free(c);
	return 0;
}

static void wait_usr1(void);

/* Handles made before the tracer starts: their work cannot be attributed. */
static int preopened(unsigned long n)
{
	gnutls_datum_t kd = { key, 16 };
	gnutls_aead_cipher_hd_t gh;
	gcry_cipher_hd_t ch;
	unsigned char tag[TAG_LEN];

	if (!gcry_check_version(NULL))
		die("gcry_check_version");
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	if (gnutls_aead_cipher_init(&gh, GNUTLS_CIPHER_AES_128_GCM, &kd) < 0)
		die("gnutls_aead_cipher_init");
	gcry_check(gcry_cipher_open(&ch, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0), "open");
	gcry_check(gcry_cipher_setkey(ch, key, 16), "setkey");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_usr1();
	for (unsigned long i = 0; i < n; i++) {
		size_t clen = sizeof(ct);

		if (gnutls_aead_cipher_encrypt(gh, iv, sizeof(iv), aad, AAD_LEN, TAG_LEN, msg, 64, ct,
					       &clen) < 0)
			die("gnutls_aead_cipher_encrypt");
		gcry_check(gcry_cipher_setiv(ch, iv, sizeof(iv)), "setiv");
		gcry_check(gcry_cipher_authenticate(ch, aad, AAD_LEN), "authenticate");
		gcry_check(gcry_cipher_encrypt(ch, ct, 64, msg, 64), "encrypt");
		gcry_check(gcry_cipher_gettag(ch, tag, TAG_LEN), "gettag");
	}
	gnutls_aead_cipher_deinit(gh);
	gcry_cipher_close(ch);
	printf("preopened gnutls=%lu gcrypt=%lu\n", n, n);
	fflush(stdout);
	return 0;
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void wait_usr1(void)
{
	sigset_t none;

	sigemptyset(&none);
	while (!go)
		sigsuspend(&none);
	go = 0;
}

static bool selected(const char *only, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = only; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return !only;
}

int main(int argc, char **argv)
{
	struct schedule s = { .rounds = 2 };
	const char *only = NULL;
	bool wait = false, hold = false, exec_after = false;
	unsigned long preopen_n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = true;
		else if (!strcmp(argv[i], "--hold"))
			hold = true;
		else if (!strcmp(argv[i], "--exec-after"))
			exec_after = true;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			s.rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--preopened") && i + 1 < argc)
			preopen_n = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seal-loop") && i + 2 < argc)
			return seal_loop(strtoul(argv[i + 1], NULL, 0), atof(argv[i + 2]));
		else if (!strcmp(argv[i], "--nettle-loop") && i + 1 < argc)
			return nettle_loop(atof(argv[i + 1]));
		else if (!strcmp(argv[i], "--names") && i + 1 < argc)
			return names(strtoul(argv[i + 1], NULL, 10));
		else if (!strcmp(argv[i], "--paired-loop") && i + 2 < argc)
			return paired_loop(atof(argv[i + 1]), argv[i + 2], i + 3 < argc ? argv[i + 3] : NULL);
		else if (!strcmp(argv[i], "--interleave") && i + 1 < argc)
			return interleave(strtoul(argv[i + 1], NULL, 10));
		else {
			fprintf(stderr, "usage: gcm_workload [--wait] [--hold] [--exec-after] [--rounds N] "
					"[--only LIST] [--preopened N] | "
					"--seal-loop SIZE SECONDS | --nettle-loop SECONDS | --paired-loop SECONDS COPY [FLOOR] | --names N | "
					"--interleave N\n");
			return 2;
		}
	}
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)i;
	memset(msg, 'm', sizeof(msg));
	{
		sigset_t usr1;

		/* Blocked until sigsuspend(): a signal sent early is not lost. */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		signal(SIGUSR1, on_usr1);
	}
	if (preopen_n)
		return preopened(preopen_n);
	if (wait) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		wait_usr1();
	}
	if (exec_after) {
		execl("/bin/sleep", "sleep", "5", (char *)NULL);
		die("exec");
	}
	if (selected(only, "openssl"))
		run_openssl(&s);
	if (selected(only, "tls"))
		run_tls(&s);
	if (only && selected(only, "hops"))
		run_hops(&s);
	if (selected(only, "gnutls"))
		run_gnutls(&s);
	if (selected(only, "gcrypt"))
		run_gcrypt(&s);
	if (selected(only, "nettle"))
		run_nettle(&s);
	print_expect(&s);
	fflush(stdout);
	if (hold) {
		alarm(60);
		wait_usr1();
	}
	return 0;
}
