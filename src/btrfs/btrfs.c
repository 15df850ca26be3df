// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The btrfs collector: tracepoints, optional fexit timing, trigger from stacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_int.h"
#include "ringside/btrfs.h"
#include "ksyms.h"
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

	b->skel = btrfs_bpf__open();
	if (!b->skel)
		return rs_fail(c->s, -errno, "btrfs: cannot open BPF object");
	c->obj = b->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&b->skel->rodata->rs_filter);
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
	return rs_collector_attach_all(c, NULL);
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
	free(b);
}

const struct rs_collector_ops rs_btrfs_ops = {
	.name = "btrfs",
	.parts = btrfs_parts,
	.nr_parts = RS_NR(btrfs_parts),
	.load = btrfs_load,
	.attach = btrfs_attach,
	.destroy = btrfs_destroy,
	.release = btrfs_release,
};

int ringside_session_enable_btrfs(struct ringside_session *s, const struct ringside_btrfs_opts *opts)
{
	struct rs_btrfs *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
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
