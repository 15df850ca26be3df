// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The AES-GCM collector: library discovery at enable, uprobes at attach,
 * probes for Go programs that start later, and the public summaries read
 * from the kernel's totals. (Over 500 lines: its attach has two mechanisms,
 * uprobe_multi links and perf-event uprobes, chosen as variants.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "session_int.h"
#include "split_load.h"
#include "gcm_libs.h"
#include "uprobe_multi.h"
#include "feature_prefetch.h"
#include "map_precreate.h"
#include "gcm_handles.h"
#include "totals.h"
#include "metrics_int.h"
#include "ringside/gcm.h"
#include "gcm.skel.h"

/* Go programs' programs: their names' common start. */
#define GO_PROGS "gcm_go_"

struct rs_gcm {
	struct gcm_libset set;
	struct gcm_bpf *skel;		/* its maps; its programs unless split */
	struct rs_split split;		/* where the programs loaded (split_load.h) */
	bool stacks;
	unsigned int stack_window;	/* stacks copied for DWARF unwinding: bytes */
	bool perf_uprobes;	/* asked for perf-event uprobes */
	bool classic;		/* perf-event uprobes: asked for, or the kernel lacks uprobe_multi */
	bool system_wide;
	bool watch_exec;	/* system-wide: probe Go programs that start later */
	bool go_later;		/* their programs load when the first one starts */
	bool aggregate;		/* agent mode: counted in gcm_agg, no records but tag failures */
	unsigned int label_sets;	/* aggregate: label sets gcm_agg is sized for; 0: default */
	bool session;		/* uprobe sessions where a spec has a session program */
	bool kernel_hist;	/* summaries' histograms kept in gcm_hist, no record per message (never with aggregate) */
	bool size_hist;		/* kernel_hist: the payload size histogram too */
	struct rs_map_precreate handles;	/* gcm_handles, made while the libraries are read */
};

/* The programs a spec's probe point runs here: a session replaces entry and return. */
static const char *spec_entry(const struct rs_gcm *g, const struct gcm_probe_spec *spec)
{
	return g->session && spec->session_prog ? spec->session_prog : spec->entry_prog;
}

static const char *spec_ret(const struct rs_gcm *g, const struct gcm_probe_spec *spec)
{
	return g->session && spec->session_prog ? NULL : spec->ret_prog;
}

/* ---- loading: program variants as data (variants.h) ----------------------- */

static const struct rs_variant probe_variants[] = {
	{ "uprobe_multi", RINGSIDE_FEAT_UPROBE_MULTI, NULL, NULL, "",
	  "one link per program and library, any number of offsets" },
	{ "perf-event uprobes", RINGSIDE_FEAT_UPROBE, NULL, NULL, "",
	  "one perf event per probe point (slower to attach)" },
};

static const struct rs_variant start_variants[] = {
	{ "exec-tracepoint", RINGSIDE_FEAT_TP_BTF, "btf_trace_sched_process_exec", NULL, "gcm_exec",
	  "system-wide, Go programs that start later are probed when their start is seen" },
	{ "none", RINGSIDE_FEAT_COUNT, NULL, NULL, "",
	  "Go programs that start later are not traced (name them with --binary)" },
};

/* Not a load choice: how the kernel runs return probes, shown for what it costs. */
static const struct rs_variant return_variants[] = {
	{ "uretprobe-syscall", RINGSIDE_FEAT_URETPROBE_SYSCALL, NULL, NULL, "",
	  "return probes take the uretprobe syscall (fast path)" },
	{ "int3", RINGSIDE_FEAT_COUNT, NULL, NULL, "", "return probes trap with int3" },
};

/*
 * A call whose result is known at entry (OpenSSL's finish without a tag to
 * check: every seal) ends there when entry and return are one session; the
 * collector's program choice, so no program prefixes here.
 */
static const struct rs_variant end_variants[] = {
	{ "uprobe-session", RINGSIDE_FEAT_UPROBE_SESSION, NULL, NULL, "",
	  "a call whose result is known at entry takes no return probe (not with --stacks "
	  "or perf-event uprobes)" },
	{ "entry+return", RINGSIDE_FEAT_COUNT, NULL, NULL, "",
	  "every call whose result is read takes an entry and a return probe" },
};

enum { PART_PROBES, PART_STARTS, PART_RETURNS, PART_ENDS };

static const struct rs_part gcm_parts[] = {
	[PART_PROBES] = { "uprobes", probe_variants, RS_NR(probe_variants) },
	[PART_STARTS] = { "program starts", start_variants, RS_NR(start_variants) },
	[PART_RETURNS] = { "return probes", return_variants, RS_NR(return_variants) },
	[PART_ENDS] = { "call ends", end_variants, RS_NR(end_variants) },
};

/* A session program wherever it is used (its spec's session_prog). */
static bool is_session_prog(const struct gcm_libset *set, const char *name)
{
	for (unsigned int i = 0; i < set->nr_probes; i++)
		if (set->probes[i].spec->session_prog && !strcmp(set->probes[i].spec->session_prog, name))
			return true;
	return false;
}

/* Program starts are watched only system-wide: named libraries and a PID's are there already. */
static bool gcm_part_unused(const struct rs_collector *c, unsigned int part)
{
	const struct rs_gcm *g = c->priv;

	return part == PART_STARTS && !g->system_wide;
}

static int gcm_load(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;
	struct bpf_program *p;
	bool any_go = false;
	int err;

	g->skel = gcm_bpf__open_opts(rs_collector_open_opts(c, gcm_bpf__elf_bytes));
	if (!g->skel)
		return rs_fail(c->s, -errno, "gcm: cannot open BPF object: %s", ringside_strerror(-errno));
	c->obj = g->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&g->skel->rodata->rs_filter,
				   gcm_bpf__elf_bytes);
	if (err)
		return err;
	g->classic = g->perf_uprobes || rs_collector_variant(c, PART_PROBES) != 0;
	/* Stacks are read where the return probe stood: sessions would move them. */
	g->session = !g->classic && !g->stacks && rs_collector_variant(c, PART_ENDS) == 0;
	g->watch_exec = g->system_wide && rs_collector_variant(c, PART_STARTS) == 0;
	g->skel->rodata->want_stack = g->stacks && !g->stack_window;
	g->skel->rodata->stack_window = g->stacks ? g->stack_window : 0;
	g->skel->rodata->watch_exec = g->watch_exec;
	g->skel->rodata->agent_mode = g->aggregate;
	g->skel->rodata->count_only = g->set.count_only;
	g->skel->rodata->kernel_hist = g->kernel_hist;
	g->skel->bss->gcm_hist_epoch = 1;	/* 0: a maximum never set (ringside_gcm_hist) */
	g->skel->rodata->size_hist = g->size_hist;
	/*
	 * Rows are allocated as used (BPF_F_NO_PREALLOC): the size only caps
	 * them. A label set takes a counters row per message-size slot it
	 * fills and a row per latency slot; 16 covers the message sizes and
	 * durations a process shows.
	 */
	if (g->aggregate && g->label_sets > RS_GCM_AGG_MAX_ENTRIES / 16) {
		uint64_t rows = (uint64_t)g->label_sets * 16;

		/* A cap well inside what a hash map may be sized to (2^31 entries). */
		bpf_map__set_max_entries(g->skel->maps.gcm_agg, rows < (1u << 24) ? (uint32_t)rows : 1u << 24);
	}
	/* Hot rows (hot_rows.bpf.h) are preallocated, per CPU: a mode that
	 * never counts in them keeps one. */
	if (!g->aggregate) {
		bpf_map__set_max_entries(g->skel->maps.gcm_agg_hot, 1);
		bpf_map__set_max_entries(g->skel->maps.gcm_agg_hot_keys, 1);
	}
	if (!g->kernel_hist || !g->set.count_only) {
		bpf_map__set_max_entries(g->skel->maps.gcm_hist_hot, 1);
		bpf_map__set_max_entries(g->skel->maps.gcm_hist_hot_keys, 1);
	}
	/*
	 * Load only the programs some library needs. What a Go program
	 * starting later needs loads when the first one starts
	 * (gcm_inspect()): 2,644 instructions the verifier took 8-10 ms of a
	 * start on, for machines that may never start one.
	 */
	g->go_later = false;
	bpf_object__for_each_program(p, g->skel->obj) {
		const char *name = bpf_program__name(p);
		bool go = !strncmp(name, GO_PROGS, strlen(GO_PROGS)), used = false;

		if (!strcmp(name, "gcm_exec")) {
			bpf_program__set_autoload(p, g->watch_exec);
			continue;
		}

		for (unsigned int i = 0; i < g->set.nr_probes && !used; i++) {
			const struct gcm_probe_spec *spec = g->set.probes[i].spec;

			used = !strcmp(spec_entry(g, spec), name) ||
			       (spec_ret(g, spec) && !strcmp(spec_ret(g, spec), name));
		}
		bpf_program__set_autoload(p, used);
		any_go |= used && go;
		g->go_later |= go && !used && g->watch_exec;
		if (!g->classic)
			bpf_program__set_expected_attach_type(p, is_session_prog(&g->set, name) ?
							      RS_BPF_TRACE_UPROBE_SESSION :
							      RS_BPF_TRACE_UPROBE_MULTI);
	}
	/*
	 * Maps only unloaded programs use are not made: the Go calls' and the
	 * exec watch's LRU hashes preallocate every entry (a millisecond of
	 * start-up for go_calls alone), for nothing when no Go program or
	 * later start is traced.
	 */
	bpf_map__set_autocreate(g->skel->maps.go_calls, any_go);
	bpf_map__set_autocreate(g->skel->maps.exec_seen, g->watch_exec);
	/*
	 * Verified on two CPUs, a start is about 20 ms shorter (the agent's
	 * 8-10), for two more libbpf objects, the one of the Go programs kept
	 * for the programs that start later (rs_split_release()).
	 */
	memset(&g->split, 0, sizeof(g->split));
	rs_split_plan(c, g->skel->obj, &g->split);
	err = rs_map_precreate_use(&g->handles, g->skel->maps.gcm_handles);
	if (!err)
		err = gcm_bpf__load(g->skel);
	/* gcm_exec is tp_btf: libbpf looks its target up, on the thread routed for it. */
	if (!err)
		err = rs_split_load(c, g->skel->obj, gcm_bpf__elf_bytes, "gcm_exec", GO_PROGS,
				    &g->split);
	if (err)
		return rs_load_failed(c, err);
	return 0;
}

/*
 * The library's index; in the high half, which backend (GnuTLS backend
 * probes), where finish keeps its message (OpenSSL's finish probed
 * inside) or where the arguments are (a probe inside a prologue,
 * probe_argmap.h): no probe has two of them.
 */
static uint64_t probe_cookie(const struct gcm_probe *p)
{
	return p->lib_id | (uint64_t)(p->backend | p->layout | p->argmap) << 32;
}

static int attach_one(struct rs_collector *c, const struct gcm_probe *probe, const char *prog_name,
		      bool ret)
{
	struct rs_gcm *g = c->priv;
	const struct ringside_gcm_lib *lib = &g->set.libs[probe->lib_id];
	struct bpf_program *prog = rs_split_prog(&g->split, g->skel->obj, prog_name);
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = probe_cookie(probe));
	pid_t pid = c->s->filter.tgid ? (pid_t)c->s->filter.tgid : -1;
	struct bpf_link *link;
	int err;

	if (!prog)
		return rs_fail(c->s, -ENOENT, "gcm: no BPF program %s", prog_name);
	link = bpf_program__attach_uprobe_opts(prog, pid, lib->path, probe->file_off, &uo);
	if (!link) {
		err = -errno;
		return rs_fail(c->s, err, "gcm: %sprobe on %s in %s failed: %s", ret ? "return " : "",
			       probe->spec->symbol, lib->path, ringside_strerror(err));
	}
	return rs_collector_keep_link(c, link);
}

/* A program is an entry or a return probe wherever it is used. */
static bool is_return_prog(const struct gcm_libset *set, const char *name)
{
	for (unsigned int i = 0; i < set->nr_probes; i++)
		if (set->probes[i].spec->ret_prog && !strcmp(set->probes[i].spec->ret_prog, name))
			return true;
	return false;
}

/* One uprobe_multi link: every probe point of one program in one library. */
static int attach_multi(struct rs_collector *c, const char *prog_name, unsigned int lib_id, bool ret)
{
	struct rs_gcm *g = c->priv;
	struct bpf_program *prog = rs_split_prog(&g->split, g->skel->obj, prog_name);
	uint64_t *offsets, *cookies;
	unsigned int n = 0;
	int fd;

	if (!prog)
		return rs_fail(c->s, -ENOENT, "gcm: no BPF program %s", prog_name);
	offsets = calloc(g->set.nr_probes + 1, sizeof(*offsets));
	cookies = calloc(g->set.nr_probes + 1, sizeof(*cookies));
	if (!offsets || !cookies) {
		free(offsets);
		free(cookies);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < g->set.nr_probes; i++) {
		const struct gcm_probe *p = &g->set.probes[i];
		const char *want = ret ? spec_ret(g, p->spec) : spec_entry(g, p->spec);

		if (p->lib_id == lib_id && want && !strcmp(want, prog_name)) {
			offsets[n] = p->file_off;
			cookies[n++] = probe_cookie(p);
		}
	}
	if (!n) {
		free(offsets);
		free(cookies);
		return 0;
	}
	if (is_session_prog(&g->set, prog_name))
		fd = rs_uprobe_session_link(bpf_program__fd(prog), g->set.libs[lib_id].path, offsets,
					    cookies, n, (pid_t)c->s->filter.tgid);
	else
		fd = rs_uprobe_multi_link(bpf_program__fd(prog), g->set.libs[lib_id].path, offsets,
					  cookies, n, (pid_t)c->s->filter.tgid, ret);
	free(offsets);
	free(cookies);
	if (fd < 0)
		return rs_fail(c->s, fd, "gcm: %sprobes of %s in %s failed: %s", ret ? "return " : "",
			       prog_name, g->set.libs[lib_id].path, ringside_strerror(fd));
	return rs_collector_keep_link_fd(c, fd);
}

/* Tell the backend programs how each calibrated GnuTLS backend shows its key size. */
static int fill_backends(struct rs_gcm *g)
{
	int fd = bpf_map__fd(g->skel->maps.gnutls_backends);

	for (unsigned int i = 0; i < g->set.nr_probes; i++) {
		const struct gcm_probe *p = &g->set.probes[i];
		__u32 slot = p->lib_id * RS_GCM_BACKENDS_PER_LIB + p->backend;

		if (!p->disc.in_use)
			continue;
		if (bpf_map_update_elem(fd, &slot, &p->disc, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Tell the Go programs' probes where each traced Go program keeps what they read. */
static int fill_go(struct rs_gcm *g)
{
	int fd = bpf_map__fd(g->skel->maps.go_bins);

	for (__u32 i = 0; i < g->set.nr_libs && i < RS_GCM_GO_BINS; i++)
		if (g->set.go[i].in_use && bpf_map_update_elem(fd, &i, &g->set.go[i], BPF_ANY))
			return -errno;
	return 0;
}

/* Every probe of one library (or Go program), as links of the session. */
static int attach_lib(struct rs_collector *c, unsigned int lib)
{
	struct rs_gcm *g = c->priv;
	struct bpf_object *objs[RS_SPLIT_MAX_OBJECTS];
	unsigned int nr_objs = rs_split_objects(&g->split, g->skel->obj, objs);
	struct bpf_program *p;
	int err = 0;

	if (!g->classic) {
		for (unsigned int o = 0; o < nr_objs; o++) {
			bpf_object__for_each_program(p, objs[o]) {
				const char *name = bpf_program__name(p);

				if (!bpf_program__autoload(p) || !strcmp(name, "gcm_exec"))
					continue;
				err = attach_multi(c, name, lib, is_return_prog(&g->set, name));
				if (err)
					return err;
			}
		}
		return 0;
	}
	for (unsigned int i = 0; i < g->set.nr_probes && !err; i++) {
		const struct gcm_probe *pr = &g->set.probes[i];

		if (pr->lib_id != lib)
			continue;
		err = attach_one(c, pr, pr->spec->entry_prog, false);
		if (!err && pr->spec->ret_prog)
			err = attach_one(c, pr, pr->spec->ret_prog, true);
	}
	return err;
}

static int gcm_attach(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;
	int err;

	err = fill_backends(g);
	if (err)
		return rs_fail(c->s, err, "gcm: cannot set up the GnuTLS backend table: %s",
			       ringside_strerror(err));
	err = fill_go(g);
	if (err)
		return rs_fail(c->s, err, "gcm: cannot set up the Go program table: %s",
			       ringside_strerror(err));
	for (unsigned int lib = 0; lib < g->set.nr_libs; lib++) {
		err = attach_lib(c, lib);
		if (err)
			return err;
	}
	if (g->watch_exec) {
		struct bpf_link *link = bpf_program__attach(rs_split_prog(&g->split, g->skel->obj,
									  "gcm_exec"));

		if (!link)
			return rs_fail(c->s, -errno, "gcm: cannot watch programs starting: %s",
				       ringside_strerror(-errno));
		err = rs_collector_keep_link(c, link);
		if (err)
			return err;
	}
	/* Only Go programs starting later are attached from now: their half stays. */
	rs_split_release(&g->split);
	if (g->go_later)
		rs_note(c->s, "gcm: the Go programs' probe programs load when the first Go program "
			"with AES-GCM code starts");
	for (unsigned int i = 0; i < g->set.nr_libs; i++) {
		const struct ringside_gcm_lib *lib = &g->set.libs[i];

		rs_note(c->s, "gcm: %s %s: %s, %u probes%s", ringside_gcm_lib_name(lib->family),
			lib->version[0] ? lib->version : "(version unknown)", lib->path, lib->probes,
			lib->stepped ? " (some single-stepped: slower)" : "");
		if (lib->entries[0])
			rs_note(c->s, "gcm: %s: probed %s", lib->path, lib->entries);
	}
	for (unsigned int i = 0; i < g->set.nr_probes; i++) {
		const struct gcm_probe *p = &g->set.probes[i];

		if (p->disc.in_use && p->spec->ret_prog && strstr(p->spec->entry_prog, "_seal"))
			rs_note(c->s, "gcm: %s: AES-GCM backend %u at file offset 0x%llx, key size from %s",
				g->set.libs[p->lib_id].path, p->backend, (unsigned long long)p->file_off,
				!p->disc.known ? "nowhere (unknown)" :
				p->disc.deref ? "the cipher its context points at" : "an int in its context");
	}
	return 0;
}

static void gcm_destroy(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;

	rs_split_free(&g->split);
	gcm_bpf__destroy(g->skel);
	g->skel = NULL;
}

static void gcm_release(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;

	rs_map_precreate_drop(&g->handles);
	gcm_libset_free(&g->set);
	free(g);
}

/*
 * A program started (system-wide): if it is a Go program with AES-GCM code,
 * probe it now. What it did between its start and now is not seen; the
 * library's late flag lets the caller say so.
 */
static int gcm_inspect(struct rs_collector *c, const struct rs_event_hdr *ev, size_t size)
{
	struct rs_gcm *g = c->priv;
	unsigned int probes_before = g->set.nr_probes;
	const struct rs_exec_event *exec = (const void *)ev;
	char filename[RS_EXEC_PATH_LEN];
	struct gcm_exec_file file;
	unsigned int links_before, link_fds_before;
	struct ringside_gcm_lib *lib;
	int err;

	if (ev->type != RS_EV_EXEC)
		return 0;
	if (size < sizeof(*exec))
		return 1;
	snprintf(filename, sizeof(filename), "%.*s", (int)sizeof(exec->filename) - 1, exec->filename);
	/* The kernel's dev_t packs major << 20 | minor. */
	file = (struct gcm_exec_file){ filename, makedev(exec->dev >> 20, exec->dev & 0xfffff),
				       exec->ino };
	if (gcm_libset_add_exec(&g->set, (pid_t)ev->tgid, &file) <= 0)
		return 1;
	lib = &g->set.libs[g->set.nr_libs - 1];
	lib->late = true;
	links_before = c->nr_links;
	link_fds_before = c->nr_link_fds;
	err = g->go_later ? rs_split_load_late(c, g->skel->obj, gcm_bpf__elf_bytes, GO_PROGS,
					       &g->split) : 0;
	if (!err)
		err = fill_go(g);
	if (!err)
		err = attach_lib(c, g->set.nr_libs - 1);
	if (err) {
		/* All or nothing: its index is given to the next program. */
		rs_collector_drop_links(c, links_before, link_fds_before);
		/* Gone already, most likely: its path under /proc/PID/root no longer
		 * resolves. Named, not dropped. */
		char why[320];

		snprintf(why, sizeof(why), "%s (PID %u, started after tracing began): cannot probe it: %s",
			 lib->path, ev->tgid, ringside_strerror(err));
		g->set.nr_libs--;
		g->set.nr_probes = probes_before;
		gcm_libset_note_skipped(&g->set, why);
		return 1;
	}
	rs_note(c->s, "gcm: go %s: %s, %u probes (PID %u started after tracing began)", lib->version,
		lib->path, lib->probes, ev->tgid);
	return 1;
}

/* ---- the exposition: families by process name, library, direction, key bits */

enum { FAM_OPS, FAM_PAYLOAD, FAM_AAD, FAM_TAGFAIL, FAM_ERRORS, FAM_UNCHECKED, FAM_LATENCY, FAM_SIZE,
       NR_FAMS };

struct gcm_expo {
	struct rs_gcm *g;
	struct rs_family *fam[NR_FAMS];
};

/* A library's path as a label: without a process's /proc/PID/root prefix. */
static const char *path_label(const struct ringside_gcm_lib *lib)
{
	const char *p = lib ? lib->path : "";

	if (!strncmp(p, "/proc/", 6)) {
		const char *root = strstr(p + 6, "/root/");

		if (root)
			return root + 5;
	}
	return p;
}

/*
 * The rows of the per-CPU hash map and of its hot rows (map"_hot": the
 * first keys, by slot; hot_rows.bpf.h): a key's row is in one or the other.
 */
static int gcm_rows(const struct rs_collector *c, const char *map, size_t key_size, uint32_t max_mask,
		    rs_row_fn fn, void *ctx)
{
	char hot[32];
	int err;

	snprintf(hot, sizeof(hot), "%s_hot", map);
	err = rs_collector_hot_rows(c, hot, key_size, max_mask, fn, ctx);
	return err ? err : rs_collector_rows_max(c, map, key_size, max_mask, fn, ctx);
}

static int expo_row(void *ctx, const void *key, const struct rs_total_val *v)
{
	const struct rs_gcm_agg_key *k = key;
	struct gcm_expo *e = ctx;
	const struct ringside_gcm_lib *lib = k->lib_id < e->g->set.nr_libs ? &e->g->set.libs[k->lib_id] : NULL;
	char comm[RS_COMM_LEN + 1], bits[8];
	bool other = k->libdir & RS_GCM_AGG_OTHER;
	const char *labels[] = { comm, ringside_gcm_lib_name(k->libdir & 0xff),
				 path_label(lib), ringside_gcm_dir_name((k->libdir >> 8) & 0x7f), bits };

	snprintf(comm, sizeof(comm), "%.*s", RS_COMM_LEN, other ? "__other__" : k->comm);
	snprintf(bits, sizeof(bits), "%u", k->key_bits);
	switch (k->kind) {
	case RS_GCM_AGG_COUNTERS:
		rs_family_add(e->fam[FAM_OPS], labels, (double)v->c[RS_GCM_TOTAL_OPS]);
		rs_family_add(e->fam[FAM_PAYLOAD], labels, (double)v->c[RS_GCM_TOTAL_PAYLOAD]);
		rs_family_add(e->fam[FAM_AAD], labels, (double)v->c[RS_GCM_TOTAL_AAD]);
		rs_family_add(e->fam[FAM_TAGFAIL], labels, (double)v->c[RS_GCM_TOTAL_TAG_FAIL]);
		rs_family_add(e->fam[FAM_ERRORS], labels, (double)v->c[RS_GCM_TOTAL_ERRORS]);
		rs_family_add(e->fam[FAM_UNCHECKED], labels, (double)v->c[RS_GCM_TOTAL_UNCHECKED]);
		/* A label set's rows differ by size slot: the families add them up.
		 * Latency's slots come in their own rows, its sum here. */
		rs_family_observe(e->fam[FAM_LATENCY], labels, 0, 0, v->c[RS_GCM_TOTAL_LAT_SUM] / 1e9);
		rs_family_observe(e->fam[FAM_SIZE], labels, k->slot, v->c[RS_GCM_TOTAL_OPS],
				  (double)v->c[RS_GCM_TOTAL_PAYLOAD]);
		break;
	case RS_GCM_AGG_LATENCY:
		rs_family_observe(e->fam[FAM_LATENCY], labels, k->slot, v->c[0], 0);
		break;
	}
	return 0;
}

static int gcm_metrics(struct rs_collector *c, struct rs_metrics *m)
{
	static const char *const labels[] = { "comm", "lib", "library", "direction", "key_bits", NULL };
	struct gcm_expo e = { .g = c->priv };
	int err;

	if (!e.g->aggregate)
		return 0;	/* records, not counts by process name: nothing to expose */
	e.fam[FAM_OPS] = rs_family_new(m, "ringside_gcm_operations", RS_COUNTER, NULL,
				       "AES-GCM messages sealed or opened.", labels, 1);
	e.fam[FAM_PAYLOAD] = rs_family_new(m, "ringside_gcm_payload_bytes", RS_COUNTER, "bytes",
					   "Payload bytes of AES-GCM messages (an open's tag excluded).",
					   labels, 1);
	e.fam[FAM_AAD] = rs_family_new(m, "ringside_gcm_aad_bytes", RS_COUNTER, "bytes",
				       "Additional authenticated data bytes of AES-GCM messages.", labels, 1);
	e.fam[FAM_TAGFAIL] = rs_family_new(m, "ringside_gcm_tag_failures", RS_COUNTER, NULL,
					   "Opens whose tag did not verify.", labels, 1);
	e.fam[FAM_ERRORS] = rs_family_new(m, "ringside_gcm_errors", RS_COUNTER, NULL,
					  "Messages the library ended with another error.", labels, 1);
	e.fam[FAM_UNCHECKED] = rs_family_new(m, "ringside_gcm_unchecked_opens", RS_COUNTER, NULL,
					     "Opens whose tag the application compares itself.", labels, 1);
	/* Counting only, nothing was timed: no histogram rather than one of zeros. */
	e.fam[FAM_LATENCY] = e.g->set.count_only ? NULL :
			     rs_family_new(m, "ringside_gcm_operation_duration_seconds", RS_HISTOGRAM,
					   "seconds", "Time from a message's start to its end.", labels,
					   1e-9);
	e.fam[FAM_SIZE] = rs_family_new(m, "ringside_gcm_message_size_bytes", RS_HISTOGRAM, "bytes",
					"Payload bytes per message.", labels, 1);
	err = gcm_rows(c, "gcm_agg", sizeof(struct rs_gcm_agg_key), 0, expo_row, &e);
	for (int i = 0; i < NR_FAMS; i++)
		rs_family_end(e.fam[i]);
	return err;
}

const struct rs_collector_ops rs_gcm_ops = {
	.name = "gcm",
	.parts = gcm_parts,
	.nr_parts = RS_NR(gcm_parts),
	.part_unused = gcm_part_unused,
	.load = gcm_load,
	.attaches_uprobes = true,
	.attach = gcm_attach,
	.inspect = gcm_inspect,
	.destroy = gcm_destroy,
	.release = gcm_release,
	.metrics = gcm_metrics,
};

int ringside_session_enable_gcm(struct ringside_session *s, const struct ringside_gcm_opts *opts)
{
	struct rs_gcm *g = calloc(1, sizeof(*g));
	int err = 0;

	if (!g)
		return -ENOMEM;
	/*
	 * The uprobe test's grace period runs while the libraries are read
	 * (feature_prefetch.h); so do the uretprobe syscall test's two forked
	 * children (3-4 ms each where page faults are slow), which the return
	 * probes' choice asks for after the libraries are read.
	 */
	rs_features_prefetch(RINGSIDE_FEAT_UPROBE);
	rs_features_prefetch(RINGSIDE_FEAT_URETPROBE_SYSCALL);
	rs_map_precreate_start(&g->handles, BPF_MAP_TYPE_LRU_HASH, "gcm_handles", GCM_HANDLES_KEY_SIZE,
			       GCM_HANDLES_VALUE_SIZE, GCM_HANDLES_MAX, 0);
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, stacks) + sizeof(bool))
		g->stacks = opts->stacks;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, perf_uprobes) + sizeof(bool))
		g->perf_uprobes = opts->perf_uprobes;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, aggregate) + sizeof(bool))
		g->aggregate = opts->aggregate;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, count_only) + sizeof(bool))
		g->set.count_only = opts->count_only;
	/* Timing and counting alike probe finish inside, where its lengths are in
	 * registers; not with stacks, walked from a function's entry (the frame has moved). */
	g->set.finish_inside = !g->stacks;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, label_sets) + sizeof(opts->label_sets))
		g->label_sets = opts->label_sets;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, size_hist) + sizeof(bool)) {
		/* Agent mode counts in gcm_agg instead: the histograms are for summaries. */
		g->kernel_hist = opts->kernel_hist && !g->aggregate;
		g->size_hist = g->kernel_hist && opts->size_hist;
	}
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, stack_window) + sizeof(unsigned int))
		g->stack_window = opts->stack_window > RS_STACK_WINDOW_MAX ? RS_STACK_WINDOW_MAX :
				  (opts->stack_window + RS_STACK_PAGE - 1) & ~(RS_STACK_PAGE - 1u);
	if (opts && opts->paths && opts->paths[0]) {
		for (const char *const *p = opts->paths; *p && err >= 0; p++)
			err = gcm_libset_add(&g->set, *p, RS_GCM_LIB_NONE);
	} else if (s->filter.tgid) {
		err = gcm_libset_add_pid(&g->set, (pid_t)s->filter.tgid);
	} else {
		err = gcm_libset_add_system(&g->set);
		g->system_wide = true;
	}
	if (err >= 0)
		err = rs_session_add(s, &rs_gcm_ops, g);
	if (err < 0) {
		if (g->set.err[0])
			rs_fail(s, err, "%s", g->set.err);
		rs_map_precreate_drop(&g->handles);
		gcm_libset_free(&g->set);
		free(g);
		return err;
	}
	return 0;
}

static const struct rs_collector *gcm_collector(const struct ringside_session *s)
{
	return rs_session_collector(s, &rs_gcm_ops);
}

static struct rs_gcm *gcm_of(const struct ringside_session *s)
{
	const struct rs_collector *c = gcm_collector(s);

	return c ? c->priv : NULL;
}

struct totals_walk {
	int (*fn)(void *ctx, const struct ringside_gcm_total *t);
	void *ctx;
	int comms;		/* kernel_hist: gcm_comms' fd; -1 otherwise */
};

static int gcm_total_row(void *ctx, const struct rs_total_key *k, const struct rs_total_val *v)
{
	struct totals_walk *w = ctx;
	struct ringside_gcm_total t;

	if (k->k2 == RS_GCM_TOTAL_UNATTRIBUTED)
		return 0;
	t = (struct ringside_gcm_total){
		.tgid = k->tgid,
		.lib_id = k->k1,
		.lib = (uint8_t)(k->k2 & 0xff),
		.dir = (uint8_t)(k->k2 >> 8),
		.key_bits = (uint16_t)k->k3,
		.ops = v->c[RS_GCM_TOTAL_OPS],
		.aad_bytes = v->c[RS_GCM_TOTAL_AAD],
		.payload_bytes = v->c[RS_GCM_TOTAL_PAYLOAD],
		.tag_failures = v->c[RS_GCM_TOTAL_TAG_FAIL],
		.errors = v->c[RS_GCM_TOTAL_ERRORS],
		.unchecked = v->c[RS_GCM_TOTAL_UNCHECKED],
		.lat_sum_ns = v->c[RS_GCM_TOTAL_LAT_SUM],
	};

	if (w->comms >= 0 && bpf_map_lookup_elem(w->comms, &t.tgid, t.comm))
		t.comm[0] = '\0';
	return w->fn(w->ctx, &t);
}

struct unattr_walk {
	int (*fn)(void *ctx, const struct ringside_gcm_unattributed *u);
	void *ctx;
};

static int gcm_unattr_row(void *ctx, const struct rs_total_key *k, const struct rs_total_val *v)
{
	struct unattr_walk *w = ctx;
	struct ringside_gcm_unattributed u = { .tgid = k->tgid, .lib_id = k->k1, .reason = k->k3,
					       .hits = v->c[0] };

	return k->k2 == RS_GCM_TOTAL_UNATTRIBUTED ? w->fn(w->ctx, &u) : 0;
}

int ringside_gcm_unattributed(struct ringside_session *s,
			      int (*fn)(void *ctx, const struct ringside_gcm_unattributed *u), void *ctx)
{
	const struct rs_collector *c = gcm_collector(s);
	struct unattr_walk w = { fn, ctx };

	if (!c || !c->obj)
		return -ENOTCONN;
	return rs_collector_totals(c, gcm_unattr_row, &w);
}

const char *ringside_gcm_unattr_reason_name(unsigned int reason)
{
	switch (reason) {
	case RS_GCM_UNATTR_UNKNOWN_HANDLE:
		return "unknown-handle";
	case RS_GCM_UNATTR_TAG_UNREAD:
		return "tag-unreadable";
	}
	return "?";
}

/* Totals rows of both maps, to be merged by label set (kernel_hist). */
struct merged_totals {
	struct merged_row {
		struct rs_total_key k;
		struct rs_total_val v;
	} *rows;
	size_t n, cap;
};

static int merged_add(struct merged_totals *m, const struct rs_total_key *k, const struct rs_total_val *v)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct merged_row *r = realloc(m->rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		m->rows = r;
		m->cap = cap;
	}
	m->rows[m->n].k = *k;
	m->rows[m->n].v = *v;
	m->n++;
	return 0;
}

static int merged_total_row(void *ctx, const struct rs_total_key *k, const struct rs_total_val *v)
{
	return merged_add(ctx, k, v);
}

/* A latency row's totals (events.h: RS_GCM_HIST_LAT_*), as a totals row of its label set. */
static int merged_hist_row(void *ctx, const void *key, const struct rs_total_val *v)
{
	const struct rs_gcm_hist_key *hk = key;
	struct rs_total_key k = { .tgid = hk->tgid, .k1 = hk->lib_id, .k2 = hk->libdir, .k3 = hk->key_bits };
	struct rs_total_val t = { .c = {
		[RS_GCM_TOTAL_OPS] = v->c[RS_GCM_HIST_LAT_COUNT],
		[RS_GCM_TOTAL_AAD] = v->c[RS_GCM_HIST_LAT_AAD],
		[RS_GCM_TOTAL_PAYLOAD] = v->c[RS_GCM_HIST_LAT_PAYLOAD],
		[RS_GCM_TOTAL_TAG_FAIL] = v->c[RS_GCM_HIST_LAT_TAG_FAIL],
		[RS_GCM_TOTAL_ERRORS] = v->c[RS_GCM_HIST_LAT_ERRORS],
		[RS_GCM_TOTAL_UNCHECKED] = v->c[RS_GCM_HIST_LAT_UNCHECKED],
		[RS_GCM_TOTAL_LAT_SUM] = v->c[RS_GCM_HIST_LAT_SUM],
	} };

	return hk->kind == RS_GCM_HIST_LATENCY ? merged_add(ctx, &k, &t) : 0;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct merged_row *)a)->k, &((const struct merged_row *)b)->k,
		      sizeof(struct rs_total_key));
}

/*
 * kernel_hist: a label set's totals are the sum of its latency rows, plus
 * its totals row where some message's latency row could not be made.
 */
static int merged_totals_walk(const struct rs_collector *c, struct totals_walk *w)
{
	struct merged_totals m = { 0 };
	int err = gcm_rows(c, "gcm_hist", sizeof(struct rs_gcm_hist_key), 1u << RS_GCM_HIST_LAT_MAX,
			   merged_hist_row, &m);

	if (!err)
		err = rs_collector_totals(c, merged_total_row, &m);
	if (!err && m.n)
		qsort(m.rows, m.n, sizeof(*m.rows), key_cmp);
	for (size_t i = 0; !err && i < m.n;) {
		struct merged_row sum = m.rows[i];

		while (++i < m.n && !key_cmp(&m.rows[i], &sum))
			for (int j = 0; j < RS_TOTAL_COUNTERS; j++)
				sum.v.c[j] += m.rows[i].v.c[j];
		err = gcm_total_row(w, &sum.k, &sum.v);
	}
	free(m.rows);
	return err;
}

int ringside_gcm_totals(struct ringside_session *s,
			int (*fn)(void *ctx, const struct ringside_gcm_total *t), void *ctx)
{
	const struct rs_collector *c = gcm_collector(s);
	struct rs_gcm *g = gcm_of(s);
	struct totals_walk w = { fn, ctx, -1 };

	if (!c || !c->obj)
		return -ENOTCONN;
	if (!g->kernel_hist)
		return rs_collector_totals(c, gcm_total_row, &w);
	w.comms = bpf_map__fd(g->skel->maps.gcm_comms);
	return merged_totals_walk(c, &w);
}

struct hist_walk {
	int (*fn)(void *ctx, const struct ringside_gcm_hist_slot *h);
	void *ctx;
	uint64_t epoch;		/* whose maxima are read */
};

static int gcm_hist_row(void *ctx, const void *key, const struct rs_total_val *v)
{
	const struct rs_gcm_hist_key *k = key;
	struct hist_walk *w = ctx;
	struct ringside_gcm_hist_slot h = {
		.tgid = k->tgid,
		.lib_id = k->lib_id,
		.lib = (uint8_t)(k->libdir & 0xff),
		.dir = (uint8_t)(k->libdir >> 8),
		.key_bits = k->key_bits,
		.kind = (uint8_t)k->kind,
		.slot = k->slot,
		.count = v->c[0],
	};

	/* The largest over CPUs: this epoch's when any message came since the last read. */
	if (k->kind == RS_GCM_HIST_LATENCY && v->c[1] >> 48 == w->epoch)
		h.max_ns = v->c[1] & RS_GCM_LAT_MAX_NS_MASK;
	return w->fn(w->ctx, &h);
}

uint64_t ringside_gcm_hist_lost(const struct ringside_session *s)
{
	const struct rs_collector *c = gcm_collector(s);

	return c && c->obj ? rs_collector_drops(c, RS_DROP_HIST) : 0;
}

int ringside_gcm_hist(struct ringside_session *s,
		      int (*fn)(void *ctx, const struct ringside_gcm_hist_slot *h), void *ctx)
{
	const struct rs_collector *c = gcm_collector(s);
	struct rs_gcm *g = gcm_of(s);
	struct hist_walk w = { fn, ctx, 0 };
	int err;

	if (!c || !c->obj)
		return -ENOTCONN;
	if (!g->kernel_hist)
		return 0;
	/*
	 * Messages keep their maximum under the current epoch: read this
	 * one's, then start the next, so each call's maxima cover the messages
	 * since the previous call. (16 bits in the kernel's rows, never 0, so
	 * that a maximum never set reads as no message.)
	 */
	w.epoch = __atomic_load_n(&g->skel->bss->gcm_hist_epoch, __ATOMIC_RELAXED);
	err = gcm_rows(c, "gcm_hist", sizeof(struct rs_gcm_hist_key), 1u << RS_GCM_HIST_LAT_MAX,
		       gcm_hist_row, &w);
	__atomic_store_n(&g->skel->bss->gcm_hist_epoch, (w.epoch + 1) & 0xffff ? w.epoch + 1 : 1,
			 __ATOMIC_RELAXED);
	return err;
}

unsigned int ringside_gcm_nr_libs(const struct ringside_session *s)
{
	const struct rs_gcm *g = gcm_of(s);

	return g ? g->set.nr_libs : 0;
}

bool ringside_gcm_watches_starts(const struct ringside_session *s)
{
	const struct rs_gcm *g = gcm_of(s);

	return g && g->watch_exec;
}

unsigned int ringside_gcm_nr_skipped(const struct ringside_session *s)
{
	const struct rs_gcm *g = gcm_of(s);

	return g ? g->set.nr_skipped : 0;
}

const char *ringside_gcm_skipped(const struct ringside_session *s, unsigned int i)
{
	const struct rs_gcm *g = gcm_of(s);

	return g && i < g->set.nr_skipped ? g->set.skipped[i] : NULL;
}

const struct ringside_gcm_lib *ringside_gcm_lib(const struct ringside_session *s, unsigned int lib_id)
{
	const struct rs_gcm *g = gcm_of(s);

	return g && lib_id < g->set.nr_libs ? &g->set.libs[lib_id] : NULL;
}

unsigned int ringside_gcm_nr_probe_points(const struct ringside_session *s)
{
	const struct rs_gcm *g = gcm_of(s);

	return g ? g->set.nr_probes : 0;
}

int ringside_gcm_probe_point(const struct ringside_session *s, unsigned int i,
			     struct ringside_gcm_probe_point *out)
{
	const struct rs_gcm *g = gcm_of(s);
	const struct gcm_probe *p;

	if (!g || i >= g->set.nr_probes)
		return -ENOENT;
	p = &g->set.probes[i];
	*out = (struct ringside_gcm_probe_point){
		.lib_id = p->lib_id,
		.function = p->spec->symbol,
		.file_offset = p->file_off,
		.offset = p->at,
		.placement = p->placement,
		.emulated = p->emulated,
		.role = p->role ? p->role : "",
		.timing_only = p->spec->latency_only,
		.kept_at_entry = p->kept_at_entry,
	};
	return 0;
}

const char *ringside_gcm_placement_name(unsigned int placement)
{
	static const char *const names[] = {
		[RINGSIDE_GCM_AT_ENTRY] = "entry",
		[RINGSIDE_GCM_PAST_PROLOGUE] = "past-prologue",
		[RINGSIDE_GCM_AT_RET] = "return-instruction",
		[RINGSIDE_GCM_INSIDE] = "inside",
		[RINGSIDE_GCM_IN_PROLOGUE] = "in-prologue",
	};

	return placement < RS_NR(names) ? names[placement] : "?";
}

const char *ringside_gcm_lib_name(unsigned int family)
{
	static const char *const names[RS_GCM_LIB_MAX] = {
		[RS_GCM_LIB_NONE] = "none",
		[RS_GCM_LIB_OPENSSL] = "openssl",
		[RS_GCM_LIB_GNUTLS] = "gnutls",
		[RS_GCM_LIB_GCRYPT] = "libgcrypt",
		[RS_GCM_LIB_NETTLE] = "nettle",
		[RS_GCM_LIB_GO] = "go",
	};
	return family < RS_GCM_LIB_MAX ? names[family] : "?";
}

const char *ringside_gcm_lib_blind_spot(unsigned int family)
{
	switch (family) {
	case RS_GCM_LIB_OPENSSL:
		return "a TLS 1.2 record opened through EVP_Cipher's TLS mode has its tag compared "
		       "inside the provider: counted, but a tag failure there is reported as ok";
	}
	return NULL;
}

const char *ringside_gcm_dir_name(unsigned int dir)
{
	return dir == RS_GCM_SEAL ? "seal" : dir == RS_GCM_OPEN ? "open" : "?";
}

const char *ringside_gcm_result_name(unsigned int result)
{
	switch (result) {
	case RS_GCM_OK: return "ok";
	case RS_GCM_TAG_FAIL: return "tag-fail";
	case RS_GCM_ERROR: return "error";
	case RS_GCM_UNCHECKED: return "unchecked";
	}
	return "?";
}
