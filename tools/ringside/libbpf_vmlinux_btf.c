// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One parse of the kernel's BTF per process, shared with libbpf.
 *
 * libbpf parses the kernel's BTF for every object it loads that needs it
 * (CO-RE relocations, tp_btf and fentry targets, kfuncs) by calling its own
 * exported btf__load_vmlinux_btf(), and frees it with btf__free() when the
 * load ends. libbpf 1.1 (Debian 12) reads the 5 MB file 4 KiB a call into
 * one buffer and copies it into another; ringside parses it besides for its
 * own checks. So a start made two or more parses and held 10 MB at once.
 *
 * libbpf calls both functions through its PLT, so the ringside binary's own
 * definitions, exported with --export-dynamic-symbol (Makefile), come first:
 * libbpf gets ringside's parse (kernel_btf.c: mapped where the kernel allows,
 * read otherwise), which a session keeps until its objects are loaded, and
 * its free of that parse drops a reference instead. Every other BTF libbpf
 * frees goes to libbpf's btf__free(). If libbpf were ever built to bind
 * these calls inside itself, it would simply parse on its own again.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <bpf/btf.h>

#include "kernel_btf.h"

/* Tells kernel_btf.c that libbpf borrows its parse here (a weak reference there). */
const bool rs_libbpf_borrows_kernel_btf = true;

struct btf *btf__load_vmlinux_btf(void)
{
	return rs_kernel_btf_share();
}

void btf__free(struct btf *btf)
{
	static void (*libbpf_free)(struct btf *);

	if (!btf || rs_kernel_btf_unshare(btf))
		return;
	if (!libbpf_free)
		libbpf_free = (void (*)(struct btf *))dlsym(RTLD_NEXT, "btf__free");
	if (libbpf_free && libbpf_free != btf__free)
		libbpf_free(btf);
}
