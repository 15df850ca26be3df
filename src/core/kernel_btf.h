/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's BTF by reference count. The feature probes, variant
 * checks, cgroup subsystem lookup and collectors all ask it something; a
 * caller that asks many (ringside_features_probe(), a session from its first
 * collector until its variants are chosen) keeps it so /sys/kernel/btf/vmlinux
 * (megabytes, 5-20 ms) is parsed once; the loads cut their CO-RE types from
 * it too (core_btf.h). Nothing keeps it past the loads, and outside the
 * ringside binary, where libbpf parses its own copy for tp_btf and fentry
 * targets, not past the last cut: the two would only add up in the peak RSS.
 */
#ifndef RINGSIDE_KERNEL_BTF_H
#define RINGSIDE_KERNEL_BTF_H

#include <stdbool.h>

struct btf;

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
/* True in the ringside binary, where libbpf borrows the parse: keep it through the loads. */
bool rs_kernel_btf_lent_to_libbpf(void);

/* Drop a reference; the last one frees the parse unless it is kept. */
void rs_kernel_btf_put(void);
/* Keep the parse (once made) across gets and puts, or stop keeping it. */
void rs_kernel_btf_keep(bool keep);

#endif
