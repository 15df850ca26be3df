// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AES-GCM in Go programs: which functions to probe, per Go release, and how
 * their receivers show the key and tag sizes. Go links its crypto statically
 * and strips symbols, so functions are found in Go's own function table
 * (gobin.c); Go cannot take a uretprobe (its stack unwinding rejects the
 * rewritten return address: "unexpected return pc"), so each function's
 * RET instructions, found by decoding its body (insn_scan.c), get plain
 * uprobes instead.
 *
 * Arguments follow Go's register ABI (amd64, Go 1.17+): for
 * Seal(dst, nonce, plaintext, data) and Open(dst, nonce, ciphertext, data)
 * the receiver, dst and nonce fill RAX..R9 and the last two slices do not
 * fit the nine integer registers, so they are on the stack above the return
 * address. Open returns ([]byte, error): the error's type word is in RDI at
 * the RET.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gcm_libs.h"
#include "gobin.h"
#include "insn_scan.h"

static const struct gcm_probe_spec go_entry_specs[RS_GCM_GO_KINDS] = {
	[RS_GCM_GO_ASM_SEAL] = { "crypto/aes.(*gcmAsm).Seal", "gcm_go_seal", NULL, false },
	[RS_GCM_GO_ASM_OPEN] = { "crypto/aes.(*gcmAsm).Open", "gcm_go_open", NULL, false },
	[RS_GCM_GO_GENERIC_SEAL] = { "crypto/cipher.(*gcm).Seal", "gcm_go_seal", NULL, false },
	[RS_GCM_GO_GENERIC_OPEN] = { "crypto/cipher.(*gcm).Open", "gcm_go_open", NULL, false },
};

static const struct gcm_probe_spec go_ret_specs[RS_GCM_GO_KINDS] = {
	[RS_GCM_GO_ASM_SEAL] = { "RET of crypto/aes.(*gcmAsm).Seal", "gcm_go_ret", NULL, false },
	[RS_GCM_GO_ASM_OPEN] = { "RET of crypto/aes.(*gcmAsm).Open", "gcm_go_ret", NULL, false },
	[RS_GCM_GO_GENERIC_SEAL] = { "RET of crypto/cipher.(*gcm).Seal", "gcm_go_ret", NULL, false },
	[RS_GCM_GO_GENERIC_OPEN] = { "RET of crypto/cipher.(*gcm).Open", "gcm_go_ret", NULL, false },
};

/*
 * Go releases whose AES-GCM code ringside knows. The layouts are those of
 * the structs in the release's sources:
 *   crypto/aes gcmAsm { ks []uint32; productTable [256]byte; nonceSize, tagSize int }
 *   crypto/cipher gcm { cipher Block; nonceSize, tagSize int; ... }
 *   crypto/aes aesCipher { enc, dec []uint32 } up to Go 1.21; Go 1.22 made
 *     enc and dec fixed arrays, so the generic path's key size is unknown there.
 * The generic path is taken only when the Block is crypto/aes's: its itab's
 * first method (BlockSize, methods sorted by name) must be aesCipher's.
 */
struct go_release {
	unsigned int first_minor, last_minor;	/* Go 1.x */
	const char *aes_block_method;
	struct rs_gcm_go layout;
};

static const struct go_release go_releases[] = {
	{ 17, 21, "crypto/aes.(*aesCipher).BlockSize",
	  { .asm_ks_len = 8, .asm_tag_size = 24 + 256 + 8, .gen_tag_size = 24, .gen_key_words = 8 } },
	{ 22, 23, "crypto/aes.(*aesCipher).BlockSize",
	  { .asm_ks_len = 8, .asm_tag_size = 24 + 256 + 8, .gen_tag_size = 24, .gen_key_words = 0 } },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct go_release *release_of(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < N(go_releases); i++)
		if (major == 1 && minor >= go_releases[i].first_minor && minor <= go_releases[i].last_minor)
			return &go_releases[i];
	return NULL;
}

/* Why a Go release has no row: one sentence. */
static void no_release(char *why, size_t n, const char *version, unsigned int major, unsigned int minor)
{
	if (major == 1 && minor < 17)
		snprintf(why, n, "built with %s, whose stack-based calling convention (before Go 1.17) "
			 "ringside does not read", version);
	else if (major == 1 && minor >= 24)
		snprintf(why, n, "built with %s: Go 1.24 moved AES-GCM to crypto/internal/fips140, "
			 "which ringside's table of Go functions (Go 1.17 to 1.23) does not cover yet", version);
	else
		snprintf(why, n, "built with %s, which ringside's table of Go functions "
			 "(Go 1.17 to 1.23) does not cover", version);
}

/* Entry probe and RET probes of one function; 1 when added, 0 when absent, <0 to refuse. */
static int add_function(struct gcm_libset *set, int fd, const struct rs_gobin *gb,
			struct ringside_gcm_lib *lib, unsigned int lib_id, enum rs_gcm_go_kind kind,
			struct rs_gcm_go *layout, char *why, size_t whylen)
{
	const struct gcm_probe_spec *spec = &go_entry_specs[kind];
	struct gcm_probe p = { .lib_id = lib_id, .spec = spec, .backend = kind };
	struct rs_func_exits fx;
	uint64_t entry, end, off;
	const uint8_t *code;
	int err;

	if (rs_gobin_func(gb, spec->symbol, &entry, &end))
		return 0;
	code = rs_gobin_bytes(gb, entry, end - entry);
	if (!code || rs_gobin_vaddr_to_offset(gb, entry, &off)) {
		snprintf(why, whylen, "%s lies outside the file's code", spec->symbol);
		return -EINVAL;
	}
	err = rs_func_exits_find(code, end - entry, entry, &fx);
	if (err) {
		snprintf(why, whylen, "cannot decode %s: %s", spec->symbol,
			 rs_insn_scan_unavailable() ? rs_insn_scan_unavailable() : strerror(-err));
		return err;
	}
	if (fx.escape[0] || !fx.nr_rets) {
		snprintf(why, whylen, "%s leaves by %s at 0x%llx, where its result cannot be seen",
			 spec->symbol, fx.escape[0] ? fx.escape : "no RET", (unsigned long long)fx.escape_at);
		rs_func_exits_free(&fx);
		return -ENOTSUP;
	}
	p.file_off = off;
	err = gcm_libset_place_probe(set, fd, lib, p);
	/* The bias between ELF and run-time addresses comes from where this probe sits. */
	layout->entry_vaddr[kind] = entry + (set->probes[set->nr_probes - 1].file_off - off);
	for (unsigned int i = 0; !err && i < fx.nr_rets; i++) {
		struct gcm_probe r = { .lib_id = lib_id, .spec = &go_ret_specs[kind], .at = fx.rets[i] - entry };

		err = rs_gobin_vaddr_to_offset(gb, fx.rets[i], &r.file_off);
		if (!err)
			err = gcm_libset_push_exact_probe(set, lib, r);
	}
	rs_func_exits_free(&fx);
	if (err)
		return err;
	snprintf(lib->entries + strlen(lib->entries), sizeof(lib->entries) - strlen(lib->entries),
		 "%s%s", lib->entries[0] ? ", " : "", spec->symbol);
	return 1;
}

int go_gcm_resolve(struct gcm_libset *set, int fd, const struct rs_gobin *gb,
		   struct ringside_gcm_lib *lib, unsigned int lib_id, struct rs_gcm_go *layout,
		   char *why, size_t whylen)
{
	const char *version = rs_gobin_version(gb);
	const struct go_release *rel;
	unsigned int major, minor, first = set->nr_probes, found = 0;
	uint64_t entry, end;
	int rc;

	rs_gobin_version_num(gb, &major, &minor);
	/* No build info: the table's generation still tells the register ABI (1.18+). */
	if (!major && rs_gobin_table_format(gb) >= 118)
		major = 1, minor = 18;
	rel = release_of(major, minor);
	if (!rel) {
		no_release(why, whylen, version[0] ? version : "an unknown Go release", major, minor);
		return -ENOTSUP;
	}
	*layout = rel->layout;
	snprintf(lib->version, sizeof(lib->version), "%s", version[0] ? version + 2 : "");
	lib->entries[0] = '\0';
	if (!rs_gobin_func(gb, rel->aes_block_method, &entry, &end))
		layout->aes_block_method = entry;
	for (unsigned int k = 0; k < RS_GCM_GO_KINDS; k++) {
		/* Without crypto/aes's Block the generic path could only meet other ciphers. */
		if ((k == RS_GCM_GO_GENERIC_SEAL || k == RS_GCM_GO_GENERIC_OPEN) && !layout->aes_block_method)
			continue;
		rc = add_function(set, fd, gb, lib, lib_id, k, layout, why, whylen);
		if (rc < 0) {
			set->nr_probes = first;
			return rc;
		}
		found += rc;
	}
	if (!found) {
		snprintf(why, whylen, "a Go program (%s) without AES-GCM code: none of %s, %s, %s, %s "
			 "is linked in", version[0] ? version : "release unknown",
			 go_entry_specs[0].symbol, go_entry_specs[1].symbol, go_entry_specs[2].symbol,
			 go_entry_specs[3].symbol);
		return -RINGSIDE_ERR_NOSYM;
	}
	layout->in_use = 1;
	return 0;
}
