// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringside gcm --kernel: AES-GCM requests through the kernel crypto API,
 * by submitter, direction, key size and the driver that did the work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ringside/gcm.h"
#include "ringside/kaead.h"

struct kgcm_cli {
	const struct cli_opts *o;
	bool events;
	struct ringside_session *s;
};

static void json_names(struct ringside_json *j, const struct rs_kaead_event *e)
{
	ringside_json_str(j, "alg", e->alg);
	ringside_json_str(j, "driver", e->driver);
	ringside_json_str(j, "outer_driver", e->outer_driver);
}

static int on_event(void *ctx, const struct rs_event_hdr *hdr, size_t size)
{
	struct kgcm_cli *k = ctx;
	const struct rs_kaead_event *e = (const void *)hdr;
	char lat[24];

	if (hdr->type != RS_EV_KAEAD || size < sizeof(*e))
		return 0;
	if (!k->events && e->result != RS_GCM_TAG_FAIL)
		return 0;
	if (k->o->json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", e->result == RS_GCM_TAG_FAIL ? "kernel_gcm_tag_failure"
									 : "kernel_gcm_op");
		cli_json_hdr(&j, &e->hdr);
		cli_json_gcm_msg(&j, e->dir, e->key_bits, e->aad_bytes, e->payload_bytes, e->latency_ns,
				 e->result, e->retval);
		ringside_json_bool(&j, "async", e->flags & RS_KAEAD_F_ASYNC);
		ringside_json_u64(&j, "nested_calls", e->depth);
		json_names(&j, e);
		ringside_json_end(&j);
		return 0;
	}
	snprintf(lat, sizeof(lat), "%.3f", e->latency_ns / 1000.0);
	printf("%-16s %7u %7u %-4s %4u %6llu %8llu %10s %-9s %s%s (%s)\n", e->hdr.comm, e->hdr.tgid,
	       e->hdr.tid, ringside_gcm_dir_name(e->dir), e->key_bits,
	       (unsigned long long)e->aad_bytes, (unsigned long long)e->payload_bytes, lat,
	       ringside_gcm_result_name(e->result), e->driver,
	       e->flags & RS_KAEAD_F_ASYNC ? " async" : "", e->alg);
	fflush(stdout);
	return 0;
}

struct sum_walk {
	const struct kgcm_cli *k;
	unsigned int rows;
	uint64_t async, async_done;
};

static int print_total(void *ctx, const struct ringside_kaead_total *t)
{
	struct sum_walk *w = ctx;
	uint64_t results = t->ops - (t->async - t->async_done);
	double avg_us = results ? t->latency_sum_ns / 1000.0 / results : 0;

	w->async += t->async;
	w->async_done += t->async_done;
	if (w->k->o->json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "kernel_gcm_total");
		ringside_json_u64(&j, "pid", t->tgid);
		ringside_json_str(&j, "dir", ringside_gcm_dir_name(t->dir));
		ringside_json_u64(&j, "key_bits", t->key_bits);
		ringside_json_str(&j, "driver", t->driver);
		ringside_json_str(&j, "alg", t->alg);
		ringside_json_u64(&j, "ops", t->ops);
		ringside_json_u64(&j, "aad_bytes", t->aad_bytes);
		ringside_json_u64(&j, "payload_bytes", t->payload_bytes);
		ringside_json_u64(&j, "tag_failures", t->tag_failures);
		ringside_json_u64(&j, "errors", t->errors);
		ringside_json_u64(&j, "async", t->async);
		ringside_json_u64(&j, "async_completed", t->async_done);
		ringside_json_u64(&j, "latency_sum_ns", t->latency_sum_ns);
		ringside_json_end(&j);
	} else {
		if (!w->rows)
			printf("%7s %-4s %4s %9s %12s %10s %8s %7s %9s %s\n", "PID", "DIR", "KEY", "OPS",
			       "PAYLOAD_B", "AAD_B", "TAGFAIL", "ERRORS", "AVG_US", "DRIVER");
		printf("%7u %-4s %4u %9llu %12llu %10llu %8llu %7llu %9.3f %s\n", t->tgid,
		       ringside_gcm_dir_name(t->dir), t->key_bits, (unsigned long long)t->ops,
		       (unsigned long long)t->payload_bytes, (unsigned long long)t->aad_bytes,
		       (unsigned long long)t->tag_failures, (unsigned long long)t->errors, avg_us,
		       t->driver);
	}
	w->rows++;
	return 0;
}

static void summarize(void *ctx, double elapsed, bool final)
{
	struct kgcm_cli *k = ctx;
	struct sum_walk w = { .k = k };
	uint64_t depth = ringside_kaead_missed(k->s, RS_KAEAD_MISS_DEPTH);
	uint64_t tasks = ringside_kaead_missed(k->s, RS_KAEAD_MISS_TASKS);
	uint64_t flight = ringside_kaead_missed(k->s, RS_KAEAD_MISS_INFLIGHT);

	/* --interval: the totals so far (the kernel keeps them since the start). */
	if (!k->o->json)
		printf("\n%s after %.1f s:\n", final ? "totals" : "totals so far", elapsed);
	ringside_kaead_totals(k->s, print_total, &w);
	if (!w.rows && !k->o->json)
		printf("no kernel AES-GCM request seen\n");
	if (!final)
		return;
	/* Never a silent gap: what was not followed to its end is said. */
	if (w.async != w.async_done)
		cli_err("kernel-gcm: %llu asynchronous requests were counted at submission; their "
			"completion (result, latency) was not seen", (unsigned long long)(w.async - w.async_done));
	if (depth || tasks || flight)
		cli_err("kernel-gcm: not followed: %llu calls nested too deep, %llu requests "
			"(no task-local stack), %llu completions (in-flight map full)",
			(unsigned long long)depth, (unsigned long long)tasks, (unsigned long long)flight);
}

/* The last clause of a feature's reason: what the kernel lacks, briefly. */
static const char *brief(const struct ringside_feature_result *r)
{
	const char *p = strrchr(r->why, ':');

	return p ? p + 2 : r->why;
}

int gcm_kernel_run(const struct cli_opts *o, bool events)
{
	struct kgcm_cli k = { .o = o, .events = events };
	struct ringside_kaead_opts ko = { .sz = sizeof(ko) };
	const struct ringside_feature_result *fentry, *kprobe;
	struct cli_loop loop;
	int err, ret = 1;

	if (cli_require_bpf())
		return 1;
	cli_setup_libbpf_print(o->verbose);
	fentry = ringside_feature(RINGSIDE_FEAT_FENTRY);
	kprobe = ringside_feature(RINGSIDE_FEAT_KPROBE);
	if (!fentry->present && !kprobe->present) {
		cli_err("gcm --kernel needs fentry/fexit or kprobes, and this kernel allows neither "
			"(fentry: %s; kprobes: %s); see ringside features", brief(fentry), brief(kprobe));
		return 1;
	}
	if (cli_session_open(o, on_event, &k, &k.s))
		return 1;
	err = ringside_session_enable_kaead(k.s, &ko);
	if (err) {
		cli_fail(k.s, err, "gcm --kernel");
		goto out;
	}
	err = ringside_session_attach(k.s);
	if (err) {
		cli_fail(k.s, err, "gcm --kernel");
		goto out;
	}
	if (o->json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "kernel_gcm_start");
		ringside_json_str(&j, "variant", ringside_kaead_variant(k.s));
		ringside_json_end(&j);
	} else {
		fprintf(stderr, "ringside: tracing kernel AES-GCM (crypto_aead_* by %s)... Ctrl-C to end.\n",
			ringside_kaead_variant(k.s));
		if (events)
			printf("%-16s %7s %7s %-4s %4s %6s %8s %10s %-9s %s\n", "COMM", "PID", "TID", "DIR",
			       "KEY", "AAD", "PAYLOAD", "LAT_US", "RESULT", "DRIVER (ALG)");
	}
	fflush(stdout);
	loop = (struct cli_loop){ .s = k.s, .o = o, .summary = summarize, .ctx = &k };
	ret = cli_run(&loop);
out:
	ringside_session_close(k.s);
	return ret;
}
