// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The AES-GCM collector: library discovery at enable, uprobes at attach. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session_int.h"
#include "gcm_libs.h"
#include "ringside/gcm.h"
#include "gcm.skel.h"

struct rs_gcm {
	struct gcm_libset set;
	struct gcm_bpf *skel;
	bool stacks;
};

static int gcm_load(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;
	struct bpf_program *p;
	int err;

	g->skel = gcm_bpf__open();
	if (!g->skel)
		return rs_fail(c->s, -errno, "gcm: cannot open BPF object: %s", ringside_strerror(-errno));
	c->obj = g->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&g->skel->rodata->rs_filter);
	if (err)
		return err;
	g->skel->rodata->want_stack = g->stacks;
	/* Load only the programs some library needs. */
	bpf_object__for_each_program(p, g->skel->obj) {
		const char *name = bpf_program__name(p);
		bool used = false;

		for (unsigned int i = 0; i < g->set.nr_probes && !used; i++) {
			const struct gcm_probe_spec *spec = g->set.probes[i].spec;

			used = !strcmp(spec->entry_prog, name) ||
			       (spec->ret_prog && !strcmp(spec->ret_prog, name));
		}
		bpf_program__set_autoload(p, used);
	}
	err = gcm_bpf__load(g->skel);
	if (err)
		return rs_load_failed(c, err);
	return 0;
}

static int attach_one(struct rs_collector *c, const struct gcm_probe *probe, const char *prog_name,
		      bool ret)
{
	struct rs_gcm *g = c->priv;
	const struct ringside_gcm_lib *lib = &g->set.libs[probe->lib_id];
	struct bpf_program *prog = bpf_object__find_program_by_name(g->skel->obj, prog_name);
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = probe->lib_id);
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

static int gcm_attach(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;
	int err;

	for (unsigned int i = 0; i < g->set.nr_probes; i++) {
		const struct gcm_probe *p = &g->set.probes[i];

		err = attach_one(c, p, p->spec->entry_prog, false);
		if (!err && p->spec->ret_prog)
			err = attach_one(c, p, p->spec->ret_prog, true);
		if (err)
			return err;
	}
	for (unsigned int i = 0; i < g->set.nr_libs; i++) {
		const struct ringside_gcm_lib *lib = &g->set.libs[i];

		rs_note(c->s, "gcm: %s %s: %s, %u probes%s", ringside_gcm_lib_name(lib->family),
			lib->version[0] ? lib->version : "(version unknown)", lib->path, lib->probes,
			lib->stepped ? " (some single-stepped: slower)" : "");
	}
	return 0;
}

static void gcm_destroy(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;

	gcm_bpf__destroy(g->skel);
	g->skel = NULL;
}

static void gcm_release(struct rs_collector *c)
{
	struct rs_gcm *g = c->priv;

	gcm_libset_free(&g->set);
	free(g);
}

static const struct rs_collector_ops gcm_ops = {
	.name = "gcm",
	.load = gcm_load,
	.attach = gcm_attach,
	.destroy = gcm_destroy,
	.release = gcm_release,
};

int ringside_session_enable_gcm(struct ringside_session *s, const struct ringside_gcm_opts *opts)
{
	struct rs_gcm *g = calloc(1, sizeof(*g));
	int err = 0;

	if (!g)
		return -ENOMEM;
	if (opts && opts->sz >= offsetof(struct ringside_gcm_opts, stacks) + sizeof(bool))
		g->stacks = opts->stacks;
	if (opts && opts->paths && opts->paths[0]) {
		for (const char *const *p = opts->paths; *p && err >= 0; p++)
			err = gcm_libset_add(&g->set, *p, RS_GCM_LIB_NONE);
	} else if (s->filter.tgid) {
		err = gcm_libset_add_pid(&g->set, (pid_t)s->filter.tgid);
	} else {
		err = gcm_libset_add_system(&g->set);
	}
	if (err >= 0)
		err = rs_session_add(s, &gcm_ops, g);
	if (err < 0) {
		if (g->set.err[0])
			rs_fail(s, err, "%s", g->set.err);
		gcm_libset_free(&g->set);
		free(g);
		return err;
	}
	return 0;
}

static struct rs_gcm *gcm_of(const struct ringside_session *s)
{
	for (const struct rs_collector *c = s ? s->collectors : NULL; c; c = c->next)
		if (c->ops == &gcm_ops)
			return c->priv;
	return NULL;
}

unsigned int ringside_gcm_nr_libs(const struct ringside_session *s)
{
	const struct rs_gcm *g = gcm_of(s);

	return g ? g->set.nr_libs : 0;
}

const struct ringside_gcm_lib *ringside_gcm_lib(const struct ringside_session *s, unsigned int lib_id)
{
	const struct rs_gcm *g = gcm_of(s);

	return g && lib_id < g->set.nr_libs ? &g->set.libs[lib_id] : NULL;
}

const char *ringside_gcm_lib_name(unsigned int family)
{
	static const char *const names[RS_GCM_LIB_MAX] = {
		[RS_GCM_LIB_NONE] = "none",
		[RS_GCM_LIB_OPENSSL] = "openssl",
		[RS_GCM_LIB_GNUTLS] = "gnutls",
		[RS_GCM_LIB_GCRYPT] = "libgcrypt",
	};
	return family < RS_GCM_LIB_MAX ? names[family] : "?";
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
