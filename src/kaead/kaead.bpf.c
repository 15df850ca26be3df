// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel AES-GCM: requests through the crypto API's crypto_aead_encrypt()
 * and crypto_aead_decrypt(), key sizes from crypto_aead_setkey(), and the
 * completions of asynchronous requests. Two ways to attach the same logic:
 * fentry/fexit where the kernel allows them (a BPF trampoline, no trap), or
 * kprobe/kretprobe (src/kaead/kaead.c picks, variants.h).
 *
 * Wrappers nest: the SIMD wrapper's encrypt calls crypto_aead_encrypt() on
 * its inner transform with a sub-request, rfc4106 on gcm, seqiv on rfc4106.
 * A per-task stack of calls counts each request once, at the outermost
 * call, and remembers the innermost driver called under it. A request that
 * returns -EINPROGRESS (or -EBUSY with backlog) is moved to "kaead_flight",
 * keyed by its completion's data pointer: every wrapper copies the caller's
 * callback and data into its sub-request, so the worker that finishes it
 * (cryptd) calls in with the same data, and the callback receives it.
 */
#include "../core/common.bpf.h"

#define KAEAD_DEPTH 4
#define EINPROGRESS 115
#define EBUSY 16
#define EBADMSG 74
#define CRYPTO_TFM_REQ_MAY_BACKLOG 0x400

/* Set by user space: the completion callbacks take the request (before
 * 6.3: struct crypto_async_request *) rather than its data pointer. */
const volatile __u8 done_takes_request = 0;
/* Set by user space: counting only, a record for tag failures alone. */
const volatile __u8 failures_only = 0;

struct kaead_frame {
	__u64 req;
	__u64 start_ns;
	__u64 data;		/* req->base.data: the completion's key */
	__u64 aead;		/* struct crypto_aead * */
	__u64 alg;		/* this call's struct crypto_alg * */
	__u64 inner_alg;	/* counted frames: the innermost alg called under it */
	__u32 cryptlen, assoclen;
	__u16 authsize;
	__u8 dir;
	__u8 counted;		/* the outermost GCM call: the one that is counted */
	__u8 root;		/* index of the counted frame this one is nested in */
	__u8 depth;		/* counted frames: deepest nesting seen */
	__u16 key_bits;		/* counted frames, at their return: 0 unknown */
};

struct kaead_task {
	__u32 depth;
	__u32 overflow;		/* calls past KAEAD_DEPTH, ignored */
	struct kaead_frame f[KAEAD_DEPTH];
};

/* A request waiting for its completion, with what its record needs. */
struct kaead_flight {
	struct kaead_frame f;
	/* The totals row's driver, fixed at submission (the worker may reach
	 * deeper drivers later; the record names the innermost). */
	__u64 count_alg;
	__u32 tgid, tid;
	__u64 cgroup_id;
	char comm[RS_COMM_LEN];
};

/* Task-local: no hash insert and delete per request, freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kaead_task);
} kaead_tasks SEC(".maps");

/* Entries in kaead_flight, about: while 0 a request needs no lookup there. */
__u64 in_flight = 0;

static __always_inline struct kaead_task *task_stack(bool create)
{
	return bpf_task_storage_get(&kaead_tasks, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* req->base.data */
	__type(value, struct kaead_flight);
} kaead_flight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* struct crypto_aead * */
	__type(value, __u32);	/* the last setkey's key length in bytes */
} kaead_keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* struct crypto_alg * */
	__type(value, struct rs_kaead_alg);
} kaead_algs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_KAEAD_MISS_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} kaead_miss SEC(".maps");

/* Scratch for what is too big for the BPF stack: an in-flight entry, an
 * algorithm's names. */
union kaead_scratch {
	struct kaead_flight flight;
	struct rs_kaead_alg alg;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, union kaead_scratch);
} kaead_scratch SEC(".maps");

static __always_inline void miss(__u32 slot)
{
	__u64 *n = bpf_map_lookup_elem(&kaead_miss, &slot);

	if (n)
		(*n)++;
}

/* Whether the 8 bytes at name + i equal needle (little-endian u64). */
static __always_inline bool has8(const char *name, __u64 needle)
{
	for (int i = 0; i < RS_KAEAD_NAME_LEN - 8; i++) {
		__u64 w;

		__builtin_memcpy(&w, name + i, 8);
		if (w == needle)
			return true;
		if (!name[i])
			break;
	}
	return false;
}

/* "gcm(aes)", "rfc4106(", "rfc4543(" as little-endian words. */
#define W_GCM_AES 0x29736561286d6367ULL
#define W_RFC4106 0x2836303134636672ULL
#define W_RFC4543 0x2833343534636672ULL

/* The names of alg, read and classified once per algorithm. */
static __always_inline const struct rs_kaead_alg *alg_info(struct crypto_alg *alg)
{
	__u64 key = (__u64)alg;
	const struct rs_kaead_alg *a = bpf_map_lookup_elem(&kaead_algs, &key);
	__u32 zero = 0;
	struct rs_kaead_alg *n;

	if (a)
		return a;
	n = bpf_map_lookup_elem(&kaead_scratch, &zero);
	if (!n)
		return NULL;
	__builtin_memset(n, 0, sizeof(*n));
	bpf_probe_read_kernel_str(n->name, sizeof(n->name), alg->cra_name);
	bpf_probe_read_kernel_str(n->driver, sizeof(n->driver), alg->cra_driver_name);
	n->gcm = has8(n->name, W_GCM_AES);
	n->key_salt = has8(n->name, W_RFC4106) || has8(n->name, W_RFC4543);
	bpf_map_update_elem(&kaead_algs, &key, n, BPF_NOEXIST);
	return bpf_map_lookup_elem(&kaead_algs, &key);
}

static __always_inline struct crypto_alg *req_alg(struct aead_request *req, __u64 *aead)
{
	struct crypto_tfm *tfm = BPF_CORE_READ(req, base.tfm);

	*aead = (__u64)tfm - bpf_core_field_offset(struct crypto_aead, base);
	return BPF_CORE_READ(tfm, __crt_alg);
}

static __always_inline __u32 payload_of(const struct kaead_frame *f)
{
	if (f->dir != RS_GCM_OPEN)
		return f->cryptlen;
	return f->cryptlen >= f->authsize ? f->cryptlen - f->authsize : 0;	/* the tag is not payload */
}

/* Where a request is when it is counted. */
enum kaead_stage {
	STAGE_DONE_AT_RETURN,	/* submitted and finished in one call */
	STAGE_SUBMITTED_ASYNC,	/* submitted; its result comes with the completion */
	STAGE_COMPLETED,	/* an asynchronous request's completion */
};

static __always_inline void count(const struct kaead_frame *f, __u64 alg, __u32 tgid,
				  enum kaead_stage stage, int ret, __u64 lat)
{
	struct rs_total_key key = {
		.tgid = tgid,
		.k1 = f->dir | (__u32)f->key_bits << 8,
		.k2 = (__u32)alg,
		.k3 = (__u32)(alg >> 32),
	};
	struct rs_total_val *v = rs_total_row(&key);

	if (!v)
		return;
	if (stage != STAGE_COMPLETED) {
		v->c[RS_KAEAD_TOTAL_OPS]++;
		v->c[RS_KAEAD_TOTAL_AAD] += f->assoclen;
		v->c[RS_KAEAD_TOTAL_PAYLOAD] += payload_of(f);
	}
	if (stage == STAGE_SUBMITTED_ASYNC) {
		v->c[RS_KAEAD_TOTAL_ASYNC]++;
		return;
	}
	if (stage == STAGE_COMPLETED)
		v->c[RS_KAEAD_TOTAL_ASYNC_DONE]++;
	if (ret == -EBADMSG)
		v->c[RS_KAEAD_TOTAL_TAG_FAIL]++;
	else if (ret)
		v->c[RS_KAEAD_TOTAL_ERRORS]++;
	v->c[RS_KAEAD_TOTAL_LAT_SUM] += lat;
}

static __always_inline __u16 key_bits_of(const struct kaead_frame *f, const struct rs_kaead_alg *a)
{
	__u32 *len = bpf_map_lookup_elem(&kaead_keys, &f->aead);
	__u32 n;

	if (!len)
		return 0;
	n = *len;
	if (a && a->key_salt)
		n = n >= 4 ? n - 4 : 0;
	return n * 8;
}

static __always_inline void emit(const struct kaead_frame *f, const struct kaead_flight *from,
				 int ret, __u64 lat)
{
	const struct rs_kaead_alg *outer, *inner;
	__u64 alg = f->alg, inner_alg = f->inner_alg;
	struct rs_kaead_event *ev;

	if (failures_only && ret != -EBADMSG)
		return;
	ev = rs_reserve(sizeof(*ev), RS_EV_KAEAD);
	if (!ev)
		return;
	if (from) {	/* completed in a worker: the record names the submitter */
		ev->hdr.tgid = from->tgid;
		ev->hdr.tid = from->tid;
		ev->hdr.cgroup_id = from->cgroup_id;
		__builtin_memcpy(ev->hdr.comm, from->comm, RS_COMM_LEN);
	}
	ev->dir = f->dir;
	ev->result = ret == -EBADMSG ? RS_GCM_TAG_FAIL : ret ? RS_GCM_ERROR : RS_GCM_OK;
	ev->flags = (f->key_bits ? 0 : RS_KAEAD_F_KEY_UNKNOWN) | (from ? RS_KAEAD_F_ASYNC : 0);
	ev->depth = f->depth;
	ev->key_bits = f->key_bits;
	ev->authsize = f->authsize;
	ev->retval = ret;
	ev->pad = 0;
	ev->aad_bytes = f->assoclen;
	ev->payload_bytes = payload_of(f);
	ev->latency_ns = lat;
	ev->tfm = f->aead;
	outer = bpf_map_lookup_elem(&kaead_algs, &alg);
	inner = bpf_map_lookup_elem(&kaead_algs, &inner_alg);
	if (outer) {
		__builtin_memcpy(ev->alg, outer->name, RS_KAEAD_NAME_LEN);
		__builtin_memcpy(ev->outer_driver, outer->driver, RS_KAEAD_NAME_LEN);
	} else {
		ev->alg[0] = ev->outer_driver[0] = 0;
	}
	if (inner)
		__builtin_memcpy(ev->driver, inner->driver, RS_KAEAD_NAME_LEN);
	else
		ev->driver[0] = 0;
	rs_submit(ev, ret == -EBADMSG);
}

/* ---- the shared logic -------------------------------------------------------- */

/* A request's result is known (at its return, or from its completion): count and record it. */
static __always_inline void finish(const struct kaead_frame *f, __u64 count_alg, __u32 tgid,
				   const struct kaead_flight *from, int ret)
{
	__u64 lat = bpf_ktime_get_ns() - f->start_ns;	/* one reading for the totals and the record */

	count(f, count_alg, tgid, from ? STAGE_COMPLETED : STAGE_DONE_AT_RETURN, ret, lat);
	emit(f, from, ret, lat);
}

/* The index of the frame that counts the request frame f runs under; -1: none. */
static __always_inline int root_of(const struct kaead_frame *f, __u32 idx)
{
	if (f->counted)
		return idx;
	return f->root < KAEAD_DEPTH ? f->root : -1;
}

static __always_inline void on_enter(struct aead_request *req, __u8 dir)
{
	struct kaead_task *t = task_stack(false);
	const struct rs_kaead_alg *a;
	struct kaead_frame *f, *top;
	__u64 aead, data;
	struct crypto_alg *alg;
	bool count_it, continuation = false;
	int root = -1;

	if (t && t->depth >= KAEAD_DEPTH) {
		t->overflow++;
		miss(RS_KAEAD_MISS_DEPTH);
		return;
	}
	alg = req_alg(req, &aead);
	a = alg_info(alg);
	data = (__u64)BPF_CORE_READ(req, base.data);
	if (t && t->depth) {
		/*
		 * Nested under the call on top of this task's stack when it is that
		 * call's sub-request: wrappers keep it in their request's context
		 * (simd, rfc4106) or pass the caller's completion data along. An
		 * interrupt's own request is neither.
		 */
		__u32 ti = (t->depth - 1) & (KAEAD_DEPTH - 1);

		top = &t->f[ti];
		if (((__u64)req > top->req && (__u64)req < top->req + 4096) || (data && data == top->data))
			root = root_of(top, ti);
	}
	/* A sub-request of an asynchronous request, run by the worker finishing it. */
	if (root < 0 && data && in_flight) {
		struct kaead_flight *fl = bpf_map_lookup_elem(&kaead_flight, &data);

		if (fl) {
			fl->f.inner_alg = (__u64)alg;
			if (fl->f.depth < 7)
				fl->f.depth++;
			continuation = true;
		}
	}
	count_it = root < 0 && !continuation && a && a->gcm && rs_filter_pass();
	/* Nothing to count and no stack to keep paired for kretprobes. */
	if (root < 0 && !count_it && !(t && t->depth))
		return;
	if (!t) {
		t = task_stack(true);	/* zeroed */
		if (!t) {
			miss(RS_KAEAD_MISS_TASKS);
			return;
		}
	}
	f = &t->f[t->depth & (KAEAD_DEPTH - 1)];
	f->req = (__u64)req;
	f->alg = (__u64)alg;
	f->data = data;
	f->aead = aead;
	f->dir = dir;
	f->counted = count_it;
	f->root = KAEAD_DEPTH;	/* ignored unless nested or counted */
	f->depth = 0;
	if (root >= 0) {
		struct kaead_frame *r = &t->f[root & (KAEAD_DEPTH - 1)];

		f->root = root;
		r->inner_alg = (__u64)alg;
		if (r->depth < 7)
			r->depth++;
	} else if (count_it) {
		f->start_ns = bpf_ktime_get_ns();
		f->inner_alg = (__u64)alg;
		f->cryptlen = BPF_CORE_READ(req, cryptlen);
		f->assoclen = BPF_CORE_READ(req, assoclen);
		f->authsize = BPF_CORE_READ((struct crypto_aead *)aead, authsize);
	}
	t->depth++;
}

static __always_inline void on_exit(int ret, struct aead_request *req_or_null)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, d, zero = 0;
	struct kaead_task *t = task_stack(false);
	const struct rs_kaead_alg *a;
	struct aead_request *req;
	struct kaead_frame *f;
	__u64 alg;
	bool async;

	if (!t || !t->depth)
		return;
	if (t->overflow) {
		t->overflow--;
		return;
	}
	d = (t->depth - 1) & (KAEAD_DEPTH - 1);
	f = &t->f[d];
	/* fexit knows its request: a call we pushed no frame for is not ours. */
	if (req_or_null && f->req != (__u64)req_or_null)
		return;
	t->depth--;
	if (!f->counted)
		return;
	alg = f->alg;
	a = bpf_map_lookup_elem(&kaead_algs, &alg);
	f->key_bits = key_bits_of(f, a);
	req = (struct aead_request *)f->req;	/* a local: no relocation on our own struct */
	/* -EBUSY is queued only where the caller allowed a backlog; else it is a refusal. */
	async = ret == -EINPROGRESS ||
		(ret == -EBUSY && (BPF_CORE_READ(req, base.flags) & CRYPTO_TFM_REQ_MAY_BACKLOG));
	if (!async) {
		finish(f, f->inner_alg, id >> 32, NULL, ret);
		return;
	}
	count(f, f->inner_alg, id >> 32, STAGE_SUBMITTED_ASYNC, ret, 0);
	{
		struct kaead_flight *fl = bpf_map_lookup_elem(&kaead_scratch, &zero);

		if (fl && f->data) {
			fl->f = *f;
			fl->count_alg = f->inner_alg;
			fl->tgid = id >> 32;
			fl->tid = tid;
			fl->cgroup_id = bpf_get_current_cgroup_id();
			bpf_get_current_comm(fl->comm, sizeof(fl->comm));
			if (bpf_map_update_elem(&kaead_flight, &f->data, fl, BPF_ANY))
				miss(RS_KAEAD_MISS_INFLIGHT);
			else
				__sync_fetch_and_add(&in_flight, 1);
		} else {
			miss(RS_KAEAD_MISS_INFLIGHT);
		}
	}
}

static __always_inline void on_setkey(struct crypto_aead *aead, __u32 keylen)
{
	__u64 key = (__u64)aead;

	bpf_map_update_elem(&kaead_keys, &key, &keylen, BPF_ANY);
}

/* A completion callback: arg is the request (before 6.3) or its data. */
static __always_inline void on_done(__u64 arg, int err)
{
	struct kaead_flight *fl;
	__u64 data = arg;

	if (err == -EINPROGRESS || !in_flight)	/* -EINPROGRESS: moved from the backlog, not done */
		return;
	if (done_takes_request)
		data = (__u64)BPF_CORE_READ((struct crypto_async_request *)arg, data);
	fl = bpf_map_lookup_elem(&kaead_flight, &data);
	if (!fl)
		return;
	finish(&fl->f, fl->count_alg, fl->tgid, fl, err);	/* key bits as at submission */
	if (!bpf_map_delete_elem(&kaead_flight, &data))
		__sync_fetch_and_add(&in_flight, -1);
}

/* ---- fentry/fexit -------------------------------------------------------------- */

/* Entry and return of crypto_aead_encrypt or _decrypt, as one direction. */
#define FENTRY_PAIR(fn, name, dir)                                     \
	SEC("fentry/" #fn)                                             \
	int BPF_PROG(kaead_fentry_##name, struct aead_request *req)   \
	{                                                              \
		on_enter(req, dir);                                    \
		return 0;                                              \
	}                                                              \
	SEC("fexit/" #fn)                                              \
	int BPF_PROG(kaead_fentry_##name##_ret, struct aead_request *req, int ret) \
	{                                                              \
		on_exit(ret, req);                                     \
		return 0;                                              \
	}
FENTRY_PAIR(crypto_aead_encrypt, encrypt, RS_GCM_SEAL)
FENTRY_PAIR(crypto_aead_decrypt, decrypt, RS_GCM_OPEN)

SEC("fentry/crypto_aead_setkey")
int BPF_PROG(kaead_fentry_setkey, struct crypto_aead *aead, const __u8 *key, unsigned int keylen)
{
	on_setkey(aead, keylen);
	return 0;
}

/* One program per completion callback (fentry targets are fixed at load):
 * user space sets the target, and autoload off where the kernel lacks it. */
#define DONE_FENTRY(n)                                      \
	SEC("fentry/crypto_req_done")                       \
	int BPF_PROG(kaead_fentry_done##n, __u64 arg, int err) \
	{                                                   \
		on_done(arg, err);                          \
		return 0;                                   \
	}
DONE_FENTRY(0)
DONE_FENTRY(1)
DONE_FENTRY(2)
DONE_FENTRY(3)
DONE_FENTRY(4)
DONE_FENTRY(5)
DONE_FENTRY(6)
DONE_FENTRY(7)

/* ---- kprobe/kretprobe ----------------------------------------------------------- */

#define KPROBE_PAIR(fn, name, dir)                                     \
	SEC("kprobe/" #fn)                                             \
	int BPF_KPROBE(kaead_kprobe_##name, struct aead_request *req) \
	{                                                              \
		on_enter(req, dir);                                    \
		return 0;                                              \
	}                                                              \
	SEC("kretprobe/" #fn)                                          \
	int BPF_KRETPROBE(kaead_kprobe_##name##_ret, int ret)         \
	{                                                              \
		on_exit(ret, NULL);                                    \
		return 0;                                              \
	}
KPROBE_PAIR(crypto_aead_encrypt, encrypt, RS_GCM_SEAL)
KPROBE_PAIR(crypto_aead_decrypt, decrypt, RS_GCM_OPEN)

SEC("kprobe/crypto_aead_setkey")
int BPF_KPROBE(kaead_kprobe_setkey, struct crypto_aead *aead, const __u8 *key, unsigned int keylen)
{
	on_setkey(aead, keylen);
	return 0;
}

/* Attached by user space to each completion callback the kernel has. */
SEC("kprobe")
int BPF_KPROBE(kaead_kprobe_done, __u64 arg, int err)
{
	on_done(arg, err);
	return 0;
}
