/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hot rows: counters rows (struct rs_total_val) found by slot in a per-CPU
 * array rather than by key in a per-CPU hash. A hash row costs a helper
 * call and a hash of the key, 55-60 ns here (bench/bpf_prices); an array
 * slot is a lookup the verifier inlines, 2 ns. The first nrows keys get a
 * slot each, for the maps' life:
 *
 *   NAME          per-CPU array: the rows, by slot
 *   NAME_index    hash: key -> slot (what readers walk: published keys only)
 *   NAME_keys     array: slot -> key, written once, before the slot is published
 *   NAME_hint     per-CPU array of one: the slot this CPU counted in last,
 *                 plus one (a CPU that has counted nothing holds 0: no slot)
 *   NAME_used     slots handed out so far
 *
 * A run of messages of one key on a CPU finds its slot by the hint, checked
 * against NAME_keys: no hash lookup at all. The hint is one 32-bit word and
 * a slot's key never changes once a reader can learn the slot, so a hint
 * rewritten by a task that preempted this one, or by another key's message,
 * can only miss, never name another key's row. A miss asks the index.
 * Keys past nrows get no slot: rs_hot_row() returns NULL and the caller
 * counts them in its hash, as before (one lookup more a miss for them).
 */
#ifndef RINGSIDE_HOT_ROWS_BPF_H
#define RINGSIDE_HOT_ROWS_BPF_H

#include "common.bpf.h"

#define RS_HOT_NONE 0xffffffffu

#define RS_HOT_ROWS(name, key_type, nrows)                                   \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                     \
		__uint(max_entries, nrows);                                  \
		__type(key, __u32);                                          \
		__type(value, struct rs_total_val);                          \
	} name SEC(".maps");                                                 \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_HASH);                             \
		__uint(map_flags, BPF_F_NO_PREALLOC);                        \
		__uint(max_entries, nrows);                                  \
		__type(key, key_type);                                       \
		__type(value, __u32);                                        \
	} name##_index SEC(".maps");                                         \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_ARRAY);                            \
		__uint(max_entries, nrows);                                  \
		__type(key, __u32);                                          \
		__type(value, key_type);                                     \
	} name##_keys SEC(".maps");                                          \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                     \
		__uint(max_entries, 1);                                      \
		__type(key, __u32);                                          \
		__type(value, __u32);                                        \
	} name##_hint SEC(".maps");                                          \
	__u64 name##_used

/* Two keys of size bytes (a multiple of 4, a constant), word by word. */
static __always_inline bool rs_hot_key_equal(const void *a, const void *b, __u32 size)
{
	const __u32 *x = a, *y = b;
	__u32 diff = 0;

#pragma unroll
	for (__u32 i = 0; i < size / 4; i++)
		diff |= x[i] ^ y[i];
	return !diff;
}

/* key's slot, given on its first use (*fresh set then); RS_HOT_NONE once they are all given. */
static __always_inline __u32 rs_hot_slot(void *index, void *keys, __u64 *used, __u32 nrows,
					 const void *key, __u32 key_size, bool *fresh)
{
	__u32 *have = bpf_map_lookup_elem(index, key), slot;
	void *slot_key;

	if (have)
		return *have;
	if (*(volatile __u64 *)used >= nrows)
		return RS_HOT_NONE;
	slot = (__u32)__sync_fetch_and_add(used, 1);
	slot_key = slot < nrows ? bpf_map_lookup_elem(keys, &slot) : NULL;
	if (!slot_key)
		return RS_HOT_NONE;
	/* Written before the index publishes the slot: no reader sees it half done. */
	__builtin_memcpy(slot_key, key, key_size);
	if (!bpf_map_update_elem(index, key, &slot, BPF_NOEXIST)) {
		*fresh = true;
		return slot;
	}
	/* Another CPU gave this key a slot first: that one it is (this one stays unread). */
	have = bpf_map_lookup_elem(index, key);
	return have ? *have : RS_HOT_NONE;
}

static __always_inline struct rs_total_val *rs_hot_row_maps(void *rows, void *index, void *keys, void *hint,
							    __u64 *used, __u32 nrows, const void *key,
							    __u32 key_size, bool *fresh)
{
	__u32 zero = 0, slot, *last = bpf_map_lookup_elem(hint, &zero);
	const void *slot_key;

	if (last) {
		/* 0 (never set) becomes RS_HOT_NONE, which no slot is. */
		slot = *(volatile __u32 *)last - 1;
		slot_key = bpf_map_lookup_elem(keys, &slot);
		if (slot_key && rs_hot_key_equal(slot_key, key, key_size))
			return bpf_map_lookup_elem(rows, &slot);
	}
	slot = rs_hot_slot(index, keys, used, nrows, key, key_size, fresh);
	if (slot == RS_HOT_NONE)
		return NULL;
	if (last)
		*(volatile __u32 *)last = slot + 1;
	return bpf_map_lookup_elem(rows, &slot);
}

/*
 * This CPU's row of *key in the hot rows name (declared by RS_HOT_ROWS with
 * nrows), or NULL: no slot for it (the caller's hash counts it). *fresh is
 * set when the key got its slot now.
 */
#define rs_hot_row(name, nrows, key, fresh)                                               \
	rs_hot_row_maps(&name, &name##_index, &name##_keys, &name##_hint, &name##_used, nrows, \
			key, sizeof(*(key)), fresh)

#endif
