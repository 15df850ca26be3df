// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring-buffer pipeline bench's producer. On every system call of the
 * bench's own process it queues `burst` AES-GCM records into a running
 * `ringside gcm`'s ring (the events and drops maps are the tracer's own,
 * reused by fd), through the same reserve/filter/submit code every ringside
 * program uses, so the tracer's read, decode, aggregate and print path and
 * its loss accounting are what is measured.
 */
#include "common.bpf.h"

/* Records per system call: several, so one thread can outrun any reader. */
const volatile __u32 burst = 8;
/* A code address of the bench, so each record's caller resolves to a symbol. */
const volatile __u64 caller_addr;

/* What this program tried to queue: delivered + lost must equal it. */
__u64 produced;

SEC("tp_btf/sys_enter")
int BPF_PROG(flood, struct pt_regs *regs, long id)
{
	if (!rs_filter_pass())
		return 0;
	for (__u32 i = 0; i < burst && i < 64; i++) {
		struct rs_gcm_event *e;

		__sync_fetch_and_add(&produced, 1);
		e = rs_reserve(sizeof(*e), RS_EV_GCM_OP);
		if (!e)
			continue;
		e->lib = RS_GCM_LIB_OPENSSL;
		e->dir = i & 1 ? RS_GCM_OPEN : RS_GCM_SEAL;
		e->result = RS_GCM_OK;
		e->flags = 0;
		e->key_bits = 128;
		e->nr_stack = 0;
		e->lib_id = 0;
		e->retval = 0;
		e->aad_bytes = 13;
		e->payload_bytes = 16 << (i & 7);
		e->latency_ns = 400 + i;
		e->caller = caller_addr;
		e->handle = id;
		rs_submit(e, false);
	}
	return 0;
}
