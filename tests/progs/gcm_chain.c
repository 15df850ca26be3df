// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known call chain for --stacks: chain_outer -> chain_middle -> chain_inner
 * -> one AES-GCM seal in the library named on the command line (openssl,
 * gnutls, libgcrypt, nettle). Built without frame pointers (like Debian's
 * libraries), so only .eh_frame unwinding finds the three frames.
 *
 *   gcm_chain LIB       print "ready", wait for a line on stdin, seal once
 *                       through the chain, then stay until stdin ends (a
 *                       tracer resolves addresses while the process and its
 *                       mappings still exist)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <nettle/gcm.h>
#include <openssl/evp.h>

static unsigned char key[32], iv[12], aad[13], msg[256], out[256 + 16], tag[16];

static void die(const char *what)
{
	fprintf(stderr, "gcm_chain: %s failed\n", what);
	exit(1);
}

static void seal_openssl(void)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	if (!c || !EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, key, iv) ||
	    !EVP_EncryptUpdate(c, NULL, &n, aad, sizeof(aad)) ||
	    !EVP_EncryptUpdate(c, out, &n, msg, sizeof(msg)) || !EVP_EncryptFinal_ex(c, out + n, &n))
		die("EVP seal");
	EVP_CIPHER_CTX_free(c);
}

static void seal_gnutls(void)
{
	gnutls_datum_t k = { key, 16 };
	gnutls_aead_cipher_hd_t h;
	size_t len = sizeof(out);

	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &k) ||
	    gnutls_aead_cipher_encrypt(h, iv, sizeof(iv), aad, sizeof(aad), 16, msg, sizeof(msg), out,
				       &len))
		die("gnutls seal");
	gnutls_aead_cipher_deinit(h);
}

static void seal_gcrypt(void)
{
	gcry_cipher_hd_t h;

	if (gcry_cipher_open(&h, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0) ||
	    gcry_cipher_setkey(h, key, 16) || gcry_cipher_setiv(h, iv, sizeof(iv)) ||
	    gcry_cipher_authenticate(h, aad, sizeof(aad)) ||
	    gcry_cipher_encrypt(h, out, sizeof(msg), msg, sizeof(msg)) ||
	    gcry_cipher_gettag(h, tag, sizeof(tag)))
		die("gcrypt seal");
	gcry_cipher_close(h);
}

static void seal_nettle(void)
{
	struct gcm_aes128_ctx c;

	nettle_gcm_aes128_set_key(&c, key);
	nettle_gcm_aes128_set_iv(&c, sizeof(iv), iv);
	nettle_gcm_aes128_update(&c, sizeof(aad), aad);
	nettle_gcm_aes128_encrypt(&c, sizeof(msg), out, msg);
	nettle_gcm_aes128_digest(&c, sizeof(tag), tag);
}

/* noinline and a use after the call: each function keeps a frame of its own. */
static volatile int depth_seen;

__attribute__((noinline)) void chain_inner(const char *lib)
{
	if (!strcmp(lib, "openssl"))
		seal_openssl();
	else if (!strcmp(lib, "gnutls"))
		seal_gnutls();
	else if (!strcmp(lib, "libgcrypt"))
		seal_gcrypt();
	else if (!strcmp(lib, "nettle"))
		seal_nettle();
	else
		die("unknown library");
	depth_seen += 3;
}

__attribute__((noinline)) void chain_middle(const char *lib)
{
	chain_inner(lib);
	depth_seen += 2;
}

__attribute__((noinline)) void chain_outer(const char *lib)
{
	chain_middle(lib);
	depth_seen += 1;
}

int main(int argc, char **argv)
{
	char line[16];

	if (argc != 2)
		die("usage: gcm_chain openssl|gnutls|libgcrypt|nettle");
	if (!gcry_check_version(NULL))
		die("gcry_check_version");
	memset(key, 7, sizeof(key));
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	chain_outer(argv[1]);
	printf("done %d\n", depth_seen);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
