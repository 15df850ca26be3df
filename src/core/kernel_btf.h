/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's BTF by reference count. The feature probes, variant
 * checks, cgroup subsystem lookup and collectors all ask it something; a
 * caller that asks many (ringside_features_probe()) holds a reference around
 * them so /sys/kernel/btf/vmlinux (megabytes) is parsed once. Nothing holds
 * it for long: libbpf parses its own copy to load each object, and keeping
 * ours beside it only raised the peak RSS.
 */
#ifndef RINGSIDE_KERNEL_BTF_H
#define RINGSIDE_KERNEL_BTF_H

struct btf;

/* The vmlinux BTF, loaded on first use; NULL without one. Pair with rs_kernel_btf_put(). */
const struct btf *rs_kernel_btf_get(void);
/* Drop a reference; the last one frees the parse. */
void rs_kernel_btf_put(void);

#endif
