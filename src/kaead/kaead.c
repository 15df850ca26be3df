// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel AES-GCM collector: crypto_aead_* by fentry/fexit or kprobes. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kernel_btf.h"
#include "libbpf_btf.h"
#include "session_int.h"
#include "metrics_int.h"
#include "totals.h"
#include "ringside/gcm.h"
#include "ringside/kaead.h"
#include "kaead.skel.h"

/*
 * Completion callbacks of asynchronous AEAD requests, followed where the
 * kernel has them: the generic waiter (AF_ALG, kTLS in synchronous mode,
 * most in-kernel users) and the callbacks of kTLS, ESP and AF_ALG's AIO.
 * An asynchronous request completing through any other callback is still
 * counted at submission; its result is missing, and the totals say so
 * (async minus async_done).
 */
static const char *const done_funcs[] = {
	"crypto_req_done", "tls_encrypt_done", "tls_decrypt_done", "af_alg_async_cb",
	"esp_output_done", "esp_input_done", "esp_output_done_esn", "esp_input_done_esn",
};
#define NR_DONE (sizeof(done_funcs) / sizeof(done_funcs[0]))

struct rs_kaead {
	struct kaead_bpf *skel;
	bool aggregate;
	bool fentry;
	bool done_present[NR_DONE];
	const char *variant;
	struct rs_kaead_alg *algs;	/* names read back for totals */
	uint64_t *alg_keys;
	unsigned int nr_algs;
};

static const struct rs_variant call_variants[] = {
	{ "fentry", RINGSIDE_FEAT_FENTRY, "crypto_aead_encrypt", NULL, "kaead_fentry_",
	  "crypto_aead_* through BPF trampolines (no trap per call)" },
	{ "kprobe", RINGSIDE_FEAT_KPROBE, "crypto_aead_encrypt", NULL, "kaead_kprobe_",
	  "crypto_aead_* through kprobes and kretprobes" },
};

static const struct rs_part kaead_parts[] = {
	{ "crypto_aead calls", call_variants, RS_NR(call_variants) },
};

/* Is name a function in the kernel's BTF; what its first parameter points to. */
static bool btf_func(const struct rs_btf *btf, const char *name, bool *first_is_struct)
{
	const struct btf_type *t, *proto, *arg;
	int id = btf ? rs_btf_find(btf, name, BTF_KIND_FUNC) : -1;

	if (id <= 0)
		return false;
	if (first_is_struct) {
		t = rs_btf_type(btf, id);
		proto = rs_btf_type(btf, t->type);
		*first_is_struct = false;
		if (proto && btf_vlen(proto) >= 1) {
			arg = rs_btf_type(btf, btf_params(proto)[0].type);
			while (arg && (btf_is_mod(arg) || btf_is_typedef(arg)))
				arg = rs_btf_type(btf, arg->type);
			if (arg && btf_is_ptr(arg)) {
				arg = rs_btf_type(btf, arg->type);
				*first_is_struct = arg && btf_is_struct(arg);
			}
		}
	}
	return true;
}

static int kaead_load(struct rs_collector *c)
{
	struct rs_kaead *k = c->priv;
	const struct rs_btf *btf = rs_kernel_btf_get();
	bool takes_request = false;
	unsigned int slot = 0;
	struct bpf_program *p;
	char name[32];
	int err;

	k->skel = kaead_bpf__open_opts(rs_collector_open_opts(c, kaead_bpf__elf_bytes));
	if (!k->skel) {
		rs_kernel_btf_put();
		return rs_fail(c->s, -errno, "kernel-gcm: cannot open BPF object");
	}
	c->obj = k->skel->obj;
	err = rs_collector_prepare(c, (struct rs_filter_cfg *)&k->skel->rodata->rs_filter,
				   kaead_bpf__elf_bytes);
	if (err) {
		rs_kernel_btf_put();
		return err;
	}
	k->skel->rodata->failures_only = k->aggregate;
	k->fentry = rs_collector_variant(c, 0) == 0;
	k->variant = k->fentry ? "fentry" : "kprobe";
	if (btf_func(btf, "crypto_req_done", &takes_request))
		k->skel->rodata->done_takes_request = takes_request;
	/*
	 * One fentry program per completion callback the kernel has. libbpf
	 * reads the kernel's BTF at the first target set, so every target is
	 * named before (libbpf_btf.h).
	 */
	for (unsigned int i = 0; i < NR_DONE; i++) {
		k->done_present[i] = btf_func(btf, done_funcs[i], NULL);
		if (k->fentry && k->done_present[i])
			rs_libbpf_btf_need(done_funcs[i], BTF_KIND_FUNC);
	}
	for (unsigned int i = 0; k->fentry && i < NR_DONE; i++) {
		if (!k->done_present[i])
			continue;
		snprintf(name, sizeof(name), "kaead_fentry_done%u", slot++);
		p = bpf_object__find_program_by_name(c->obj, name);
		if (p)
			bpf_program__set_attach_target(p, 0, done_funcs[i]);
	}
	rs_kernel_btf_put();
	for (; k->fentry && slot < NR_DONE; slot++) {
		snprintf(name, sizeof(name), "kaead_fentry_done%u", slot);
		p = bpf_object__find_program_by_name(c->obj, name);
		if (p)
			bpf_program__set_autoload(p, false);
	}
	err = kaead_bpf__load(k->skel);
	return err ? rs_load_failed(c, err) : 0;
}

static int kaead_attach(struct rs_collector *c)
{
	struct rs_kaead *k = c->priv;
	struct bpf_program *done = k->skel->progs.kaead_kprobe_done;
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, c->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(p) || p == done)
			continue;
		link = bpf_program__attach(p);
		if (!link) {
			err = -errno;
			return rs_fail(c->s, err, "kernel-gcm: cannot attach %s: %s", bpf_program__name(p),
				       ringside_strerror(err));
		}
		err = rs_collector_keep_link(c, link);
		if (err)
			return err;
	}
	if (k->fentry)
		return 0;
	for (unsigned int i = 0; i < NR_DONE; i++) {
		struct bpf_link *link;

		if (!k->done_present[i])
			continue;
		link = bpf_program__attach_kprobe(done, false, done_funcs[i]);
		if (!link) {
			/* in BTF but not probeable (inlined, notrace): its completions go unseen */
			rs_note(c->s, "kernel-gcm: completions through %s are not followed (%s)",
				done_funcs[i], strerror(errno));
			continue;
		}
		err = rs_collector_keep_link(c, link);
		if (err)
			return err;
	}
	return 0;
}

static void kaead_destroy(struct rs_collector *c)
{
	struct rs_kaead *k = c->priv;

	kaead_bpf__destroy(k->skel);
	k->skel = NULL;
}

static void kaead_release(struct rs_collector *c)
{
	struct rs_kaead *k = c->priv;

	free(k->algs);
	free(k->alg_keys);
	free(k);
}

/* ---- the exposition: by driver, direction and key size (no per-process labels) ---- */

enum { KF_OPS, KF_PAYLOAD, KF_AAD, KF_TAGFAIL, KF_ERRORS, KF_ASYNC, KF_ASYNC_DONE, KF_LATENCY, NR_KF };

static int expo_total(void *ctx, const struct ringside_kaead_total *t)
{
	struct rs_family **fam = ctx;
	char bits[8];
	const char *v[] = { t->driver, t->alg, ringside_gcm_dir_name(t->dir), bits, NULL };

	snprintf(bits, sizeof(bits), "%u", t->key_bits);
	rs_family_add(fam[KF_OPS], v, (double)t->ops);
	rs_family_add(fam[KF_PAYLOAD], v, (double)t->payload_bytes);
	rs_family_add(fam[KF_AAD], v, (double)t->aad_bytes);
	rs_family_add(fam[KF_TAGFAIL], v, (double)t->tag_failures);
	rs_family_add(fam[KF_ERRORS], v, (double)t->errors);
	rs_family_add(fam[KF_ASYNC], v, (double)t->async);
	rs_family_add(fam[KF_ASYNC_DONE], v, (double)t->async_done);
	rs_family_add(fam[KF_LATENCY], v, t->latency_sum_ns / 1e9);
	return 0;
}

static int kaead_metrics(struct rs_collector *c, struct rs_metrics *m)
{
	static const char *const labels[] = { "driver", "alg", "direction", "key_bits", NULL };
	struct rs_family *fam[NR_KF];
	int err;

	fam[KF_OPS] = rs_family_new(m, "ringside_kernel_gcm_requests", RS_COUNTER, NULL,
				    "AES-GCM requests through the kernel crypto API, by the innermost "
				    "driver called.", labels, 1);
	fam[KF_PAYLOAD] = rs_family_new(m, "ringside_kernel_gcm_payload_bytes", RS_COUNTER, "bytes",
					"Payload bytes of kernel AES-GCM requests (the tag excluded).",
					labels, 1);
	fam[KF_AAD] = rs_family_new(m, "ringside_kernel_gcm_aad_bytes", RS_COUNTER, "bytes",
				    "Associated data bytes of kernel AES-GCM requests.", labels, 1);
	fam[KF_TAGFAIL] = rs_family_new(m, "ringside_kernel_gcm_tag_failures", RS_COUNTER, NULL,
					"Kernel AES-GCM decryptions that failed authentication (-EBADMSG).",
					labels, 1);
	fam[KF_ERRORS] = rs_family_new(m, "ringside_kernel_gcm_errors", RS_COUNTER, NULL,
				       "Kernel AES-GCM requests that ended with another error.", labels, 1);
	fam[KF_ASYNC] = rs_family_new(m, "ringside_kernel_gcm_async_requests", RS_COUNTER, NULL,
				      "Requests that completed asynchronously (-EINPROGRESS).", labels, 1);
	fam[KF_ASYNC_DONE] = rs_family_new(m, "ringside_kernel_gcm_async_completions", RS_COUNTER, NULL,
					   "Completions of asynchronous requests that were seen.",
					   labels, 1);
	fam[KF_LATENCY] = rs_family_new(m, "ringside_kernel_gcm_request_seconds", RS_COUNTER, "seconds",
					"Time from submission to return or completion, summed.", labels, 1);
	err = ringside_kaead_totals(c->s, expo_total, fam);
	for (int i = 0; i < NR_KF; i++)
		rs_family_end(fam[i]);
	return err == -ENOENT ? 0 : err;
}

const struct rs_collector_ops rs_kaead_ops = {
	.name = "kernel-gcm",
	.parts = kaead_parts,
	.nr_parts = RS_NR(kaead_parts),
	.load = kaead_load,
	.attach = kaead_attach,
	.destroy = kaead_destroy,
	.release = kaead_release,
	.metrics = kaead_metrics,
};

int ringside_session_enable_kaead(struct ringside_session *s, const struct ringside_kaead_opts *opts)
{
	struct rs_kaead *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return -ENOMEM;
	k->aggregate = opts && opts->sz >= offsetof(struct ringside_kaead_opts, aggregate) +
						 sizeof(opts->aggregate) && opts->aggregate;
	err = rs_session_add(s, &rs_kaead_ops, k);
	if (err)
		free(k);
	return err;
}

static struct rs_collector *kaead_collector(const struct ringside_session *s)
{
	return (struct rs_collector *)rs_session_collector(s, &rs_kaead_ops);
}

const char *ringside_kaead_variant(const struct ringside_session *s)
{
	const struct rs_collector *c = kaead_collector(s);

	return c && c->obj ? ((const struct rs_kaead *)c->priv)->variant : NULL;
}

uint64_t ringside_kaead_missed(const struct ringside_session *s, unsigned int slot)
{
	const struct rs_collector *c = kaead_collector(s);

	return c ? rs_collector_slot(c, "kaead_miss", slot) : 0;
}

/* The names of every algorithm the programs met, read once per totals walk. */
static void read_algs(struct rs_kaead *k)
{
	int fd = bpf_map__fd(k->skel->maps.kaead_algs);
	unsigned int cap = bpf_map__max_entries(k->skel->maps.kaead_algs);
	uint64_t key, next;
	void *prev = NULL;

	k->nr_algs = 0;
	if (!k->algs) {
		k->algs = calloc(cap, sizeof(*k->algs));
		k->alg_keys = calloc(cap, sizeof(*k->alg_keys));
		if (!k->algs || !k->alg_keys)
			return;
	}
	while (k->nr_algs < cap && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &k->algs[k->nr_algs]))
			k->alg_keys[k->nr_algs++] = key;
	}
}

struct total_walk {
	struct rs_kaead *k;
	int (*fn)(void *ctx, const struct ringside_kaead_total *t);
	void *ctx;
};

static int total_row(void *ctx, const struct rs_total_key *key, const struct rs_total_val *val)
{
	struct total_walk *w = ctx;
	uint64_t alg = key->k2 | (uint64_t)key->k3 << 32;
	struct ringside_kaead_total t = {
		.tgid = key->tgid,
		.dir = key->k1 & 0xff,
		.key_bits = key->k1 >> 8,
		.driver = "?",
		.alg = "?",
		.ops = val->c[RS_KAEAD_TOTAL_OPS],
		.aad_bytes = val->c[RS_KAEAD_TOTAL_AAD],
		.payload_bytes = val->c[RS_KAEAD_TOTAL_PAYLOAD],
		.tag_failures = val->c[RS_KAEAD_TOTAL_TAG_FAIL],
		.errors = val->c[RS_KAEAD_TOTAL_ERRORS],
		.async = val->c[RS_KAEAD_TOTAL_ASYNC],
		.async_done = val->c[RS_KAEAD_TOTAL_ASYNC_DONE],
		.latency_sum_ns = val->c[RS_KAEAD_TOTAL_LAT_SUM],
	};

	for (unsigned int i = 0; i < w->k->nr_algs; i++)
		if (w->k->alg_keys[i] == alg) {
			t.driver = w->k->algs[i].driver;
			t.alg = w->k->algs[i].name;
			break;
		}
	return w->fn(w->ctx, &t);
}

int ringside_kaead_totals(struct ringside_session *s,
			  int (*fn)(void *ctx, const struct ringside_kaead_total *t), void *ctx)
{
	struct rs_collector *c = kaead_collector(s);
	struct total_walk w = { .fn = fn, .ctx = ctx };

	if (!c || !c->obj)
		return -ENOENT;
	w.k = c->priv;
	read_algs(w.k);
	return rs_collector_totals(c, total_row, &w);
}
