// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The set of probed files: what each library family's entry points are,
 * checking a file (ELF kind, Go program or library), placing its probes,
 * and the libraries' versions. gcm_discover.c finds the files.
 */
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcm_libs.h"
#include "gnutls_backend.h"
#include "gobin.h"
#include "ossl_finish_points.h"
#include "probe_point.h"
#include "symtab.h"
#include "ringside/procmaps.h"

#define E(sym, entry, ret, req) { sym, entry, ret, req }
/* An entry-only probe whose program reads nargs arguments through its argument map. */
#define F(sym, entry, req, nargs) { sym, entry, NULL, req, NULL, false, nargs }

/*
 * OpenSSL: EVP, the providers and libssl's record layer all end in the
 * CRYPTO_gcm128_* layer, so probing it counts each message once whichever
 * API produced it.
 */
static const struct gcm_probe_spec openssl_specs[] = {
	E("CRYPTO_gcm128_init", "gcm_ossl_init", NULL, true),
	/* The message's start: only its duration needs it (counting works without). */
	{ "CRYPTO_gcm128_setiv", "gcm_ossl_setiv", NULL, true, NULL, true },
	{ "CRYPTO_gcm128_finish", "gcm_ossl_finish", "gcm_ossl_finish_ret", true,
	  "gcm_ossl_fin_session" },
	E("CRYPTO_gcm128_decrypt", "gcm_ossl_decrypt", NULL, false),
	E("CRYPTO_gcm128_decrypt_ctr32", "gcm_ossl_decrypt", NULL, false),
};

/* finish probed inside (ossl_finish_points.h): the one spec above replaced by two plain probes. */
static const struct gcm_probe_spec openssl_finish_inside[] = {
	E("CRYPTO_gcm128_finish", "gcm_ossl_fin_regs", NULL, true),
	E("CRYPTO_gcm128_finish", "gcm_ossl_fin_cmp", NULL, true),
};

static const struct gcm_probe_spec gnutls_specs[] = {
	E("gnutls_aead_cipher_init", "gcm_gnutls_aead_init", "gcm_handle_init_ret", true),
	E("gnutls_aead_cipher_encrypt", "gcm_gnutls_aead_encrypt", "gcm_gnutls_oneshot_ret", true),
	E("gnutls_aead_cipher_decrypt", "gcm_gnutls_aead_decrypt", "gcm_gnutls_oneshot_ret", true),
	E("gnutls_aead_cipher_deinit", "gcm_gnutls_deinit", NULL, true),
	E("gnutls_aead_cipher_encryptv", "gcm_gnutls_aead_encryptv", "gcm_gnutls_oneshot_ret", false),
	E("gnutls_aead_cipher_encryptv2", "gcm_gnutls_aead_encryptv2", "gcm_gnutls_oneshot_ret", false),
	E("gnutls_aead_cipher_decryptv2", "gcm_gnutls_aead_decryptv2", "gcm_gnutls_oneshot_ret", false),
	E("gnutls_cipher_init", "gcm_gnutls_cipher_init", "gcm_handle_init_ret", false),
	F("gnutls_cipher_set_iv", "gcm_stream_set_iv", false, 1),
	F("gnutls_cipher_add_auth", "gcm_stream_aad", false, 3),
	E("gnutls_cipher_encrypt", "gcm_gnutls_encrypt", NULL, false),
	E("gnutls_cipher_encrypt2", "gcm_gnutls_encrypt", NULL, false),
	E("gnutls_cipher_decrypt", "gcm_gnutls_decrypt", NULL, false),
	E("gnutls_cipher_decrypt2", "gcm_gnutls_decrypt", NULL, false),
	F("gnutls_cipher_tag", "gcm_gnutls_tag", false, 1),
	E("gnutls_cipher_deinit", "gcm_gnutls_deinit", NULL, false),
};

/*
 * GnuTLS's AES-GCM backend (gnutls_backend.c): static functions found by
 * calibration, reached by the TLS 1.2 record layer through a function pointer.
 */
static const struct gcm_probe_spec gnutls_backend_specs[] = {
	E("AES-GCM backend aead_encrypt", "gcm_gnutls_backend_seal", "gcm_gnutls_oneshot_ret", false),
	E("AES-GCM backend aead_decrypt", "gcm_gnutls_backend_open", "gcm_gnutls_oneshot_ret", false),
};

static const struct gcm_probe_spec gcrypt_specs[] = {
	E("gcry_cipher_open", "gcm_gcry_open", "gcm_handle_init_ret", true),
	E("gcry_cipher_close", "gcm_gcry_close", NULL, true),
	F("gcry_cipher_setiv", "gcm_stream_set_iv", true, 1),
	F("gcry_cipher_authenticate", "gcm_stream_aad", true, 3),
	E("gcry_cipher_encrypt", "gcm_gcry_encrypt", NULL, true),
	E("gcry_cipher_decrypt", "gcm_gcry_decrypt", NULL, true),
	E("gcry_cipher_gettag", "gcm_gcry_gettag", "gcm_gcry_tag_ret", true),
	E("gcry_cipher_checktag", "gcm_gcry_checktag", "gcm_gcry_tag_ret", true),
};

/* nettle: the AES-GCM context API; aes192 and the older keyed-by-length API are optional. */
#define NETTLE_SIZE(n, req)                                                              \
	E("nettle_gcm_aes" #n "_set_key", "gcm_nettle_set_key" #n, NULL, req),          \
	F("nettle_gcm_aes" #n "_set_iv", "gcm_stream_set_iv", req, 1),                  \
	F("nettle_gcm_aes" #n "_update", "gcm_nettle_update", req, 2),                  \
	F("nettle_gcm_aes" #n "_encrypt", "gcm_nettle_encrypt", req, 2),                \
	F("nettle_gcm_aes" #n "_decrypt", "gcm_nettle_decrypt", req, 2),                \
	F("nettle_gcm_aes" #n "_digest", "gcm_nettle_digest", req, 1)

static const struct gcm_probe_spec nettle_specs[] = {
	NETTLE_SIZE(128, true),
	NETTLE_SIZE(256, true),
	NETTLE_SIZE(192, false),
	E("nettle_gcm_aes_set_key", "gcm_nettle_set_key_len", NULL, false),
	F("nettle_gcm_aes_set_iv", "gcm_stream_set_iv", false, 1),
	F("nettle_gcm_aes_update", "gcm_nettle_update", false, 2),
	F("nettle_gcm_aes_encrypt", "gcm_nettle_encrypt", false, 2),
	F("nettle_gcm_aes_decrypt", "gcm_nettle_decrypt", false, 2),
	F("nettle_gcm_aes_digest", "gcm_nettle_digest", false, 1),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct gcm_family families[] = {
	{ RS_GCM_LIB_OPENSSL, "libcrypto.so", "OpenSSL ", openssl_specs, N(openssl_specs) },
	{ RS_GCM_LIB_GNUTLS, "libgnutls.so", "Enabled GnuTLS ", gnutls_specs, N(gnutls_specs) },
	{ RS_GCM_LIB_GCRYPT, "libgcrypt.so", "This is Libgcrypt ", gcrypt_specs, N(gcrypt_specs) },
	/* nettle states no version in its data; its soname (libnettle.so.8) names the ABI. */
	{ RS_GCM_LIB_NETTLE, "libnettle.so", NULL, nettle_specs, N(nettle_specs) },
};

const struct gcm_family *gcm_family_of(enum rs_gcm_lib lib)
{
	for (size_t i = 0; i < N(families); i++)
		if (families[i].lib == lib)
			return &families[i];
	return NULL;
}

int gcm_libset_fail(struct gcm_libset *set, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->err, sizeof(set->err), fmt, ap);
	va_end(ap);
	return err;
}

/* "OpenSSL 3.0.22 25 Aug 2026": the digits and dots right after the mark, if three or more. */
static bool version_after(const char *at, const char *end, char *out, size_t len)
{
	size_t n = 0;

	while (at + n < end && n + 1 < len && ((at[n] >= '0' && at[n] <= '9') || at[n] == '.'))
		n++;
	if (n < 3)
		return false;
	memcpy(out, at, n);
	out[n] = '\0';
	return true;
}

/* The first version after mark in [off, off + size) of the file, read a window at a time. */
static bool scan_for_version(int fd, const char *mark, uint64_t off, uint64_t size, char *out,
			     size_t len)
{
	enum { WINDOW = 64 * 1024, KEEP = 64 };	/* KEEP: a mark and its version across windows */
	char *buf = malloc(WINDOW);
	size_t mark_len = strlen(mark), have = 0;
	bool found = false;

	while (buf && !found && size) {
		size_t want = WINDOW - have < size ? WINDOW - have : (size_t)size;
		ssize_t got = pread(fd, buf + have, want, (off_t)off);
		const char *end, *p;

		if (got <= 0)
			break;
		off += (uint64_t)got;
		size -= (uint64_t)got;
		have += (size_t)got;
		end = buf + have;
		for (p = buf; !found && (p = memmem(p, (size_t)(end - p), mark, mark_len)); p++) {
			if (end - p < KEEP && size)
				break;	/* maybe cut by the window's end: looked at in the next */
			found = version_after(p + mark_len, end, out, len);
		}
		/* The last KEEP bytes start the next window. */
		if (have > KEEP) {
			memmove(buf, end - KEEP, KEEP);
			have = KEEP;
		}
	}
	free(buf);
	return found;
}

/*
 * The version a library states about itself, found in its read-only data:
 * the loadable segments that are neither writable nor executable, read a
 * window at a time. A mapping of the whole file made every page the search
 * passed the process's own while it lasted (3 MB of libcrypto's before its
 * version string: the peak RSS of a gcm start).
 */
static void sniff_version(int fd, const struct gcm_family *f, char *out, size_t len)
{
	Elf64_Ehdr eh;

	out[0] = '\0';
	if (!f->version_mark || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return;
	for (unsigned int i = 0; i < eh.e_phnum && i < 64; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return;
		if (ph.p_type == PT_LOAD && !(ph.p_flags & (PF_W | PF_X)) &&
		    scan_for_version(fd, f->version_mark, ph.p_offset, ph.p_filesz, out, len))
			return;
	}
}

static int push_probe(struct gcm_libset *set, const struct gcm_probe *p)
{
	if (!GROW(set->probes, set->nr_probes + 1))
		return -ENOMEM;
	set->probes[set->nr_probes++] = *p;
	return 0;
}

/*
 * A single-stepped start of a function whose program follows its arguments:
 * the first emulated instruction of its prologue (pp updated), or why not
 * (p->kept_at_entry).
 */
static void follow_prologue(int fd, struct gcm_probe *p, struct rs_probe_point *pp)
{
	uint8_t *code = p->func_size <= (64u << 10) ? malloc(p->func_size) : NULL;
	char why[80] = "its code cannot be read";

	if (code && pread(fd, code, p->func_size, (off_t)p->file_off) == (ssize_t)p->func_size &&
	    !rs_probe_point_follow(code, p->func_size, p->spec->args_followed, pp, why, sizeof(why))) {
		free(code);
		return;
	}
	free(code);
	snprintf(p->kept_at_entry, sizeof(p->kept_at_entry), "%s", why);
}

/*
 * Add probe p, moved to where the function's prologue makes the probe
 * cheapest (probe_point.h), and count it (and its return probe) for lib.
 */
int gcm_libset_place_probe(struct gcm_libset *set, int fd, struct ringside_gcm_lib *lib,
			   struct gcm_probe p)
{
	unsigned int count = 1 + (p.spec->ret_prog != NULL);
	uint8_t code[16] = {};
	struct rs_probe_point pp;
	ssize_t n;

	n = pread(fd, code, sizeof(code), (off_t)p.file_off);
	pp = rs_probe_point_choose(code, n > 0 ? (size_t)n : 0);
	if (!pp.emulated && p.spec->args_followed && p.func_size)
		follow_prologue(fd, &p, &pp);
	p.file_off += pp.skip;
	p.at += pp.skip;
	p.placement = pp.argmap ? RINGSIDE_GCM_IN_PROLOGUE :
		      pp.skip ? RINGSIDE_GCM_PAST_PROLOGUE : RINGSIDE_GCM_AT_ENTRY;
	p.emulated = pp.emulated;
	p.argmap = pp.argmap;
	if (push_probe(set, &p))
		return -ENOMEM;
	lib->probes += count;
	lib->stepped += pp.emulated ? 0 : count;
	return 0;
}

int gcm_libset_push_exact_probe(struct gcm_libset *set, struct ringside_gcm_lib *lib,
				struct gcm_probe p)
{
	p.placement = RINGSIDE_GCM_AT_RET;
	p.emulated = false;
	if (push_probe(set, &p))
		return -ENOMEM;
	lib->probes++;
	lib->stepped++;
	return 0;
}

/*
 * OpenSSL's finish, probed inside where counting allows: 0 when placed so,
 * -ENOTSUP when it is to be probed at its entry (lib->entries says why),
 * -ENOMEM.
 */
static int place_finish_inside(struct gcm_libset *set, int fd, const struct rs_symtab *st,
			       struct ringside_gcm_lib *lib, unsigned int lib_id)
{
	struct gcm_probe regs = { .lib_id = lib_id, .spec = &openssl_finish_inside[0], .emulated = true };
	struct gcm_probe cmp = { .lib_id = lib_id, .spec = &openssl_finish_inside[1], .emulated = true };
	struct ossl_finish_points fp;
	char why[160];
	int err;

	err = ossl_finish_points_find(fd, st, &fp, why, sizeof(why));
	if (!err && (rs_symtab_vaddr_to_offset(st, fp.regs_vaddr, &regs.file_off) ||
		     rs_symtab_vaddr_to_offset(st, fp.cmp_vaddr, &cmp.file_off))) {
		snprintf(why, sizeof(why), "its code is outside the file's segments");
		err = -ENOTSUP;
	}
	if (err) {
		snprintf(lib->entries, sizeof(lib->entries),
			 "CRYPTO_gcm128_finish at its entry, not inside: %s", why);
		return err;
	}
	regs.layout = fp.layout;
	regs.placement = cmp.placement = RINGSIDE_GCM_INSIDE;
	regs.at = fp.regs_vaddr - fp.func_vaddr;
	cmp.at = fp.cmp_vaddr - fp.func_vaddr;
	regs.role = "its lengths in registers";
	cmp.role = "its tag compare";
	if (push_probe(set, &regs) || push_probe(set, &cmp))
		return -ENOMEM;
	lib->probes += 2;
	snprintf(lib->entries, sizeof(lib->entries),
		 "CRYPTO_gcm128_finish inside: +0x%llx (%s), +0x%llx (%s)", (unsigned long long)regs.at,
		 regs.role, (unsigned long long)cmp.at, cmp.role);
	return 0;
}

/* Resolve every probe point of family f in st; fails naming missing required symbols. */
static int resolve_family(struct gcm_libset *set, const char *path, int fd,
			  const struct rs_symtab *st, const struct gcm_family *f,
			  struct ringside_gcm_lib *lib, unsigned int lib_id)
{
	char missing[256] = "";
	unsigned int first = set->nr_probes;

	for (unsigned int i = 0; i < f->nr_specs; i++) {
		const struct gcm_probe_spec *spec = &f->specs[i];
		struct gcm_probe p = { .lib_id = lib_id, .spec = spec };
		uint64_t vaddr, size;

		if (set->count_only && spec->latency_only)
			continue;
		if (rs_symtab_find(st, spec->symbol, &vaddr, &size) ||
		    rs_symtab_vaddr_to_offset(st, vaddr, &p.file_off)) {
			if (spec->required) {
				size_t used = strlen(missing);

				snprintf(missing + used, sizeof(missing) - used, "%s%s",
					 used ? ", " : "", spec->symbol);
			}
			continue;
		}
		if (set->finish_inside && f->lib == RS_GCM_LIB_OPENSSL && !strcmp(spec->symbol, openssl_finish_inside[0].symbol)) {
			int err = place_finish_inside(set, fd, st, lib, lib_id);

			if (err == -ENOMEM)
				return err;
			if (!err)
				continue;
		}
		p.func_size = size;
		if (gcm_libset_place_probe(set, fd, lib, p))
			return -ENOMEM;
	}
	if (missing[0]) {
		set->nr_probes = first;
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOSYM, "%s: %s library without the needed symbols: %s",
			       path, ringside_gcm_lib_name(f->lib), missing);
	}
	return 0;
}

/* One backend function, at its ELF address. */
static int push_backend_probe(struct gcm_libset *set, int fd, const struct rs_symtab *st,
			      struct ringside_gcm_lib *lib, unsigned int lib_id, unsigned int idx,
			      const struct gnutls_backend *b, const struct gcm_probe_spec *spec,
			      uint64_t vaddr)
{
	struct gcm_probe p = { .lib_id = lib_id, .spec = spec, .backend = idx, .disc = b->disc };

	if (rs_symtab_vaddr_to_offset(st, vaddr, &p.file_off))
		return -ENOENT;
	return gcm_libset_place_probe(set, fd, lib, p);
}

/*
 * GnuTLS's TLS 1.2 records never pass an exported function: probe the
 * AES-GCM backend functions the library itself reports, or say why not.
 */
static void add_gnutls_backends(struct gcm_libset *set, int fd, const struct rs_symtab *st,
				struct ringside_gcm_lib *lib, unsigned int lib_id)
{
	struct gnutls_backend b[RS_GCM_BACKENDS_PER_LIB];
	unsigned int first = set->nr_probes, probes = lib->probes, stepped = lib->stepped;
	char why[200];
	int n;

	if (lib_id >= RS_GCM_BACKEND_LIBS) {
		snprintf(lib->not_seen, sizeof(lib->not_seen), "TLS 1.2 records: only the first %d "
			 "libraries get their GCM backend traced", RS_GCM_BACKEND_LIBS);
		return;
	}
	n = gnutls_backend_find(fd, b, RS_GCM_BACKENDS_PER_LIB, why, sizeof(why));
	for (int i = 0; i < n; i++) {
		if (push_backend_probe(set, fd, st, lib, lib_id, i, &b[i], &gnutls_backend_specs[0],
				       b[i].seal_vaddr) ||
		    push_backend_probe(set, fd, st, lib, lib_id, i, &b[i], &gnutls_backend_specs[1],
				       b[i].open_vaddr)) {
			set->nr_probes = first;
			lib->probes = probes;
			lib->stepped = stepped;
			snprintf(why, sizeof(why), "its AES-GCM backend is outside the library's code");
			n = -1;
			break;
		}
	}
	if (n <= 0)
		snprintf(lib->not_seen, sizeof(lib->not_seen), "TLS 1.2 records (GnuTLS's internal "
			 "AES-GCM calls) are not counted: %s", why[0] ? why : "no backend found");
}

static const struct gcm_family *detect_family(const struct rs_symtab *st)
{
	uint64_t a, b;

	for (size_t i = 0; i < N(families); i++)
		if (!rs_symtab_find(st, families[i].specs[0].symbol, &a, &b))
			return &families[i];
	return NULL;
}

/*
 * Refuse, with a reason, ELF files whose code the probes would misread:
 * another class or machine. 0 for x86-64 ELF and for what is not ELF at all
 * (the symbol reader says so).
 */
static int elf_kind_err(struct gcm_libset *set, int fd, const char *shown)
{
	unsigned char hdr[20];

	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || memcmp(hdr, ELFMAG, SELFMAG))
		return 0;
	if (hdr[EI_CLASS] != ELFCLASS64)
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOTELF, "%s: a 32-bit ELF file: ringside probes "
			       "64-bit x86-64 code", shown);
	if (hdr[18] != EM_X86_64 || hdr[19] != 0)
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOTELF, "%s: an ELF file for another machine "
			       "(e_machine %u): ringside probes x86-64 code", shown, hdr[18] | hdr[19] << 8);
	return 0;
}

/* Room for one more library, zeroed; it counts once commit_lib() is called. */
static struct ringside_gcm_lib *new_lib(struct gcm_libset *set, enum rs_gcm_lib family, const char *path)
{
	size_t n = set->nr_libs + 1;
	struct ringside_gcm_lib *nl;

	/* Each array grows on its own; one that fails leaves the set as it was. */
	if (!GROW(set->libs, n) || !GROW(set->go, n) || !GROW(set->devs, n) || !GROW(set->inos, n))
		return NULL;
	memset(&set->go[set->nr_libs], 0, sizeof(*set->go));
	nl = &set->libs[set->nr_libs];
	memset(nl, 0, sizeof(*nl));
	nl->family = family;
	snprintf(nl->path, sizeof(nl->path), "%s", path);
	return nl;
}

static void commit_lib(struct gcm_libset *set, const struct stat *sb)
{
	set->devs[set->nr_libs] = sb->st_dev;
	set->inos[set->nr_libs] = sb->st_ino;
	set->nr_libs++;
}

/*
 * A Go program: its AES-GCM functions from Go's own function table.
 * -ENOEXEC when the file is no Go program (the caller reads its symbols).
 */
static int add_go_program(struct gcm_libset *set, int fd, const char *path, const char *shown,
			  const struct stat *sb)
{
	struct ringside_gcm_lib *lib;
	struct rs_gobin *gb;
	char why[400];
	int err;

	err = rs_gobin_load_fd(fd, &gb, why, sizeof(why));
	if (err == -ENOEXEC)
		return err;
	if (err)
		return gcm_libset_fail(set, err == -ENOMEM ? err : -RINGSIDE_ERR_NOSYM, "%s: a Go program ringside "
			       "cannot trace: %s", shown, why[0] ? why : strerror(-err));
	if (set->nr_libs >= RS_GCM_GO_BINS) {
		rs_gobin_free(gb);
		return gcm_libset_fail(set, -E2BIG, "%s: more than %d programs and libraries to trace: name "
			       "fewer with --binary, -p or --comm", shown, RS_GCM_GO_BINS);
	}
	lib = new_lib(set, RS_GCM_LIB_GO, path);
	if (!lib) {
		rs_gobin_free(gb);
		return -ENOMEM;
	}
	err = go_gcm_resolve(set, fd, gb, lib, set->nr_libs, &set->go[set->nr_libs], why, sizeof(why));
	rs_gobin_free(gb);
	if (err)
		return gcm_libset_fail(set, err, "%s: %s", shown, why);
	commit_lib(set, sb);
	return 1;
}

int gcm_libset_add(struct gcm_libset *set, const char *path, enum rs_gcm_lib want)
{
	struct ringside_gcm_lib *lib;
	const struct gcm_family *f;
	struct rs_symtab *st = NULL;
	struct stat sb;
	char shown[96];
	int fd, err;

	/* Messages name the path, cut when it is absurdly long. */
	if (strlen(path) < sizeof(shown))
		snprintf(shown, sizeof(shown), "%s", path);
	else
		snprintf(shown, sizeof(shown), "%.60s... (%zu bytes)", path, strlen(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return gcm_libset_fail(set, err, "%s: %s", shown, strerror(-err));
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOTELF, "%s: not a regular file", shown);
	}
	err = elf_kind_err(set, fd, shown);
	if (err) {
		close(fd);
		return err;
	}
	for (unsigned int i = 0; i < set->nr_libs; i++) {
		if (set->devs[i] == sb.st_dev && set->inos[i] == sb.st_ino) {
			close(fd);
			return 0;
		}
	}
	if (want == RS_GCM_LIB_NONE || want == RS_GCM_LIB_GO) {
		err = add_go_program(set, fd, path, shown, &sb);
		/* Not Go: asked for a Go program only, nothing to say. */
		if (err != -ENOEXEC || want == RS_GCM_LIB_GO) {
			close(fd);
			return err;
		}
	}
	err = rs_symtab_load_fd(fd, NULL, &st);
	if (err) {
		close(fd);
		if (err == -ENOEXEC)
			return gcm_libset_fail(set, -RINGSIDE_ERR_NOTELF, "%s: not an ELF file", shown);
		return gcm_libset_fail(set, err, "%s: cannot read symbols: %s", shown, strerror(-err));
	}
	f = want ? gcm_family_of(want) : detect_family(st);
	if (!f) {
		rs_symtab_free(st);
		close(fd);
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOSYM,
			       "%s: no AES-GCM entry points: needs CRYPTO_gcm128_init (OpenSSL), "
			       "gnutls_aead_cipher_init (GnuTLS), gcry_cipher_open (libgcrypt) or "
			       "nettle_gcm_aes128_set_key (nettle), or a Go program",
			       shown);
	}
	/* A library's id is an attach cookie and, for OpenSSL contexts, 16 bits
	 * of the kernel's context entry (gcm.bpf.c: gcm_msg.lib_id). */
	if (set->nr_libs >= RS_GCM_MAX_LIBS) {
		rs_symtab_free(st);
		close(fd);
		return gcm_libset_fail(set, -E2BIG, "%s: more than %d libraries to trace: name fewer "
				       "with --lib, -p or --comm", shown, RS_GCM_MAX_LIBS);
	}
	lib = new_lib(set, f->lib, path);
	if (!lib) {
		rs_symtab_free(st);
		close(fd);
		return -ENOMEM;
	}
	err = resolve_family(set, path, fd, st, f, lib, set->nr_libs);
	if (!err)
		sniff_version(fd, f, lib->version, sizeof(lib->version));
	if (!err && f->lib == RS_GCM_LIB_GNUTLS)
		add_gnutls_backends(set, fd, st, lib, set->nr_libs);
	rs_symtab_free(st);
	close(fd);
	if (err)
		return err;
	commit_lib(set, &sb);
	return 1;
}

enum rs_gcm_lib gcm_family_by_soname(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < N(families); i++) {
		size_t n = strlen(families[i].soname_prefix);

		/* libcrypto.so.3, not libcrypto.so (the -dev symlink) twice. */
		if (!strncmp(base, families[i].soname_prefix, n) && base[n] == '.')
			return families[i].lib;
	}
	return RS_GCM_LIB_NONE;
}

void gcm_libset_note_skipped(struct gcm_libset *set, const char *why)
{
	if (GROW(set->skipped, set->nr_skipped + 1))
		snprintf(set->skipped[set->nr_skipped++], sizeof(*set->skipped), "%s", why);
}

void gcm_libset_free(struct gcm_libset *set)
{
	free(set->libs);
	free(set->go);
	free(set->skipped);
	free(set->probes);
	free(set->devs);
	free(set->inos);
	memset(set, 0, sizeof(*set));
}
