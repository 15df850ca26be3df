// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known schedule of kernel AES-GCM requests for `ringside gcm --kernel`,
 * checked against the kernel's own answers:
 *
 *   kgcm_check afalg ALG KEYBITS SIZE AAD SEALS OPENS BADTAGS THREADS
 *       each of THREADS threads binds an AF_ALG aead socket to ALG (e.g.
 *       "gcm(aes)", "cryptd(gcm(aes))"), sets a KEYBITS key, seals SEALS
 *       messages of SIZE bytes with AAD bytes of AAD, opens OPENS of them
 *       (the plaintext must come back) and BADTAGS with a flipped tag bit
 *       (EBADMSG expected);
 *   kgcm_check bench ALG SIZE COUNT
 *       COUNT seals of SIZE bytes through AF_ALG in one thread, timed:
 *       prints "bench SIZE COUNT NS_PER_OP" (make bench's guest part);
 *   kgcm_check ktls RECORDS SIZE
 *       a TCP connection over loopback with kTLS (TLS 1.3, AES-128-GCM, a
 *       fixed key) on both ends: RECORDS records of SIZE bytes sent, read
 *       back and compared.
 *
 * Prints what it did as one line; exits non-zero on any unexpected result.
 * With KGCM_WAIT=FIFO in the environment it first waits for a line there.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_alg.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif
#ifndef SOL_TLS
#define SOL_TLS 282
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

#define TAG 16
#define IV 12

struct afalg_job {
	const char *alg;
	unsigned int key_bytes, size, aad, seals, opens, badtags;
	int failed;
};

static int die(const char *what)
{
	fprintf(stderr, "kgcm_check: %s: %s\n", what, strerror(errno));
	return -1;
}

/* One request: send AAD||input with op/iv/assoclen, read the output. */
static ssize_t afalg_op(int op, int enc, const unsigned char *iv, unsigned int aad,
			const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len)
{
	char cbuf[CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + IV) + CMSG_SPACE(4)] = { 0 };
	struct iovec iov = { .iov_base = (void *)in, .iov_len = in_len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	struct af_alg_iv *aiv;

	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(4);
	*(__u32 *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(*aiv) + IV);
	aiv = (void *)CMSG_DATA(c);
	aiv->ivlen = IV;
	memcpy(aiv->iv, iv, IV);
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	c->cmsg_len = CMSG_LEN(4);
	*(__u32 *)CMSG_DATA(c) = aad;
	if (sendmsg(op, &msg, 0) != (ssize_t)in_len)
		return -errno;
	return read(op, out, out_len) < 0 ? -errno : (ssize_t)out_len;
}

static void *afalg_thread(void *arg)
{
	struct afalg_job *j = arg;
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "aead" };
	unsigned char key[32], iv[IV] = { 1, 2, 3 };
	size_t plain = j->aad + j->size, sealed = plain + TAG;
	unsigned char *pt = malloc(plain), *ct = malloc(sealed), *back = malloc(sealed);
	int tfm = -1, op = -1;

	j->failed = 1;
	if (!pt || !ct || !back)
		goto out;
	for (size_t i = 0; i < plain; i++)
		pt[i] = (unsigned char)(i * 7 + 1);
	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)(0x40 + i);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", j->alg);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0 || bind(tfm, (struct sockaddr *)&sa, sizeof(sa))) {
		die(j->alg);
		goto out;
	}
	if (setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, j->key_bytes) ||
	    setsockopt(tfm, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, TAG) || (op = accept(tfm, NULL, 0)) < 0) {
		die("setkey/accept");
		goto out;
	}
	for (unsigned int i = 0; i < j->seals; i++)
		if (afalg_op(op, 1, iv, j->aad, pt, plain, ct, sealed) < 0) {
			die("seal");
			goto out;
		}
	for (unsigned int i = 0; i < j->opens; i++) {
		if (afalg_op(op, 0, iv, j->aad, ct, sealed, back, plain) < 0 ||
		    memcmp(back + j->aad, pt + j->aad, j->size)) {
			fprintf(stderr, "kgcm_check: an open did not give the plaintext back\n");
			goto out;
		}
	}
	ct[sealed - 1] ^= 1;
	for (unsigned int i = 0; i < j->badtags; i++) {
		ssize_t r = afalg_op(op, 0, iv, j->aad, ct, sealed, back, plain);

		if (r != -EBADMSG) {
			fprintf(stderr, "kgcm_check: a bad tag gave %zd, not -EBADMSG\n", r);
			goto out;
		}
	}
	j->failed = 0;
out:
	if (op >= 0)
		close(op);
	if (tfm >= 0)
		close(tfm);
	free(pt);
	free(ct);
	free(back);
	return NULL;
}

static int afalg(char **a)
{
	unsigned int threads = atoi(a[7]), failed = 0;
	struct afalg_job job = {
		.alg = a[0], .key_bytes = atoi(a[1]) / 8, .size = atoi(a[2]), .aad = atoi(a[3]),
		.seals = atoi(a[4]), .opens = atoi(a[5]), .badtags = atoi(a[6]),
	};
	struct afalg_job jobs[64];
	pthread_t tids[64];

	if (!threads || threads > 64)
		return fprintf(stderr, "kgcm_check: 1 to 64 threads\n"), 2;
	for (unsigned int i = 0; i < threads; i++) {
		jobs[i] = job;
		if (pthread_create(&tids[i], NULL, afalg_thread, &jobs[i]))
			return die("pthread_create"), 1;
	}
	for (unsigned int i = 0; i < threads; i++) {
		pthread_join(tids[i], NULL);
		failed += jobs[i].failed;
	}
	printf("afalg %s key %u: %u threads x (%u seals, %u opens, %u bad tags) of %u bytes, aad %u: %s\n",
	       job.alg, job.key_bytes * 8, threads, job.seals, job.opens, job.badtags, job.size, job.aad,
	       failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int bench(char **a)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "aead" };
	unsigned int size = atoi(a[1]), count = atoi(a[2]);
	unsigned char key[16] = { 7 }, iv[IV] = { 1 }, *pt = calloc(1, size), *ct = malloc(size + TAG);
	int tfm, op;
	double t0;

	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", a[0]);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (!pt || !ct || tfm < 0 || bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, sizeof(key)) ||
	    setsockopt(tfm, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, TAG) || (op = accept(tfm, NULL, 0)) < 0)
		return die("bench setup"), 1;
	t0 = now_ns();
	for (unsigned int i = 0; i < count; i++)
		if (afalg_op(op, 1, iv, 0, pt, size, ct, size + TAG) < 0)
			return die("bench seal"), 1;
	printf("bench %u %u %.0f\n", size, count, (now_ns() - t0) / count);
	return 0;
}

static int tls_on(int fd, int dir)
{
	struct tls12_crypto_info_aes_gcm_128 ci = { 0 };

	ci.info.version = TLS_1_3_VERSION;
	ci.info.cipher_type = TLS_CIPHER_AES_GCM_128;
	memset(ci.key, 0x11, sizeof(ci.key));
	memset(ci.iv, 0x22, sizeof(ci.iv));
	memset(ci.salt, 0x33, sizeof(ci.salt));
	if (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", sizeof("tls")))
		return die("TCP_ULP tls");
	if (setsockopt(fd, SOL_TLS, dir, &ci, sizeof(ci)))
		return die(dir == TLS_TX ? "TLS_TX" : "TLS_RX");
	return 0;
}

static int ktls(char **a)
{
	unsigned int records = atoi(a[0]), size = atoi(a[1]);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int lfd, cfd, sfd, one = 1;
	unsigned char *buf = malloc(size), *got = malloc(size);

	if (!buf || !got || !size || size > 16384)
		return fprintf(stderr, "kgcm_check: SIZE 1 to 16384\n"), 2;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len))
		return die("listen"), 1;
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&sin, sizeof(sin)) || (sfd = accept(lfd, NULL, 0)) < 0)
		return die("connect"), 1;
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (tls_on(cfd, TLS_TX) || tls_on(sfd, TLS_RX))
		return 1;
	for (unsigned int r = 0; r < records; r++) {
		size_t have = 0;

		memset(buf, (int)(r & 0xff), size);
		/* One send of at most 16 KiB without MSG_MORE is one record. */
		if (send(cfd, buf, size, 0) != (ssize_t)size)
			return die("send"), 1;
		while (have < size) {
			ssize_t n = recv(sfd, got + have, size - have, 0);

			if (n <= 0)
				return die("recv"), 1;
			have += (size_t)n;
		}
		if (memcmp(buf, got, size))
			return fprintf(stderr, "kgcm_check: record %u came back different\n", r), 1;
	}
	printf("ktls: %u records of %u bytes sent and read back: ok\n", records, size);
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *wait_path = getenv("KGCM_WAIT");
	char line[8];

	/* KGCM_WAIT=FIFO: start only after a line there, so that a tracer can
	 * be attached to this PID first (opened here, after exec, so the PID
	 * runs this program while it waits). */
	if (wait_path) {
		FILE *f = fopen(wait_path, "r");

		if (!f || !fgets(line, sizeof(line), f))
			return fprintf(stderr, "kgcm_check: no go line from %s\n", wait_path), 2;
		fclose(f);
	}
	if (argc == 10 && !strcmp(argv[1], "afalg"))
		return afalg(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "bench"))
		return bench(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "ktls"))
		return ktls(argv + 2);
	fprintf(stderr, "usage: kgcm_check afalg ALG KEYBITS SIZE AAD SEALS OPENS BADTAGS THREADS\n"
			"       kgcm_check bench ALG SIZE COUNT\n"
			"       kgcm_check ktls RECORDS SIZE\n");
	return 2;
}
