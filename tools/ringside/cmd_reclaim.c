// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringside reclaim: memcg/global reclaim invocations, and the profiler. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ringside/reclaim.h"

static const char reclaim_usage[] =
	"Usage: ringside reclaim [OPTIONS]\n"
	"       ringside reclaim profile --cgroup PATH [PROFILE OPTIONS]\n"
	"Trace memory reclaim: one record per invocation (a memory.reclaim or limit\n"
	"write, memory.high, a charge over the limit, force_empty, global direct\n"
	"reclaim, a kswapd run) with its target cgroup, the request and its\n"
	"swappiness= argument, the swappiness in effect, pages scanned and reclaimed\n"
	"split anon/file, the priority reached, duration and the write's result.\n"
	"A summary per cgroup follows every --interval (that interval's) and the end\n"
	"(the whole run's).\n"
	"\n"
	"  -e, --events           print every invocation\n"
	"      --target-cgroup PATH\n"
	"                         only reclaim of this memory cgroup's subtree: a write\n"
	"                         to one of its control files, or a charge by one of\n"
	"                         its tasks (its directory, or its path as\n"
	"                         /proc/PID/cgroup shows it; v1 or v2). The options\n"
	"                         below select the task that asks for reclaim.\n"
	"\n" CLI_COMMON_HELP
	"\n"
	"profile: drive reclaim on a cgroup for each swappiness setting; see\n"
	"'ringside reclaim profile --help'.\n";

#define PAGE 4096ULL
#define MAX_ROWS 256

struct cg_counts {
	uint64_t n, failures, reclaimed_anon, reclaimed_file, scanned_anon, scanned_file;
	uint64_t ns;
};

/* Counts come from the kernel's totals (exact under ring drops); records only name rows. */
struct cg_row {
	uint64_t id;
	char path[512];
	struct cg_counts interval, run;	/* since the last summary; since the start */
	uint64_t records;		/* records delivered since the start */
};

struct reclaim_cli {
	struct cli_opts o;
	bool events;
	struct ringside_session *s;
	struct cg_row rows[MAX_ROWS];
	unsigned int nr_rows;
	double last_tick;
};

static struct cg_row *row_of(struct reclaim_cli *r, uint64_t id)
{
	for (unsigned int i = 0; i < r->nr_rows; i++)
		if (r->rows[i].id == id)
			return &r->rows[i];
	if (r->nr_rows == MAX_ROWS)
		return NULL;
	r->rows[r->nr_rows] = (struct cg_row){ .id = id };
	if (ringside_memcg_path(id, r->rows[r->nr_rows].path, sizeof(r->rows[0].path)))
		snprintf(r->rows[r->nr_rows].path, sizeof(r->rows[0].path), "cgroup-id:%llu",
			 (unsigned long long)id);
	return &r->rows[r->nr_rows++];
}

static int on_event(void *ctx, const struct rs_event_hdr *hdr, size_t size)
{
	struct reclaim_cli *r = ctx;
	const struct rs_reclaim_event *e = (const void *)hdr;
	unsigned int trig;
	struct cg_row *row;
	uint64_t req_bytes = 0;
	int req_sw = -1, sw_effect;
	char req[RS_RECLAIM_REQ_LEN + 1] = "";
	bool is_write = e->flags & RS_RECLAIM_F_WRITE;

	if (hdr->type != RS_EV_RECLAIM || size < sizeof(*e))
		return 0;
	trig = ringside_reclaim_trigger(r->s, e);
	row = row_of(r, e->target_cgroup_id);
	if (is_write) {
		memcpy(req, e->req, e->req_len < RS_RECLAIM_REQ_LEN ? e->req_len : RS_RECLAIM_REQ_LEN);
		req[strcspn(req, "\n")] = '\0';
	}
	req_sw = ringside_reclaim_request_swappiness(e, trig, &req_bytes);
	sw_effect = req_sw >= 0 ? req_sw : ringside_memcg_swappiness(row && row->path[0] == '/' ?
								      row->path : NULL);
	if (row)
		row->records++;
	if (!r->events)
		return 0;
	if (r->o.json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "reclaim");
		ringside_json_u64(&j, "ts_ns", hdr->ts_ns);
		ringside_json_str(&j, "trigger", ringside_reclaim_trigger_name(trig));
		ringside_json_u64(&j, "pid", hdr->tgid);
		ringside_json_u64(&j, "tid", hdr->tid);
		ringside_json_strn(&j, "comm", hdr->comm, sizeof(hdr->comm));
		/* The reclaimed cgroup; the writing task's is task_cgroup_id. */
		ringside_json_u64(&j, "cgroup_id", e->target_cgroup_id);
		ringside_json_str(&j, "cgroup", row ? row->path : "");
		ringside_json_u64(&j, "task_cgroup_id", e->task_cgroup_id);
		ringside_json_bool(&j, "global", e->flags & RS_RECLAIM_F_GLOBAL);
		ringside_json_i64(&j, "swappiness", sw_effect);
		ringside_json_str(&j, "swappiness_from", req_sw >= 0 ? "request" : "cgroup-or-vm");
		if (is_write) {
			ringside_json_str(&j, "request", req);
			if (trig == RS_RECLAIM_TRIG_PROACTIVE)
				ringside_json_u64(&j, "requested_bytes", req_bytes);
			else if (trig == RS_RECLAIM_TRIG_MAX_WRITE && req_bytes)
				ringside_json_u64(&j, "limit_bytes", req_bytes);
			ringside_json_i64(&j, "write_ret", e->write_ret);
		}
		if (e->flags & RS_RECLAIM_F_FENTRY) {
			ringside_json_u64(&j, "reclaim_memcg_id", e->reclaim_memcg_id);
			ringside_json_i64(&j, "swappiness_arg", e->swappiness_arg);
		}
		ringside_json_u64(&j, "passes", e->passes);
		ringside_json_i64(&j, "priority", e->min_priority);
		ringside_json_u64(&j, "nr_reclaimed", e->nr_reclaimed);
		ringside_json_u64(&j, "reclaimed_anon", e->reclaimed_anon);
		ringside_json_u64(&j, "reclaimed_file", e->reclaimed_file);
		ringside_json_u64(&j, "scanned_anon", e->scanned_anon);
		ringside_json_u64(&j, "scanned_file", e->scanned_file);
		ringside_json_u64(&j, "active_scanned_anon", e->active_scanned_anon);
		ringside_json_u64(&j, "active_scanned_file", e->active_scanned_file);
		ringside_json_u64(&j, "duration_ns", e->duration_ns);
		ringside_json_end(&j);
		return 0;
	}
	printf("%-14s %-30s %7u %-15s sw %3d%s reclaimed %6llu anon %6llu file  scanned %6llu/%-6llu "
	       "prio %2d %8.3f ms",
	       ringside_reclaim_trigger_name(trig), row ? row->path : "?", hdr->tgid, hdr->comm,
	       sw_effect, req_sw >= 0 ? "*" : " ", (unsigned long long)e->reclaimed_anon,
	       (unsigned long long)e->reclaimed_file, (unsigned long long)e->scanned_anon,
	       (unsigned long long)e->scanned_file, e->min_priority, e->duration_ns / 1e6);
	if (is_write)
		printf("  \"%s\" -> %lld", req, (long long)e->write_ret);
	putchar('\n');
	return 0;
}

/* The kernel's cumulative counts: this interval's share, and the run's. */
static int take_total(void *ctx, const struct ringside_reclaim_total *t)
{
	struct reclaim_cli *r = ctx;
	struct cg_row *row = row_of(r, t->cgroup_id);
	struct cg_counts now = { t->calls, t->failed, t->reclaimed_anon, t->reclaimed_file,
				 t->scanned_anon, t->scanned_file, t->time_ns };

	if (!row)
		return 0;
	row->interval = (struct cg_counts){
		now.n - row->run.n, now.failures - row->run.failures,
		now.reclaimed_anon - row->run.reclaimed_anon,
		now.reclaimed_file - row->run.reclaimed_file,
		now.scanned_anon - row->run.scanned_anon, now.scanned_file - row->run.scanned_file,
		now.ns - row->run.ns,
	};
	row->run = now;
	return 0;
}

static void summarize(void *ctx, double elapsed, bool final)
{
	struct reclaim_cli *r = ctx;
	double secs = final ? elapsed : elapsed - r->last_tick;

	ringside_reclaim_totals(r->s, take_total, r);

	if (!r->o.json)
		printf("\nreclaim %s %.1f s: %u cgroups\n",
		       final && r->o.interval ? "in the whole run," : "over", secs, r->nr_rows);
	for (unsigned int i = 0; i < r->nr_rows; i++) {
		const struct cg_counts *c = final ? &r->rows[i].run : &r->rows[i].interval;

		if (!c->n)
			continue;
		if (r->o.json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "reclaim_summary");
			ringside_json_str(&j, "scope", final ? "run" : "interval");
			ringside_json_double(&j, "interval_s", secs, 3);
			ringside_json_u64(&j, "cgroup_id", r->rows[i].id);
			ringside_json_str(&j, "cgroup", r->rows[i].path);
			ringside_json_u64(&j, "invocations", c->n);
			ringside_json_u64(&j, "failures", c->failures);
			ringside_json_u64(&j, "reclaimed_anon", c->reclaimed_anon);
			ringside_json_u64(&j, "reclaimed_file", c->reclaimed_file);
			ringside_json_u64(&j, "scanned_anon", c->scanned_anon);
			ringside_json_u64(&j, "scanned_file", c->scanned_file);
			ringside_json_u64(&j, "time_ns", c->ns);
			ringside_json_u64(&j, "records", r->rows[i].records);
			ringside_json_end(&j);
			continue;
		}
		printf("  %-40s %5llu calls %4llu failed  reclaimed %8.1f MiB anon %8.1f MiB file  "
		       "scanned %llu/%llu pages  %.1f ms",
		       r->rows[i].path, (unsigned long long)c->n, (unsigned long long)c->failures,
		       c->reclaimed_anon * PAGE / 1048576.0, c->reclaimed_file * PAGE / 1048576.0,
		       (unsigned long long)c->scanned_anon, (unsigned long long)c->scanned_file,
		       c->ns / 1e6);
		/* The counts are the kernel's; the lines above came from the records. */
		if (final && r->rows[i].records < c->n)
			printf("  (%llu of the %llu records lost)",
			       (unsigned long long)(c->n - r->rows[i].records), (unsigned long long)c->n);
		putchar('\n');
	}
	for (unsigned int i = 0; i < r->nr_rows; i++)
		r->rows[i].interval = (struct cg_counts){ 0 };
	fflush(stdout);
	r->last_tick = elapsed;
}


int cmd_reclaim_profile(int argc, char **argv);

int cmd_reclaim(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "target-cgroup", required_argument, NULL, OPT_TARGET_CGROUP },
		CLI_COMMON_LONGOPTS,
		{ 0 },
	};
	struct reclaim_cli r = { 0 };
	struct ringside_reclaim_opts ro = { .sz = sizeof(ro) };
	struct cli_loop loop;
	int opt, err, ret;

	if (argc > 1 && !strcmp(argv[1], "profile"))
		return cmd_reclaim_profile(argc - 1, argv + 1);
	while ((opt = cli_getopt(argc, argv, "e" CLI_COMMON_SHORTOPTS, longopts)) != -1) {
		switch (opt) {
		case 'e': r.events = true; break;
		case OPT_TARGET_CGROUP: ro.target_cgroup = optarg; break;
		case 'h': fputs(reclaim_usage, stdout); return 0;
		default:
			ret = cli_common_opt(opt, optarg, &r.o);
			if (ret < 0)
				return 2;
			if (!ret)
				return cli_bad_option("reclaim", argv);
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s': see ringside reclaim --help", argv[optind]);
		return 2;
	}
	if (cli_require_bpf())
		return 1;
	if (cli_session_open(&r.o, on_event, &r, &r.s))
		return 1;
	ret = 1;
	err = ringside_session_enable_reclaim(r.s, &ro);
	if (!err)
		err = ringside_session_attach(r.s);
	if (err) {
		cli_fail(r.s, err, "reclaim");
		goto out;
	}
	if (!r.o.json || r.o.verbose)
		fprintf(stderr, "%s", ringside_session_notes(r.s));
	if (r.events && !r.o.json)
		printf("%-14s %-30s %7s %-15s %-7s %s\n", "TRIGGER", "CGROUP", "PID", "COMM", "SWAPPY",
		       "WHAT (pages; * = swappiness= from the request)");
	fprintf(stderr, "ringside: tracing reclaim... Ctrl-C to end\n");
	loop = (struct cli_loop){ .s = r.s, .o = &r.o, .summary = summarize,
				  .ctx = &r };
	ret = cli_run(&loop);
out:
	ringside_session_close(r.s);
	return ret;
}
