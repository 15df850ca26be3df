// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf's kernel BTF, from ringside's view of it.
 *
 * libbpf parses the kernel's BTF for every object it loads that needs it
 * (tp_btf and fentry targets, kfuncs) by calling its own exported
 * btf__load_vmlinux_btf(), and frees the result when the load ends. libbpf
 * 1.1 (Debian 12) reads the 5.5 MB file 4 KiB a call into one buffer and
 * copies it into another, 10 MB at once, to look a few names up.
 *
 * libbpf calls it through its PLT, so the ringside binary's own definition,
 * exported with --export-dynamic-symbol (Makefile), comes first: libbpf gets
 * BTF that holds what the object's load looks up, numbered as the kernel's,
 * or a copy of the whole (src/core/libbpf_btf.h). Either is libbpf's own to
 * free. If libbpf were ever built to bind the call inside itself, it would
 * simply parse on its own again.
 */
#include <stdbool.h>
#include <bpf/btf.h>

#include "libbpf_btf.h"

/* Tells libbpf_btf.c that libbpf asks here (a weak reference there). */
const bool rs_libbpf_asks_ringside = true;

struct btf *btf__load_vmlinux_btf(void)
{
	return rs_libbpf_vmlinux_btf();
}
