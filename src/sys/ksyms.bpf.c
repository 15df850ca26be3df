// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's text symbols through a BPF iterator (Linux 6.0+), for ksyms.c.
 *
 * /proc/kallsyms formats every one of its 121,000 lines with vsnprintf()
 * (42 ms of kernel time here) for a reader that keeps a dozen names and the
 * text addresses. This program is run for each symbol the same walk visits
 * and writes 8 bytes per text symbol: its address, preceded by a 0 and the
 * tag's index for a tagged one (no symbol the program writes is at 0).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ksyms_iter.h"

const volatile __u32 nr_tags;
const volatile char tag_names[RS_KSYMS_ITER_TAGS][RS_KSYMS_ITER_NAME];
/* Which first bytes a tag's name starts with: most symbols are passed over on one load. */
const volatile __u8 first_byte[256];

SEC("iter/ksym")
int rs_ksyms_text(struct bpf_iter__ksym *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct kallsym_iter *it = ctx->ksym;
	char name[RS_KSYMS_ITER_NAME];
	__u64 rec[3] = {};
	__u32 n = 1;

	if (!it || (it->type != 't' && it->type != 'T') || !it->value)
		return 0;
	rec[0] = it->value;
	if (first_byte[(__u8)it->name[0]] &&
	    bpf_probe_read_kernel_str(name, sizeof(name), it->name) > 0) {
#pragma unroll
		for (__u32 i = 0; i < RS_KSYMS_ITER_TAGS; i++) {
			if (i >= nr_tags)
				break;
			if (name[1] != tag_names[i][1] ||
			    bpf_strncmp(name, sizeof(name), (const char *)tag_names[i]))
				continue;
			rec[0] = 0;		/* a marker, */
			rec[1] = i;		/* the tag's index, */
			rec[2] = it->value;	/* and the address */
			n = 3;
			break;
		}
	}
	bpf_seq_write(seq, rec, n * sizeof(rec[0]));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
