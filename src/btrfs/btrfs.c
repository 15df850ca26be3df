// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The btrfs collector: tracepoints, optional fexit timing, trigger from stacks. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_int.h"
#include "ringside/btrfs.h"
#include "ksyms.h"
#include "metrics_int.h"
#include "mountinfo.h"
#include "btrfs.skel.h"

/* A block group between queue-reclaim (or relocate) and its removal. */
struct bg_track {
	uint8_t fsid[16];
	uint64_t bytenr;
	uint64_t queued_ns, relocate_ns, used;
};

#define MAX_TRACKED 4096

struct rs_btrfs {
	struct btrfs_bpf *skel;
	struct bg_track *tracked;
	size_t nr_tracked;
	uint8_t fsid[16];
	bool want_fsid;
	bool reloc_timing;
	struct rs_ksyms *ksyms;
	bool aggregate;
	struct bg_agg *agg;		/* aggregate: by filesystem and space_info type */
	unsigned int nr_agg;
};

#define MAX_AGG_FS 64

/* One filesystem's space_info type: what its block groups went through. */
struct bg_agg {
	uint8_t fsid[16];
	unsigned int type;		/* enum ringside_btrfs_type */
	uint64_t kinds[RS_BTRFS_KIND_MAX];
	uint64_t relocations, relocated_bytes;	/* by the reclaim worker */
	uint64_t balance_removals;		/* block groups a balance relocated and removed */
	uint64_t slots[RINGSIDE_HIST_SLOTS];	/* relocation duration, log2 ns */
	uint64_t sum_ns;
};

/*
 * Functions on the kernel stack that say why a block group moved, in order
 * of priority: a sweep or balance explains everything below it.
 */
static const struct rs_ksym_tag trigger_funcs[] = {
	{ "btrfs_reclaim_sweep", RS_BTRFS_TRIG_PERIODIC },
	{ "btrfs_balance", RS_BTRFS_TRIG_BALANCE },
	{ "btrfs_reclaim_bgs_work", RS_BTRFS_TRIG_AUTO_RECLAIM },
	{ "btrfs_delete_unused_bgs", RS_BTRFS_TRIG_UNUSED },
	{ "btrfs_update_block_group", RS_BTRFS_TRIG_THRESHOLD },
	{ "btrfs_chunk_alloc", RS_BTRFS_TRIG_ALLOC },
};

/* ---- loading: program variants as data (variants.h) ----------------------- */

static const struct rs_variant event_variants[] = {
	{ "tp_btf", RINGSIDE_FEAT_TP_BTF, NULL, NULL, "btrfs_btf_",
	  "BTF tracepoints: typed arguments" },
	{ "raw_tp", RINGSIDE_FEAT_RAW_TP, NULL, NULL, "btrfs_raw_",
	  "raw tracepoints" },
};

static const struct rs_variant timing_variants[] = {
	{ "fexit", RINGSIDE_FEAT_FENTRY, "btrfs_relocate_block_group", "btrfs", "btrfs_reloc_",
	  "relocation times from btrfs_relocate_block_group's entry and exit" },
	{ "tracepoints", RINGSIDE_FEAT_COUNT, NULL, NULL, "",
	  "relocation times from the block-group tracepoints" },
};

enum { PART_EVENTS, PART_TIMING };

static const struct rs_part btrfs_parts[] = {
	[PART_EVENTS] = { "block-group events", event_variants, RS_NR(event_variants) },
	[PART_TIMING] = { "relocation timing", timing_variants, RS_NR(timing_variants) },
};

static int btrfs_load(struct rs_collector *c)
{
	struct rs_btrfs *b = c->priv;
	int err;

	b->skel = btrfs_bpf__open_opts(rs_collector_open_opts(c, btrfs_bpf__elf_bytes));
	if (!b->skel)
		return rs_fail(c->s, -errno, "btrfs: cannot open BPF object");
	c->obj = b->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&b->skel->rodata->rs_filter,
				   btrfs_bpf__elf_bytes);
	if (err)
		return err;
	if (b->want_fsid)
		memcpy((void *)b->skel->rodata->want_fsid, b->fsid, 16);
	b->reloc_timing = rs_collector_variant(c, PART_TIMING) == 0;
	err = btrfs_bpf__load(b->skel);
	if (err == -ENOENT || err == -ESRCH)
		return rs_fail(c->s, -RINGSIDE_ERR_KERNEL, "btrfs: the kernel has no btrfs tracepoints "
			       "(btrfs not built in and its module not loaded?)");
	return err ? rs_load_failed(c, err) : 0;
}

static int btrfs_attach(struct rs_collector *c)
{
	struct rs_btrfs *b = c->priv;
	int err = rs_collector_attach_all(c, NULL);

	/*
	 * Records name their trigger from here on: the symbols are read
	 * meanwhile. Not in agent mode, whose other collectors are still
	 * starting on the two CPUs (its 38 ms would slow gcm's start by ~9):
	 * there the first block-group record, rare, reads them.
	 */
	if (!err && !b->aggregate)
		rs_ksyms_start(b->ksyms);
	return err;
}

static void btrfs_destroy(struct rs_collector *c)
{
	struct rs_btrfs *b = c->priv;

	btrfs_bpf__destroy(b->skel);
	b->skel = NULL;
}

static void btrfs_release(struct rs_collector *c)
{
	struct rs_btrfs *b = c->priv;

	rs_ksyms_free(b->ksyms);
	free(b->tracked);
	free(b->agg);
	free(b);
}

/* ---- aggregate mode and the exposition ---------------------------------------- */

enum ringside_btrfs_type ringside_btrfs_flags_type(uint64_t flags)
{
	/* BTRFS_BLOCK_GROUP_DATA 1, SYSTEM 2, METADATA 4 (mixed groups count as data). */
	return flags & 1 ? RINGSIDE_BTRFS_DATA : flags & 4 ? RINGSIDE_BTRFS_METADATA :
							     RINGSIDE_BTRFS_SYSTEM;
}

static struct bg_agg *agg_of(struct rs_btrfs *b, const uint8_t fsid[16], unsigned int type)
{
	for (unsigned int i = 0; i < b->nr_agg; i++)
		if (b->agg[i].type == type && !memcmp(b->agg[i].fsid, fsid, 16))
			return &b->agg[i];
	if (!b->agg && !(b->agg = calloc(MAX_AGG_FS * 3, sizeof(*b->agg))))
		return NULL;
	if (b->nr_agg == MAX_AGG_FS * 3)
		return NULL;
	memcpy(b->agg[b->nr_agg].fsid, fsid, 16);
	b->agg[b->nr_agg].type = type;
	return &b->agg[b->nr_agg++];
}

static int btrfs_inspect(struct rs_collector *c, const struct rs_event_hdr *ev, size_t size)
{
	const struct rs_btrfs_event *e = (const void *)ev;
	struct rs_btrfs *b = c->priv;
	struct ringside_btrfs_timing tm;
	struct bg_agg *a;

	if (!b->aggregate || ev->type != RS_EV_BTRFS_BG || size < sizeof(*e))
		return 0;
	a = agg_of(b, e->fsid, ringside_btrfs_flags_type(e->flags));
	if (!a || e->kind >= RS_BTRFS_KIND_MAX)
		return 0;
	a->kinds[e->kind]++;
	if (e->kind == RS_BTRFS_RECLAIM) {	/* the reclaim worker relocates a block group */
		a->relocations++;
		a->relocated_bytes += e->used;
	}
	/* A balance relocates without the reclaim tracepoints: its removals say it. */
	if (e->kind == RS_BTRFS_REMOVE && ringside_btrfs_trigger(c->s, e) == RS_BTRFS_TRIG_BALANCE)
		a->balance_removals++;
	/* fexit's own duration where attached, else relocation start to removal. */
	if (e->kind == RS_BTRFS_RELOC_DONE && e->duration_ns) {
		a->slots[ringside_hist_slot(e->duration_ns)]++;
		a->sum_ns += e->duration_ns;
	}
	if (ringside_btrfs_track(c->s, e, &tm) && tm.relocate_to_removed_ns && !b->reloc_timing) {
		a->slots[ringside_hist_slot(tm.relocate_to_removed_ns)]++;
		a->sum_ns += tm.relocate_to_removed_ns;
	}
	return 0;
}


struct threshold_walk {
	struct rs_family *pct;
};

/* The reclaim threshold in force for each space_info of each mounted btrfs. */
static int threshold_of_mount(void *ctx, const struct rs_mount_entry *m)
{
	struct threshold_walk *w = ctx;
	struct ringside_btrfs_fs fs;

	if (strcmp(m->fstype, "btrfs") || ringside_btrfs_fs_of_path(m->mp, &fs) ||
	    strcmp(fs.mountpoint, m->mp))	/* one line per filesystem: its own mount point */
		return 0;
	for (unsigned int t = 0; t < 3; t++) {
		struct rs_btrfs_space sp;
		struct ringside_btrfs_threshold th;
		const char *v[3] = { fs.mountpoint, ringside_btrfs_type_name(t), NULL };

		if (ringside_btrfs_space_read(&fs, t, &sp, NULL))
			continue;
		ringside_btrfs_threshold(&sp, &th);
		v[2] = th.dynamic ? "dynamic" : "fixed";
		rs_family_add(w->pct, v, th.pct);
	}
	return 0;
}

static int btrfs_metrics(struct rs_collector *c, struct rs_metrics *m)
{
	static const char *const fs_type[] = { "fs", "type", NULL };
	static const char *const fs_type_trig[] = { "fs", "type", "trigger", NULL };
	static const char *const fs_type_event[] = { "fs", "type", "event", NULL };
	static const char *const fs_type_mode[] = { "fs", "type", "mode", NULL };
	struct rs_btrfs *b = c->priv;
	struct threshold_walk w;
	struct rs_family *events, *relocs, *bytes, *dur;

	w.pct = rs_family_new(m, "ringside_btrfs_reclaim_threshold_percent", RS_GAUGE, NULL,
			      "Reclaim threshold in force, percent of a block group's size "
			      "(dynamic: computed as the kernel does; fixed: bg_reclaim_threshold).",
			      fs_type_mode, 1);
	rs_mountinfo_foreach(threshold_of_mount, &w);
	rs_family_end(w.pct);
	if (!b->aggregate)
		return 0;
	events = rs_family_new(m, "ringside_btrfs_block_group_events", RS_COUNTER, NULL,
			       "Block-group lifecycle events by kind.", fs_type_event, 1);
	relocs = rs_family_new(m, "ringside_btrfs_relocations", RS_COUNTER, NULL,
			       "Block groups relocated: by the reclaim worker (counted as it begins) "
			       "or by a balance (counted at their removal).", fs_type_trig, 1);
	bytes = rs_family_new(m, "ringside_btrfs_relocated_bytes", RS_COUNTER, "bytes",
			      "Bytes used in block groups the reclaim worker began to relocate.",
			      fs_type, 1);
	dur = rs_family_new(m, "ringside_btrfs_relocation_duration_seconds", RS_HISTOGRAM, "seconds",
			    "Relocation time of a block group.", fs_type, 1e-9);
	for (unsigned int i = 0; i < b->nr_agg; i++) {
		const struct bg_agg *a = &b->agg[i];
		struct ringside_btrfs_fs fs;
		char uuid[40];
		const char *v[3] = { uuid, ringside_btrfs_type_name(a->type), NULL };

		if (!ringside_btrfs_fs_of_fsid(a->fsid, &fs))
			v[0] = fs.mountpoint;
		else
			snprintf(uuid, sizeof(uuid), "unmounted");
		for (unsigned int k = 1; k < RS_BTRFS_KIND_MAX; k++) {
			v[2] = ringside_btrfs_kind_name(k);
			rs_family_add(events, v, (double)a->kinds[k]);
		}
		v[2] = "reclaim";
		rs_family_add(relocs, v, (double)a->relocations);
		v[2] = "balance";
		rs_family_add(relocs, v, (double)a->balance_removals);
		rs_family_add(bytes, v, (double)a->relocated_bytes);
		for (unsigned int s = 0; s < RINGSIDE_HIST_SLOTS; s++)
			if (a->slots[s])
				rs_family_observe(dur, v, s, a->slots[s], 0);
		rs_family_observe(dur, v, 0, 0, a->sum_ns / 1e9);
	}
	rs_family_end(events);
	rs_family_end(relocs);
	rs_family_end(bytes);
	rs_family_end(dur);
	return 0;
}

const struct rs_collector_ops rs_btrfs_ops = {
	.name = "btrfs",
	.parts = btrfs_parts,
	.nr_parts = RS_NR(btrfs_parts),
	.load = btrfs_load,
	.attach = btrfs_attach,
	.destroy = btrfs_destroy,
	.release = btrfs_release,
	.inspect = btrfs_inspect,
	.metrics = btrfs_metrics,
};

int ringside_session_enable_btrfs(struct ringside_session *s, const struct ringside_btrfs_opts *opts)
{
	struct rs_btrfs *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	b->aggregate = opts && opts->sz >= offsetof(struct ringside_btrfs_opts, aggregate) +
						 sizeof(opts->aggregate) && opts->aggregate;
	if (opts && opts->fs) {
		struct ringside_btrfs_fs fs;

		err = ringside_btrfs_fs_of_path(opts->fs, &fs);
		if (err) {
			free(b);
			if (err == -RINGSIDE_ERR_NOTBTRFS)
				return rs_fail(s, err, "%s is not on a btrfs filesystem", opts->fs);
			return rs_fail(s, err, "%s: %s", opts->fs, ringside_strerror(err));
		}
		memcpy(b->fsid, fs.fsid, 16);
		b->want_fsid = true;
	}
	err = rs_ksyms_load(trigger_funcs, sizeof(trigger_funcs) / sizeof(trigger_funcs[0]), &b->ksyms);
	if (err) {
		free(b);
		return rs_fail(s, err, "cannot read /proc/kallsyms: %s", ringside_strerror(err));
	}
	err = rs_session_add(s, &rs_btrfs_ops, b);
	if (err) {
		rs_ksyms_free(b->ksyms);
		free(b);
	}
	return err;
}

static struct rs_btrfs *btrfs_of(const struct ringside_session *s)
{
	for (const struct rs_collector *c = s ? s->collectors : NULL; c; c = c->next)
		if (c->ops == &rs_btrfs_ops)
			return c->priv;
	return NULL;
}

bool ringside_btrfs_has_reloc_timing(const struct ringside_session *s)
{
	const struct rs_btrfs *b = btrfs_of(s);

	return b && b->reloc_timing;
}

unsigned int ringside_btrfs_trigger(const struct ringside_session *s, const struct rs_btrfs_event *ev)
{
	const struct rs_btrfs *b = btrfs_of(s);
	unsigned int n = ev->nr_kstack < RS_BTRFS_MAX_KSTACK ? ev->nr_kstack : RS_BTRFS_MAX_KSTACK;

	return b ? rs_ksyms_stack_tag(b->ksyms, ev->kstack, n) : RS_BTRFS_TRIG_UNKNOWN;
}

static struct bg_track *track_find(struct rs_btrfs *b, const struct rs_btrfs_event *ev, bool add)
{
	for (size_t i = 0; i < b->nr_tracked; i++)
		if (b->tracked[i].bytenr == ev->bytenr && !memcmp(b->tracked[i].fsid, ev->fsid, 16))
			return &b->tracked[i];
	if (!add)
		return NULL;
	if (!b->tracked) {
		b->tracked = calloc(MAX_TRACKED, sizeof(*b->tracked));
		if (!b->tracked)
			return NULL;
	}
	/* Bounded: forget the oldest when a filesystem queues more than we keep. */
	if (b->nr_tracked == MAX_TRACKED) {
		memmove(b->tracked, b->tracked + 1, (MAX_TRACKED - 1) * sizeof(*b->tracked));
		b->nr_tracked--;
	}
	b->tracked[b->nr_tracked] = (struct bg_track){ .bytenr = ev->bytenr };
	memcpy(b->tracked[b->nr_tracked].fsid, ev->fsid, 16);
	return &b->tracked[b->nr_tracked++];
}

int ringside_btrfs_track(struct ringside_session *s, const struct rs_btrfs_event *ev,
			 struct ringside_btrfs_timing *out)
{
	struct rs_btrfs *b = btrfs_of(s);
	struct bg_track *t;

	memset(out, 0, sizeof(*out));
	if (!b || ev->hdr.type != RS_EV_BTRFS_BG)
		return 0;
	switch (ev->kind) {
	case RS_BTRFS_ADD_RECLAIM:
		t = track_find(b, ev, true);
		if (t && !t->queued_ns)
			t->queued_ns = ev->hdr.ts_ns;
		return 0;
	case RS_BTRFS_RECLAIM:
		t = track_find(b, ev, true);
		if (t) {
			t->relocate_ns = ev->hdr.ts_ns;
			t->used = ev->used;
		}
		return 0;
	case RS_BTRFS_REMOVE:
		t = track_find(b, ev, false);
		if (!t)
			return 0;
		if (t->queued_ns && t->relocate_ns)
			out->queued_to_relocate_ns = t->relocate_ns - t->queued_ns;
		if (t->relocate_ns)
			out->relocate_to_removed_ns = ev->hdr.ts_ns - t->relocate_ns;
		if (t->queued_ns)
			out->queued_to_removed_ns = ev->hdr.ts_ns - t->queued_ns;
		out->used_bytes = t->used;
		*t = b->tracked[--b->nr_tracked];
		return 1;
	case RS_BTRFS_RELOC_DONE:
		out->relocate_to_removed_ns = ev->duration_ns;
		return 1;
	}
	return 0;
}

const char *ringside_btrfs_kind_name(unsigned int kind)
{
	static const char *const names[RS_BTRFS_KIND_MAX] = {
		[RS_BTRFS_ADD_RECLAIM] = "queue-reclaim",
		[RS_BTRFS_RECLAIM] = "relocate",
		[RS_BTRFS_ADD_UNUSED] = "queue-unused",
		[RS_BTRFS_SKIP_UNUSED] = "skip-unused",
		[RS_BTRFS_REMOVE] = "remove",
		[RS_BTRFS_CHUNK_ALLOC] = "chunk-alloc",
		[RS_BTRFS_CHUNK_FREE] = "chunk-free",
		[RS_BTRFS_RELOC_DONE] = "relocated",
	};
	return kind < RS_BTRFS_KIND_MAX && names[kind] ? names[kind] : "?";
}

const char *ringside_btrfs_trigger_name(unsigned int trigger)
{
	static const char *const names[RS_BTRFS_TRIG_MAX] = {
		[RS_BTRFS_TRIG_UNKNOWN] = "-",
		[RS_BTRFS_TRIG_THRESHOLD] = "threshold",
		[RS_BTRFS_TRIG_PERIODIC] = "periodic",
		[RS_BTRFS_TRIG_AUTO_RECLAIM] = "auto-reclaim",
		[RS_BTRFS_TRIG_BALANCE] = "balance",
		[RS_BTRFS_TRIG_UNUSED] = "unused-cleanup",
		[RS_BTRFS_TRIG_ALLOC] = "allocation",
	};
	return trigger < RS_BTRFS_TRIG_MAX ? names[trigger] : "?";
}
