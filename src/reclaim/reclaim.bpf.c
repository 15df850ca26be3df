// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One record per reclaim invocation. The vmscan tracepoints run in the
 * reclaiming task: begin/end bracket a try_to_free_mem_cgroup_pages() (or
 * global direct reclaim) call, and the shrink_inactive/shrink_active events
 * between them are that call's scanning, split by their file flag. A
 * memory.reclaim write loops over many calls; when reclaim runs inside a
 * write(2) to a cgroup control file, the passes are folded into one record
 * that carries the written text (the swappiness= argument) and is emitted
 * when the write returns, with its result. kswapd gets one record per run,
 * from wake-up scanning to kswapd_sleep. In agent mode no record is queued:
 * each invocation is counted in rcl_agg by target cgroup and by the trigger
 * its kernel stack shows.
 */
#include "common.bpf.h"
#include "reclaim_req.h"

#define CGROUP_SUPER_MAGIC 0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define PF_KSWAPD 0x00020000
#define NR_WRITE 1		/* x86-64 */

/* The memory controller's subsystem index; -1: cgroup v2. */
const volatile int memcg_ssid = -1;
/* --target-cgroup: only reclaim of this memory cgroup's subtree (kernfs id); 0: any. */
const volatile __u64 target_cgroup_id = 0;
/* syscalls/sys_exit_write exists: a write's passes wait for its result. */
const volatile bool have_write_exit = true;
/* Agent mode: invocations counted in rcl_agg, no records. */
const volatile bool aggregate = false;
/*
 * Agent mode: the functions that tell a trigger, in rank order (reclaim.c).
 * Written after the load, before the attach: the load need not wait for the
 * kernel's symbols to be read. Two sets, trig_set naming the one in force:
 * user space replaces the first it wrote (from the kernel's name lookup) by
 * filling the other and switching, so no invocation reads half of each.
 */
struct rs_reclaim_trig_range trig_ranges[2][RS_RECLAIM_TRIG_RANGES];
__u32 trig_set;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RS_RECLAIM_AGG_MAX_ENTRIES);
	__type(key, struct rs_reclaim_agg_key);
	__type(value, struct rs_total_val);
} rcl_agg SEC(".maps");

/* The swappiness the last invocation of a (cgroup, trigger) asked for; a gauge, not summed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RS_RECLAIM_AGG_MAX_ENTRIES);
	__type(key, struct rs_reclaim_agg_key);
	__type(value, __s32);
} rcl_swappiness SEC(".maps");

struct rcl_state {
	struct rs_reclaim_event ev;
	__u8 in_pass;		/* between begin and end */
	__u8 open;		/* a record is being built */
	__u8 in_write;		/* the record waits for the write to return */
	__u8 entry_valid;	/* fentry saw the call the next begin belongs to */
	__s32 entry_swappiness;
	__u64 entry_memcg;
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rcl_state);
} rcl_tasks SEC(".maps");

/* Before 6.15 a kernfs node's parent was "parent". */
struct kernfs_node___old {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(kn->__parent))
		return BPF_CORE_READ(kn, __parent);
	return BPF_CORE_READ((struct kernfs_node___old *)kn, parent);
}

static __always_inline __u64 task_memcg_id(struct task_struct *task)
{
	struct css_set *cset = BPF_CORE_READ(task, cgroups);
	struct cgroup *cg;
	int ssid = memcg_ssid;

	if (ssid < 0)
		cg = BPF_CORE_READ(cset, dfl_cgrp);
	else if (ssid < 16)
		cg = BPF_CORE_READ(cset, subsys[ssid], cgroup);
	else
		return 0;
	return BPF_CORE_READ(cg, kn, id);
}

/*
 * The cgroup control file this task is writing, when its current system
 * call is write(2) on one: the cgroup is the file's parent directory.
 */
static __always_inline struct file *cgroup_write_file(struct task_struct *task, struct pt_regs *regs)
{
	unsigned int fd = (unsigned int)PT_REGS_PARM1_CORE(regs);
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	unsigned int max = BPF_CORE_READ(task, files, fdt, max_fds);
	struct file *f = NULL;
	unsigned long magic;

	if (fd >= max)
		return NULL;
	bpf_core_read(&f, sizeof(f), &fds[fd]);
	if (!f)
		return NULL;
	magic = BPF_CORE_READ(f, f_path.dentry, d_sb, s_magic);
	return magic == CGROUP_SUPER_MAGIC || magic == CGROUP2_SUPER_MAGIC ? f : NULL;
}

/* Is the cgroup of kernfs node kn inside the --target-cgroup subtree? */
static __always_inline bool target_in_filter(struct kernfs_node *kn)
{
	if (!target_cgroup_id)
		return true;
	for (int i = 0; i < 32 && kn; i++) {
		if (BPF_CORE_READ(kn, id) == target_cgroup_id)
			return true;
		kn = kn_parent(kn);
	}
	return false;
}

/* The kernfs node of the task's memory cgroup (the one a charge reclaims). */
static __always_inline struct kernfs_node *task_memcg_kn(struct task_struct *task)
{
	struct css_set *cset = BPF_CORE_READ(task, cgroups);
	int ssid = memcg_ssid;

	if (ssid < 0)
		return BPF_CORE_READ(cset, dfl_cgrp, kn);
	if (ssid < 16)
		return BPF_CORE_READ(cset, subsys[ssid], cgroup, kn);
	return NULL;
}

static __always_inline void open_record(void *ctx, struct rcl_state *st, struct task_struct *task,
					bool global)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long n;

	__builtin_memset(&st->ev, 0, sizeof(st->ev));
	st->open = 1;
	st->in_write = 0;
	st->start_ns = bpf_ktime_get_ns();
	st->ev.min_priority = -1;
	st->ev.task_cgroup_id = task_memcg_id(task);
	st->ev.target_cgroup_id = st->ev.task_cgroup_id;
	if (global)
		st->ev.flags |= RS_RECLAIM_F_GLOBAL;
	n = bpf_get_stack(ctx, st->ev.kstack, sizeof(st->ev.kstack), 0);
	st->ev.nr_kstack = n > 0 ? n / sizeof(__u64) : 0;

	if (!global && BPF_CORE_READ(regs, orig_ax) == NR_WRITE) {
		struct file *f = cgroup_write_file(task, regs);
		__u64 len = PT_REGS_PARM3_CORE(regs);

		if (f) {
			struct dentry *dir = BPF_CORE_READ(f, f_path.dentry, d_parent);

			/* Without the syscall tracepoint each pass is its own record. */
			st->in_write = have_write_exit;
			/* kernfs keeps a directory's node in its inode's i_private. */
			struct kernfs_node *kn = BPF_CORE_READ(dir, d_inode, i_private);

			st->ev.flags |= RS_RECLAIM_F_WRITE;
			st->ev.target_cgroup_id = BPF_CORE_READ(dir, d_inode, i_ino);
			if (len > RS_RECLAIM_REQ_LEN - 1)
				len = RS_RECLAIM_REQ_LEN - 1;
			st->ev.req_len = len;
			bpf_probe_read_user(st->ev.req, len & (RS_RECLAIM_REQ_LEN - 1),
					    (void *)PT_REGS_PARM2_CORE(regs));
			if (!target_in_filter(kn))
				st->open = 0;
		}
	}
}

/* One invocation into a row of counters (RS_RECLAIM_TOTAL_* order): totals and agent rows alike. */
static __always_inline void add_counts(struct rs_total_val *v, const struct rcl_state *st, __u64 ns)
{
	v->c[RS_RECLAIM_TOTAL_CALLS]++;
	v->c[RS_RECLAIM_TOTAL_FAILED] += (st->ev.flags & RS_RECLAIM_F_WRITE) && st->ev.write_ret < 0;
	v->c[RS_RECLAIM_TOTAL_RECLAIMED_ANON] += st->ev.reclaimed_anon;
	v->c[RS_RECLAIM_TOTAL_RECLAIMED_FILE] += st->ev.reclaimed_file;
	v->c[RS_RECLAIM_TOTAL_SCANNED_ANON] += st->ev.scanned_anon;
	v->c[RS_RECLAIM_TOTAL_SCANNED_FILE] += st->ev.scanned_file;
	v->c[RS_RECLAIM_TOTAL_NS] += ns;
}

/* Exact per-target-cgroup totals, counted whether or not the record fits the ring. */
static __always_inline void count_total(const struct rcl_state *st, __u64 ns)
{
	__u64 id = st->ev.target_cgroup_id;
	struct rs_total_key key = { .k1 = (__u32)id, .k2 = (__u32)(id >> 32) };
	struct rs_total_val *v = rs_total_row(&key);

	if (v)
		add_counts(v, st, ns);
}

/*
 * The trigger a reclaim's kernel stack shows: the best-ranked function found
 * on it. Ranks outside, frames inside, so the first hit is the answer. One
 * bpf_loop step per (rank, frame), its callback verified once: the nested
 * loop inlined took the verifier ~45 ms in each of the four programs that
 * end a reclaim.
 */
struct trig_scan {
	__u64 kstack[RS_RECLAIM_MAX_KSTACK];
	__u32 n;
	__u32 set;		/* trig_set as the scan began */
	__u8 trigger;
};

static long trig_step(__u64 i, struct trig_scan *t)
{
	__u32 r = (__u32)(i / RS_RECLAIM_MAX_KSTACK), f = (__u32)(i % RS_RECLAIM_MAX_KSTACK);
	const struct rs_reclaim_trig_range *range;

	if (r >= RS_RECLAIM_TRIG_RANGES)
		return 1;
	range = &trig_ranges[t->set & 1][r];
	if (range->start == range->end || f >= t->n)
		return 0;
	if (t->kstack[f] >= range->start && t->kstack[f] < range->end) {
		t->trigger = (__u8)range->trigger;
		return 1;
	}
	return 0;
}

static __always_inline __u8 stack_trigger(const struct rcl_state *st)
{
	struct trig_scan t = { .n = st->ev.nr_kstack, .trigger = RS_RECLAIM_TRIG_UNKNOWN,
			       .set = trig_set };

	__builtin_memcpy(t.kstack, st->ev.kstack, sizeof(t.kstack));
	bpf_loop(RS_RECLAIM_TRIG_RANGES * RS_RECLAIM_MAX_KSTACK, trig_step, &t, 0);
	return t.trigger;
}

/*
 * The request's scan keeps its text and state in a per-CPU scratch slot, not
 * on the stack: the verifier follows stack values exactly, and since it
 * checks a bpf_loop callback once per distinct state it reaches, a parser
 * state on the stack had it check the step some 65 times over (60-80 ms in
 * each of the four programs that end a reclaim). Loaded from a map, the
 * state is any value to it, and one pass covers the step.
 */
struct req_scan_ctx {
	struct rs_req_scan scan;
	__u32 len;
	char text[RS_RECLAIM_REQ_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct req_scan_ctx);
} rcl_req_scan SEC(".maps");

static long req_scan_step(__u64 i, void *unused)
{
	__u32 zero = 0;
	struct req_scan_ctx *c = bpf_map_lookup_elem(&rcl_req_scan, &zero);
	char ch = 0;

	if (!c)
		return 1;
	if (i < c->len && i < RS_RECLAIM_REQ_LEN)
		ch = c->text[i];
	return rs_req_scan_step(&c->scan, ch);
}

/* One scan of st's request in the scratch slot c; false when the task was switched out meanwhile. */
static __always_inline bool request_scan(struct task_struct *task, const struct rcl_state *st,
					 struct req_scan_ctx *c)
{
	__u64 switches = rs_task_switches(task);

	rs_req_scan_init(&c->scan);
	c->len = st->ev.req_len;
	__builtin_memcpy(c->text, st->ev.req, sizeof(c->text));
	/* One step more than the text: its end closes a number that runs to it. */
	bpf_loop(RS_RECLAIM_REQ_LEN + 1, req_scan_step, NULL, 0);
	return rs_task_switches(task) == switches;
}

/*
 * The swappiness= of an accepted memory.reclaim request, -1: none
 * (reclaim_req.h). A scan another task may have shared the slot with
 * (rs_task_switches()) is done again, once: both cut short would take a
 * preemption inside each microsecond-long scan.
 */
static __always_inline int request_swappiness(const struct rcl_state *st)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0;
	struct req_scan_ctx *c = bpf_map_lookup_elem(&rcl_req_scan, &zero);

	if (!c)
		return -1;
	if (request_scan(task, st, c) || request_scan(task, st, c))
		return c->scan.found;
	return -1;
}

/* key's row; with the map full, the "other" row (key is changed to it); NULL counted as a drop. */
static __always_inline struct rs_total_val *agg_row(struct rs_reclaim_agg_key *key)
{
	struct rs_total_val *v = rs_map_row(&rcl_agg, key);

	if (v)
		return v;
	key->cgroup_id = 0;
	key->trigger = RS_RECLAIM_AGG_OTHER;
	v = rs_map_row(&rcl_agg, key);
	if (!v)
		rs_count_drop_slot(RS_DROP_TOTALS);
	return v;
}

/*
 * Agent mode: one invocation into its (target cgroup, trigger) row and
 * duration slot. from_write: the record is a memory.reclaim write's,
 * closed by its return; only those carry a request to read, and only
 * write_returned() passes true, so the three programs that end other
 * reclaims hold no scan of it (the verifier checked the scan's two loops
 * in all four: about 2,000 instructions each).
 */
static __always_inline void count_trigger(const struct rcl_state *st, __u64 ns, bool from_write)
{
	struct rs_reclaim_agg_key key = {
		.cgroup_id = st->ev.target_cgroup_id,
		.trigger = stack_trigger(st),
	};
	struct rs_total_val *v = agg_row(&key);
	__s32 sw = -1;

	if (!v)
		return;
	add_counts(v, st, ns);
	/* What the request asked for, as ringside_reclaim_request_swappiness() reads it. */
	if (from_write && key.trigger == RS_RECLAIM_TRIG_PROACTIVE &&
	    (st->ev.flags & RS_RECLAIM_F_WRITE) && st->ev.write_ret >= 0)
		sw = request_swappiness(st);
	if (sw < 0 && (st->ev.flags & RS_RECLAIM_F_FENTRY))
		sw = st->ev.swappiness_arg;
	bpf_map_update_elem(&rcl_swappiness, &key, &sw, BPF_ANY);

	/* The duration goes with the row the counters went to (theirs, or other). */
	key.kind = RS_RECLAIM_AGG_DURATION;
	key.slot = rs_log2_slot(ns);
	v = agg_row(&key);
	if (v)
		v->c[0]++;
}

/* The record st ends: from_write as count_trigger() takes it. */
static __always_inline void emit(struct rcl_state *st, bool from_write)
{
	/* One clock reading: the totals, the agent's rows and the record agree. */
	__u64 ns = bpf_ktime_get_ns() - st->start_ns;

	count_total(st, ns);
	st->open = 0;
	if (aggregate) {
		count_trigger(st, ns, from_write);
		return;
	}
	/* The task's draft is the record: the helper copies it whole. */
	st->ev.duration_ns = ns;
	rs_output(&st->ev.hdr, sizeof(st->ev), RS_EV_RECLAIM, false);
}

static __always_inline int begin(void *ctx, bool global)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st;

	/* --cgroup (like -p, --comm) selects the task: the writer or the charger. */
	if (!rs_filter_pass())
		return 0;
	st = bpf_task_storage_get(&rcl_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	if (!st->open || !st->in_write) {
		open_record(ctx, st, task, global);
		/*
		 * --target-cgroup: a write to a control file was matched by the
		 * written cgroup; charge reclaim takes from the charging task's
		 * memory cgroup; global reclaim targets no cgroup.
		 */
		if (st->open && !(st->ev.flags & RS_RECLAIM_F_WRITE) && target_cgroup_id &&
		    (global || !target_in_filter(task_memcg_kn(task))))
			st->open = 0;
	}
	if (!st->open)
		return 0;
	st->in_pass = 1;
	st->ev.passes++;
	if (st->entry_valid && !global) {
		st->ev.flags |= RS_RECLAIM_F_FENTRY;
		st->ev.reclaim_memcg_id = st->entry_memcg;
		st->ev.swappiness_arg = st->entry_swappiness;
	}
	st->entry_valid = 0;
	return 0;
}

static __always_inline int end(unsigned long nr_reclaimed)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st = bpf_task_storage_get(&rcl_tasks, task, 0, 0);

	if (!st || !st->open || !st->in_pass)
		return 0;
	st->in_pass = 0;
	st->ev.nr_reclaimed += nr_reclaimed;
	if (!st->in_write)
		emit(st, false);	/* a write's record ends at its return */
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(reclaim_memcg_begin)
{
	return begin(ctx, false);
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(reclaim_memcg_end, unsigned long nr_reclaimed)
{
	return end(nr_reclaimed);
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(reclaim_direct_begin)
{
	return begin(ctx, true);
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(reclaim_direct_end, unsigned long nr_reclaimed)
{
	return end(nr_reclaimed);
}

/* Scanning by kswapd has no begin/end: its record spans a run, to kswapd_sleep. */
static __always_inline struct rcl_state *scanning_state(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st;

	if (BPF_CORE_READ(task, flags) & PF_KSWAPD) {
		/* kswapd is in no cgroup and reclaims for none. */
		if (!rs_filter_pass() || target_cgroup_id)
			return NULL;
		st = bpf_task_storage_get(&rcl_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (st && !st->open) {
			open_record(ctx, st, task, true);
			st->in_pass = 1;
			st->ev.passes = 1;
		}
		return st;
	}
	st = bpf_task_storage_get(&rcl_tasks, task, 0, 0);
	return st && st->open && st->in_pass ? st : NULL;
}

static __always_inline void note_priority(struct rcl_state *st, int priority)
{
	if (st->ev.min_priority < 0 || priority < st->ev.min_priority)
		st->ev.min_priority = priority;
}

SEC("tp_btf/mm_vmscan_lru_shrink_inactive")
int BPF_PROG(reclaim_shrink_inactive, int nid, unsigned long nr_scanned, unsigned long nr_reclaimed,
	     void *stat, int priority, int file)
{
	struct rcl_state *st = scanning_state(ctx);

	if (!st)
		return 0;
	if (file) {
		st->ev.scanned_file += nr_scanned;
		st->ev.reclaimed_file += nr_reclaimed;
	} else {
		st->ev.scanned_anon += nr_scanned;
		st->ev.reclaimed_anon += nr_reclaimed;
	}
	note_priority(st, priority);
	return 0;
}

SEC("tp_btf/mm_vmscan_lru_shrink_active")
int BPF_PROG(reclaim_shrink_active, int nid, unsigned long nr_taken, unsigned long nr_active,
	     unsigned long nr_deactivated, unsigned long nr_referenced, int priority, int file)
{
	struct rcl_state *st = scanning_state(ctx);

	if (!st)
		return 0;
	if (file) {
		st->ev.active_scanned_file += nr_taken;
		st->ev.deactivated_file += nr_deactivated;
	} else {
		st->ev.active_scanned_anon += nr_taken;
		st->ev.deactivated_anon += nr_deactivated;
	}
	note_priority(st, priority);
	return 0;
}

SEC("tp_btf/mm_vmscan_kswapd_sleep")
int BPF_PROG(reclaim_kswapd_sleep)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st = bpf_task_storage_get(&rcl_tasks, task, 0, 0);

	if (!st || !st->open)
		return 0;
	st->in_pass = 0;
	st->ev.nr_reclaimed = st->ev.reclaimed_anon + st->ev.reclaimed_file;
	if (st->ev.scanned_anon + st->ev.scanned_file + st->ev.active_scanned_anon +
	    st->ev.active_scanned_file)
		emit(st, false);
	st->open = 0;
	return 0;
}

/* The write that asked for reclaim returns: its result closes the record. */
static __always_inline void write_returned(long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st = bpf_task_storage_get(&rcl_tasks, task, 0, 0);

	if (!st || !st->open || !st->in_write)
		return;
	st->ev.write_ret = ret;
	st->in_write = 0;
	emit(st, true);
}

/* Where tracefs shows the write syscall's own tracepoint: only writes pay. */
SEC("tracepoint/syscalls/sys_exit_write")
int reclaim_write_exit(struct trace_event_raw_sys_exit *args)
{
	write_returned(args->ret);
	return 0;
}

/*
 * Without it (tracefs not mounted, or no CONFIG_FTRACE_SYSCALLS): the raw
 * syscall-exit tracepoint, which needs no tracefs; every syscall exit runs
 * this, and only a write looks further.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(reclaim_sys_exit, struct pt_regs *regs, long ret)
{
	if (regs->orig_ax == NR_WRITE)
		write_returned(ret);
	return 0;
}

static __always_inline void fentry_saw(struct mem_cgroup *memcg, int sw)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rcl_state *st = bpf_task_storage_get(&rcl_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!st)
		return;
	st->entry_swappiness = sw;
	st->entry_memcg = BPF_CORE_READ(memcg, css.cgroup, kn, id);
	st->entry_valid = 1;
}

/*
 * Where the kernel allows fentry and its BTF has the 6.11+ signature: the
 * memcg really reclaimed from and the swappiness argument, straight from the
 * call.
 */
SEC("fentry/try_to_free_mem_cgroup_pages")
int BPF_PROG(reclaim_fentry_tfmcp, struct mem_cgroup *memcg, unsigned long nr_pages, gfp_t gfp,
	     unsigned int options, int *swappiness)
{
	int sw = -1;

	if (swappiness)
		bpf_probe_read_kernel(&sw, sizeof(sw), swappiness);
	fentry_saw(memcg, sw);
	return 0;
}

/* Before 6.11 (no swappiness argument): the memcg alone. */
SEC("fentry/try_to_free_mem_cgroup_pages")
int BPF_PROG(reclaim_fentry4_tfmcp, struct mem_cgroup *memcg, unsigned long nr_pages, gfp_t gfp,
	     unsigned int options)
{
	fentry_saw(memcg, -1);
	return 0;
}
