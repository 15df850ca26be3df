// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * GnuTLS's AES-GCM backend, located by asking the library itself.
 *
 * GnuTLS's TLS 1.2 record layer seals and opens records through the
 * aead_encrypt/aead_decrypt function pointers of an internal cipher handle
 * (cipher_hd_st), filled from the backend its start-up registered for the
 * CPU: accelerated x86 code, or the wrapper around nettle. Those functions
 * are static, so no symbol names them, and which one a process gets depends
 * on the CPU and on GNUTLS_CPUID_OVERRIDE. The public gnutls_aead_cipher_init
 * builds the same cipher_hd_st. So a child process loads the very library
 * file (through its descriptor, with no privileges), makes AES-GCM handles
 * under each feature set GnuTLS can be told to assume, and reports the
 * functions and how the key size shows in the backend's context. Everything
 * read is checked against what it must be (the handle's cipher entry names
 * the algorithm asked for; the functions lie in the library) or refused.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnutls_backend.h"
#include "gnutls_cache.h"

/* gnutls_cipher_algorithm_t values (gnutls.h: ABI, stable). */
#define ALGO_AES_128_GCM 10
#define ALGO_AES_256_GCM 11
#define ALGO_AES_192_GCM 39
#define ALGO_CAMELLIA_128_GCM 15
#define ALGO_AES_128_CCM 19
#define ALGO_CHACHA20_POLY1305 23

/*
 * GNUTLS_CPUID_OVERRIDE masks: GnuTLS's own (1: no acceleration, 2: AES-NI,
 * 4: SSSE3, 8: PCLMUL, 0x10: AVX); a mask the CPU cannot honour falls back
 * to what it can, and duplicates are dropped. NULL: what the CPU offers.
 */
static const char *const cpuid_masks[] = { NULL, "0x1", "0x4", "0x2", "0xa", "0x1a" };

#define KEYS_PER_SIZE 2
#define CTX_SCAN_MAX 8192

struct cal_reply {
	int status;		/* 0, or a positive errno */
	char why[200];
	struct gnutls_backend b;
};

typedef struct {
	unsigned char *data;
	unsigned int size;
} gnutls_datum;

typedef int (*aead_init_fn)(void **hd, int algo, const gnutls_datum *key);

/* The start of cipher_hd_st (lib/cipher_int.h), which every GnuTLS 3.x handle begins with. */
struct cipher_hd_head {
	void *backend_ctx;
	const void *entry;	/* cipher_entry_st: name pointer, then the int algorithm id */
	void *encrypt, *decrypt;
	void *aead_encrypt, *aead_decrypt;
};

struct cal_handle {
	int algo;
	const struct cipher_hd_head *hd;
	size_t ctx_size;
};

static int fail(struct cal_reply *r, int err, const char *fmt, const char *arg)
{
	r->status = err;
	snprintf(r->why, sizeof(r->why), fmt, arg ? arg : "");
	return err;
}

/* In the library's own mapping (dladdr names the file the handle came from). */
static bool in_lib(const void *p, const char *lib_name)
{
	Dl_info info;

	return p && dladdr(p, &info) && info.dli_fname && !strcmp(info.dli_fname, lib_name);
}

static int key_index(int algo)
{
	return algo == ALGO_AES_128_GCM ? 0 : algo == ALGO_AES_192_GCM ? 1 : 2;
}

static unsigned int key_len(int algo)
{
	return algo == ALGO_AES_128_GCM || algo == ALGO_CAMELLIA_128_GCM || algo == ALGO_AES_128_CCM ?
		       16 : algo == ALGO_AES_192_GCM ? 24 : 32;
}

static const struct cipher_hd_head *make_handle(aead_init_fn init, int algo, unsigned char fill)
{
	unsigned char key[32];
	gnutls_datum k = { key, key_len(algo) };
	void *hd = NULL;

	memset(key, fill, sizeof(key));
	return init(&hd, algo, &k) ? NULL : hd;
}

static int32_t ctx_int(const struct cal_handle *h, size_t off)
{
	int32_t v;

	memcpy(&v, (const char *)h->hd->backend_ctx + off, sizeof(v));
	return v;
}

/*
 * The key size as the backend context shows it: an int equal for equal key
 * sizes and different between sizes (the AES round count, 9/11/13 in the
 * AES-NI schedule), or a pointer into the library at an object whose int
 * is the algorithm id (nettle's wrapper points at its cipher description).
 * The pointer form names the algorithm itself, so it is preferred.
 */
static bool find_ptr_disc(const struct cal_handle *h, unsigned int n, size_t scan,
			  const char *lib_name, struct rs_gcm_backend *d)
{
	for (size_t off = 0; off + sizeof(void *) <= scan; off += sizeof(void *)) {
		const char *obj[3 * KEYS_PER_SIZE];
		bool ok = true;

		for (unsigned int i = 0; i < n && ok; i++) {
			memcpy(&obj[i], (const char *)h[i].hd->backend_ctx + off, sizeof(obj[i]));
			ok = in_lib(obj[i], lib_name) && in_lib(obj[i] + 124, lib_name);
		}
		for (size_t sub = 0; ok && sub < 128; sub += 4) {
			bool all = true;

			for (unsigned int i = 0; i < n && all; i++) {
				int32_t v;

				memcpy(&v, obj[i] + sub, sizeof(v));
				all = v == h[i].algo;
			}
			if (all) {
				d->off = off;
				d->sub = sub;
				d->deref = 1;
				d->known = 1;
				d->value[0] = ALGO_AES_128_GCM;
				d->value[1] = ALGO_AES_192_GCM;
				d->value[2] = ALGO_AES_256_GCM;
				return true;
			}
		}
	}
	return false;
}

static bool find_int_disc(const struct cal_handle *h, unsigned int n, size_t scan,
			  struct rs_gcm_backend *d)
{
	for (size_t off = 0; off + 4 <= scan; off += 4) {
		int32_t by_size[3];
		bool seen[3] = { false, false, false }, ok = true;

		for (unsigned int i = 0; i < n && ok; i++) {
			int k = key_index(h[i].algo);
			int32_t v = ctx_int(&h[i], off);

			ok = v > 0 && v < 256 && (!seen[k] || by_size[k] == v);
			by_size[k] = v;
			seen[k] = true;
		}
		for (int a = 0; a < 3 && ok; a++)
			for (int b = a + 1; b < 3 && ok; b++)
				ok = !(seen[a] && seen[b] && by_size[a] == by_size[b]);
		if (ok) {
			d->off = off;
			d->deref = 0;
			d->known = 1;
			for (int k = 0; k < 3; k++)
				d->value[k] = seen[k] ? by_size[k] : -1;
			return true;
		}
	}
	return false;
}

/* In the child: load the library and fill r. Returns r->status. */
static int calibrate(int lib_fd, struct cal_reply *r)
{
	static const int gcm_algos[] = { ALGO_AES_128_GCM, ALGO_AES_192_GCM, ALGO_AES_256_GCM };
	static const int other_aeads[] = { ALGO_CAMELLIA_128_GCM, ALGO_AES_128_CCM,
					   ALGO_CHACHA20_POLY1305 };
	struct cal_handle h[3 * KEYS_PER_SIZE];
	struct link_map *lm = NULL;
	unsigned int n = 0;
	bool shared = false;
	size_t scan = CTX_SCAN_MAX;
	char path[64];
	aead_init_fn init;
	size_t (*usable_size)(void *);
	void *lib;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", lib_fd);
	/*
	 * A namespace of its own: GnuTLS picks its backend (and reads
	 * GNUTLS_CPUID_OVERRIDE) in its constructor, so a copy the process
	 * already has (the CLI's HTTP server links it; so may an embedding
	 * program) must not be the one asked.
	 */
	lib = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(r, ENOEXEC, "cannot load it: %s", dlerror());
	init = (aead_init_fn)dlsym(lib, "gnutls_aead_cipher_init");
	if (!init || dlinfo(lib, RTLD_DI_LINKMAP, &lm) || !lm)
		return fail(r, ENOENT, "no gnutls_aead_cipher_init%s", NULL);
	/*
	 * The contexts come from the C library of the namespace above, so
	 * only its allocator can say how big one is: ours may not own the
	 * block at all (a sanitizer's allocator does not).
	 */
	usable_size = (size_t (*)(void *))dlsym(lib, "malloc_usable_size");
	if (!usable_size)
		return fail(r, ENOENT, "its C library has no malloc_usable_size%s", NULL);
	for (size_t a = 0; a < sizeof(gcm_algos) / sizeof(gcm_algos[0]); a++) {
		for (int k = 0; k < KEYS_PER_SIZE; k++) {
			const struct cipher_hd_head *hd = make_handle(init, gcm_algos[a], 0x21 + 0x35 * k);
			int32_t id;

			if (!hd)
				continue;	/* AES-192-GCM is missing from older GnuTLS */
			if (!in_lib(hd->entry, lm->l_name) ||
			    (memcpy(&id, (const char *)hd->entry + sizeof(void *), sizeof(id)), id != gcm_algos[a]))
				return fail(r, EPROTO, "its handles do not start as GnuTLS 3.x's "
					    "cipher_hd_st does%s", NULL);
			if (!in_lib(hd->aead_encrypt, lm->l_name) || !in_lib(hd->aead_decrypt, lm->l_name))
				return fail(r, EPROTO, "its AES-GCM handles have no AEAD functions "
					    "in the library%s", NULL);
			if (n && (hd->aead_encrypt != h[0].hd->aead_encrypt ||
				  hd->aead_decrypt != h[0].hd->aead_decrypt))
				return fail(r, EPROTO, "it uses different AES-GCM code per key size%s", NULL);
			h[n].algo = gcm_algos[a];
			h[n].hd = hd;
			h[n].ctx_size = usable_size(hd->backend_ctx);
			if (h[n].ctx_size < scan)
				scan = h[n].ctx_size;
			n++;
		}
	}
	if (n < 2 * KEYS_PER_SIZE)
		return fail(r, ENOENT, "no AES-128-GCM and AES-256-GCM handles can be made%s", NULL);
	/* A backend that also serves other AEADs must name the algorithm in its context. */
	for (size_t a = 0; a < sizeof(other_aeads) / sizeof(other_aeads[0]); a++) {
		const struct cipher_hd_head *hd = make_handle(init, other_aeads[a], 0x42);

		if (hd && (hd->aead_encrypt == h[0].hd->aead_encrypt ||
			   hd->aead_decrypt == h[0].hd->aead_decrypt))
			shared = true;
	}
	memset(&r->b, 0, sizeof(r->b));
	r->b.seal_vaddr = (uintptr_t)h[0].hd->aead_encrypt - lm->l_addr;
	r->b.open_vaddr = (uintptr_t)h[0].hd->aead_decrypt - lm->l_addr;
	r->b.disc.in_use = 1;
	if (!find_ptr_disc(h, n, scan, lm->l_name, &r->b.disc) && shared)
		return fail(r, EPROTO, "its AES-GCM code also serves other AEADs and nothing in "
			    "its context tells them apart%s", NULL);
	if (!r->b.disc.known)
		find_int_disc(h, n, scan, &r->b.disc);
	r->status = 0;
	return 0;
}

/* Unprivileged, bounded in time, and gone with its parent: it runs the library's code. */
static void child_confine(const char *mask)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(20);
	if (geteuid() == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(126);
	} else {
		/* Not root but given CAP_BPF and friends: the library gets none of them. */
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };

		if (syscall(SYS_capset, &hdr, none))
			_exit(126);
	}
	/* Dropping uid makes /proc/self root's; /proc/self/fd must stay ours. */
	prctl(PR_SET_DUMPABLE, 1);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	clearenv();
	if (mask)
		setenv("GNUTLS_CPUID_OVERRIDE", mask, 1);
}

struct cal_child {
	pid_t pid;
	int fd;		/* the read end of its reply pipe */
};

/* Start a calibration child under mask; its reply is read by child_finish(). */
static int child_start(int lib_fd, const char *mask, struct cal_child *ch)
{
	int pipefd[2];

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		int err = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (ch->pid == 0) {
		struct cal_reply mine;

		memset(&mine, 0, sizeof(mine));
		close(pipefd[0]);
		child_confine(mask);
		calibrate(lib_fd, &mine);
		if (write(pipefd[1], &mine, sizeof(mine)) != (ssize_t)sizeof(mine))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	ch->fd = pipefd[0];
	return 0;
}

static void child_finish(struct cal_child *ch, struct cal_reply *r)
{
	ssize_t got;
	int status = 0;

	memset(r, 0, sizeof(*r));
	do {
		got = read(ch->fd, r, sizeof(*r));
	} while (got < 0 && errno == EINTR);
	close(ch->fd);
	while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(*r)) {
		r->status = EPROTO;
		snprintf(r->why, sizeof(r->why), "loading it %s",
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "failed");
	}
}

#define NR_MASKS (sizeof(cpuid_masks) / sizeof(cpuid_masks[0]))

int gnutls_backend_find(int lib_fd, struct gnutls_backend *out, unsigned int max,
			char *why, size_t why_len)
{
	struct cal_child kids[NR_MASKS];
	unsigned int n = 0, started = 0;
	int err = 0;

	why[0] = '\0';
	/* Found before for this build of the library on this CPU: no children. */
	n = (unsigned int)gnutls_cache_load(lib_fd, out, max);
	if (n)
		return (int)n;
	/* One child per CPU feature mask, all at once: each loads the library (~12 ms). */
	for (; started < NR_MASKS; started++) {
		err = child_start(lib_fd, cpuid_masks[started], &kids[started]);
		if (err) {
			snprintf(why, why_len, "cannot start the calibration process: %s", strerror(-err));
			break;
		}
	}
	for (size_t m = 0; m < started; m++) {
		struct cal_reply r;
		bool dup = false;

		child_finish(&kids[m], &r);
		if (err || n >= max)
			continue;	/* reaped, not used */
		if (r.status) {
			/* The CPU's own choice must work; an override that fails only loses itself. */
			if (!cpuid_masks[m]) {
				r.why[sizeof(r.why) - 1] = '\0';
				snprintf(why, why_len, "%s", r.why);
				err = -r.status;
			}
			continue;
		}
		for (unsigned int i = 0; i < n && !dup; i++)
			dup = out[i].seal_vaddr == r.b.seal_vaddr;
		if (!dup)
			out[n++] = r.b;
	}
	if (!err && n)
		gnutls_cache_store(lib_fd, out, n);
	return err ? err : (int)n;
}
