/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event ABI shared by ringside's BPF programs and user space.
 *
 * Every record in a ringside ring buffer starts with struct rs_event_hdr.
 * Records only ever grow at their tail; a consumer built against an older
 * header reads the prefix it knows and uses hdr.size to step over the rest.
 * RINGSIDE_EVENT_ABI is bumped whenever a field changes meaning or moves.
 *
 * This header is included both by BPF code (after vmlinux.h, which provides
 * the __u* types) and by user space (through <linux/types.h>).
 */
#ifndef RINGSIDE_EVENTS_H
#define RINGSIDE_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RINGSIDE_EVENT_ABI 1

#define RS_COMM_LEN 16

enum rs_event_type {
	RS_EV_NONE = 0,
	RS_EV_GCM_OP = 1,	/* one AES-GCM message sealed or opened */
	RS_EV_RECLAIM = 2,	/* one memcg/global reclaim invocation */
	RS_EV_BTRFS_BG = 3,	/* a btrfs block-group lifecycle step */
	/* A program not run before began (gcm, system-wide: a Go program may
	 * need probes); the collector consumes it. */
	RS_EV_EXEC = 4,
	RS_EV_KAEAD = 5,	/* one kernel crypto API AES-GCM request done */
	RS_EV_TYPE_MAX
};

struct rs_event_hdr {
	__u16 type;		/* enum rs_event_type */
	__u16 size;		/* bytes of the whole record, header included */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__u64 ts_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 cgroup_id;	/* cgroup v2 id of the task (bpf_get_current_cgroup_id) */
	char comm[RS_COMM_LEN];
};

/* ---- agent mode: GCM aggregated in the kernel ------------------------- */

/*
 * In agent mode the gcm programs count each message in the per-CPU hash
 * "gcm_agg" by label set (process name, library, direction, key bits)
 * instead of queueing a record; only tag failures still cross the ring.
 * Kind 0 rows hold the counters (RS_GCM_TOTAL_* order) of the messages
 * whose payload falls in one log2 slot (as ringside_hist_slot()): the size
 * histogram is their ops by slot, and one lookup a message counts both.
 * Kind 1 rows hold one log2 slot of latency in ns, the count in c[0]. A
 * label set that finds the map full is counted under an empty comm with
 * RS_GCM_AGG_OTHER set: never lost. The first RS_GCM_AGG_HOT_ROWS kind 0
 * rows are kept instead in the per-CPU array "gcm_agg_hot", at the slot
 * the hash "gcm_agg_hot_index" gives their key (a lookup the verifier
 * inlines, where a hash row is a helper call): a row is in one place or
 * the other, and readers take both.
 */
#define RS_GCM_AGG_MAX_ENTRIES 16384
#define RS_GCM_AGG_HOT_ROWS 1024
#define RS_GCM_AGG_OTHER 0x8000	/* in libdir: the row folds label sets past the map's size */

enum rs_gcm_agg_kind {
	RS_GCM_AGG_COUNTERS = 0,	/* by payload size slot */
	RS_GCM_AGG_LATENCY = 1,
};

struct rs_gcm_agg_key {
	char comm[RS_COMM_LEN];
	__u32 lib_id;
	__u16 libdir;		/* lib | dir << 8, and RS_GCM_AGG_OTHER */
	__u16 key_bits;
	__u8 kind;		/* enum rs_gcm_agg_kind */
	__u8 slot;		/* the histogram slot: of payload bytes (kind 0), of ns (kind 1) */
	__u16 pad;
};

/* ---- RS_EV_EXEC ------------------------------------------------------ */

#define RS_EXEC_PATH_LEN 256

struct rs_exec_event {
	struct rs_event_hdr hdr;
	__u64 dev;	/* the program file's device, kernel encoding (MKDEV: major << 20 | minor) */
	__u64 ino;
	/* The path exec was given (the kernel's bprm->filename): the program
	 * is found through it when the process is gone before it is looked at. */
	char filename[RS_EXEC_PATH_LEN];
};

/* ---- RS_EV_GCM_OP ---------------------------------------------------- */

enum rs_gcm_lib {
	RS_GCM_LIB_NONE = 0,
	RS_GCM_LIB_OPENSSL = 1,	/* libcrypto 3.x, CRYPTO_gcm128_* layer */
	RS_GCM_LIB_GNUTLS = 2,	/* gnutls_aead_cipher_* and gnutls_cipher_* */
	RS_GCM_LIB_GCRYPT = 3,	/* gcry_cipher_* on a GCM handle */
	RS_GCM_LIB_NETTLE = 4,	/* nettle_gcm_aes{,128,192,256}_* */
	RS_GCM_LIB_GO = 5,	/* a Go program's crypto/aes and crypto/cipher */
	RS_GCM_LIB_MAX
};

enum rs_gcm_dir {
	RS_GCM_DIR_UNKNOWN = 0,
	RS_GCM_SEAL = 1,	/* encrypt + compute tag */
	RS_GCM_OPEN = 2,	/* decrypt + verify tag */
};

enum rs_gcm_result {
	RS_GCM_OK = 0,
	RS_GCM_TAG_FAIL = 1,	/* open: authentication failed — a security signal */
	RS_GCM_ERROR = 2,	/* the library returned another error */
	RS_GCM_UNCHECKED = 3,	/* the application compares tags itself (gnutls_cipher_tag) */
};

/* Flags in rs_gcm_event.flags. */
#define RS_GCM_F_KEY_UNKNOWN	0x01	/* key was set up before tracing began */
#define RS_GCM_F_STACK		0x02	/* stack[] holds nr_stack user frames */
#define RS_GCM_F_BACKEND	0x04	/* seen at GnuTLS's cipher backend (its TLS record layer) */
#define RS_GCM_F_STACK_COPY	0x08	/* stack[] holds a struct rs_stack_copy to unwind */

#define RS_GCM_MAX_STACK 32

/*
 * A copy of the user stack for unwinding with the libraries' .eh_frame in
 * user space (perf's --call-graph dwarf): the registers unwinding starts
 * from, then len bytes of stack read from start (the page sp is in) upward.
 */
#define RS_STACK_PAGE 4096
#define RS_STACK_WINDOW_MAX 16384
struct rs_stack_copy {
	__u64 ip, sp, bp;
	__u64 start;
	__u32 len;
	__u32 pad;
	__u8 data[];
};

struct rs_gcm_event {
	struct rs_event_hdr hdr;
	__u8 lib;		/* enum rs_gcm_lib */
	__u8 dir;		/* enum rs_gcm_dir */
	__u8 result;		/* enum rs_gcm_result */
	__u8 flags;		/* RS_GCM_F_* */
	__u16 key_bits;		/* 128, 192, 256; 0 when unknown */
	__u16 nr_stack;
	__u32 lib_id;		/* which probed library file: ringside_gcm_lib() */
	__s32 retval;		/* the completing call's return value */
	__u64 aad_bytes;
	__u64 payload_bytes;	/* plaintext bytes (tag excluded) */
	__u64 latency_ns;	/* first call of the message to return of the last */
	__u64 caller;		/* return address at the first probed call */
	__u64 handle;		/* library context pointer: GCM128_CONTEXT, hd... */
	__u64 stack[];		/* nr_stack entries when RS_GCM_F_STACK; a
				 * struct rs_stack_copy when RS_GCM_F_STACK_COPY */
};

/* ---- RS_EV_RECLAIM ------------------------------------------------------- */

/* What asked for reclaim, from the kernel stack (filled by the library). */
enum rs_reclaim_trigger {
	RS_RECLAIM_TRIG_UNKNOWN = 0,
	RS_RECLAIM_TRIG_PROACTIVE = 1,	/* write to memory.reclaim */
	RS_RECLAIM_TRIG_MAX_WRITE = 2,	/* write to memory.max / memory.limit_in_bytes */
	RS_RECLAIM_TRIG_FORCE_EMPTY = 3,	/* write to memory.force_empty (v1) */
	RS_RECLAIM_TRIG_HIGH = 4,	/* over memory.high, on return to user space */
	RS_RECLAIM_TRIG_LIMIT = 5,	/* a charge hit the limit (try_charge) */
	RS_RECLAIM_TRIG_DIRECT = 6,	/* global direct reclaim in the page allocator */
	RS_RECLAIM_TRIG_KSWAPD = 7,
	RS_RECLAIM_TRIG_MAX
};

#define RS_RECLAIM_MAX_KSTACK 16
#define RS_RECLAIM_REQ_LEN 64

/* Flags in rs_reclaim_event.flags. */
#define RS_RECLAIM_F_WRITE	0x01	/* ran inside a write(2): req/write_ret are valid */
#define RS_RECLAIM_F_GLOBAL	0x02	/* not memcg reclaim: direct or kswapd */
#define RS_RECLAIM_F_FENTRY	0x04	/* reclaim_memcg_id and swappiness_arg are valid */

struct rs_reclaim_event {
	struct rs_event_hdr hdr;
	__u32 flags;		/* RS_RECLAIM_F_* */
	__u32 nr_kstack;
	__u64 target_cgroup_id;	/* written file's cgroup (writes), else the task's memcg */
	__u64 task_cgroup_id;	/* memory cgroup of the reclaiming task */
	__u64 duration_ns;	/* first begin to last end (to write return for writes) */
	__u32 passes;		/* try_to_free_mem_cgroup_pages() calls folded in */
	__s32 min_priority;	/* lowest priority reached (12 gentle .. 0 desperate); -1 none */
	__u64 nr_reclaimed;	/* pages, as the end tracepoints report */
	__u64 scanned_anon, scanned_file;	/* inactive lists */
	__u64 reclaimed_anon, reclaimed_file;
	__u64 active_scanned_anon, active_scanned_file;
	__u64 deactivated_anon, deactivated_file;
	__s64 write_ret;	/* bytes written or -errno (-EAGAIN...) */
	__u32 req_len;
	char req[RS_RECLAIM_REQ_LEN];	/* the written text, e.g. "64M swappiness=60" */
	__u64 kstack[RS_RECLAIM_MAX_KSTACK];
	/*
	 * From fentry on try_to_free_mem_cgroup_pages where the kernel allows it
	 * (RS_RECLAIM_F_FENTRY): the memcg actually reclaimed from (an over-limit
	 * ancestor for charge reclaim) and the swappiness argument (-1: none).
	 */
	__u64 reclaim_memcg_id;
	__s32 swappiness_arg;
	__u32 reserved;
};

/* ---- RS_EV_BTRFS_BG ---------------------------------------------------- */

enum rs_btrfs_kind {
	RS_BTRFS_ADD_RECLAIM = 1,	/* block group queued for reclaim */
	RS_BTRFS_RECLAIM = 2,		/* reclaim worker starts relocating it */
	RS_BTRFS_ADD_UNUSED = 3,	/* queued for deletion: nothing used */
	RS_BTRFS_SKIP_UNUSED = 4,	/* unused cleanup passed over it */
	RS_BTRFS_REMOVE = 5,		/* block group deleted (after relocation or cleanup) */
	RS_BTRFS_CHUNK_ALLOC = 6,
	RS_BTRFS_CHUNK_FREE = 7,
	RS_BTRFS_RELOC_DONE = 8,	/* btrfs_relocate_block_group returned (fexit) */
	RS_BTRFS_KIND_MAX
};

/* What the kernel was doing, told from the kernel stack of the event. */
enum rs_btrfs_trigger {
	RS_BTRFS_TRIG_UNKNOWN = 0,
	RS_BTRFS_TRIG_THRESHOLD = 1,	/* a free crossed the reclaim threshold */
	RS_BTRFS_TRIG_PERIODIC = 2,	/* a periodic reclaim sweep */
	RS_BTRFS_TRIG_AUTO_RECLAIM = 3,	/* the reclaim worker */
	RS_BTRFS_TRIG_BALANCE = 4,	/* btrfs balance */
	RS_BTRFS_TRIG_UNUSED = 5,	/* unused block-group cleanup */
	RS_BTRFS_TRIG_ALLOC = 6,	/* allocation needed a new chunk */
	RS_BTRFS_TRIG_MAX
};

/* The space_info of the block group and the fs-wide inputs of the threshold. */
struct rs_btrfs_space {
	__u64 total_bytes;
	__u64 bytes_used;
	__u64 bytes_reserved;
	__u64 bytes_pinned;
	__u64 bytes_readonly;
	__u64 bytes_zone_unusable;
	__u64 data_chunk_size;	/* the data space_info's chunk_size */
	__u64 free_chunk_space;	/* unallocated bytes on all devices */
	__u64 total_rw_bytes;
	__u64 zone_size;	/* 0: not zoned */
	__s32 bg_reclaim_threshold;
	__u8 dynamic_reclaim;	/* 0/1; 0 on kernels without it */
	__u8 periodic_reclaim;
	__u8 has_dynamic;	/* the kernel knows dynamic_reclaim */
	__u8 pad;
};

#define RS_BTRFS_MAX_KSTACK 16

struct rs_btrfs_event {
	struct rs_event_hdr hdr;
	__u8 fsid[16];
	__u16 kind;		/* enum rs_btrfs_kind */
	__u16 trigger;		/* enum rs_btrfs_trigger; filled by the library */
	__u32 nr_kstack;
	__u64 bytenr;		/* block group (or chunk) start */
	__u64 len;
	__u64 used;		/* bytes used in the block group */
	__u64 flags;		/* BTRFS_BLOCK_GROUP_* type and profile */
	__s64 ret;		/* RS_BTRFS_RELOC_DONE: return value */
	__u64 duration_ns;	/* RS_BTRFS_RELOC_DONE: time in btrfs_relocate_block_group */
	struct rs_btrfs_space space;	/* block-group events only */
	__u64 kstack[RS_BTRFS_MAX_KSTACK];
};

/* ---- RS_EV_KAEAD -------------------------------------------------------- */

/*
 * An AES-GCM request through the kernel crypto API (crypto_aead_encrypt or
 * crypto_aead_decrypt on a transform whose algorithm name contains
 * "gcm(aes)": gcm, rfc4106, rfc4543 and templates over them), counted once
 * at the outermost call of the submitting task. The header names the
 * submitter even when the request completed later in a worker.
 */
#define RS_KAEAD_NAME_LEN 64

/* Flags in rs_kaead_event.flags. */
#define RS_KAEAD_F_KEY_UNKNOWN	0x01	/* setkey happened before tracing began */
#define RS_KAEAD_F_ASYNC	0x02	/* returned -EINPROGRESS/-EBUSY: result from the completion */

struct rs_kaead_event {
	struct rs_event_hdr hdr;
	__u8 dir;		/* enum rs_gcm_dir */
	__u8 result;		/* enum rs_gcm_result */
	__u8 flags;		/* RS_KAEAD_F_* */
	__u8 depth;		/* nested crypto_aead_* calls under the outermost, at most */
	__u16 key_bits;		/* 0: unknown */
	__u16 authsize;		/* tag bytes */
	__s32 retval;		/* the request's result (0, -EBADMSG...) */
	__u32 pad;
	__u64 aad_bytes;	/* req->assoclen */
	__u64 payload_bytes;	/* req->cryptlen, less the tag when decrypting */
	__u64 latency_ns;	/* outermost call to its return, or to the completion */
	__u64 tfm;		/* the outermost transform (struct crypto_aead *) */
	char alg[RS_KAEAD_NAME_LEN];		/* cra_name of the outermost transform */
	char outer_driver[RS_KAEAD_NAME_LEN];	/* its cra_driver_name */
	char driver[RS_KAEAD_NAME_LEN];		/* the innermost driver that was called */
};

/*
 * Kernel AEAD totals: tgid the submitter, k1 dir | key_bits << 8, k2/k3 the
 * innermost driver's struct crypto_alg address (low/high 32 bits), named
 * in the "kaead_algs" map. Ops and bytes count at submission; results at
 * the return, or at the completion for asynchronous requests.
 */
enum rs_kaead_total_counter {
	RS_KAEAD_TOTAL_OPS = 0,
	RS_KAEAD_TOTAL_AAD,
	RS_KAEAD_TOTAL_PAYLOAD,
	RS_KAEAD_TOTAL_TAG_FAIL,
	RS_KAEAD_TOTAL_ERRORS,
	RS_KAEAD_TOTAL_ASYNC,		/* submitted asynchronously */
	RS_KAEAD_TOTAL_ASYNC_DONE,	/* ... whose completion was seen */
	RS_KAEAD_TOTAL_LAT_SUM,
};

/* kaead_algs: struct crypto_alg address -> its names. */
struct rs_kaead_alg {
	__u8 gcm;		/* cra_name contains "gcm(aes)" */
	__u8 key_salt;		/* rfc4106/rfc4543: the key carries a 4-byte salt */
	__u8 pad[6];
	char name[RS_KAEAD_NAME_LEN];
	char driver[RS_KAEAD_NAME_LEN];
};

/* Slots of the kaead "kaead_miss" array: what could not be followed. */
enum rs_kaead_miss {
	RS_KAEAD_MISS_DEPTH = 0,	/* nesting deeper than the per-task stack */
	RS_KAEAD_MISS_TASKS,		/* no task-local stack could be had: request not counted */
	RS_KAEAD_MISS_INFLIGHT,		/* the in-flight map was full: completion not followed */
	RS_KAEAD_MISS_SLOTS
};

/* Filter configuration written to every BPF object's .rodata by user space. */
/* ---- in-kernel totals ------------------------------------------------------ */

/*
 * Every collector counts what it sees in a per-CPU hash ("totals") before it
 * reserves a ring-buffer record, so summaries are exact even when records
 * are lost. The key's fields and the counters' meanings are the collector's
 * (see RS_GCM_TOTAL_* below); user space sums the per-CPU values.
 */
#define RS_TOTALS_MAX_ENTRIES 4096
#define RS_TOTAL_COUNTERS 8

struct rs_total_key {
	__u32 tgid;
	__u32 k1, k2, k3;	/* collector-defined */
};

struct rs_total_val {
	__u64 c[RS_TOTAL_COUNTERS];
};

/* Slots of the per-CPU "drops" array. */
enum rs_drop_slot {
	RS_DROP_RINGBUF = 0,	/* a record could not be reserved: the ring was full */
	RS_DROP_TOTALS = 1,	/* a row could not be added: the map was full, or allocating failed */
	RS_DROP_HIST = 2,	/* the same for a histogram row (gcm_hist): a latency sample lost */
	RS_DROP_SLOTS
};

/* GCM totals: k1 lib_id, k2 lib | dir << 8, k3 key_bits. */
enum rs_gcm_total_counter {
	RS_GCM_TOTAL_OPS = 0,
	RS_GCM_TOTAL_AAD,
	RS_GCM_TOTAL_PAYLOAD,
	RS_GCM_TOTAL_TAG_FAIL,
	RS_GCM_TOTAL_ERRORS,
	RS_GCM_TOTAL_UNCHECKED,
	RS_GCM_TOTAL_LAT_SUM,
};

/*
 * Kernel histograms (ringside_gcm_opts.kernel_hist): per process, library,
 * direction and key size, the per-CPU hash "gcm_hist" counts each message
 * in its latency slot (kind 0) and, when asked, its payload's log2 slot
 * (kind 1), in c[0] of a struct rs_total_val. Latency slots split each
 * power of two in 16 steps (RS_GCM_FINE_SLOT), so percentiles drawn from
 * them are within 1/16; values below 16 ns have a slot each, and an
 * untimed message (counting only) is 0 ns. A latency slot's c[1] holds its
 * longest message on this CPU since the reader last asked: ns in the low
 * 48 bits, the reader's epoch (gcm_hist_epoch) above them; taken as the
 * largest over CPUs, never summed, and an old epoch's value means no
 * message since. Counting only (every message in slot 0), the first
 * RS_GCM_HIST_HOT_ROWS latency rows are kept instead in the per-CPU array
 * "gcm_hist_hot", at the slot the hash "gcm_hist_hot_index" gives their
 * key (as gcm_agg_hot's): readers take both.
 */
#define RS_GCM_HIST_MAX_ENTRIES 65536
#define RS_GCM_HIST_HOT_ROWS 1024
/*
 * A latency row's counters: its messages and their longest (above), and the
 * totals of those messages, so that a message updates one row rather than a
 * latency row and a totals row. Summing a label set's latency rows gives its
 * totals; a message whose latency row could not be made (RS_DROP_HIST) is
 * counted in the totals map instead, so the two together stay exact.
 */
enum rs_gcm_hist_lat_counter {
	RS_GCM_HIST_LAT_COUNT = 0,
	RS_GCM_HIST_LAT_MAX,
	RS_GCM_HIST_LAT_AAD,
	RS_GCM_HIST_LAT_PAYLOAD,
	RS_GCM_HIST_LAT_TAG_FAIL,
	RS_GCM_HIST_LAT_ERRORS,
	RS_GCM_HIST_LAT_UNCHECKED,
	RS_GCM_HIST_LAT_SUM,
};
enum rs_gcm_hist_kind {
	RS_GCM_HIST_LATENCY = 0,
	RS_GCM_HIST_SIZE = 1,
};
#define RS_GCM_LAT_MAX_NS_MASK ((1ULL << 48) - 1)
struct rs_gcm_hist_key {
	__u32 tgid;
	__u32 lib_id;
	__u16 libdir;		/* lib | dir << 8 */
	__u16 key_bits;
	__u16 kind;		/* enum rs_gcm_hist_kind */
	__u16 slot;
};
#define RS_GCM_FINE_SUB 16
/* v's latency slot, given s, its log2 slot (64 - clz(v), 0 for 0). */
#define RS_GCM_FINE_SLOT(v, s) \
	((s) <= 4 ? (unsigned int)(v) : (s) * RS_GCM_FINE_SUB + (unsigned int)(((v) >> ((s) - 5)) & 15))

/*
 * GCM probe hits that could not be tied to a message: rows with k2 ==
 * RS_GCM_TOTAL_UNATTRIBUTED, k1 the library, k3 the reason, c[0] the hits.
 */
#define RS_GCM_TOTAL_UNATTRIBUTED 0xffffffffu
enum rs_gcm_unattr_reason {
	RS_GCM_UNATTR_UNKNOWN_HANDLE = 1,	/* a call on a context whose creation was not seen */
	RS_GCM_UNATTR_TAG_UNREAD,	/* OpenSSL open: the tags to compare could not be read */
	RS_GCM_UNATTR_MAX
};

/*
 * GnuTLS's AES-GCM backend (the aead_encrypt/aead_decrypt its TLS 1.2 record
 * layer calls through a function pointer), as calibrated in user space: how
 * to tell the key size, and whether the call is AES-GCM at all, from the
 * backend context in the first argument. Slot lib_id * RS_GCM_BACKENDS_PER_LIB
 * + backend index (the attach cookie's high half) of the gnutls_backends map.
 */
#define RS_GCM_BACKENDS_PER_LIB 8
#define RS_GCM_BACKEND_LIBS 32
struct rs_gcm_backend {
	__u32 in_use;		/* nonzero: this slot's functions are probed */
	__u32 off;		/* where in the context the discriminator is */
	__u32 sub;		/* deref: offset of the int inside the pointed-to object */
	__u8 deref;		/* 1: the context holds a pointer to the int, 0: the int itself */
	__u8 known;		/* 0: no discriminator: key size unknown */
	__u8 pad[2];
	__s32 value[3];		/* the int for AES-128, -192, -256 */
};

/*
 * A Go program's AES-GCM functions (src/gcm/go_gcm.c), indexed by lib_id in
 * the go_bins map. Entry probes carry the function's kind in the attach
 * cookie's high half; results come from plain uprobes on every RET of the
 * function, matched to their entry by goroutine (R14 holds g in Go's
 * register ABI), since Go cannot take a uretprobe.
 */
enum rs_gcm_go_kind {
	RS_GCM_GO_ASM_SEAL = 0,		/* crypto/aes.(*gcmAsm).Seal: AES-NI + PCLMULQDQ */
	RS_GCM_GO_ASM_OPEN,
	RS_GCM_GO_GENERIC_SEAL,		/* crypto/cipher.(*gcm).Seal on any cipher.Block */
	RS_GCM_GO_GENERIC_OPEN,
	RS_GCM_GO_KINDS
};

#define RS_GCM_GO_BINS 256
/* Libraries and programs a session traces at most: an id fits gcm.bpf.c's 16-bit gcm_msg.lib_id. */
#define RS_GCM_MAX_LIBS 65535
struct rs_gcm_go {
	__u64 entry_vaddr[RS_GCM_GO_KINDS];	/* ELF address of each entry probe (0: absent) */
	__u64 aes_block_method;	/* generic path: first method of crypto/aes's Block, ELF address */
	__u16 asm_ks_len;	/* gcmAsm: offset of len(ks), the round-key words */
	__u16 asm_tag_size;	/* gcmAsm: offset of tagSize */
	__u16 gen_tag_size;	/* gcm: offset of tagSize */
	__u16 gen_key_words;	/* AES Block (generic): offset of its round-key word count; 0: unknown */
	__u32 in_use;
	__u32 pad;
};

/* Reclaim totals: k1/k2 the target cgroup id (low/high 32 bits), tgid 0. */
enum rs_reclaim_total_counter {
	RS_RECLAIM_TOTAL_CALLS = 0,	/* records (invocations) */
	RS_RECLAIM_TOTAL_FAILED,	/* control-file writes that returned an error */
	RS_RECLAIM_TOTAL_RECLAIMED_ANON,
	RS_RECLAIM_TOTAL_RECLAIMED_FILE,
	RS_RECLAIM_TOTAL_SCANNED_ANON,
	RS_RECLAIM_TOTAL_SCANNED_FILE,
	RS_RECLAIM_TOTAL_NS,
};

/*
 * Agent mode: reclaim aggregated in the kernel by target cgroup and trigger
 * (per-CPU hash "rcl_agg", no records). kind 0 rows hold the counters in
 * RS_RECLAIM_TOTAL_* order; kind 1 rows one log2 slot (as
 * ringside_hist_slot()) of the invocation's duration in ns, the count in
 * c[0]. A label set that finds the map full is counted under cgroup 0 and
 * trigger RS_RECLAIM_AGG_OTHER. The hash "rcl_swappiness" holds, per kind 0
 * key, the swappiness the last invocation asked for (-1: the cgroup's own).
 */
#define RS_RECLAIM_AGG_MAX_ENTRIES 8192
#define RS_RECLAIM_AGG_OTHER 0xff

enum rs_reclaim_agg_kind {
	RS_RECLAIM_AGG_COUNTERS = 0,
	RS_RECLAIM_AGG_DURATION = 1,
};

struct rs_reclaim_agg_key {
	__u64 cgroup_id;	/* the target cgroup's kernfs id */
	__u8 trigger;		/* enum rs_reclaim_trigger, or RS_RECLAIM_AGG_OTHER */
	__u8 kind;		/* enum rs_reclaim_agg_kind */
	__u8 slot;		/* kind 1: the histogram slot */
	__u8 pad[5];
};

/*
 * The text of the functions that tell a trigger (in rank order: the first
 * one found on a reclaim's kernel stack names it), set in .rodata at load.
 */
#define RS_RECLAIM_TRIG_RANGES 16

struct rs_reclaim_trig_range {
	__u64 start, end;	/* [start, end) in kernel text; 0, 0: unused */
	__u32 trigger;		/* enum rs_reclaim_trigger */
	__u32 pad;
};

struct rs_filter_cfg {
	__u32 tgid;		/* 0: any process */
	__u32 tid;		/* 0: any thread */
	__u64 cgroup_id;	/* 0: any cgroup; else kernfs id of the target directory */
	__s32 cgroup_ssid;	/* -1: cgroup v2 (default hierarchy), else v1 subsystem index */
	__u32 cgroup_level;	/* depth of the target cgroup below its hierarchy root */
	__u32 comm_set;		/* nonzero: comm must equal comm[] */
	char comm[RS_COMM_LEN];
	/*
	 * Not a filter, but set the same way: wake the reader only once this
	 * many bytes wait in the ring (0: on every record). Batching wakeups
	 * keeps a busy probe from paying for a reader wakeup per record.
	 */
	__u32 wakeup_bytes;
};

#endif /* RINGSIDE_EVENTS_H */
