/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's BTF by reference count. The feature probes, variant
 * checks, cgroup subsystem lookup and collectors all ask it something; a
 * caller that asks many (ringside_features_probe(), a session from its first
 * collector until its variants are chosen) keeps it so /sys/kernel/btf/vmlinux
 * (megabytes, 10-20 ms) is parsed once. Nothing keeps it for long: libbpf
 * parses its own copy to load each object, and ours beside it would only
 * raise the peak RSS.
 */
#ifndef RINGSIDE_KERNEL_BTF_H
#define RINGSIDE_KERNEL_BTF_H

#include <stdbool.h>

struct btf;

/*
 * A fresh parse of /sys/kernel/btf/vmlinux from a read-only private mapping
 * (Linux 6.16+), or NULL with errno where the kernel refuses the mapping.
 * libbpf 1.1 reads the file 4 KiB a call (1,340 calls) into one buffer and
 * copies that into another: 10 MB at once. Mapped, the file's pages are the
 * kernel's and only the parse's copy is the process's own (half the peak),
 * and the parse takes about half the time.
 */
struct btf *rs_kernel_btf_mmap(void);

/* The vmlinux BTF, loaded on first use; NULL without one. Pair with rs_kernel_btf_put(). */
const struct btf *rs_kernel_btf_get(void);
/*
 * The same parse for a holder that frees it with btf__free() (libbpf, in
 * the ringside binary: tools/ringside/libbpf_vmlinux_btf.c), or NULL with
 * errno. rs_kernel_btf_unshare() tells such a free from any other: true
 * when btf was this parse, whose reference it then drops.
 */
struct btf *rs_kernel_btf_share(void);
bool rs_kernel_btf_unshare(struct btf *btf);

/* Drop a reference; the last one frees the parse unless it is kept. */
void rs_kernel_btf_put(void);
/* Keep the parse (once made) across gets and puts, or stop keeping it. */
void rs_kernel_btf_keep(bool keep);

#endif
