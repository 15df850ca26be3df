/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's BTF by reference count, read in place (btf_reader.h).
 * The feature probes, variant checks, cgroup subsystem lookup and collectors
 * all ask it something; a caller that asks many (ringside_features_probe(), a
 * session from its first collector until its objects are loaded) keeps it so
 * /sys/kernel/btf/vmlinux is opened and indexed once; the loads cut their
 * CO-RE types from it (core_btf.h), and in the ringside binary what libbpf
 * asks of the kernel's BTF is built from it too (libbpf_btf.h).
 */
#ifndef RINGSIDE_KERNEL_BTF_H
#define RINGSIDE_KERNEL_BTF_H

#include <stdbool.h>

#include "btf_reader.h"

#define RS_VMLINUX_BTF_PATH "/sys/kernel/btf/vmlinux"

/* The vmlinux BTF, opened on first use; NULL without one. Pair with rs_kernel_btf_put(). */
const struct rs_btf *rs_kernel_btf_get(void);
/* Drop a reference; the last one closes a read copy unless it is kept (a mapping stays). */
void rs_kernel_btf_put(void);
/* Keep it (once opened) across gets and puts, or stop keeping it. */
void rs_kernel_btf_keep(bool keep);

/*
 * module's own BTF (/sys/kernel/btf/<module>), split over vmlinux; NULL when
 * the module has none (not loaded, or built in: its types are in vmlinux).
 * Close with rs_btf_close() before vmlinux is put.
 */
struct rs_btf *rs_kernel_btf_module(const struct rs_btf *vmlinux, const char *module);

#endif
