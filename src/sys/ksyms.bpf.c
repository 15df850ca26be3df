// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's tagged functions through a BPF iterator (Linux 6.0+), for
 * ksyms.c.
 *
 * /proc/kallsyms formats every one of its 121,000 lines with vsnprintf()
 * (42 ms of kernel time here) for a reader that keeps a dozen functions.
 * This program is run for each symbol the same walk visits, counts the
 * text symbols, and writes a record only for a tagged one: its address and
 * its "%pS" text, whose size is the kernel's own (kallsyms' distance to the
 * next symbol). Nothing else crosses: the reader needs no table of every
 * address to find where a function ends.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ksyms_iter.h"

const volatile __u32 nr_tags;
const volatile char tag_names[RS_KSYMS_ITER_TAGS][RS_KSYMS_ITER_NAME];
/* Which first bytes a tag's name starts with: most symbols are passed over on one load. */
const volatile __u8 first_byte[256];
/* Text symbols with an address: none means kptr_restrict hides them. One reader: no race. */
__u64 nr_text;

SEC("ringside.iter/ksym")	/* its target found by ringside (libbpf_btf.h) */
int rs_ksyms_text(struct bpf_iter__ksym *ctx)
{
	static const char fmt[] = "%pS";
	struct seq_file *seq = ctx->meta->seq;
	struct kallsym_iter *it = ctx->ksym;
	struct rs_ksyms_iter_rec rec = {};
	char name[RS_KSYMS_ITER_NAME];
	__u64 addr;

	if (!it || (it->type != 't' && it->type != 'T') || !it->value)
		return 0;
	nr_text++;
	if (!first_byte[(__u8)it->name[0]] ||
	    bpf_probe_read_kernel_str(name, sizeof(name), it->name) <= 0)
		return 0;
#pragma unroll
	for (__u32 i = 0; i < RS_KSYMS_ITER_TAGS; i++) {
		if (i >= nr_tags)
			break;
		if (name[1] != tag_names[i][1] ||
		    bpf_strncmp(name, sizeof(name), (const char *)tag_names[i]))
			continue;
		addr = it->value;
		rec.addr = addr;
		rec.rank = i;
		bpf_snprintf(rec.text, sizeof(rec.text), fmt, &addr, sizeof(addr));
		bpf_seq_write(seq, &rec, sizeof(rec));
		break;
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
