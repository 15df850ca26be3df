/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the kernel's BTF as libbpf gets it in the ringside binary.
 *
 * libbpf 1.1 parses the kernel's BTF for every object with a tp_btf, fentry
 * or fexit program or a kfunc, copies all 5.5 MB of it and indexes it, only
 * to look a few names up: a tp_btf target's btf_trace_ typedef, an fentry
 * target's FUNC, a kfunc's FUNC and its prototype (compared kind by kind down
 * to ints, pointers and struct names). CO-RE reads the cut instead
 * (core_btf.h). So for an object whose every lookup is known and found in
 * vmlinux, libbpf gets BTF that numbers types as the kernel does and holds
 * those types only, every other id a 12-byte placeholder up to the last one
 * it needs: under a megabyte instead of six. When a lookup is not known or
 * not found there (libbpf would search modules' BTF, split over a copy of
 * the kernel's whole), libbpf gets a copy of the whole.
 *
 * libbpf calls btf__load_vmlinux_btf() without saying for which object, so
 * a collector names the object its thread is about to load.
 */
#ifndef RINGSIDE_LIBBPF_BTF_H
#define RINGSIDE_LIBBPF_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;
struct btf;

/*
 * obj, opened from the ELF image elf_bytes, is the next object this thread
 * loads; core_cut: its CO-RE relocations read a cut (or it has none), so
 * libbpf needs no kernel type for them.
 */
void rs_libbpf_btf_loading(const struct bpf_object *obj, bool core_cut, const void *elf_bytes,
			   size_t size);
/* A name of kind the load looks up besides its programs' sections (bpf_program__set_attach_target()). */
void rs_libbpf_btf_need(const char *name, __u16 kind);
/*
 * The object is loaded (or failed to): nothing more is looked up for it.
 * What libbpf got of the kernel's BTF for it, for -v ("" if it asked none).
 */
const char *rs_libbpf_btf_loaded(void);

/*
 * Iterator programs in sections named RS_ITER_SEC "name" (SEC("ringside.iter/ksym")):
 * their target, the kernel's FUNC bpf_iter_<name>, is found in ringside's
 * own view of the kernel's BTF and handed to the load, so that libbpf gets
 * none of it. Under libbpf's own "iter/" sections, the lookup of one name
 * had libbpf build BTF numbered as the kernel's up to it: bpf_iter_ksym is
 * type 63,593 here, 1.1 MB of placeholders for the while of a load.
 * Registered once per process, before the first such object is opened:
 * 0, or libbpf's error.
 */
#define RS_ITER_SEC "ringside.iter/"
int rs_libbpf_iter_sections(void);

/* What btf__load_vmlinux_btf() returns in the binary: NULL with errno without a kernel BTF. */
struct btf *rs_libbpf_vmlinux_btf(void);
/* True in the ringside binary, where libbpf asks rs_libbpf_vmlinux_btf(). */
bool rs_libbpf_btf_routed(void);

#endif
