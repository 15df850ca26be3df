// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function names to addresses and sizes by the kernel's own index, for
 * ksym_lookup.c: a syscall program is the one kind that may call
 * bpf_kallsyms_lookup_name() (a binary search over the names the kernel
 * sorts at build time), and "%pS" prints the size kallsyms knows.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ksym_lookup.h"

/* In, written after the load: the names, NUL-padded (the helper wants the
 * last byte of its buffer 0). */
char names[RS_KSYM_LOOKUP_MAX][RS_KSYM_LOOKUP_NAME];
__u32 nr_names;
/* Out: each name's address (0: not found) and its "%pS" text. */
__u64 addrs[RS_KSYM_LOOKUP_MAX];
char sym_text[RS_KSYM_LOOKUP_MAX][RS_KSYM_LOOKUP_TEXT];

SEC("syscall")
int rs_ksym_lookup(void *ctx)
{
	static const char fmt[] = "%pS";

	for (__u32 i = 0; i < RS_KSYM_LOOKUP_MAX && i < nr_names; i++) {
		__u64 addr = 0;

		if (bpf_kallsyms_lookup_name(names[i], sizeof(names[i]), 0, &addr) || !addr)
			continue;
		addrs[i] = addr;
		bpf_snprintf(sym_text[i], sizeof(sym_text[i]), fmt, &addr, sizeof(addr));
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
