// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AES-GCM messages in user-space crypto libraries: counted and timed into
 * per-row maps (totals, and gcm_hist for summaries), a record per message
 * where asked (--events), in gcm_agg by label set in agent mode.
 *
 * Long on purpose: one skeleton per collector, so every library's programs
 * live in this one object, loaded once and sharing its maps (handles, calls,
 * totals); what the libraries share is in helpers here and in gcm_seq.h.
 *
 * A message begins when its IV is set (or at the one-shot call) and ends
 * when its tag is produced or checked. Per-context state lives in
 * gcm_handles keyed by (process, library, context pointer), an OpenSSL
 * context's library in its value (ossl_hkey()); a call whose
 * result we need waits in gcm_calls, keyed by thread, for its return probe.
 * The attach cookie is the index of the probed library file, so one program
 * serves every copy of a library (host and containers).
 */
#define RS_FIXED_PT_REGS	/* registers read at fixed offsets (common.bpf.h) */
#include "common.bpf.h"
#include "hot_rows.bpf.h"
#include "gcm_seq.h"
#include "gcm_handles.h"
#include "ossl_finish_layout.h"
#include "probe_argmap.h"

const volatile bool want_stack = false;
/* Nonzero: copy this many bytes of user stack for DWARF unwinding instead. */
const volatile __u32 stack_window = 0;
/* Agent mode: aggregate in gcm_agg, queue records only for tag failures. */
const volatile bool agent_mode = false;
/*
 * Counting only: OpenSSL's setiv is not probed. finish is called once per
 * message (by CRYPTO_gcm128_tag, or to check a tag), so it alone ends one,
 * the lengths come from the context as always, and nothing is timed.
 */
const volatile bool count_only = false;

struct gcm_hkey {
	__u32 tgid;
	__u32 lib_id;
	__u64 handle;
};

struct gcm_msg {
	__u64 start_ns;
	__u64 aad;
	__u64 payload;
	__u64 caller;
	__u16 key_bits;
	__u16 lib_id;		/* an OpenSSL context's library (its key has none: ossl_hkey()) */
	__u8 dir;
	__u8 flags;
	__u8 active;
};

enum gcm_call_kind {
	GCM_CALL_INIT = 1,	/* creates a handle: arg points at the out-parameter */
	GCM_CALL_ONESHOT,	/* a whole message in one call */
	GCM_CALL_FINISH,	/* the call that ends a streamed message */
};

struct gcm_call {
	struct gcm_msg m;
	__u64 handle;
	__u64 arg;
	__u32 lib_id;
	__u32 depth;		/* nested probed calls of the same kind */
	__u8 lib;
	__u8 kind;
	__u8 end_call;		/* enum gcm_end_call of a parked FINISH (gcm_seq.h) */
};

_Static_assert(sizeof(struct gcm_hkey) == GCM_HANDLES_KEY_SIZE, "gcm_handles.h: key size");
_Static_assert(sizeof(struct gcm_msg) == GCM_HANDLES_VALUE_SIZE, "gcm_handles.h: value size");

/* LRU: contexts freed without a probed release must not fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GCM_HANDLES_MAX);
	__type(key, struct gcm_hkey);
	__type(value, struct gcm_msg);
} gcm_handles SEC(".maps");

/*
 * Task-local: freed with the thread, and found through the task itself
 * rather than by hashing the thread id on every probe hit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct gcm_call);
} gcm_calls SEC(".maps");

static __always_inline struct gcm_call *call_slot(bool create)
{
	return bpf_task_storage_get(&gcm_calls, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The n-th 8-byte word of the user stack above sp (0 where it cannot be read). */
static __always_inline __u64 stack_word(struct pt_regs *ctx, __u64 n)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)(PT_REGS_SP(ctx) + 8 * n));
	return v;
}

/* Only valid where the probe sits before the prologue moves the stack. */
static __always_inline __u64 return_address(struct pt_regs *ctx)
{
	return stack_word(ctx, 0);
}

/*
 * The general registers by x86 number (rax 0, rcx 1, rdx 2, rbx 3, rsp 4,
 * rbp 5, rsi 6, rdi 7, r8-r15), copied out of the context: the verifier
 * allows only fixed offsets into it, so a register chosen at run time is
 * picked from the copy.
 */
struct x86_gprs {
	__u64 r[16];
};

static __always_inline void x86_gprs_copy(struct pt_regs *ctx, struct x86_gprs *g)
{
	__typeof__(__PT_REGS_CAST(ctx)) r = __PT_REGS_CAST(ctx);

	g->r[0] = r->ax;
	g->r[1] = r->cx;
	g->r[2] = r->dx;
	g->r[3] = r->bx;
	g->r[4] = r->sp;
	g->r[5] = r->bp;
	g->r[6] = r->si;
	g->r[7] = r->di;
	g->r[8] = r->r8;
	g->r[9] = r->r9;
	g->r[10] = r->r10;
	g->r[11] = r->r11;
	g->r[12] = r->r12;
	g->r[13] = r->r13;
	g->r[14] = r->r14;
	g->r[15] = r->r15;
}

/*
 * A probe that may sit inside its function's prologue (probe_argmap.h; map:
 * its attach cookie's high half): argument n from the register that holds
 * it there, the return address from its slot. Without RS_ARGMAP_ON the
 * probe is at the entry and reads them where the calling convention puts
 * them.
 */
static __always_inline __u32 probe_argmap(void *ctx)
{
	return (__u32)(bpf_get_attach_cookie(ctx) >> 32);
}

/* Arguments 0 to n-1 into a[], from one copy of the registers. */
static __always_inline void probe_args(struct pt_regs *ctx, __u32 map, __u64 *a, int n)
{
	struct x86_gprs g;

	/* From the copy either way: the verifier refuses a context pointer
	 * the compiler moved before loading through it. */
	x86_gprs_copy(ctx, &g);
	for (int i = 0; i < n && i < RS_ARGMAP_ARGS; i++) {
		/* rdi, rsi, rdx, rcx: the calling convention's first four */
		__u32 reg = i == 0 ? 7 : i == 1 ? 6 : i == 2 ? 2 : 1;

		if (map & RS_ARGMAP_ON)
			reg = RS_ARGMAP_REG(map, i);
		a[i] = g.r[reg & 15];
	}
}

static __always_inline __u64 probe_return_address(struct pt_regs *ctx, __u32 map)
{
	return stack_word(ctx, map & RS_ARGMAP_ON ? RS_ARGMAP_RA_WORDS(map) : 0);
}

/* libbpf 1.1's bpf_tracing.h stops at the fifth argument; x86-64 passes the sixth in r9. */
#define PARM6(x) (__PT_REGS_CAST(x)->r9)

/* Stack-passed argument n (1 = the 7th argument), read at function entry. */
static __always_inline __u64 stack_arg(struct pt_regs *ctx, int n)
{
	return stack_word(ctx, n);
}

static __always_inline struct gcm_hkey hkey(void *ctx, __u64 handle)
{
	struct gcm_hkey k = {
		.tgid = bpf_get_current_pid_tgid() >> 32,
		.lib_id = (__u32)bpf_get_attach_cookie(ctx),
		.handle = handle,
	};
	return k;
}

static __always_inline struct gcm_msg *msg_of(void *ctx, __u64 handle)
{
	struct gcm_hkey k = hkey(ctx, handle);

	return bpf_map_lookup_elem(&gcm_handles, &k);
}

/*
 * An OpenSSL context's key: its library is in the value (gcm_msg.lib_id),
 * set when the context is made, so a message's finish asks for no attach
 * cookie (a helper call). Two libraries' live contexts never share an
 * address; the other libraries' keys carry their cookie (never this one),
 * as a GnuTLS handle may start with its nettle context.
 */
#define OSSL_KEY_LIB 0xffffffffu

static __always_inline struct gcm_hkey ossl_hkey(__u64 pid_tgid, void *gctx)
{
	struct gcm_hkey k = { .tgid = pid_tgid >> 32, .lib_id = OSSL_KEY_LIB, .handle = (__u64)gctx };

	return k;
}

/* Internal handle flag: another cipher or mode, registered so that its calls are known and ignored. */
#define GCM_H_NOT_GCM 0x80

/* Two entry programs that differ only in direction: each calls fn(ctx, its direction). */
#define ENTRY_BY_DIR(seal_prog, open_prog, fn)                                   \
	SEC("uprobe") int BPF_KPROBE(seal_prog) { return fn(ctx, RS_GCM_SEAL); } \
	SEC("uprobe") int BPF_KPROBE(open_prog) { return fn(ctx, RS_GCM_OPEN); }

/*
 * A probe hit that cannot be tied to a message: counted per process,
 * library and reason in the totals map (events.h), never dropped silently.
 */
static __always_inline void count_unattributed(void *ctx, __u32 reason)
{
	struct rs_total_key key = {
		.tgid = bpf_get_current_pid_tgid() >> 32,
		.k1 = (__u32)bpf_get_attach_cookie(ctx),
		.k2 = RS_GCM_TOTAL_UNATTRIBUTED,
		.k3 = reason,
	};
	struct rs_total_val *v;

	if (!rs_filter_pass())
		return;
	v = rs_total_row(&key);
	if (v)
		v->c[0]++;
}

/*
 * The message state of a GnuTLS or libgcrypt handle. A handle whose creation
 * was not seen (made before the trace began, or inside the library by a path
 * without a probe) is counted as unattributed; one of another cipher is skipped.
 */
static __always_inline struct gcm_msg *traced_msg(void *ctx, __u64 handle)
{
	struct gcm_msg *m = msg_of(ctx, handle);

	if (!m) {
		count_unattributed(ctx, RS_GCM_UNATTR_UNKNOWN_HANDLE);
		return NULL;
	}
	return m->flags & GCM_H_NOT_GCM ? NULL : m;
}

static __always_inline void msg_begin_caller(struct pt_regs *ctx, struct gcm_msg *m, __u64 caller)
{
	m->start_ns = bpf_ktime_get_ns();
	m->caller = caller;
	m->aad = 0;
	m->payload = 0;
	m->dir = RS_GCM_DIR_UNKNOWN;
	m->active = 1;
}

static __always_inline void msg_begin(struct pt_regs *ctx, struct gcm_msg *m)
{
	msg_begin_caller(ctx, m, return_address(ctx));
}

/*
 * A fresh state for handle. One already known is reset in place: an LRU
 * hash update allocates a node and frees the old one (240-340 ns where
 * `openssl speed` re-keys its context for every message, against a
 * lookup's tens of ns).
 */
static __always_inline void handle_put(const struct gcm_hkey *k, const struct gcm_msg *m)
{
	struct gcm_msg *old = bpf_map_lookup_elem(&gcm_handles, k);

	if (old)
		*old = *m;
	else
		bpf_map_update_elem(&gcm_handles, k, m, BPF_ANY);
}

static __always_inline void handle_new(void *ctx, __u64 handle, __u16 key_bits, __u8 flags)
{
	struct gcm_hkey k = hkey(ctx, handle);
	struct gcm_msg m = { .key_bits = key_bits, .flags = flags };

	handle_put(&k, &m);
}

/*
 * Counting only, the finish of an OpenSSL seal needs nothing of its
 * context's entry but what is fixed from its key to its next one (library,
 * key size, flags): each CPU keeps a copy of the last context whose message
 * it ended (ossl_recent), so a run of messages on one context looks it up
 * once instead of once a message (a hash lookup 53-72 ns here, the copy's
 * slot a lookup the verifier inlines). ossl_gen moves at every change to an
 * OpenSSL context's entry that such a copy could miss (a key, a direction
 * set by the decrypt probe), from any thread: a copy taken at another
 * generation is void, and the finish looks the context up as before.
 */
struct ossl_recent {
	__u64 pid_tgid;
	__u64 gctx;
	__u64 gen;
	struct gcm_msg m;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ossl_recent);
} gcm_ossl_recent SEC(".maps");

__u64 ossl_gen;

/* Only counting keeps copies: elsewhere setiv writes the entry at every message. */
static __always_inline bool ossl_copies(void)
{
	return count_only;
}

/* Every copy taken before is void; the new generation. */
static __always_inline __u64 ossl_gen_bump(void)
{
	return __sync_fetch_and_add(&ossl_gen, 1) + 1;
}

/* Read before the entry is: a change after it moves the generation past this. */
static __always_inline __u64 ossl_gen_now(void)
{
	return *(volatile __u64 *)&ossl_gen;
}

/* task: the current one, whose thread id is in pid_tgid. */
static __always_inline void ossl_recent_put(struct task_struct *task, __u64 pid_tgid, void *gctx,
					    __u64 gen, const struct gcm_msg *m)
{
	__u32 zero = 0;
	struct ossl_recent *r = bpf_map_lookup_elem(&gcm_ossl_recent, &zero);
	__u64 switches = rs_task_switches(task);

	if (!r)
		return;
	r->pid_tgid = pid_tgid;
	r->gctx = (__u64)gctx;
	r->gen = gen;
	r->m = *m;
	/* Preempted while writing: another task's write may be half under ours. No thread is 0. */
	if (rs_task_switches(task) != switches)
		r->pid_tgid = 0;
}

/* This CPU's copy of the thread's context gctx into m, if it is still good. */
static __always_inline bool ossl_recent_get(struct task_struct *task, __u64 pid_tgid, void *gctx,
					    struct gcm_msg *m)
{
	__u32 zero = 0;
	struct ossl_recent *r = bpf_map_lookup_elem(&gcm_ossl_recent, &zero);
	__u64 switches = rs_task_switches(task);

	if (!r || r->pid_tgid != pid_tgid || r->gctx != (__u64)gctx || r->gen != ossl_gen_now())
		return false;
	*m = r->m;
	/* Preempted while reading: another task may have rewritten the slot under the copy. */
	return rs_task_switches(task) == switches;
}

/* An OpenSSL context's fresh state: its library from the attach cookie, a marks' bound. */
static __always_inline void ossl_handle_new(void *ctx, struct task_struct *task, __u64 pid_tgid,
					    void *gctx, __u16 key_bits, __u8 flags, __u64 start_ns)
{
	struct gcm_hkey k = ossl_hkey(pid_tgid, gctx);
	struct gcm_msg m = {
		.start_ns = start_ns,
		.key_bits = key_bits,
		.lib_id = (__u16)bpf_get_attach_cookie(ctx),
		.flags = flags,
	};
	__u64 gen;

	if (!ossl_copies()) {
		handle_put(&k, &m);
		return;
	}
	/* Another CPU's copy of this address may hold the old key: void them
	 * all, then this CPU's copy is the new state (`openssl speed` re-keys
	 * its context before every message). */
	gen = ossl_gen_bump();
	handle_put(&k, &m);
	ossl_recent_put(task, pid_tgid, gctx, gen, &m);
}

static __always_inline struct gcm_msg *ossl_msg_of(__u64 pid_tgid, void *gctx)
{
	struct gcm_hkey k = ossl_hkey(pid_tgid, gctx);

	return bpf_map_lookup_elem(&gcm_handles, &k);
}

static __always_inline void handle_drop(void *ctx, __u64 handle)
{
	struct gcm_hkey k = hkey(ctx, handle);

	bpf_map_delete_elem(&gcm_handles, &k);
}

/* A call's state: the message (NULL: none yet), what it works on, which library. */
static __always_inline void call_fill_id(struct gcm_call *c, const struct gcm_msg *m, __u64 handle,
					 __u64 arg, __u8 lib, __u8 kind, __u32 lib_id)
{
	c->handle = handle;
	c->arg = arg;
	c->lib_id = lib_id;
	c->depth = 0;
	c->lib = lib;
	c->kind = kind;
	c->end_call = 0;
	if (m)
		c->m = *m;
	else
		__builtin_memset(&c->m, 0, sizeof(c->m));
}

static __always_inline void call_fill(void *ctx, struct gcm_call *c, const struct gcm_msg *m,
				      __u64 handle, __u64 arg, __u8 lib, __u8 kind)
{
	call_fill_id(c, m, handle, arg, lib, kind, (__u32)bpf_get_attach_cookie(ctx));
}

static __always_inline struct gcm_call *call_park(void *ctx, const struct gcm_msg *m,
						  __u64 handle, __u64 arg, __u8 lib, __u8 kind)
{
	struct gcm_call *c = call_slot(true);

	if (c)
		call_fill(ctx, c, m, handle, arg, lib, kind);
	return c;
}

/*
 * Kernel histograms: summaries draw latency (and, with size_hist, payload
 * size) from these rows instead of a record per message, so they cover
 * every message however fast they come, and a message costs no ring
 * record unless its tag failed.
 */
const volatile bool kernel_hist = false;
const volatile bool size_hist = false;

/*
 * Does every message make a record (with its caller)? Only where neither
 * the agent's rows nor the kernel's histograms count them (--events);
 * otherwise only a failed tag makes one, and a message with no tag to
 * check needs no caller.
 */
static __always_inline bool records_every_message(void)
{
	return !agent_mode && !kernel_hist;
}

/*
 * OpenSSL's message starts are marked per CPU (ossl_mark_start()) where
 * only the kernel's rows take the latency: the summary without --events,
 * and the agent, when they time messages. --events keeps the start in the
 * context's entry.
 */
static __always_inline bool ossl_marks(void)
{
	return (kernel_hist || agent_mode) && !count_only;
}

/*
 * Was this message timed? Counting only, OpenSSL's start is not probed;
 * with per-CPU marks, a message whose mark was not found has none (0).
 */
static __always_inline bool msg_timed(const struct gcm_call *c)
{
	return !(count_only && c->lib == RS_GCM_LIB_OPENSSL) && c->m.start_ns;
}

/* A message's duration; 0 where nothing marked its start (counting only). */
static __always_inline __u64 msg_latency(const struct gcm_call *c, __u64 now)
{
	return msg_timed(c) ? now - c->m.start_ns : 0;
}

/* The same, reading the clock only for a timed message. */
static __always_inline __u64 msg_latency_now(const struct gcm_call *c)
{
	return msg_timed(c) ? bpf_ktime_get_ns() - c->m.start_ns : 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RS_GCM_AGG_MAX_ENTRIES);
	__type(key, struct rs_gcm_agg_key);
	__type(value, struct rs_total_val);
} gcm_agg SEC(".maps");

/* One message into a row of counters (RS_GCM_TOTAL_* order): totals and agent rows alike. */
static __always_inline void add_counts(struct rs_total_val *v, const struct gcm_call *c, __u8 result,
				       __u64 latency)
{
	v->c[RS_GCM_TOTAL_OPS]++;
	v->c[RS_GCM_TOTAL_AAD] += c->m.aad;
	v->c[RS_GCM_TOTAL_PAYLOAD] += c->m.payload;
	v->c[RS_GCM_TOTAL_TAG_FAIL] += result == RS_GCM_TAG_FAIL;
	v->c[RS_GCM_TOTAL_ERRORS] += result == RS_GCM_ERROR;
	v->c[RS_GCM_TOTAL_UNCHECKED] += result == RS_GCM_UNCHECKED;
	v->c[RS_GCM_TOTAL_LAT_SUM] += latency;
}

/* key's row; with the map full, the "other" row (key is changed to it). */
static __always_inline struct rs_total_val *agg_row(struct rs_gcm_agg_key *key)
{
	struct rs_total_val *v = rs_map_row(&gcm_agg, key);

	if (v)
		return v;
	__builtin_memset(key->comm, 0, sizeof(key->comm));
	key->libdir |= RS_GCM_AGG_OTHER;
	v = rs_map_row(&gcm_agg, key);
	if (!v)
		rs_count_drop_slot(RS_DROP_TOTALS);
	return v;
}

static __always_inline void agg_slot(struct rs_gcm_agg_key *key, __u8 kind, __u64 value)
{
	struct rs_total_val *v;

	key->kind = kind;
	key->slot = rs_log2_slot(value);
	v = agg_row(key);
	if (v)
		v->c[0]++;
}

/* The first RS_GCM_AGG_HOT_ROWS counters rows (events.h), by slot: hot_rows.bpf.h. */
RS_HOT_ROWS(gcm_agg_hot, struct rs_gcm_agg_key, RS_GCM_AGG_HOT_ROWS);

/* The counters row of key on this CPU: its hot slot's, else gcm_agg's (agg_row: key may become "other"'s). */
static __always_inline struct rs_total_val *agg_counters_row(struct rs_gcm_agg_key *key)
{
	struct rs_total_val *v;
	bool fresh = false;

	v = rs_hot_row(gcm_agg_hot, RS_GCM_AGG_HOT_ROWS, key, &fresh);
	return v ? v : agg_row(key);
}

/* task: the current one where the caller has its pointer already, else NULL. */
static __always_inline void count_agg(const struct gcm_call *c, __u8 result, __u64 latency,
				      struct task_struct *task)
{
	/* The counters' row is the size histogram's slot too: one lookup counts both. */
	struct rs_gcm_agg_key key = {
		.lib_id = c->lib_id,
		.libdir = c->lib | (__u16)c->m.dir << 8,
		.key_bits = c->m.key_bits,
		.kind = RS_GCM_AGG_COUNTERS,
		.slot = rs_log2_slot(c->m.payload),
	};
	__u64 comm[RS_COMM_LEN / 8];
	struct rs_total_val *v;

	if (task)
		rs_task_comm(task, comm);
	else
		rs_current_comm(comm);
	__builtin_memcpy(key.comm, comm, sizeof(key.comm));
	v = agg_counters_row(&key);
	if (!v)
		return;
	add_counts(v, c, result, latency);
	/* Latency goes with the row the counters went to (comm, or other);
	 * counting only, or a start not seen, nothing was timed: the latency
	 * histogram counts the timed messages. */
	if (!count_only && msg_timed(c))
		agg_slot(&key, RS_GCM_AGG_LATENCY, latency);
}

/* The reader's epoch: it bumps it each time it takes the latency slots' maxima (their c[1]). */
__u64 gcm_hist_epoch;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RS_GCM_HIST_MAX_ENTRIES);
	__type(key, struct rs_gcm_hist_key);
	__type(value, struct rs_total_val);
} gcm_hist SEC(".maps");

/* The first RS_GCM_HIST_HOT_ROWS latency rows, by slot (events.h, hot_rows.bpf.h). */
RS_HOT_ROWS(gcm_hist_hot, struct rs_gcm_hist_key, RS_GCM_HIST_HOT_ROWS);

/* Process names for summaries without records: written at a row's first message. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, char[RS_COMM_LEN]);
} gcm_comms SEC(".maps");

/* One more message in key's slot; a row the map cannot take is a counted drop. */
static __always_inline void hist_add(struct rs_gcm_hist_key *key, __u16 kind, __u16 slot)
{
	struct rs_total_val *v;

	key->kind = kind;
	key->slot = slot;
	v = rs_map_row(&gcm_hist, key);
	if (v)
		v->c[0]++;
	else
		rs_count_drop_slot(RS_DROP_HIST);
}

/*
 * A message into its row's histograms: its latency slot counts it and keeps
 * the slot's longest message of the reader's epoch (RS_GCM_HIST_LAT_MAX),
 * and the slot's row carries the message's totals too (events.h): one row
 * updated per message instead of that and a totals row. An untimed message
 * (counting only) is slot 0, as its record's 0 ns was. The row's first
 * message of a slot notes the process's name, for a summary after it exits.
 * row: lib_id | libdir << 32 | key_bits << 48; who: tgid | result << 32 (the
 * caller often knows the tgid: a helper call saved). Nonzero when the latency row
 * could not be made: the caller counts the message in the totals map. A
 * global function, so the verifier checks it once per program: inlined at
 * each place a program ends a message, it made four programs' loads 4-8 ms
 * each instead of 1.
 */
__noinline int gcm_hist_message(__u64 row, __u64 latency, __u64 payload, __u64 aad, __u64 who)
{
	struct rs_gcm_hist_key key = {
		.tgid = (__u32)who,
		.lib_id = (__u32)row,
		.libdir = (__u16)(row >> 32),
		.key_bits = (__u16)(row >> 48),
		.kind = RS_GCM_HIST_LATENCY,
	};
	__u64 epoch = gcm_hist_epoch << 48, max;
	__u8 s = rs_log2_slot(latency), result = (__u8)(who >> 32);
	struct rs_total_val *v;
	bool fresh = false;
	int missed = 0;

	key.slot = (__u16)RS_GCM_FINE_SLOT(latency, s);
	/*
	 * Counting only, every message is latency slot 0: a label set has one
	 * row, found by the CPU's hint. Timed, its messages spread over up to
	 * some hundreds of slots: the hint would miss, and a few label sets
	 * would take every hot row, so they stay in the hash.
	 */
	v = count_only ? rs_hot_row(gcm_hist_hot, RS_GCM_HIST_HOT_ROWS, &key, &fresh) : NULL;
	if (!v)
		v = bpf_map_lookup_elem(&gcm_hist, &key);
	if (!v || fresh) {
		char comm[RS_COMM_LEN];

		bpf_get_current_comm(comm, sizeof(comm));
		bpf_map_update_elem(&gcm_comms, &key.tgid, comm, BPF_ANY);
		if (!v)
			v = rs_map_row(&gcm_hist, &key);
	}
	if (v) {
		v->c[RS_GCM_HIST_LAT_COUNT]++;
		max = v->c[RS_GCM_HIST_LAT_MAX];
		if ((max & ~RS_GCM_LAT_MAX_NS_MASK) != epoch || latency > (max & RS_GCM_LAT_MAX_NS_MASK))
			v->c[RS_GCM_HIST_LAT_MAX] = epoch | (latency & RS_GCM_LAT_MAX_NS_MASK);
		v->c[RS_GCM_HIST_LAT_AAD] += aad;
		v->c[RS_GCM_HIST_LAT_PAYLOAD] += payload;
		v->c[RS_GCM_HIST_LAT_TAG_FAIL] += result == RS_GCM_TAG_FAIL;
		v->c[RS_GCM_HIST_LAT_ERRORS] += result == RS_GCM_ERROR;
		v->c[RS_GCM_HIST_LAT_UNCHECKED] += result == RS_GCM_UNCHECKED;
		v->c[RS_GCM_HIST_LAT_SUM] += latency;
	} else {
		rs_count_drop_slot(RS_DROP_HIST);
		missed = 1;
	}
	if (size_hist)
		hist_add(&key, RS_GCM_HIST_SIZE, rs_log2_slot(payload));
	return missed;
}

/* The exact count of every completed message, whether or not its record fits the ring. */
static __always_inline void count_total(const struct gcm_call *c, __u8 result, __u64 latency,
					__u32 tgid)
{
	struct rs_total_key key = {
		.tgid = tgid,
		.k1 = c->lib_id,
		.k2 = c->lib | (__u32)c->m.dir << 8,
		.k3 = c->m.key_bits,
	};
	struct rs_total_val *v = rs_total_row(&key);

	if (!v)
		return;
	add_counts(v, c, result, latency);
}

/* A load-time constant, whole pages: the verifier sees both uses as the same number. */
static __always_inline __u32 window_bytes(void)
{
	return (stack_window < RS_STACK_WINDOW_MAX ? stack_window : RS_STACK_WINDOW_MAX) &
	       ~(RS_STACK_PAGE - 1);
}

/*
 * The registers and whole pages of stack from the one sp is in, upward, for
 * unwinding in user space. Page by page: a shallow stack ends before the
 * window does, and a read there faults; the pages read before it stand.
 */
static __always_inline void copy_stack(struct pt_regs *ctx, struct rs_stack_copy *sc)
{
	__u32 pages = window_bytes() / RS_STACK_PAGE;
	__u64 sp = PT_REGS_SP(ctx), base = sp & ~(__u64)(RS_STACK_PAGE - 1);
	__u32 i;

	sc->ip = PT_REGS_IP(ctx);
	sc->sp = sp;
	sc->bp = PT_REGS_FP(ctx);
	sc->start = base;
	sc->pad = 0;
	for (i = 0; i < RS_STACK_WINDOW_MAX / RS_STACK_PAGE; i++) {
		if (i >= pages ||
		    bpf_probe_read_user(sc->data + i * RS_STACK_PAGE, RS_STACK_PAGE,
					(void *)(base + i * RS_STACK_PAGE)))
			break;
	}
	sc->len = i * RS_STACK_PAGE;
}

/*
 * A message ended: counted, and a record where one is asked for. task: the
 * current task where the caller has its pointer already (a helper call
 * saved for its tgid and name), else NULL.
 */
static __always_inline void emit_task(struct pt_regs *ctx, const struct gcm_call *c,
				      __u8 result, __s32 rc, struct task_struct *task)
{
	struct rs_gcm_event *ev;
	__u32 size = sizeof(*ev);
	__u32 tgid;

	if (agent_mode) {
		count_agg(c, result, msg_latency_now(c), task);
		if (result != RS_GCM_TAG_FAIL)
			return;
	} else {
		__u64 latency = msg_latency_now(c);

		tgid = task ? task->tgid : bpf_get_current_pid_tgid() >> 32;
		if (kernel_hist && !count_only && !msg_timed(c)) {
			/* Untimed: in the totals map, so the percentiles say whom they cover. */
			count_total(c, result, latency, tgid);
			if (result != RS_GCM_TAG_FAIL)
				return;
		} else if (kernel_hist) {
			__u64 libdir = c->lib | (__u16)c->m.dir << 8;

			/* Its latency row holds its totals; without one, the totals map does. */
			if (gcm_hist_message(c->lib_id | libdir << 32 | (__u64)c->m.key_bits << 48,
					     latency, c->m.payload, c->m.aad, tgid | (__u64)result << 32))
				count_total(c, result, latency, tgid);
			if (result != RS_GCM_TAG_FAIL)
				return;
		} else {
			count_total(c, result, latency, tgid);
		}
	}

	if (want_stack)
		size += RS_GCM_MAX_STACK * sizeof(__u64);
	else if (stack_window)
		size += sizeof(struct rs_stack_copy) + window_bytes();
	ev = rs_reserve(size, RS_EV_GCM_OP);
	if (!ev)
		return;
	ev->lib = c->lib;
	ev->dir = c->m.dir;
	ev->result = result;
	ev->flags = c->m.flags;
	ev->key_bits = c->m.key_bits;
	ev->nr_stack = 0;
	ev->lib_id = c->lib_id;
	ev->retval = rc;
	ev->aad_bytes = c->m.aad;
	ev->payload_bytes = c->m.payload;
	ev->latency_ns = msg_latency(c, ev->hdr.ts_ns);
	ev->caller = c->m.caller;
	ev->handle = c->handle;
	if (want_stack) {
		long n = bpf_get_stack(ctx, ev->stack, RS_GCM_MAX_STACK * sizeof(__u64),
				       BPF_F_USER_STACK);

		if (n > 0) {
			ev->nr_stack = n / sizeof(__u64);
			ev->flags |= RS_GCM_F_STACK;
		}
	} else if (stack_window) {
		copy_stack(ctx, (struct rs_stack_copy *)ev->stack);
		ev->flags |= RS_GCM_F_STACK_COPY;
	}
	rs_submit(ev, result == RS_GCM_TAG_FAIL);
}

static __always_inline void emit(struct pt_regs *ctx, const struct gcm_call *c, __u8 result, __s32 rc)
{
	emit_task(ctx, c, result, rc, NULL);
}

/* ---- shared return probes --------------------------------------------- */

/* Handle constructors (gnutls_*_init, gcry_cipher_open): 0 means success. */
SEC("uretprobe")
int BPF_KRETPROBE(gcm_handle_init_ret, long rc)
{
	struct gcm_call *c = call_slot(false);
	__u64 handle = 0;

	if (!c || c->kind != GCM_CALL_INIT)
		return 0;
	if ((int)rc == 0 && !bpf_probe_read_user(&handle, sizeof(handle), (void *)c->arg) && handle) {
		handle_new(ctx, handle, c->m.key_bits, c->m.flags & GCM_H_NOT_GCM);
		/* gnutls_cipher_init takes the IV too: a message starts here. */
		if (c->m.active && !(c->m.flags & GCM_H_NOT_GCM)) {
			struct gcm_msg *m = msg_of(ctx, handle);

			if (m) {
				msg_begin(ctx, m);
				/* [sp] is no return address any more; the entry saw it. */
				m->caller = c->m.caller;
			}
		}
	}
	c->kind = 0;
	return 0;
}

/*
 * The parked call this return completes, or NULL (not ours, or an inner call
 * of a nested pair: only the outermost return completes the message).
 */
static __always_inline struct gcm_call *call_take(__u8 kind)
{
	struct gcm_call *c = call_slot(false);

	if (!c || c->kind != kind)
		return NULL;
	if (c->depth) {
		c->depth--;
		return NULL;
	}
	return c;
}

/* The slot stays with the thread for its next call; kind 0 marks it free. */
static __always_inline void call_done(struct pt_regs *ctx, struct gcm_call *c, __u8 result, int rc)
{
	emit(ctx, c, result, rc);
	c->kind = 0;
}

/* ---- OpenSSL 3: the CRYPTO_gcm128_* layer under EVP, providers and libssl */

/*
 * The GCM128_CONTEXT starts with six 16-byte blocks named after the GCM
 * specification (Yi, EKi, EK0, len, Xi, H); the assembler routines depend on
 * that order, so "len" (AAD bits, message bytes) sits at offset 48 in every
 * OpenSSL since 1.0.1.
 */
#define OSSL_GCM_LEN_OFF 48
/* finish compares a given tag only up to the size of Xi, 16 bytes; a longer one fails. */
#define OSSL_GCM_TAG_MAX 16
/* AES_KEY is public (openssl/aes.h): 60 round-key words, then the round count. */
#define OSSL_AES_KEY_ROUNDS_OFF 240

SEC("uprobe")
int BPF_KPROBE(gcm_ossl_init, void *gctx, void *key)
{
	struct task_struct *task;
	int rounds = 0;
	__u16 bits;

	if (!rs_filter_pass())
		return 0;
	bpf_probe_read_user(&rounds, sizeof(rounds), key + OSSL_AES_KEY_ROUNDS_OFF);
	/*
	 * AES_set_encrypt_key stores 10/12/14 rounds, the AES-NI key schedule
	 * 9/11/13. ARIA and SM4 share this layer with other schedules: 0 bits.
	 */
	switch (rounds) {
	case 9: case 10: bits = 128; break;
	case 11: case 12: bits = 192; break;
	case 13: case 14: bits = 256; break;
	default: bits = 0;
	}
	/* With per-CPU marks, the time of the key is the context's first
	 * bound: a mark older than it is another context's (ossl_mark_of()). */
	task = bpf_get_current_task_btf();
	ossl_handle_new(ctx, task, (__u64)task->tgid << 32 | (__u32)task->pid, gctx, bits, 0,
			ossl_marks() ? bpf_ktime_get_ns() : 0);
	return 0;
}

/*
 * A message's start, marked on this CPU: which thread, which context, when.
 * One slot, overwritten by the next IV set on the CPU. The finish takes it
 * when it is its own (ossl_mark_of()); a thread that moved CPU meanwhile,
 * or set the IV of another context in between, ends an untimed message,
 * counted as exactly and left out of the latency rows (said in the
 * summary). This replaces, on every message, the setiv's hash lookup of
 * the context and its helper calls (filter, cookie): setiv 206 -> 123 ns.
 */
struct gcm_mark {
	__u64 pid_tgid;
	__u64 handle;
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gcm_mark);
} gcm_marks SEC(".maps");

/*
 * Unfiltered: a mark counts nothing, and the finish filters as a message
 * ends (its context was made by a filtered init, or is made there).
 */
static __always_inline void ossl_mark_start(void *gctx)
{
	__u32 zero = 0;
	struct gcm_mark *mk = bpf_map_lookup_elem(&gcm_marks, &zero);

	if (!mk)
		return;
	mk->pid_tgid = bpf_get_current_pid_tgid();
	mk->handle = (__u64)gctx;
	mk->start_ns = bpf_ktime_get_ns();
}

/*
 * The start of the message m's finish ends, 0 when none was seen. A mark
 * is this message's if this thread made it on this context after the last
 * bound: the key's time, or the previous message's mark or end, which
 * m->start_ns holds with marks. A mark left on another CPU by a thread
 * that moved is older than that bound, never taken for a later message.
 */
static __always_inline __u64 ossl_mark_of(struct gcm_msg *m, __u64 pid_tgid, void *gctx)
{
	__u32 zero = 0;
	struct gcm_mark *mk = bpf_map_lookup_elem(&gcm_marks, &zero);

	if (mk && mk->pid_tgid == pid_tgid && mk->handle == (__u64)gctx &&
	    mk->start_ns > m->start_ns) {
		m->start_ns = mk->start_ns;
		return mk->start_ns;
	}
	/* Untimed: whatever marks were made before now are stale from here. */
	m->start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_ossl_setiv, void *gctx)
{
	struct gcm_msg *m;
	__u64 pid_tgid;

	if (ossl_marks()) {
		ossl_mark_start(gctx);
		return 0;
	}
	if (!rs_filter_pass())
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	m = ossl_msg_of(pid_tgid, gctx);
	if (!m) {
		ossl_handle_new(ctx, bpf_get_current_task_btf(), pid_tgid, gctx, 0, RS_GCM_F_KEY_UNKNOWN, 0);
		m = ossl_msg_of(pid_tgid, gctx);
		if (!m)
			return 0;
	}
	/*
	 * With the summary kept in the kernel only a failed tag makes a record,
	 * and only a finish given a tag can fail one: that finish reads its own
	 * caller (ossl_finish_msg), and setiv skips the read (~30 ns a message).
	 */
	msg_begin_caller(ctx, m, kernel_hist ? 0 : return_address(ctx));
	return 0;
}

/*
 * An open whose tag its caller compares (CRYPTO_gcm128_tag + memcmp: OpenSSL
 * 1.1's TLS 1.2 records, direct users of this layer) ends in a finish
 * without a tag, as a seal does: its decrypt call gives the direction.
 */
SEC("uprobe")
int BPF_KPROBE(gcm_ossl_decrypt, void *gctx)
{
	struct gcm_msg *m = ossl_msg_of(bpf_get_current_pid_tgid(), gctx);

	if (m && (m->active || count_only || ossl_marks())) {
		m->dir = RS_GCM_OPEN;
		/* The copies say no direction: this message's finish must see the entry. */
		if (ossl_copies())
			ossl_gen_bump();
	}
	return 0;
}

/*
 * What the probe inside finish (gcm_ossl_fin_regs) found in registers: the
 * context's lengths, and where the return address is. NULL: the probe is on
 * finish's entry, where the lengths are read from the context and the
 * return address is at [sp].
 */
struct ossl_fin_regs {
	__u64 aad;
	__u64 payload;
	__u64 ra_at;
};

static __always_inline __u64 ossl_fin_caller(struct pt_regs *ctx, const struct ossl_fin_regs *fr)
{
	__u64 ra = 0;

	if (!fr)
		return return_address(ctx);
	bpf_probe_read_user(&ra, sizeof(ra), (void *)fr->ra_at);
	return ra;
}

/*
 * What only the finish knows of its message: the lengths in its context,
 * its direction (data_dir: what a decrypt call said) and how it ends.
 */
static __always_inline void ossl_finish_fill(struct gcm_call *c, void *gctx, __u8 data_dir,
					     enum gcm_end_call end, const struct ossl_fin_regs *fr)
{
	__u64 len[2] = {};

	if (fr) {
		len[0] = fr->aad;
		len[1] = fr->payload;
	} else {
		bpf_probe_read_user(len, sizeof(len), gctx + OSSL_GCM_LEN_OFF);
	}
	c->m.aad = len[0];
	c->m.payload = len[1];
	c->m.dir = gcm_end_dir(end, data_dir, 0);
	c->end_call = end;
}

/*
 * The message finish(gctx, tag) ends, into c; false when it is not traced.
 * task is the current one (its ids make the context's key and a mark's
 * thread). CRYPTO_gcm128_tag() calls finish(ctx, NULL, 0): a NULL tag
 * means seal.
 */
static __always_inline bool ossl_finish_msg(struct pt_regs *ctx, struct task_struct *task, void *gctx,
					    const void *tag, struct gcm_call *c,
					    const struct ossl_fin_regs *fr)
{
	__u64 pid_tgid = (__u64)task->tgid << 32 | (__u32)task->pid;
	/* Every finish ends a message where setiv is not probed or only marks. */
	bool every_finish = count_only || ossl_marks();
	/* Given a tag, finish checks it; without one, CRYPTO_gcm128_tag hands it to the caller. */
	enum gcm_end_call end = tag ? GCM_END_OSSL_FINISH : GCM_END_OSSL_TAG;
	__u64 start_ns = 0, gen = 0;
	struct gcm_msg *m, copy;

	if (ossl_copies()) {
		if (ossl_recent_get(task, pid_tgid, gctx, &copy)) {
			/* The entry says what the copy does (no direction, no
			 * message open): nothing in it to update. */
			call_fill_id(c, &copy, (__u64)gctx, 0, RS_GCM_LIB_OPENSSL, GCM_CALL_FINISH,
				     copy.lib_id);
			c->m.start_ns = 0;	/* counting only: untimed */
			if (records_every_message() || tag)
				c->m.caller = ossl_fin_caller(ctx, fr);
			ossl_finish_fill(c, gctx, RS_GCM_DIR_UNKNOWN, end, fr);
			return true;
		}
		gen = ossl_gen_now();
	}
	m = ossl_msg_of(pid_tgid, gctx);

	if (!m && every_finish) {
		if (!rs_filter_pass())
			return false;
		/* Its start, if marked, came before its context was known: untimed. */
		ossl_handle_new(ctx, task, pid_tgid, gctx, 0, RS_GCM_F_KEY_UNKNOWN,
				ossl_marks() ? bpf_ktime_get_ns() : 0);
		if (ossl_copies())
			gen = ossl_gen_now();	/* the making moved it */
		m = ossl_msg_of(pid_tgid, gctx);
	}
	if (!m || (!m->active && !every_finish))
		return false;
	m->active = 0;
	if (ossl_marks())
		start_ns = ossl_mark_of(m, pid_tgid, gctx);
	/*
	 * The caller is for a record, read here where setiv did not: counting
	 * only (setiv not probed) with a record a message, or counting or
	 * marking for a checked tag when only a failed one makes a record
	 * (agent mode, the kernel's summary).
	 */
	if ((count_only && records_every_message()) || (every_finish && tag))
		m->caller = ossl_fin_caller(ctx, fr);
	call_fill_id(c, m, (__u64)gctx, 0, RS_GCM_LIB_OPENSSL, GCM_CALL_FINISH, m->lib_id);
	ossl_finish_fill(c, gctx, m->dir, end, fr);
	if (every_finish) {
		c->m.start_ns = start_ns;	/* m->start_ns is the marks' bound */
		m->dir = RS_GCM_DIR_UNKNOWN;	/* what setiv resets otherwise */
	}
	if (ossl_copies())
		ossl_recent_put(task, pid_tgid, gctx, gen, m);
	return true;
}

/* Park the message finish() ends until its return gives the result. */
static __always_inline void ossl_finish_enter(struct pt_regs *ctx, void *gctx, const void *tag,
					      const struct ossl_fin_regs *fr)
{
	struct gcm_call msg, *c;

	/* Untraced, the slot is left as it is: it may hold an outer call. */
	if (!ossl_finish_msg(ctx, bpf_get_current_task_btf(), gctx, tag, &msg, fr))
		return;
	c = call_slot(true);
	if (c)
		*c = msg;
}

SEC("uprobe")
int BPF_KPROBE(gcm_ossl_finish, void *gctx, const void *tag)
{
	ossl_finish_enter(ctx, gctx, tag, NULL);
	return 0;
}

/* The parked finish ends with rc: 0 when a given tag matched; -1 without one (seal). */
static __always_inline void ossl_finish_done(struct pt_regs *ctx, int rc)
{
	struct gcm_call *c = call_take(GCM_CALL_FINISH);

	if (c)
		call_done(ctx, c, gcm_end_result(RS_GCM_LIB_OPENSSL, c->end_call, c->m.dir, rc),
			  rc);
}

/* finish() returns 0 when a given tag matches; without one (CRYPTO_gcm128_tag) it returns -1. */
SEC("uretprobe")
int BPF_KRETPROBE(gcm_ossl_finish_ret, long rc)
{
	ossl_finish_done(ctx, (int)rc);
	return 0;
}

/*
 * The same as one uprobe session: finish(ctx, NULL, 0) (a seal, or a TLS 1.2
 * open whose tag the caller compares) always returns -1, so its message ends
 * at entry and the return is skipped: one kernel entry instead of two. Only
 * a finish given a tag to check waits for its result.
 *
 * At entry the instruction pointer is the probe's address (or the byte after
 * the breakpoint), at return the caller's: the same answer as the
 * bpf_session_is_return() kfunc at the same price (one call), without the
 * kfunc, whose resolution would have libbpf hold the kernel's BTF up to its
 * id (65,016 types on 6.18) through the load.
 */
static __always_inline bool session_at_return(struct pt_regs *ctx)
{
	return PT_REGS_IP(ctx) - bpf_get_func_ip(ctx) >= 8;
}

SEC("uprobe")
int BPF_KPROBE(gcm_ossl_fin_session, void *gctx, const void *tag)
{
	struct task_struct *task;
	struct gcm_call c;

	if (session_at_return(ctx)) {
		ossl_finish_done(ctx, (int)PT_REGS_RC(ctx));
		return 0;
	}
	if (tag) {
		ossl_finish_enter(ctx, gctx, tag, NULL);
		return 0;	/* the tag check's result comes at return */
	}
	/* Ended here, never parked: no task storage on the path most messages take. */
	task = bpf_get_current_task_btf();
	if (ossl_finish_msg(ctx, task, gctx, tag, &c, NULL))
		emit_task(ctx, &c, gcm_end_result(RS_GCM_LIB_OPENSSL, c.end_call, c.m.dir, -1),
			  -1, task);
	return 1;		/* nothing to wait for: no return probe */
}


/*
 * Without stacks: finish probed on its first branch, where its lengths are
 * in registers (ossl_finish_points.h; the attach cookie's high half says
 * which). A finish without a tag to check (a seal) ends its message here,
 * on one probe hit and no read of user memory; one given a tag of at most
 * 16 bytes is parked for gcm_ossl_fin_cmp, and one given a longer tag
 * returns -1 without comparing.
 */
SEC("uprobe")
int BPF_KPROBE(gcm_ossl_fin_regs)
{
	__u32 layout = (__u32)(bpf_get_attach_cookie(ctx) >> 32);
	struct ossl_fin_regs fr;
	struct task_struct *task;
	struct x86_gprs g;
	struct gcm_call c;
	const void *tag;
	__u64 tag_len;
	void *gctx;

	x86_gprs_copy(ctx, &g);
	gctx = (void *)g.r[OSSL_FIN_REG(layout, OSSL_FIN_CTX_SHIFT)];
	tag = (const void *)g.r[OSSL_FIN_REG(layout, OSSL_FIN_TAG_SHIFT)];
	tag_len = g.r[OSSL_FIN_REG(layout, OSSL_FIN_TAGLEN_SHIFT)];
	fr.aad = g.r[OSSL_FIN_REG(layout, OSSL_FIN_AAD_SHIFT)];
	fr.payload = g.r[OSSL_FIN_REG(layout, OSSL_FIN_PAYLOAD_SHIFT)];
	if (layout & OSSL_FIN_AAD_X8)
		fr.aad >>= 3;
	if (layout & OSSL_FIN_PAYLOAD_X8)
		fr.payload >>= 3;
	fr.ra_at = g.r[4] + 8 * (__u64)(layout >> OSSL_FIN_RA_WORDS_SHIFT);
	if (tag && tag_len <= OSSL_GCM_TAG_MAX) {
		ossl_finish_enter(ctx, gctx, tag, &fr);
		return 0;	/* compared at the tail jump to CRYPTO_memcmp */
	}
	task = bpf_get_current_task_btf();
	if (ossl_finish_msg(ctx, task, gctx, tag, &c, &fr))
		emit_task(ctx, &c, gcm_end_result(RS_GCM_LIB_OPENSSL, c.end_call, c.m.dir, -1),
			  -1, task);
	return 0;
}

/* The low k bytes of a word (k <= 8) set, shifted in halves: a shift by 64 is undefined. */
static __always_inline __u64 byte_mask(__u32 k)
{
	return ((1ULL << (4 * k)) << (4 * k)) - 1;
}

/*
 * The tail jump of finish(ctx, tag, len) to CRYPTO_memcmp(Xi, tag, len): its
 * result is finish's. Compared here, byte for byte as memcmp will (finish
 * only gets here with len <= 16), and the parked message ends with it.
 */
SEC("uprobe")
int BPF_KPROBE(gcm_ossl_fin_cmp, const void *xi, const void *tag, __u64 len)
{
	struct gcm_call *c = call_take(GCM_CALL_FINISH);
	__u64 want[OSSL_GCM_TAG_MAX / 8] = {}, got[OSSL_GCM_TAG_MAX / 8] = {};
	__u32 n = len < OSSL_GCM_TAG_MAX ? (__u32)len : OSSL_GCM_TAG_MAX;
	__u32 low = n < 8 ? n : 8;	/* of them, the bytes in the first word */
	__u64 diff;
	int rc;

	if (!c)
		return 0;
	if (bpf_probe_read_user(want, sizeof(want), xi) || bpf_probe_read_user(got, n, tag)) {
		/* Its result unknown, the message is not counted as either: said as unattributed. */
		count_unattributed(ctx, RS_GCM_UNATTR_TAG_UNREAD);
		c->kind = 0;
		return 0;
	}
	/*
	 * The first n bytes compared as two masked little-endian words, with
	 * no branch per byte: a loop of them gave the verifier a path per
	 * outcome, each walking the whole message end (8,605 instructions
	 * verified instead of 2,627: about 10 ms of every start).
	 */
	diff = ((want[0] ^ got[0]) & byte_mask(low)) | ((want[1] ^ got[1]) & byte_mask(n - low));
	rc = (int)((diff | -diff) >> 63);
	call_done(ctx, c, gcm_end_result(RS_GCM_LIB_OPENSSL, c->end_call, c->m.dir, rc), rc);
	return 0;
}

/* ---- GnuTLS ------------------------------------------------------------ */

static __always_inline __u16 gnutls_gcm_bits(int algo)
{
	switch (algo) {
	case 10: return 128;	/* GNUTLS_CIPHER_AES_128_GCM */
	case 11: return 256;	/* GNUTLS_CIPHER_AES_256_GCM */
	case 39: return 192;	/* GNUTLS_CIPHER_AES_192_GCM */
	}
	return 0;
}

/* gnutls_aead_cipher_init(hd *, algo, key) and gnutls_cipher_init(hd *, algo, key, iv). */
static __always_inline int gnutls_init_enter(struct pt_regs *ctx, void *hdp, int algo, bool has_iv)
{
	struct gcm_msg m = {};

	if (!rs_filter_pass())
		return 0;
	m.key_bits = gnutls_gcm_bits(algo);
	if (!m.key_bits)
		m.flags = GCM_H_NOT_GCM;
	m.active = has_iv;
	m.caller = return_address(ctx);
	call_park(ctx, &m, 0, (__u64)hdp, RS_GCM_LIB_GNUTLS, GCM_CALL_INIT);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_aead_init, void *hdp, int algo)
{
	return gnutls_init_enter(ctx, hdp, algo, false);
}

SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_cipher_init, void *hdp, int algo, void *key, void *iv)
{
	return gnutls_init_enter(ctx, hdp, algo, iv != NULL);
}

SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_deinit, void *hd)
{
	handle_drop(ctx, (__u64)hd);
	return 0;
}

/*
 * GnuTLS's TLS 1.3 record layer seals and opens through the exported
 * gnutls_aead_cipher_* calls, on handles it made with an internal init that
 * no probe sees. Such a handle is recognised at its first use: the handle
 * (api_aead_cipher_hd_st) starts with a cipher_hd_st { void *handle; const
 * cipher_entry_st *e; ... }, and the entry after its name pointer holds
 * { id, blocksize, keysize, type, implicit_iv, explicit_iv, cipher_iv,
 * tagsize }. Those are read (GnuTLS itself reads the entry on every call,
 * so it is resident; the name string may not be, and a uprobe cannot fault
 * it in) and trusted only when all of them are AES-GCM's, so a library
 * whose layout differs gets its calls counted as unattributed, never misread.
 */
struct gnutls_cipher_entry {
	int id;
	__u16 blocksize, keysize;
	int type;			/* CIPHER_AEAD == 2 */
	__u16 implicit_iv, explicit_iv, cipher_iv, tagsize;
};

#define GNUTLS_CIPHER_AEAD 2

/* The calibrated GnuTLS AES-GCM backends (gnutls_backend.c), filled before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RS_GCM_BACKEND_LIBS * RS_GCM_BACKENDS_PER_LIB);
	__type(key, __u32);
	__type(value, struct rs_gcm_backend);
} gnutls_backends SEC(".maps");

/* Backend idx of the probed library (the cookie's low half); NULL out of range. */
static __always_inline struct rs_gcm_backend *gnutls_backend_at(void *ctx, __u32 idx)
{
	__u32 lib_id = (__u32)bpf_get_attach_cookie(ctx), slot;

	if (lib_id >= RS_GCM_BACKEND_LIBS || idx >= RS_GCM_BACKENDS_PER_LIB)
		return NULL;
	slot = lib_id * RS_GCM_BACKENDS_PER_LIB + idx;
	return bpf_map_lookup_elem(&gnutls_backends, &slot);
}

/*
 * Whether this library's AES-GCM backend is probed: then a gnutls_aead_cipher_
 * encrypt/decrypt on a handle the API probes cannot read is counted there.
 */
static __always_inline bool gnutls_backend_traced(void *ctx)
{
	struct rs_gcm_backend *b = gnutls_backend_at(ctx, 0);

	return b && b->in_use;
}

static __always_inline struct gcm_msg *gnutls_aead_msg(void *ctx, __u64 hd, bool backend_counts)
{
	struct gcm_msg *m = msg_of(ctx, hd);
	struct gnutls_cipher_entry e = {};
	__u64 entry = 0;
	__u16 bits;

	if (m)
		return m->flags & GCM_H_NOT_GCM ? NULL : m;
	if (!rs_filter_pass())
		return NULL;
	if (bpf_probe_read_user(&entry, sizeof(entry), (void *)(hd + 8)) || !entry ||
	    bpf_probe_read_user(&e, sizeof(e), (void *)(entry + 8))) {
		if (!backend_counts)
			count_unattributed(ctx, RS_GCM_UNATTR_UNKNOWN_HANDLE);
		return NULL;
	}
	bits = gnutls_gcm_bits(e.id);
	if (bits && e.keysize * 8 == bits && e.blocksize == 16 && e.type == GNUTLS_CIPHER_AEAD &&
	    e.implicit_iv == 4 && e.explicit_iv == 8 && e.cipher_iv == 12 && e.tagsize == 16) {
		handle_new(ctx, hd, bits, 0);
		return msg_of(ctx, hd);
	}
	/* Another AEAD (ChaCha20-Poly1305, CCM) described as such: known, not traced. */
	if (!bits && e.type == GNUTLS_CIPHER_AEAD && e.tagsize >= 8 && e.tagsize <= 16 &&
	    (e.keysize == 16 || e.keysize == 24 || e.keysize == 32)) {
		handle_new(ctx, hd, 0, GCM_H_NOT_GCM);
		return NULL;
	}
	if (!backend_counts)
		count_unattributed(ctx, RS_GCM_UNATTR_UNKNOWN_HANDLE);
	return NULL;
}

/*
 * backend: the call reaches the probed AES-GCM backend, which counts it
 * when this probe cannot (an unreadable handle).
 */
static __always_inline int oneshot_enter(struct pt_regs *ctx, __u64 hd, __u8 lib, __u8 dir,
					 __u64 aad, __u64 payload, bool backend)
{
	struct gcm_msg *h = gnutls_aead_msg(ctx, hd, backend && gnutls_backend_traced(ctx));
	struct gcm_call *c;
	struct gcm_msg m = {};

	if (!h)
		return 0;
	/* An API entry point implemented through another: count the outer one. */
	c = call_slot(false);
	if (c && c->kind == GCM_CALL_ONESHOT && c->handle == hd) {
		c->depth++;
		return 0;
	}
	m.key_bits = h->key_bits;
	m.flags = h->flags;
	msg_begin(ctx, &m);
	m.dir = dir;
	m.aad = aad;
	m.payload = payload;
	call_park(ctx, &m, hd, 0, lib, GCM_CALL_ONESHOT);
	return 0;
}

#define GCM_MAX_IOV 32

struct giovec {
	void *base;
	__u64 len;
};

static __always_inline __u64 iov_bytes(const struct giovec *iov, int cnt)
{
	__u64 sum = 0;

	for (int i = 0; i < GCM_MAX_IOV; i++) {
		struct giovec v;

		if (i >= cnt || bpf_probe_read_user(&v, sizeof(v), &iov[i]))
			break;
		sum += v.len;
	}
	return sum;
}

/* (hd, nonce, nonce_len, auth, auth_len, tag_size, ptext, ptext_len, ctext, ctext_len *) */
SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_aead_encrypt, void *hd, void *nonce, __u64 nonce_len, void *auth,
	       __u64 auth_len)
{
	return oneshot_enter(ctx, (__u64)hd, RS_GCM_LIB_GNUTLS, RS_GCM_SEAL, auth_len,
			     stack_arg(ctx, 2), true);
}

/* An open's payload: its input holds the tag after the data. */
static __always_inline __u64 sans_tag(__u64 len, __u64 tag_size)
{
	return len > tag_size ? len - tag_size : 0;
}

/* (hd, nonce, nonce_len, auth, auth_len, tag_size, ctext, ctext_len, ptext, ptext_len *) */
SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_aead_decrypt, void *hd, void *nonce, __u64 nonce_len, void *auth,
	       __u64 auth_len)
{
	__u64 tag_size = PARM6(ctx);
	__u64 ctext_len = stack_arg(ctx, 2);

	return oneshot_enter(ctx, (__u64)hd, RS_GCM_LIB_GNUTLS, RS_GCM_OPEN, auth_len,
			     sans_tag(ctext_len, tag_size), true);
}

/* (hd, nonce, nonce_len, auth_iov, auth_iovcnt, tag_size, iov, iovcnt, ctext, ctext_len *) */
SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_aead_encryptv, void *hd, void *nonce, __u64 nonce_len, void *auth_iov,
	       int auth_cnt)
{
	return oneshot_enter(ctx, (__u64)hd, RS_GCM_LIB_GNUTLS, RS_GCM_SEAL,
			     iov_bytes(auth_iov, auth_cnt),
			     iov_bytes((void *)stack_arg(ctx, 1), (int)stack_arg(ctx, 2)), false);
}

/* (hd, nonce, nonce_len, auth_iov, auth_iovcnt, iov, iovcnt, tag, tag_size) */
static __always_inline int gnutls_v2(struct pt_regs *ctx, __u8 dir)
{
	void *auth_iov = (void *)PT_REGS_PARM4(ctx);
	int auth_cnt = (int)PT_REGS_PARM5(ctx);
	void *iov = (void *)PARM6(ctx);

	return oneshot_enter(ctx, PT_REGS_PARM1(ctx), RS_GCM_LIB_GNUTLS, dir,
			     iov_bytes(auth_iov, auth_cnt), iov_bytes(iov, (int)stack_arg(ctx, 1)),
			     false);
}

ENTRY_BY_DIR(gcm_gnutls_aead_encryptv2, gcm_gnutls_aead_decryptv2, gnutls_v2)

/*
 * The AES-GCM backend's aead_encrypt/aead_decrypt(ctx, nonce, nonce_len,
 * auth, auth_len, tag_size, in, in_len, out, out_len): what the TLS 1.2
 * record layer calls (AAD 13 bytes, the 8-byte explicit nonce outside the
 * payload), and what gnutls_aead_cipher_encrypt/decrypt call, whose own
 * probe has counted the message already: nested in it, skip. The key size
 * comes from the backend context as calibration found; a context that names
 * another algorithm (nettle's wrapper serves every AEAD) is not GCM.
 */
static __always_inline int gnutls_backend_enter(struct pt_regs *ctx, __u8 dir)
{
	__u64 bctx = PT_REGS_PARM1(ctx), tag_size = PARM6(ctx), in_len = stack_arg(ctx, 2);
	struct rs_gcm_backend *b;
	struct gcm_call *c;
	struct gcm_msg m = {};
	__u64 where = 0;
	__s32 v = 0;

	if (!rs_filter_pass())
		return 0;
	c = call_slot(false);
	if (c && c->kind == GCM_CALL_ONESHOT && c->lib == RS_GCM_LIB_GNUTLS) {
		c->depth++;
		return 0;
	}
	/* A backend probe's cookie carries which backend in its high half. */
	b = gnutls_backend_at(ctx, (__u32)(bpf_get_attach_cookie(ctx) >> 32));
	if (!b || !b->in_use)
		return 0;
	if (b->known) {
		where = bctx + b->off;
		if (b->deref && (bpf_probe_read_user(&where, sizeof(where), (void *)where) || !where))
			where = 0;
		if (where)
			bpf_probe_read_user(&v, sizeof(v), (void *)(where + (b->deref ? b->sub : 0)));
		m.key_bits = v == b->value[0] ? 128 : v == b->value[1] ? 192 :
			     v == b->value[2] ? 256 : 0;
		/* The wrapper's description of another AEAD: not ours. */
		if (b->deref && where && !m.key_bits)
			return 0;
	}
	if (!m.key_bits)
		m.flags = RS_GCM_F_KEY_UNKNOWN;
	m.flags |= RS_GCM_F_BACKEND;
	msg_begin(ctx, &m);
	m.dir = dir;
	m.aad = PT_REGS_PARM5(ctx);
	m.payload = dir == RS_GCM_OPEN ? sans_tag(in_len, tag_size) : in_len;
	call_park(ctx, &m, bctx, 0, RS_GCM_LIB_GNUTLS, GCM_CALL_ONESHOT);
	return 0;
}

ENTRY_BY_DIR(gcm_gnutls_backend_seal, gcm_gnutls_backend_open, gnutls_backend_enter)

SEC("uretprobe")
int BPF_KRETPROBE(gcm_gnutls_oneshot_ret, long rc)
{
	struct gcm_call *c = call_take(GCM_CALL_ONESHOT);

	if (c)
		call_done(ctx, c, gcm_end_result(RS_GCM_LIB_GNUTLS, GCM_END_ONESHOT, c->m.dir, (int)rc),
			  (int)rc);
	return 0;
}

/*
 * Streaming APIs (gnutls_cipher_*, gcry_cipher_*, nettle_gcm_aes*): setting
 * the IV starts a message on the handle in the first argument, whichever
 * library; gnutls_cipher_add_auth and gcry_cipher_authenticate take
 * (handle, aad, length). One program each serves every library that fits.
 */
/*
 * Inside a probed GnuTLS call: whatever nettle does there is GnuTLS's
 * backend at work (on CPUs without AES-NI), counted by the GnuTLS probe.
 */
static __always_inline bool in_gnutls_call(void)
{
	struct gcm_call *c = call_slot(false);

	return c && c->kind && c->lib == RS_GCM_LIB_GNUTLS;
}

/* set_iv(handle, ...) of a stream API: its message starts. Maybe inside its prologue. */
SEC("uprobe")
int gcm_stream_set_iv(struct pt_regs *ctx)
{
	__u32 map = probe_argmap(ctx);
	struct gcm_msg *m;
	__u64 a[1];

	if (in_gnutls_call())
		return 0;
	probe_args(ctx, map, a, 1);
	m = traced_msg(ctx, a[0]);

	if (m)
		msg_begin_caller(ctx, m, probe_return_address(ctx, map));
	return 0;
}

static __always_inline void stream_aad(void *ctx, __u64 hd, __u64 len)
{
	struct gcm_msg *m;

	if (in_gnutls_call())
		return;
	m = msg_of(ctx, hd);

	if (m && m->active)
		m->aad += len;
}

/* add_auth(handle, aad, len). Maybe inside its prologue. */
SEC("uprobe")
int gcm_stream_aad(struct pt_regs *ctx)
{
	__u64 a[3];

	probe_args(ctx, probe_argmap(ctx), a, 3);
	stream_aad(ctx, a[0], a[2]);
	return 0;
}

static __always_inline void stream_data(void *ctx, __u64 hd, __u64 len, __u8 dir)
{
	struct gcm_msg *m;

	if (in_gnutls_call())
		return;
	m = traced_msg(ctx, hd);

	if (m && m->active) {
		m->payload += len;
		m->dir = dir;
	}
}

/* gnutls_cipher_encrypt(hd, buf, len) and encrypt2(hd, in, inlen, out, outlen). */
SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_encrypt, void *hd, void *in, __u64 len)
{
	stream_data(ctx, (__u64)hd, len, RS_GCM_SEAL);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_gnutls_decrypt, void *hd, void *in, __u64 len)
{
	stream_data(ctx, (__u64)hd, len, RS_GCM_OPEN);
	return 0;
}

/*
 * A call that ends a streamed message by handing its tag to the caller
 * (gnutls_cipher_tag, nettle's digest): a seal, or an open whose tag the
 * application compares itself (UNCHECKED). AAD alone makes a GMAC-style seal.
 */
static __always_inline int tag_to_caller(void *ctx, __u64 hd, __u8 lib)
{
	struct gcm_call c = {};
	struct gcm_msg *m;

	if (in_gnutls_call())
		return 0;
	m = traced_msg(ctx, hd);

	if (!m || !m->active)
		return 0;
	m->active = 0;
	c.m = *m;
	c.m.dir = gcm_end_dir(GCM_END_TAG_OUT, m->dir, 0);
	c.handle = hd;
	c.lib_id = (__u32)bpf_get_attach_cookie(ctx);
	c.lib = lib;
	emit(ctx, &c, gcm_end_result(lib, GCM_END_TAG_OUT, c.m.dir, 0), 0);
	return 0;
}

SEC("uprobe")
int gcm_gnutls_tag(struct pt_regs *ctx)
{
	__u64 a[1];

	probe_args(ctx, probe_argmap(ctx), a, 1);
	return tag_to_caller(ctx, a[0], RS_GCM_LIB_GNUTLS);
}

/* ---- nettle --------------------------------------------------------------- */

/*
 * nettle_gcm_aes{128,192,256}_* on a struct gcm_aesN_ctx: set_key makes the
 * handle (the key size is in the function's name, so each has its program),
 * set_iv starts a message, update adds AAD, encrypt/decrypt add payload and
 * say the direction, digest ends it: the caller of an open compares the tag
 * itself, so opens are "unchecked". A context keyed inside a probed GnuTLS
 * call belongs to GnuTLS (its nettle backend, on CPUs without AES-NI), whose
 * own probes count that work: such contexts are registered and skipped.
 */
#define GCM_H_INNER GCM_H_NOT_GCM

static __always_inline int nettle_set_key(void *ctx, __u64 gctx, __u16 bits)
{
	struct gcm_call *c;

	if (!rs_filter_pass())
		return 0;
	c = call_slot(false);
	if (c && c->kind && c->lib == RS_GCM_LIB_GNUTLS)
		handle_new(ctx, gctx, bits, GCM_H_INNER);
	else
		handle_new(ctx, gctx, bits, 0);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_nettle_set_key128, void *gctx)
{
	return nettle_set_key(ctx, (__u64)gctx, 128);
}

SEC("uprobe")
int BPF_KPROBE(gcm_nettle_set_key192, void *gctx)
{
	return nettle_set_key(ctx, (__u64)gctx, 192);
}

SEC("uprobe")
int BPF_KPROBE(gcm_nettle_set_key256, void *gctx)
{
	return nettle_set_key(ctx, (__u64)gctx, 256);
}

/* The older nettle_gcm_aes_set_key(ctx, length, key): bytes of key. */
SEC("uprobe")
int BPF_KPROBE(gcm_nettle_set_key_len, void *gctx, __u64 len)
{
	return nettle_set_key(ctx, (__u64)gctx, len == 16 ? 128 : len == 24 ? 192 : len == 32 ? 256 : 0);
}

/*
 * nettle's wrappers shuffle their arguments for the generic gcm_* call
 * before anything the kernel emulates: these are probed inside the
 * prologue where they can be (probe_argmap.h).
 */
/* update(ctx, length, data): the AAD length comes second here. */
SEC("uprobe")
int gcm_nettle_update(struct pt_regs *ctx)
{
	__u64 a[2];

	probe_args(ctx, probe_argmap(ctx), a, 2);
	stream_aad(ctx, a[0], a[1]);
	return 0;
}

SEC("uprobe")
int gcm_nettle_encrypt(struct pt_regs *ctx)
{
	__u64 a[2];

	probe_args(ctx, probe_argmap(ctx), a, 2);
	stream_data(ctx, a[0], a[1], RS_GCM_SEAL);
	return 0;
}

SEC("uprobe")
int gcm_nettle_decrypt(struct pt_regs *ctx)
{
	__u64 a[2];

	probe_args(ctx, probe_argmap(ctx), a, 2);
	stream_data(ctx, a[0], a[1], RS_GCM_OPEN);
	return 0;
}

SEC("uprobe")
int gcm_nettle_digest(struct pt_regs *ctx)
{
	__u64 a[1];

	probe_args(ctx, probe_argmap(ctx), a, 1);
	return tag_to_caller(ctx, a[0], RS_GCM_LIB_NETTLE);
}

/* ---- libgcrypt ------------------------------------------------------------ */

#define GCRY_CIPHER_MODE_GCM 9

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_open, void *hdp, int algo, int mode)
{
	struct gcm_msg m = {};

	if (!rs_filter_pass())
		return 0;
	/* GCRY_CIPHER_AES, AES192, AES256 */
	m.key_bits = algo == 7 ? 128 : algo == 8 ? 192 : algo == 9 ? 256 : 0;
	if (mode != GCRY_CIPHER_MODE_GCM || !m.key_bits)
		m.flags = GCM_H_NOT_GCM;
	call_park(ctx, &m, 0, (__u64)hdp, RS_GCM_LIB_GCRYPT, GCM_CALL_INIT);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_close, void *hd)
{
	handle_drop(ctx, (__u64)hd);
	return 0;
}


/*
 * (hd, out, outsize, in, inlen): in == NULL means in place over outsize
 * bytes. Both lengths are loaded before the choice: a conditional offset
 * into ctx is something the verifier refuses.
 */
static __always_inline void gcry_data(struct pt_regs *ctx, __u8 dir)
{
	__u64 outsize = PT_REGS_PARM3(ctx), in = PT_REGS_PARM4(ctx), inlen = PT_REGS_PARM5(ctx);

	asm volatile("" : "+r"(outsize), "+r"(inlen));
	stream_data(ctx, PT_REGS_PARM1(ctx), in ? inlen : outsize, dir);
}

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_encrypt)
{
	gcry_data(ctx, RS_GCM_SEAL);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_decrypt)
{
	gcry_data(ctx, RS_GCM_OPEN);
	return 0;
}

/*
 * checktag ends an open; gettag ends a seal, or an open whose data went
 * through gcry_cipher_decrypt: the caller compares that tag itself (packet
 * decoders do), so the message is an open with its tag unchecked.
 */
static __always_inline int gcry_tag_enter(struct pt_regs *ctx, __u64 hd, bool get)
{
	struct gcm_msg *m = traced_msg(ctx, hd);
	enum gcm_end_call end = get ? GCM_END_TAG_OUT : GCM_END_TAG_CHECK;
	struct gcm_call *c;

	if (!m || !m->active)
		return 0;
	m->active = 0;
	m->dir = gcm_end_dir(end, m->dir, 0);
	c = call_park(ctx, m, hd, 0, RS_GCM_LIB_GCRYPT, GCM_CALL_FINISH);
	if (c)
		c->end_call = end;
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_gettag, void *hd)
{
	return gcry_tag_enter(ctx, (__u64)hd, true);
}

SEC("uprobe")
int BPF_KPROBE(gcm_gcry_checktag, void *hd)
{
	return gcry_tag_enter(ctx, (__u64)hd, false);
}

/* gcry_error_t: source in the top byte, GPG_ERR_CHECKSUM in the low 16 bits. */
SEC("uretprobe")
int BPF_KRETPROBE(gcm_gcry_tag_ret, long rc)
{
	struct gcm_call *c = call_take(GCM_CALL_FINISH);

	if (c)
		call_done(ctx, c, gcm_end_result(RS_GCM_LIB_GCRYPT, c->end_call, c->m.dir, (int)rc),
			  (int)rc);
	return 0;
}

/* ---- Go: crypto/aes and crypto/cipher, statically linked ----------------- */

/* Each traced Go program's layout (go_gcm.c), by lib_id, filled before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RS_GCM_GO_BINS);
	__type(key, __u32);
	__type(value, struct rs_gcm_go);
} go_bins SEC(".maps");

/*
 * A Go call between its entry and its RET, by goroutine: a goroutine can
 * move to another thread inside the call, and the same thread runs many
 * goroutines. LRU: a call that panics never reaches its RET.
 */
struct go_call_key {
	__u32 tgid;
	__u32 pad;
	__u64 g;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct go_call_key);
	__type(value, struct gcm_call);
} go_calls SEC(".maps");

/* The current goroutine: ABIInternal keeps g in R14 at entry and at every RET. */
static __always_inline struct go_call_key go_key(struct pt_regs *ctx)
{
	struct go_call_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .g = __PT_REGS_CAST(ctx)->r14 };

	return k;
}

/* AES expands a 128/192/256-bit key to 44/52/60 round-key words. */
static __always_inline __u16 go_key_bits(__u64 words)
{
	return words == 44 ? 128 : words == 52 ? 192 : words == 60 ? 256 : 0;
}

/* Set at entry when a ciphertext is shorter than its tag: Open fails without a tag check. */
#define GO_CALL_SHORT 1

static __always_inline __u64 user_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/*
 * Seal(dst, nonce, plaintext, data) / Open(dst, nonce, ciphertext, data):
 * the receiver is in RAX; plaintext/ciphertext and data are the 1st and 2nd
 * stack-passed slices (pointer, length, capacity), above the return address.
 */
static __always_inline int go_enter(struct pt_regs *ctx, __u8 dir)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), recv = __PT_REGS_CAST(ctx)->ax, words, tag, text;
	__u32 lib_id = (__u32)cookie, kind = (__u32)(cookie >> 32);
	struct go_call_key k = go_key(ctx);
	struct gcm_call c = {};
	struct rs_gcm_go *t;

	if (!rs_filter_pass())
		return 0;
	t = bpf_map_lookup_elem(&go_bins, &lib_id);
	if (!t || !t->in_use || kind >= RS_GCM_GO_KINDS)
		return 0;
	if (kind == RS_GCM_GO_ASM_SEAL || kind == RS_GCM_GO_ASM_OPEN) {
		words = user_u64(recv + t->asm_ks_len);
		tag = user_u64(recv + t->asm_tag_size);
	} else {
		/* gcm.cipher is an interface: itab, then the Block's data pointer. */
		__u64 itab = user_u64(recv), data = user_u64(recv + 8);
		__u64 bias = PT_REGS_IP(ctx) - t->entry_vaddr[kind & 3];

		/* Another block cipher in GCM mode is not AES-GCM: not counted. */
		if (user_u64(itab + 24) - bias != t->aes_block_method)
			return 0;
		words = t->gen_key_words ? user_u64(data + t->gen_key_words) : 0;
		tag = user_u64(recv + t->gen_tag_size);
	}
	text = stack_arg(ctx, 2);
	c.m.start_ns = bpf_ktime_get_ns();
	c.m.caller = return_address(ctx);
	c.m.aad = stack_arg(ctx, 5);
	c.m.dir = dir;
	c.m.key_bits = go_key_bits(words);
	c.m.flags = c.m.key_bits ? 0 : RS_GCM_F_KEY_UNKNOWN;
	c.m.payload = dir == RS_GCM_OPEN ? sans_tag(text, tag) : text;
	c.end_call = dir == RS_GCM_OPEN && text < tag ? GO_CALL_SHORT : 0;
	c.handle = recv;
	c.lib_id = lib_id;
	c.lib = RS_GCM_LIB_GO;
	c.kind = GCM_CALL_ONESHOT;
	/* A stack growth re-enters the function from its start: the same call again. */
	bpf_map_update_elem(&go_calls, &k, &c, BPF_ANY);
	return 0;
}

ENTRY_BY_DIR(gcm_go_seal, gcm_go_open, go_enter)

/* On a RET of a probed function. Open's error result: its type word in RDI. */
SEC("uprobe")
int BPF_KPROBE(gcm_go_ret)
{
	struct go_call_key k = go_key(ctx);
	struct gcm_call *c = bpf_map_lookup_elem(&go_calls, &k);
	bool failed;
	__u8 result;

	if (!c)
		return 0;
	failed = c->m.dir == RS_GCM_OPEN && __PT_REGS_CAST(ctx)->di;
	result = !failed ? RS_GCM_OK : c->end_call == GO_CALL_SHORT ? RS_GCM_ERROR : RS_GCM_TAG_FAIL;
	emit(ctx, c, result, failed ? -1 : 0);
	bpf_map_delete_elem(&go_calls, &k);
	return 0;
}

/*
 * System-wide: a program started. Go programs carry their crypto inside, so
 * one that was not running when tracing began needs probes of its own; the
 * collector is told of each executable once (by device and inode) and
 * decides in user space.
 */
const volatile bool watch_exec = false;

struct exec_file {
	__u64 dev;
	__u64 ino;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct exec_file);
	__type(value, __u8);
} exec_seen SEC(".maps");

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gcm_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct inode *inode = BPF_CORE_READ(bprm, file, f_inode);
	struct exec_file f = {
		.dev = BPF_CORE_READ(inode, i_sb, s_dev),
		.ino = BPF_CORE_READ(inode, i_ino),
	};
	struct rs_exec_event *ev;
	__u8 one = 1;

	if (!watch_exec || !rs_filter_pass() ||
	    bpf_map_update_elem(&exec_seen, &f, &one, BPF_NOEXIST))
		return 0;
	ev = rs_reserve(sizeof(*ev), RS_EV_EXEC);
	if (!ev) {
		/* Dropped (and counted): the next start of this file tries again. */
		bpf_map_delete_elem(&exec_seen, &f);
		return 0;
	}
	ev->dev = f.dev;
	ev->ino = f.ino;
	bpf_probe_read_kernel_str(ev->filename, sizeof(ev->filename), BPF_CORE_READ(bprm, filename));
	rs_submit(ev, true);	/* at once: the program is running unprobed */
	return 0;
}
