// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The price of each thing a ringside program does in a probe hit, one
 * program per thing, so the BPF time (bpf_stats) of each less the empty
 * program's is that thing's price on this kernel: the building blocks of
 * the GCM paths' cost over their no-op floors.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Results go here so that nothing a program computes is optimised away. */
__u64 sink;

/* A context's key and an agent row's key, sized as the GCM maps' keys are. */
struct price_key16 {
	__u64 a, b;
};

struct price_key32 {
	__u64 comm[2];
	__u64 a, b;
};

struct price_row {
	__u64 c[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct price_key16);
	__type(value, struct price_row);
} price_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 64);
	__type(key, struct price_key32);
	__type(value, struct price_row);
} price_pcpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct price_row);
} price_pcpu_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct price_row);
} price_task SEC(".maps");

extern bool bpf_session_is_return(void) __ksym __weak;

SEC("uprobe")
int price_empty(void *ctx)
{
	return 0;
}

/* The counting path's one read: a message's 16 bytes of lengths. */
SEC("uprobe")
int BPF_KPROBE(price_user_read, void *buf)
{
	__u64 len[2];

	bpf_probe_read_user(len, sizeof(len), buf);
	sink += len[0] + len[1];
	return 0;
}

/* The same read by a sleepable program, which may fault the page in. */
SEC("uprobe.s")
int BPF_KPROBE(price_user_copy, void *buf)
{
	__u64 len[2];

	bpf_copy_from_user(len, sizeof(len), buf);
	sink += len[0] + len[1];
	return 0;
}

/* A helper call that only returns a value: what any call costs here. */
SEC("uprobe")
int price_helper(void *ctx)
{
	sink += bpf_get_current_pid_tgid();
	return 0;
}

SEC("uprobe")
int price_clock(void *ctx)
{
	sink += bpf_ktime_get_ns();
	return 0;
}

/* A hit in a hash keyed as an OpenSSL context is (the entry exists). */
SEC("uprobe")
int price_hash_lookup(void *ctx)
{
	struct price_key16 key = { 1, 2 };
	struct price_row *v = bpf_map_lookup_elem(&price_hash, &key);

	if (v)
		sink += v->c[0];
	return 0;
}

/* An agent row: a per-CPU hash keyed by name and labels, its counters added to. */
SEC("uprobe")
int price_pcpu_row(void *ctx)
{
	struct price_key32 key = { { 0x6c726f776b726f77, 0x64616f }, 3, 4 };
	struct price_row *v = bpf_map_lookup_elem(&price_pcpu_hash, &key);

	if (v) {
		v->c[0]++;
		v->c[1] += 16;
	}
	return 0;
}

/* The same counters in a per-CPU array's one slot: a lookup the verifier inlines. */
SEC("uprobe")
int price_pcpu_slot(void *ctx)
{
	__u32 zero = 0;
	struct price_row *v = bpf_map_lookup_elem(&price_pcpu_array, &zero);

	if (v) {
		v->c[0]++;
		v->c[1] += 16;
	}
	return 0;
}

/* Where a finish given a tag parks its message for the return: the thread's storage. */
SEC("uprobe")
int price_task_storage(void *ctx)
{
	struct price_row *v = bpf_task_storage_get(&price_task, bpf_get_current_task_btf(), 0,
						   BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v)
		v->c[0]++;
	return 0;
}

/* A session's entry asking which end it is, by the kfunc (6.13+). */
SEC("uprobe")
int price_is_return(void *ctx)
{
	sink += bpf_session_is_return();
	return 1;		/* no return probe */
}

/* The same told by the instruction pointer, as gcm's finish session does. */
SEC("uprobe")
int price_ip_is_return(struct pt_regs *ctx)
{
	sink += PT_REGS_IP(ctx) - bpf_get_func_ip(ctx) >= 8;
	return 1;
}
