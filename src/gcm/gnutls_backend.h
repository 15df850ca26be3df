/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: GnuTLS's AES-GCM cipher backend, located by asking the library itself. */
#ifndef RINGSIDE_GNUTLS_BACKEND_H
#define RINGSIDE_GNUTLS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/events.h"

/* One implementation GnuTLS can pick for AES-GCM (accelerated x86 code, its nettle wrapper...). */
struct gnutls_backend {
	uint64_t seal_vaddr;	/* the backend's aead_encrypt, as an ELF virtual address */
	uint64_t open_vaddr;	/* its aead_decrypt */
	struct rs_gcm_backend disc;	/* how BPF tells the key size from its context */
};

/*
 * Find the AES-GCM backends the GnuTLS library open as lib_fd uses, under
 * each CPU-feature set GnuTLS can be told to assume (GNUTLS_CPUID_OVERRIDE),
 * so whichever a process ends up with is covered. A child process loads the
 * file without privileges and reads the function pointers from AES-GCM
 * handles made through the public API. Fills up to max entries, distinct
 * functions only; returns how many, or a negative errno with why set.
 */
int gnutls_backend_find(int lib_fd, struct gnutls_backend *out, unsigned int max,
			char *why, size_t why_len);

#endif
