// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reclaim collector, memory.reclaim request parsing, memory cgroup lookups. */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "session_int.h"
#include "cgroup.h"
#include "ksym_lookup.h"
#include "ksyms.h"
#include "memcg_io.h"
#include "totals.h"
#include "metrics_int.h"
#include "ringside/reclaim.h"
#include "reclaim.skel.h"

#define MAX_CG_NAMES 1024

struct cg_name {
	uint64_t id;
	char path[256];
};

struct rs_reclaim {
	struct reclaim_bpf *skel;
	uint64_t target_id;		/* --target-cgroup's kernfs id; 0: any */
	struct cg_name *names;		/* cgroup paths by id, for metric labels */
	unsigned int nr_names;
	bool aggregate;			/* agent mode: counted in rcl_agg by trigger, no records */
	struct rs_ksyms *ksyms;
	int memcg_ssid;			/* the v1 memory hierarchy's subsystem id; -1: v2 */
	/*
	 * Agent mode: the kernel's trigger ranges first come from its name
	 * lookup (ksym_lookup.h: microseconds), which finds only the first of
	 * static functions sharing a name; the walk that finds them all
	 * (30 ms) runs once the session is polled, every collector up, and
	 * replaces them if it differs. Its end is said either way (one line,
	 * "symbol walk" in it): until then the process has a read under way.
	 * Where the kernel cannot look names up, the walk came before the
	 * load, and the first poll says what it gave.
	 */
	enum { TRIG_SAID, TRIG_WALK_DUE, TRIG_WALKING, TRIG_WALKED_AT_LOAD } trig_check;
	struct rs_ksym_range looked_up[RS_KSYM_LOOKUP_MAX];
	size_t nr_looked_up;
};

/* Most telling first: a write explains the charge path below it. */
static const struct rs_ksym_tag trigger_funcs[] = {
	{ "memory_reclaim", RS_RECLAIM_TRIG_PROACTIVE },
	{ "mem_cgroup_force_empty_write", RS_RECLAIM_TRIG_FORCE_EMPTY },
	{ "memory_max_write", RS_RECLAIM_TRIG_MAX_WRITE },
	{ "mem_cgroup_resize_max", RS_RECLAIM_TRIG_MAX_WRITE },
	{ "memory_high_write", RS_RECLAIM_TRIG_HIGH },
	{ "reclaim_high", RS_RECLAIM_TRIG_HIGH },
	{ "try_charge_memcg", RS_RECLAIM_TRIG_LIMIT },
	{ "kswapd", RS_RECLAIM_TRIG_KSWAPD },
	{ "balance_pgdat", RS_RECLAIM_TRIG_KSWAPD },
	{ "try_to_free_pages", RS_RECLAIM_TRIG_DIRECT },
};

/* ---- loading: program variants as data (variants.h) ----------------------- */

static const struct rs_variant target_variants[] = {
	{ "fentry", RINGSIDE_FEAT_FENTRY, "try_to_free_mem_cgroup_pages", NULL, "reclaim_fentry_",
	  "the reclaimed memcg and swappiness as try_to_free_mem_cgroup_pages received them",
	  .btf_min_params = 5 },
	/* Before 6.11 (and without the backport) the function has no swappiness argument. */
	{ "fentry-memcg", RINGSIDE_FEAT_FENTRY, "try_to_free_mem_cgroup_pages", NULL, "reclaim_fentry4_",
	  "the reclaimed memcg as try_to_free_mem_cgroup_pages received it; swappiness= "
	  "from the request text" },
	{ "tracepoints", RINGSIDE_FEAT_COUNT, NULL, NULL, "",
	  "the reclaimed memcg is the charging task's, swappiness= comes from the request text" },
};

/*
 * A write's reclaim passes are folded into one record closed by the write's
 * return: seen through syscalls/sys_exit_write where tracefs shows it, else
 * through the raw sys_exit tracepoint, else not at all.
 */
static const struct rs_variant write_variants[] = {
	{ "syscall-tracepoint", RINGSIDE_FEAT_SYSCALL_EXIT_TP, NULL, NULL, "reclaim_write_exit",
	  "a write's passes make one record with the write's result" },
	{ "raw-sys-exit", RINGSIDE_FEAT_TP_BTF, "btf_trace_sys_exit", NULL, "reclaim_sys_exit",
	  "a write's passes make one record, its result seen at the raw sys_exit tracepoint "
	  "every syscall exit passes through" },
	{ "none", RINGSIDE_FEAT_COUNT, NULL, NULL, "",
	  "a write's reclaim passes are reported one by one, without its result" },
};

enum { PART_TARGET, PART_WRITE };

static const struct rs_part reclaim_parts[] = {
	[PART_TARGET] = { "reclaim target", target_variants, RS_NR(target_variants) },
	[PART_WRITE] = { "write result", write_variants, RS_NR(write_variants) },
};

/*
 * Agent mode: the kernel tells triggers from the same functions the records
 * are read with: ranges (best rank first, as rs_ksyms_stack_tag() prefers
 * them) into the kernel's set, which is not in force yet.
 */
static void set_trigger_ranges(struct rs_collector *c, struct rs_reclaim *r, unsigned int set,
			       const struct rs_ksym_range *k, size_t n)
{
	struct rs_reclaim_trig_range *out = r->skel->bss->trig_ranges[set];

	/* 16 leave room for a few names that are several static functions. */
	for (size_t i = 0; i < RS_RECLAIM_TRIG_RANGES; i++)
		out[i] = i < n ? (struct rs_reclaim_trig_range){ k[i].start, k[i].end, k[i].tag, 0 }
			       : (struct rs_reclaim_trig_range){ 0 };
	/* Not seen on any kernel here; said, not dropped silently, if it happens. */
	if (n > RS_RECLAIM_TRIG_RANGES)
		rs_note(c->s, "reclaim: %zu trigger function ranges, the kernel table holds the "
			"best-ranked %d: invocations seen only under the others count as trigger "
			"unknown", n, RS_RECLAIM_TRIG_RANGES);
}

static bool same_ranges(const struct rs_ksym_range *a, size_t na, const struct rs_ksym_range *b,
			size_t nb)
{
	for (size_t i = 0; na == nb && i < na; i++)
		if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].tag != b[i].tag)
			return false;
	return na == nb;
}

/*
 * Agent mode, each poll: the walk started once every collector is up (not
 * to take a CPU from their starts), its answer put in force when it differs
 * from the name lookup's. Said when it does: invocations under a function
 * the lookup missed counted as trigger unknown until then.
 */
static void reclaim_poll(struct rs_collector *c)
{
	struct rs_reclaim *r = c->priv;
	const struct rs_ksym_range *k;
	size_t n;
	int err;

	if (r->trig_check == TRIG_WALK_DUE) {
		rs_ksyms_start(r->ksyms);
		r->trig_check = TRIG_WALKING;
		return;
	}
	if (r->trig_check == TRIG_SAID || !rs_ksyms_ready(r->ksyms))
		return;
	err = rs_ksyms_wait(r->ksyms);
	k = rs_ksyms_ranges(r->ksyms, &n);
	if (r->trig_check == TRIG_WALKED_AT_LOAD) {
		r->trig_check = TRIG_SAID;
		if (err)
			rs_note(c->s, "reclaim: the symbol walk failed (%s): every invocation counts "
				"as trigger unknown", ringside_strerror(err));
		else
			rs_note(c->s, "reclaim: %zu trigger function ranges from the symbol walk", n);
		return;
	}
	r->trig_check = TRIG_SAID;
	if (err) {
		rs_note(c->s, "reclaim: the symbol walk failed (%s): the trigger functions stay the "
			"name lookup's, the first function of each name", ringside_strerror(err));
		return;
	}
	if (same_ranges(k, n, r->looked_up, r->nr_looked_up)) {
		rs_note(c->s, "reclaim: the symbol walk confirmed the name lookup's %zu trigger "
			"function ranges", n);
		return;
	}
	set_trigger_ranges(c, r, 1, k, n);
	__atomic_store_n(&r->skel->bss->trig_set, 1, __ATOMIC_RELEASE);
	rs_note(c->s, "reclaim: the symbol walk found %zu trigger function ranges where the name "
		"lookup gave %zu (static functions sharing a name): counted with all from now, "
		"invocations under the others before counted as trigger unknown", n,
		r->nr_looked_up);
}

static int reclaim_load(struct rs_collector *c)
{
	struct rs_reclaim *r = c->priv;
	int err;

	r->skel = reclaim_bpf__open_opts(rs_collector_open_opts(c, reclaim_bpf__elf_bytes));
	if (!r->skel)
		return rs_fail(c->s, -errno, "reclaim: cannot open BPF object");
	c->obj = r->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&r->skel->rodata->rs_filter,
				   reclaim_bpf__elf_bytes);
	if (err)
		return err;
	/* Reclaim records are rare enough to hand over at once. */
	((struct rs_filter_cfg *)&r->skel->rodata->rs_filter)->wakeup_bytes = 0;
	r->skel->rodata->have_write_exit = rs_collector_variant(c, PART_WRITE) != 2;
	r->skel->rodata->target_cgroup_id = r->target_id;
	r->skel->rodata->aggregate = r->aggregate;
	r->skel->rodata->memcg_ssid = r->memcg_ssid;
	err = reclaim_bpf__load(r->skel);
	if (err)
		return rs_load_failed(c, err);
	/* Before anything is attached: no invocation is counted without its trigger. */
	if (r->aggregate && r->trig_check == TRIG_WALK_DUE) {
		set_trigger_ranges(c, r, 0, r->looked_up, r->nr_looked_up);
		rs_note(c->s, "reclaim: trigger functions by the kernel's name lookup (%zu of %zu "
			"names), the first function of each; the symbol walk that finds static "
			"functions sharing a name runs once the session is polled",
			r->nr_looked_up, RS_NR(trigger_funcs));
	} else if (r->aggregate) {
		size_t n;
		const struct rs_ksym_range *k = rs_ksyms_ranges(r->ksyms, &n);

		/* Failed, it gave none: the first poll says so. */
		set_trigger_ranges(c, r, 0, k, n);
	}
	return 0;
}

static int reclaim_attach(struct rs_collector *c)
{
	struct rs_reclaim *r = c->priv;
	int err = rs_collector_attach_all(c, rs_collector_variant(c, PART_TARGET) == 0 ?
						     r->skel->progs.reclaim_fentry_tfmcp :
						     r->skel->progs.reclaim_fentry4_tfmcp);

	/*
	 * Records name their trigger from here on: the symbols are read
	 * meanwhile. Not where the walk is due at the first poll (agent mode,
	 * the kernel's name lookup in force): its 50 ms of CPU would take one
	 * of the two CPUs the other collectors' loads are still using.
	 */
	if (!err && r->trig_check != TRIG_WALK_DUE)
		rs_ksyms_start(r->ksyms);
	return err;
}

static void reclaim_destroy(struct rs_collector *c)
{
	struct rs_reclaim *r = c->priv;

	reclaim_bpf__destroy(r->skel);
	r->skel = NULL;
}

static void reclaim_release(struct rs_collector *c)
{
	struct rs_reclaim *r = c->priv;

	rs_ksyms_free(r->ksyms);
	free(r->names);
	free(r);
}

/* ---- the exposition: families by target cgroup --------------------------- */

/* A cgroup's path by its id, looked up once (a walk of the hierarchy). */
static const char *cg_path(struct rs_reclaim *r, uint64_t id)
{
	static char fallback[32];

	for (unsigned int i = 0; i < r->nr_names; i++)
		if (r->names[i].id == id)
			return r->names[i].path;
	if (!r->names)
		r->names = calloc(MAX_CG_NAMES, sizeof(*r->names));
	if (r->names && r->nr_names < MAX_CG_NAMES) {
		struct cg_name *n = &r->names[r->nr_names];

		if (!ringside_memcg_path(id, n->path, sizeof(n->path))) {
			n->id = id;
			r->nr_names++;
			return n->path;
		}
	}
	snprintf(fallback, sizeof(fallback), "cgroup-id:%llu", (unsigned long long)id);
	return fallback;
}

int ringside_reclaim_request_swappiness(const struct rs_reclaim_event *e, unsigned int trigger,
					uint64_t *bytes)
{
	char req[RS_RECLAIM_REQ_LEN + 1];
	uint64_t asked = 0;
	int sw = -1;

	/* memory.reclaim asks for bytes; a limit write names the new limit. */
	if ((e->flags & RS_RECLAIM_F_WRITE) &&
	    (trigger == RS_RECLAIM_TRIG_PROACTIVE || trigger == RS_RECLAIM_TRIG_MAX_WRITE)) {
		memcpy(req, e->req, e->req_len < RS_RECLAIM_REQ_LEN ? e->req_len : RS_RECLAIM_REQ_LEN);
		req[e->req_len < RS_RECLAIM_REQ_LEN ? e->req_len : RS_RECLAIM_REQ_LEN] = '\0';
		req[strcspn(req, "\n")] = '\0';
		ringside_reclaim_parse_request(req, strlen(req), &asked, &sw);
	}
	if (sw < 0 && (e->flags & RS_RECLAIM_F_FENTRY) && e->swappiness_arg >= 0)
		sw = e->swappiness_arg;		/* the kernel's own argument */
	if (bytes)
		*bytes = asked;
	return sw;
}

enum { RF_CALLS, RF_FAILED, RF_RECLAIMED, RF_SCANNED, RF_SECONDS, NR_RF };

struct reclaim_expo {
	struct rs_reclaim *r;
	struct rs_family *fam[NR_RF];
};

static int reclaim_expo_row(void *ctx, const struct rs_total_key *k, const struct rs_total_val *v)
{
	struct reclaim_expo *e = ctx;
	const char *path = cg_path(e->r, (uint64_t)k->k2 << 32 | k->k1);
	const char *one[] = { path }, *anon[] = { path, "anon" }, *file[] = { path, "file" };

	rs_family_add(e->fam[RF_CALLS], one, (double)v->c[RS_RECLAIM_TOTAL_CALLS]);
	rs_family_add(e->fam[RF_FAILED], one, (double)v->c[RS_RECLAIM_TOTAL_FAILED]);
	rs_family_add(e->fam[RF_RECLAIMED], anon, (double)v->c[RS_RECLAIM_TOTAL_RECLAIMED_ANON] * 4096);
	rs_family_add(e->fam[RF_RECLAIMED], file, (double)v->c[RS_RECLAIM_TOTAL_RECLAIMED_FILE] * 4096);
	rs_family_add(e->fam[RF_SCANNED], anon, (double)v->c[RS_RECLAIM_TOTAL_SCANNED_ANON]);
	rs_family_add(e->fam[RF_SCANNED], file, (double)v->c[RS_RECLAIM_TOTAL_SCANNED_FILE]);
	rs_family_add(e->fam[RF_SECONDS], one, v->c[RS_RECLAIM_TOTAL_NS] / 1e9);
	return 0;
}

enum { TF_RECLAIMED, TF_SCANNED, TF_DURATION, TF_SWAPPINESS, NR_TF };

struct trigger_expo {
	struct rs_reclaim *r;
	int swappiness_fd;
	struct rs_family *fam[NR_TF];
};

/* Agent mode: one row of rcl_agg (counters or a duration slot of a cgroup and trigger). */
static int trigger_expo_row(void *ctx, const void *key, const struct rs_total_val *v)
{
	static const char *const types[] = { "anon", "file" };
	const struct rs_reclaim_agg_key *k = key;
	struct trigger_expo *e = ctx;
	bool other = k->trigger == RS_RECLAIM_AGG_OTHER;
	const char *labels[] = { other ? "__other__" : cg_path(e->r, k->cgroup_id),
				 other ? "__other__" : ringside_reclaim_trigger_name(k->trigger), NULL };
	int32_t sw = -1;

	if (k->kind == RS_RECLAIM_AGG_DURATION) {
		rs_family_observe(e->fam[TF_DURATION], labels, k->slot, v->c[0], 0);
		return 0;
	}
	rs_family_observe(e->fam[TF_DURATION], labels, 0, 0, v->c[RS_RECLAIM_TOTAL_NS] / 1e9);
	for (int t = 0; t < 2; t++) {
		labels[2] = types[t];
		rs_family_add(e->fam[TF_RECLAIMED], labels,
			      (double)v->c[RS_RECLAIM_TOTAL_RECLAIMED_ANON + t] * 4096);
		rs_family_add(e->fam[TF_SCANNED], labels, (double)v->c[RS_RECLAIM_TOTAL_SCANNED_ANON + t]);
	}
	labels[2] = NULL;
	/* -1: the request named none, so the cgroup's own setting was in force. */
	if (!other && !bpf_map_lookup_elem(e->swappiness_fd, k, &sw) && sw < 0)
		sw = ringside_memcg_swappiness(labels[0]);
	if (sw >= 0)
		rs_family_add(e->fam[TF_SWAPPINESS], labels, sw);
	return 0;
}

static int reclaim_trigger_families(struct rs_collector *c, struct rs_metrics *m)
{
	static const char *const cg_trig[] = { "cgroup", "trigger", NULL };
	static const char *const cg_trig_type[] = { "cgroup", "trigger", "type", NULL };
	struct trigger_expo e = { .r = c->priv,
				  .swappiness_fd = bpf_map__fd(e.r->skel->maps.rcl_swappiness) };
	int err;

	e.fam[TF_RECLAIMED] = rs_family_new(m, "ringside_reclaim_trigger_reclaimed_bytes", RS_COUNTER,
					    "bytes", "Bytes reclaimed, by trigger and LRU type.",
					    cg_trig_type, 1);
	e.fam[TF_SCANNED] = rs_family_new(m, "ringside_reclaim_trigger_scanned_pages", RS_COUNTER, NULL,
					  "Pages scanned, by trigger and LRU type.", cg_trig_type, 1);
	e.fam[TF_DURATION] = rs_family_new(m, "ringside_reclaim_duration_seconds", RS_HISTOGRAM,
					   "seconds", "Reclaim invocations by how long they took, by "
					   "trigger.", cg_trig, 1e-9);
	e.fam[TF_SWAPPINESS] = rs_family_new(m, "ringside_reclaim_swappiness", RS_GAUGE, NULL,
					     "Swappiness in force at the cgroup's last reclaim by this "
					     "trigger.", cg_trig, 1);
	err = rs_collector_rows(c, "rcl_agg", sizeof(struct rs_reclaim_agg_key), trigger_expo_row, &e);
	for (int i = 0; i < NR_TF; i++)
		rs_family_end(e.fam[i]);
	return err;
}

static int reclaim_metrics(struct rs_collector *c, struct rs_metrics *m)
{
	static const char *const cg[] = { "cgroup", NULL }, *const cg_type[] = { "cgroup", "type", NULL };
	struct reclaim_expo e = { .r = c->priv };
	int err;

	e.fam[RF_CALLS] = rs_family_new(m, "ringside_reclaim_invocations", RS_COUNTER, NULL,
					"Reclaim invocations by the memory cgroup reclaimed.", cg, 1);
	e.fam[RF_FAILED] = rs_family_new(m, "ringside_reclaim_failures", RS_COUNTER, NULL,
					 "memory.reclaim or limit writes that returned an error.", cg, 1);
	e.fam[RF_RECLAIMED] = rs_family_new(m, "ringside_reclaim_reclaimed_bytes", RS_COUNTER, "bytes",
					    "Bytes reclaimed, by LRU type.", cg_type, 1);
	e.fam[RF_SCANNED] = rs_family_new(m, "ringside_reclaim_scanned_pages", RS_COUNTER, NULL,
					  "Pages scanned, by LRU type.", cg_type, 1);
	e.fam[RF_SECONDS] = rs_family_new(m, "ringside_reclaim_time_seconds", RS_COUNTER, "seconds",
					  "Time spent in reclaim.", cg, 1);
	err = rs_collector_totals(c, reclaim_expo_row, &e);
	for (int i = 0; i < NR_RF; i++)
		rs_family_end(e.fam[i]);
	if (!err && e.r->aggregate)
		err = reclaim_trigger_families(c, m);
	return err;
}

const struct rs_collector_ops rs_reclaim_ops = {
	.name = "reclaim",
	.parts = reclaim_parts,
	.nr_parts = RS_NR(reclaim_parts),
	.load = reclaim_load,
	.attach = reclaim_attach,
	.destroy = reclaim_destroy,
	.release = reclaim_release,
	.metrics = reclaim_metrics,
	.poll = reclaim_poll,
};

struct reclaim_totals_walk {
	int (*fn)(void *ctx, const struct ringside_reclaim_total *t);
	void *ctx;
};

static int reclaim_total_row(void *ctx, const struct rs_total_key *k, const struct rs_total_val *v)
{
	struct reclaim_totals_walk *w = ctx;
	struct ringside_reclaim_total t = {
		.cgroup_id = (uint64_t)k->k2 << 32 | k->k1,
		.calls = v->c[RS_RECLAIM_TOTAL_CALLS],
		.failed = v->c[RS_RECLAIM_TOTAL_FAILED],
		.reclaimed_anon = v->c[RS_RECLAIM_TOTAL_RECLAIMED_ANON],
		.reclaimed_file = v->c[RS_RECLAIM_TOTAL_RECLAIMED_FILE],
		.scanned_anon = v->c[RS_RECLAIM_TOTAL_SCANNED_ANON],
		.scanned_file = v->c[RS_RECLAIM_TOTAL_SCANNED_FILE],
		.time_ns = v->c[RS_RECLAIM_TOTAL_NS],
	};

	return w->fn(w->ctx, &t);
}

int ringside_reclaim_totals(struct ringside_session *s,
			    int (*fn)(void *ctx, const struct ringside_reclaim_total *t), void *ctx)
{
	const struct rs_collector *c = rs_session_collector(s, &rs_reclaim_ops);
	struct reclaim_totals_walk w = { fn, ctx };

	if (!c || !c->obj)
		return -ENOTCONN;
	return rs_collector_totals(c, reclaim_total_row, &w);
}

int ringside_session_enable_reclaim(struct ringside_session *s,
				    const struct ringside_reclaim_opts *opts)
{
	const char *target = opts && opts->sz >= offsetof(struct ringside_reclaim_opts, target_cgroup) +
						   sizeof(opts->target_cgroup) ? opts->target_cgroup : NULL;
	struct rs_reclaim *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->aggregate = opts && opts->sz >= offsetof(struct ringside_reclaim_opts, aggregate) +
						 sizeof(opts->aggregate) && opts->aggregate;
	if (target && *target) {
		struct rs_cgroup_ref ref;

		err = rs_cgroup_resolve(target, &ref);
		if (err) {
			free(r);
			return rs_fail(s, err, "target cgroup %s: %s: give a memory cgroup directory or "
				       "its path as /proc/PID/cgroup shows it", target,
				       ringside_strerror(err));
		}
		/* A v1 directory of another controller's hierarchy would match no
		 * reclaim at all, silently. */
		if (!ref.v2 && ref.ssid != rs_cgroup_subsys_id("memory")) {
			free(r);
			return rs_fail(s, -RINGSIDE_ERR_NOMEMCG, "target cgroup %s is not in the memory "
				       "controller's hierarchy: give a directory under the v1 memory "
				       "mount (or a v2 cgroup)", target);
		}
		r->target_id = ref.id;
	}
	/* cgroup v2 only (no v1 memory hierarchy mounted): the default hierarchy.
	 * Asked now, while the session keeps the kernel's BTF parsed. */
	r->memcg_ssid = ringside_feature(RINGSIDE_FEAT_MEMCG_V1)->present ?
				rs_cgroup_subsys_id("memory") : -1;
	err = rs_ksyms_load(trigger_funcs, sizeof(trigger_funcs) / sizeof(trigger_funcs[0]), &r->ksyms);
	if (err) {
		free(r);
		return rs_fail(s, err, "cannot read /proc/kallsyms: %s", ringside_strerror(err));
	}
	/*
	 * Agent mode hands the ranges to the kernel before the attach: from
	 * the kernel's name lookup, else the walk, from now.
	 */
	if (r->aggregate && !rs_ksym_lookup_first(trigger_funcs, RS_NR(trigger_funcs), r->looked_up,
						  &r->nr_looked_up))
		r->trig_check = TRIG_WALK_DUE;
	else if (r->aggregate) {
		rs_ksyms_start(r->ksyms);
		r->trig_check = TRIG_WALKED_AT_LOAD;
	}
	err = rs_session_add(s, &rs_reclaim_ops, r);
	if (err) {
		rs_ksyms_free(r->ksyms);
		free(r);
	}
	return err;
}

unsigned int ringside_reclaim_trigger(const struct ringside_session *s,
				      const struct rs_reclaim_event *ev)
{
	unsigned int n = ev->nr_kstack < RS_RECLAIM_MAX_KSTACK ? ev->nr_kstack : RS_RECLAIM_MAX_KSTACK;

	for (const struct rs_collector *c = s ? s->collectors : NULL; c; c = c->next) {
		if (c->ops == &rs_reclaim_ops) {
			const struct rs_reclaim *r = c->priv;

			return rs_ksyms_stack_tag(r->ksyms, ev->kstack, n);
		}
	}
	return RS_RECLAIM_TRIG_UNKNOWN;
}

const char *ringside_reclaim_trigger_name(unsigned int trigger)
{
	static const char *const names[RS_RECLAIM_TRIG_MAX] = {
		[RS_RECLAIM_TRIG_UNKNOWN] = "unknown",
		[RS_RECLAIM_TRIG_PROACTIVE] = "memory.reclaim",
		[RS_RECLAIM_TRIG_MAX_WRITE] = "limit-write",
		[RS_RECLAIM_TRIG_FORCE_EMPTY] = "force_empty",
		[RS_RECLAIM_TRIG_HIGH] = "memory.high",
		[RS_RECLAIM_TRIG_LIMIT] = "charge-limit",
		[RS_RECLAIM_TRIG_DIRECT] = "direct",
		[RS_RECLAIM_TRIG_KSWAPD] = "kswapd",
	};
	return trigger < RS_RECLAIM_TRIG_MAX ? names[trigger] : "?";
}

/* ---- memory.reclaim requests ----------------------------------------------- */

/* The kernel's strstrip(): whitespace per isspace() off both ends. */
static void strip(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

/* memparse(): a C number (base 0) and an optional binary suffix. */
static size_t memparse_len(const char *s, size_t len, uint64_t *out)
{
	char buf[80], *end;
	unsigned long long v;
	size_t used;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* simple_strtoull takes no sign or leading space: neither is a number here. */
	if (!isdigit((unsigned char)buf[0]))
		return 0;
	v = strtoull(buf, &end, 0);
	used = (size_t)(end - buf);
	switch (*end) {
	case 'E': case 'e': v <<= 10; /* fall through */
	case 'P': case 'p': v <<= 10; /* fall through */
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; used++; break;
	default: break;
	}
	*out = v;
	return used;
}

int ringside_reclaim_parse_request(const char *text, size_t len, uint64_t *bytes, int *swappiness)
{
	const char *s = text;
	size_t used;

	*swappiness = -1;
	strip(&s, &len);
	used = memparse_len(s, len, bytes);
	if (!used)
		return -EINVAL;
	s += used;
	len -= used;
	strip(&s, &len);
	/* strsep on ' ': empty tokens (runs of spaces) are skipped. */
	while (len) {
		const char *sp = memchr(s, ' ', len);
		size_t tok = sp ? (size_t)(sp - s) : len;
		static const char key[] = "swappiness=";

		if (tok) {
			char num[32], *end;
			long v;

			if (tok <= sizeof(key) - 1 || memcmp(s, key, sizeof(key) - 1) ||
			    tok - (sizeof(key) - 1) >= sizeof(num))
				return -EINVAL;
			memcpy(num, s + sizeof(key) - 1, tok - (sizeof(key) - 1));
			num[tok - (sizeof(key) - 1)] = '\0';
			/* match_token's simple_strtol takes a '-' but no '+' or leading space. */
			if (!isdigit((unsigned char)num[0]) && num[0] != '-')
				return -EINVAL;
			errno = 0;
			v = strtol(num, &end, 0);
			if (errno || *end || end == num || v > INT_MAX || v < INT_MIN)
				return -EINVAL;
			if (v < 0 || v > 200)
				return -EINVAL;
			*swappiness = (int)v;
		}
		if (!sp)
			break;
		len -= tok + 1;
		s += tok + 1;
	}
	return 0;
}

/* ---- memory cgroups ------------------------------------------------------------ */

/* Where the memory controller's hierarchy is mounted (v1 "memory", else cgroup2). */
static int memcg_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[64], dir[256], type[32], optbuf[256];
	bool found = false;

	if (!f)
		return -errno;
	while (!found && fscanf(f, "%63s %255s %31s %255s %*d %*d", dev, dir, type, optbuf) == 4) {
		if (!strcmp(type, "cgroup") && strstr(optbuf, "memory")) {
			snprintf(buf, len, "%s", dir);
			found = true;
		}
	}
	if (!found) {
		rewind(f);
		while (!found && fscanf(f, "%63s %255s %31s %255s %*d %*d", dev, dir, type, optbuf) == 4) {
			if (!strcmp(type, "cgroup2")) {
				snprintf(buf, len, "%s", dir);
				found = true;
			}
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Depth-first search of a cgroup tree for the directory with inode number id. */
static bool find_dir_ino(char *path, size_t cap, uint64_t id, int depth)
{
	size_t base = strlen(path);
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (depth > 32 || !(d = opendir(path)))
		return false;
	while (!found && (de = readdir(d))) {
		struct stat st;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (base + 1 + strlen(de->d_name) + 1 > cap)
			continue;
		snprintf(path + base, cap - base, "/%s", de->d_name);
		if (!stat(path, &st) && (uint64_t)st.st_ino == id)
			found = true;
		else
			found = find_dir_ino(path, cap, id, depth + 1);
		if (!found)
			path[base] = '\0';
	}
	closedir(d);
	return found;
}

int ringside_memcg_path(uint64_t cgroup_id, char *buf, size_t len)
{
	struct stat st;
	int err = memcg_mount(buf, len);

	if (err)
		return err;
	if (!stat(buf, &st) && (uint64_t)st.st_ino == cgroup_id)
		return 0;
	return find_dir_ino(buf, len, cgroup_id, 0) ? 0 : -ENOENT;
}

int ringside_memcg_swappiness(const char *cgroup_path)
{
	char buf[32];

	if (cgroup_path && rs_read_file(cgroup_path, "memory.swappiness", buf, sizeof(buf)) > 0)
		return atoi(buf);
	if (rs_read_file("/proc/sys/vm", "swappiness", buf, sizeof(buf)) > 0)
		return atoi(buf);
	return -1;
}
