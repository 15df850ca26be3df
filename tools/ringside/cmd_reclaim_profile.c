// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringside reclaim profile: for each swappiness setting, what reclaim took
 * and what it cost afterwards, over repeated trials; a recommendation; as
 * table, JSON and a chart (SVG or PNG).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "profile_chart.h"
#include "ringside/reclaim.h"

static const char profile_usage[] =
	"Usage: ringside reclaim profile --cgroup PATH [OPTIONS]\n"
	"Which swappiness suits a workload: for each setting, ask the kernel to reclaim\n"
	"an amount from a memory cgroup, then watch what that cost while the workload\n"
	"runs on (refaults, major faults, swap-ins, PSI stall time, its throughput).\n"
	"Repeated trials in shuffled order give each figure a mean and a spread, and\n"
	"the settings with the fewest refaults per reclaimed page are recommended.\n"
	"cgroup v2: memory.reclaim with swappiness= (Linux 6.11+); v1: memory.swappiness\n"
	"and a reclaim asked for by lowering memory.limit_in_bytes, then restoring it.\n"
	"Every change is written to /run/ringside/PID.state before it is made: a run\n"
	"killed before it could restore them is repaired by the next profile, or by\n"
	"ringside cleanup. The root memory cgroup is refused.\n"
	"\n"
	"      --cgroup PATH        the memory cgroup (required)\n"
	"      --swappiness LIST    comma-separated settings, 0..200 (default 0,30,60,100,200)\n"
	"      --amount SIZE        bytes to ask for per step, e.g. 64M (default 32M)\n"
	"      --trials N           trials per setting, each in a new shuffled order (default 3)\n"
	"      --rounds N           the old name of --trials\n"
	"      --window SECS        watch the cost for SECS after each step (default 1)\n"
	"      --seed N             the shuffle's seed (default: from the clock, printed)\n"
	"      --workload SIZE      run a built-in workload in the cgroup: SIZE of anon\n"
	"                           memory and page cache together\n"
	"      --workload-type T    mixed (both hot, default), anon-hot (hot anon, cold page\n"
	"                           cache) or file-hot (hot page cache, cold anon)\n"
	"      --attach             profile the cgroup's own tasks (a running service): no\n"
	"                           workload, each step takes at most --amount\n"
	"      --workload-metric CMD  a shell command printing the workload's cumulative\n"
	"                           count (requests served...): its rate in each window\n"
	"      --setup-zram SIZE    create a zram swap device for the profile (removed after)\n"
	"      --svg FILE           write the chart (split and cost per setting) as SVG\n"
	"      --png FILE           the same chart as PNG\n"
	"      --json               JSON Lines: one object per trial, per setting, then the\n"
	"                           recommendation and the profile's totals\n"
	"  -v, --verbose            show libbpf's log (program loads, verifier)\n"
	"  -h, --help\n";

#define MAX_SETTINGS 32
#define MAX_ROUNDS_TOTAL 512

enum { OPT_TRIALS = 1000, OPT_WINDOW, OPT_SEED, OPT_WTYPE, OPT_ATTACH, OPT_METRIC, OPT_PNG };

struct profile_cli {
	bool json;
	bool tty;		/* stderr is a terminal: the progress line rewrites itself */
	const char *metric_cmd;
	struct ringside_reclaim_profile_row rows[MAX_ROUNDS_TOTAL];
	unsigned int nr_rows;
};

static volatile int profile_stop;

static void on_sigint(int sig)
{
	(void)sig;
	profile_stop = 1;
}

static void print_note(void *ctx, const char *line)
{
	struct profile_cli *pc = ctx;

	fprintf(stderr, "%sringside: %s\n", pc->tty ? "\r\033[K" : "", line);
}

static void print_progress(void *ctx, unsigned int done, unsigned int total, int swappiness, double eta)
{
	struct profile_cli *pc = ctx;

	if (done == total) {
		if (pc->tty)
			fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "%sringside: trial step %u of %u: swappiness %d", pc->tty ? "\r\033[K" : "", done + 1,
		total, swappiness);
	if (eta >= 0)
		fprintf(stderr, ", about %.0f s left", eta);
	fputs(pc->tty ? "" : "\n", stderr);
	fflush(stderr);
}

/* The workload's own counter: the first number CMD prints. */
static int read_metric(void *ctx, double *value)
{
	struct profile_cli *pc = ctx;
	FILE *f = popen(pc->metric_cmd, "r");
	int n, st;

	if (!f)
		return -errno;
	n = fscanf(f, "%lf", value);
	st = pclose(f);
	return n == 1 && st == 0 ? 0 : -EINVAL;
}

static void json_row(const struct ringside_reclaim_profile_row *r)
{
	struct ringside_json j;

	ringside_json_begin(&j, stdout);
	ringside_json_str(&j, "type", "reclaim_profile");
	ringside_json_i64(&j, "swappiness", r->swappiness);
	ringside_json_u64(&j, "trial", r->round);
	ringside_json_u64(&j, "order", r->order);
	ringside_json_str(&j, "method", r->method);
	ringside_json_u64(&j, "requested", r->requested);
	ringside_json_u64(&j, "reclaimed", r->reclaimed);
	ringside_json_u64(&j, "anon_pages", r->anon_pages);
	ringside_json_u64(&j, "file_pages", r->file_pages);
	ringside_json_u64(&j, "scanned_anon", r->scanned_anon);
	ringside_json_u64(&j, "scanned_file", r->scanned_file);
	ringside_json_double(&j, "seconds", r->seconds, 6);
	ringside_json_i64(&j, "error", r->err);
	ringside_json_u64(&j, "calls", r->calls);
	ringside_hist_json(&r->lat_hist, &j, "latency_hist");
	ringside_json_object(&j, "vmstat");
	ringside_json_u64(&j, "pgsteal_anon", r->vm_steal_anon);
	ringside_json_u64(&j, "pgsteal_file", r->vm_steal_file);
	ringside_json_u64(&j, "pgscan_anon", r->vm_scan_anon);
	ringside_json_u64(&j, "pgscan_file", r->vm_scan_file);
	ringside_json_close(&j);
	ringside_json_double(&j, "window_seconds", r->window_s, 3);
	ringside_json_u64(&j, "refault_anon", r->refault_anon);
	ringside_json_u64(&j, "refault_file", r->refault_file);
	ringside_json_u64(&j, "majfaults", r->majfaults);
	ringside_json_u64(&j, "swapins_system", r->swapins);
	if (r->psi_scope) {
		ringside_json_str(&j, "psi_scope", r->psi_scope);
		ringside_json_u64(&j, "stall_some_us", r->stall_some_us);
		ringside_json_u64(&j, "stall_full_us", r->stall_full_us);
	}
	ringside_json_u64(&j, "workload_ops", r->workload_ops);
	ringside_json_double(&j, "metric_rate", r->metric_rate, 3);
	ringside_json_end(&j);
}

static int on_row(void *ctx, const struct ringside_reclaim_profile_row *r)
{
	struct profile_cli *pc = ctx;

	if (pc->nr_rows < MAX_ROUNDS_TOTAL)
		pc->rows[pc->nr_rows++] = *r;
	if (pc->json) {
		json_row(r);
	} else {
		double total = (double)(r->anon_pages + r->file_pages);

		if (pc->tty)
			fputs("\r\033[K", stderr);
		if (pc->nr_rows == 1)
			printf("%-10s %5s %9s %6s %9s %9s %8s %9s %9s %11s  %s\n", "SWAPPINESS", "TRIAL",
			       "GOT(MiB)", "ANON%", "REFLT-ANON", "REFLT-FILE", "MAJFLT", "STALL(ms)", "LAT(ms)",
			       "OPS/s", "RESULT");
		printf("%-10d %5u %9.1f %5.0f%% %10" PRIu64 " %9" PRIu64 " %8" PRIu64 " %9.1f %9.2f %11.0f  %s\n",
		       r->swappiness, r->round, r->reclaimed / 1048576.0, total ? 100.0 * r->anon_pages / total : 0.0,
		       r->refault_anon, r->refault_file, r->majfaults, r->psi_scope ? r->stall_some_us / 1e3 : NAN,
		       r->calls ? r->seconds * 1e3 / r->calls : NAN,
		       r->workload_ops && r->window_s > 0 ? r->workload_ops / r->window_s : r->metric_rate,
		       r->err ? ringside_strerror(r->err) : "ok");
	}
	fflush(stdout);
	return 0;
}

static void json_stat(struct ringside_json *j, const char *key, struct ringside_stat s, int decimals)
{
	ringside_json_object(j, key);
	ringside_json_double(j, "mean", s.mean, decimals);
	ringside_json_double(j, "sd", s.sd, decimals);
	ringside_json_close(j);
}

static void print_summary(const struct profile_cli *pc, const struct ringside_profile_summary *sum,
			  const struct ringside_reclaim_profile_totals *t)
{
	if (pc->json) {
		struct ringside_json j;

		for (unsigned int i = 0; i < sum->nr_settings; i++) {
			const struct ringside_profile_setting *s = &sum->settings[i];

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "reclaim_profile_setting");
			ringside_json_i64(&j, "swappiness", s->swappiness);
			ringside_json_u64(&j, "trials", s->trials);
			ringside_json_u64(&j, "failed", s->failed);
			ringside_json_bool(&j, "short_of_amount", s->short_of_amount);
			json_stat(&j, "reclaimed_mib", s->reclaimed_mib, 3);
			json_stat(&j, "anon_share", s->anon_share, 4);
			json_stat(&j, "refaults", s->refaults, 1);
			json_stat(&j, "refault_anon", s->refault_anon, 1);
			json_stat(&j, "refault_file", s->refault_file, 1);
			json_stat(&j, "majfaults", s->majfaults, 1);
			json_stat(&j, "swapins_system", s->swapins, 1);
			json_stat(&j, "refaults_per_reclaimed_page", s->cost, 4);
			json_stat(&j, "stall_ms", s->stall_ms, 3);
			json_stat(&j, "reclaim_call_ms", s->latency_ms, 3);
			json_stat(&j, "ops_per_s", s->ops_per_s, 1);
			json_stat(&j, "metric_rate", s->metric_rate, 3);
			ringside_json_end(&j);
		}
		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "reclaim_profile_recommendation");
		ringside_json_array(&j, "swappiness");
		for (unsigned int i = 0; i < sum->nr_recommended; i++)
			ringside_json_i64(&j, NULL, sum->recommended[i]);
		ringside_json_close(&j);
		ringside_json_bool(&j, "no_difference", sum->no_difference);
		ringside_json_bool(&j, "no_spread", sum->no_spread);
		ringside_json_str(&j, "text", sum->text);
		ringside_json_end(&j);
		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "reclaim_profile_totals");
		ringside_json_u64(&j, "refault_anon", t->refault_anon);
		ringside_json_u64(&j, "refault_file", t->refault_file);
		ringside_json_u64(&j, "majfaults", t->majfaults);
		ringside_json_u64(&j, "window_refault_anon", t->window_refault_anon);
		ringside_json_u64(&j, "window_refault_file", t->window_refault_file);
		ringside_json_u64(&j, "window_majfaults", t->window_majfaults);
		ringside_json_end(&j);
		return;
	}
	printf("\n%-10s %6s %15s %11s %15s %17s %13s %13s\n", "SWAPPINESS", "TRIALS", "GOT(MiB)", "ANON%",
	       "REFAULTS", "REFAULTS/PAGE", "STALL(ms)", "OPS/s");
	for (unsigned int i = 0; i < sum->nr_settings; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];

		printf("%-10d %6u %8.1f±%-6.1f %4.0f±%-3.0f%% %8.0f±%-6.0f %9.3f±%-7.3f %6.1f±%-6.1f %6.0f±%-6.0f%s\n",
		       s->swappiness, s->trials, s->reclaimed_mib.mean, s->reclaimed_mib.sd,
		       100 * s->anon_share.mean, 100 * s->anon_share.sd, s->refaults.mean, s->refaults.sd,
		       s->cost.mean, s->cost.sd, s->stall_ms.mean, s->stall_ms.sd, s->ops_per_s.mean,
		       s->ops_per_s.sd, s->short_of_amount ? "  short of the amount" : "");
	}
	printf("\nrecommendation: %s\n", sum->text);
}

static int parse_list(const char *s, int *out, unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;

	*n = 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;

		if (cli_parse_uint(tok, 0, 200, &v) || *n == MAX_SETTINGS) {
			free(copy);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < *n; i++)
			if (out[i] == (int)v) {
				free(copy);
				return -EINVAL;
			}
		out[(*n)++] = (int)v;
	}
	free(copy);
	return *n ? 0 : -EINVAL;
}

/* --workload-type's words, by enum ringside_profile_workload. */
static const char *const kind_names[] = {
	[RINGSIDE_WORKLOAD_MIXED] = "mixed",
	[RINGSIDE_WORKLOAD_ANON_HOT] = "anon-hot",
	[RINGSIDE_WORKLOAD_FILE_HOT] = "file-hot",
};

static int write_charts(const struct ringside_profile_summary *sum, const struct ringside_reclaim_profile_opts *po,
			const char *svg, const char *png)
{
	char title[256];

	snprintf(title, sizeof(title), "Reclaim profile of %s%s%s", po->cgroup,
		 po->workload_bytes ? ", workload " : po->attach ? " (attached)" : "",
		 po->workload_bytes ? kind_names[po->workload_kind] : "");
	for (int k = 0; k < 2; k++) {
		const char *path = k ? png : svg;
		int err;

		if (!path)
			continue;
		err = profile_chart_write(sum, title, path, k);
		if (err) {
			cli_err("cannot write %s: %s", path, err == -ENOTSUP ? profile_chart_unavailable() :
				strerror(-err));
			return err;
		}
		fprintf(stderr, "ringside: chart written to %s\n", path);
	}
	return 0;
}

int cmd_reclaim_profile(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "swappiness", required_argument, NULL, 's' },
		{ "amount", required_argument, NULL, 'a' },
		{ "trials", required_argument, NULL, OPT_TRIALS },
		{ "rounds", required_argument, NULL, 'r' },	/* the old name of --trials */
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "workload", required_argument, NULL, 'w' },
		{ "workload-type", required_argument, NULL, OPT_WTYPE },
		{ "attach", no_argument, NULL, OPT_ATTACH },
		{ "workload-metric", required_argument, NULL, OPT_METRIC },
		{ "setup-zram", required_argument, NULL, 'z' },
		{ "svg", required_argument, NULL, 'g' },
		{ "png", required_argument, NULL, OPT_PNG },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static int settings[MAX_SETTINGS] = { 0, 30, 60, 100, 200 };
	struct ringside_reclaim_profile_totals totals = { 0 };
	struct ringside_reclaim_profile_opts po = { .sz = sizeof(po), .swappiness = settings,
						    .nr_swappiness = 5, .amount = 32 << 20,
						    .rounds = 3, .stop = &profile_stop,
						    .on_note = print_note, .window_s = 1.0,
						    .shuffle = true, .on_progress = print_progress,
						    .totals = &totals };
	struct profile_cli *pc = calloc(1, sizeof(*pc));
	struct ringside_profile_summary *sum = calloc(1, sizeof(*sum));
	const char *svg = NULL, *png = NULL, *trials_opt = "--trials";
	bool seeded = false;
	unsigned long long v;
	struct sigaction sa = { .sa_handler = on_sigint };
	int opt, err, ret = 2, verbose = 0;

	if (!pc || !sum) {
		free(pc);
		free(sum);
		return 1;
	}
	pc->tty = isatty(STDERR_FILENO);
	while ((opt = cli_getopt(argc, argv, "hv", longopts)) != -1) {
		switch (opt) {
		case 'c': po.cgroup = optarg; break;
		case 's':
			if (parse_list(optarg, settings, &po.nr_swappiness)) {
				cli_err("bad --swappiness '%s': up to %d distinct comma-separated values in 0..200",
					cli_quote(optarg), MAX_SETTINGS);
				goto out;
			}
			break;
		case 'a': case 'w': case 'z':
			if (cli_parse_size(optarg, &v) || !v) {
				cli_err("bad size '%s' for --%s: a positive number with an optional K, M or G",
					cli_quote(optarg), opt == 'a' ? "amount" : opt == 'w' ? "workload" :
					"setup-zram");
				goto out;
			}
			if (opt == 'a')
				po.amount = v;
			else if (opt == 'w')
				po.workload_bytes = v;
			else
				po.zram_bytes = v;
			break;
		case 'r': case OPT_TRIALS:
			trials_opt = opt == 'r' ? "--rounds" : "--trials";
			if (cli_parse_uint(optarg, 1, MAX_ROUNDS_TOTAL, &v)) {
				cli_err("bad %s '%s': a whole number from 1 to %d", trials_opt, cli_quote(optarg),
					MAX_ROUNDS_TOTAL);
				goto out;
			}
			po.rounds = (unsigned int)v;
			break;
		case OPT_WINDOW:
			if (cli_parse_seconds(optarg, &po.window_s) || po.window_s <= 0 || po.window_s > 3600) {
				cli_err("bad --window '%s': seconds above 0, at most 3600", cli_quote(optarg));
				goto out;
			}
			break;
		case OPT_SEED:
			if (cli_parse_uint(optarg, 0, 0xffffffffu, &v)) {
				cli_err("bad --seed '%s': a whole number from 0 to 4294967295", cli_quote(optarg));
				goto out;
			}
			po.seed = (unsigned int)v;
			seeded = true;
			break;
		case OPT_WTYPE:
			po.workload_kind = -1;
			for (int k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++)
				if (!strcmp(optarg, kind_names[k]))
					po.workload_kind = k;
			if (po.workload_kind < 0) {
				cli_err("bad --workload-type '%s': mixed, anon-hot or file-hot", cli_quote(optarg));
				goto out;
			}
			break;
		case OPT_ATTACH: po.attach = true; break;
		case OPT_METRIC:
			pc->metric_cmd = optarg;
			po.read_metric = read_metric;
			break;
		case 'g': svg = optarg; break;
		case OPT_PNG: png = optarg; break;
		case 'j': pc->json = true; break;
		case 'v': verbose++; break;
		case 'h': fputs(profile_usage, stdout); ret = 0; goto out;
		default: ret = cli_bad_option("reclaim profile", argv); goto out;
		}
	}
	if (!po.cgroup || optind < argc) {
		cli_err("reclaim profile needs --cgroup PATH: see ringside reclaim profile --help");
		goto out;
	}
	/* Checked once all options are in: --trials may come before --swappiness. */
	if (po.rounds * po.nr_swappiness > MAX_ROUNDS_TOTAL) {
		cli_err("%u trials of %u settings is more than %d requests: lower %s", po.rounds,
			po.nr_swappiness, MAX_ROUNDS_TOTAL, trials_opt);
		goto out;
	}
	if (po.attach && po.workload_bytes) {
		cli_err("--attach profiles the cgroup's own tasks: drop --workload (or --attach)");
		goto out;
	}
	/* A chart that cannot be written should fail now, not after the profile. */
	if ((svg && cli_check_writable(svg)) || (png && cli_check_writable(png)))
		goto out;
	if ((svg || png) && profile_chart_unavailable()) {
		cli_err("cannot draw %s: %s", svg ? svg : png, profile_chart_unavailable());
		goto out;
	}
	ret = 1;
	cli_setup_libbpf_print(verbose);
	if (cli_require_bpf())
		goto out;
	if (!seeded)
		po.seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ringside_state_repair(cli_print_repair, NULL);
	err = ringside_reclaim_profile(&po, on_row, pc);
	if (pc->tty)
		fputs("\r\033[K", stderr);
	if (err == -EINTR) {
		cli_err("interrupted: the workload, zram device and settings were cleaned up");
		goto out;
	}
	if (err) {
		cli_err("reclaim profile: %s", ringside_last_errmsg()[0] ? ringside_last_errmsg() :
							       ringside_strerror(err));
		goto out;
	}
	if (ringside_reclaim_profile_summarize(pc->rows, pc->nr_rows, sum) == 0) {
		print_summary(pc, sum, &totals);
		fflush(stdout);
		if (write_charts(sum, &po, svg, png))
			goto out;
	}
	ret = 0;
out:
	free(sum);
	free(pc);
	return ret;
}
