// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringside reclaim profile: reclaim outcomes against swappiness, as table, JSON, SVG. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ringside/reclaim.h"

static const char profile_usage[] =
	"Usage: ringside reclaim profile --cgroup PATH [OPTIONS]\n"
	"Drive reclaim on a memory cgroup for each swappiness setting and report,\n"
	"per setting: bytes requested vs reclaimed, anon vs file pages, time, failures.\n"
	"cgroup v2: memory.reclaim with swappiness= (Linux 6.11+); v1: memory.swappiness\n"
	"and a reclaim asked for by lowering memory.limit_in_bytes, then restoring it.\n"
	"Every change is written to /run/ringside/PID.state before it is made: a run\n"
	"killed before it could restore them is repaired by the next profile, or by\n"
	"ringside cleanup. The root memory cgroup is refused.\n"
	"\n"
	"      --cgroup PATH        the memory cgroup (required)\n"
	"      --swappiness LIST    comma-separated settings, 0..200 (default 0,30,60,100,200)\n"
	"      --amount SIZE        bytes to ask for per round, e.g. 64M (default 32M)\n"
	"      --rounds N           rounds per setting (default 1)\n"
	"      --workload SIZE      run a built-in workload in the cgroup: SIZE of anon\n"
	"                           memory and page cache together, refilled every round\n"
	"      --setup-zram SIZE    create a zram swap device for the profile (removed after)\n"
	"      --svg FILE           write a chart: anon/file share and reclaimed bytes\n"
	"      --json               one JSON object per round\n"
	"  -v, --verbose            show libbpf's log (program loads, verifier)\n"
	"  -h, --help\n";

#define MAX_SETTINGS 32
#define MAX_ROUNDS_TOTAL 512

struct profile_cli {
	bool json;
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
	(void)ctx;
	fprintf(stderr, "ringside: %s\n", line);
}

static int on_row(void *ctx, const struct ringside_reclaim_profile_row *r)
{
	struct profile_cli *pc = ctx;

	if (pc->nr_rows < MAX_ROUNDS_TOTAL)
		pc->rows[pc->nr_rows++] = *r;
	if (pc->json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "reclaim_profile");
		ringside_json_i64(&j, "swappiness", r->swappiness);
		ringside_json_u64(&j, "round", r->round);
		ringside_json_str(&j, "method", r->method);
		ringside_json_u64(&j, "requested", r->requested);
		ringside_json_u64(&j, "reclaimed", r->reclaimed);
		ringside_json_u64(&j, "anon_pages", r->anon_pages);
		ringside_json_u64(&j, "file_pages", r->file_pages);
		ringside_json_u64(&j, "scanned_anon", r->scanned_anon);
		ringside_json_u64(&j, "scanned_file", r->scanned_file);
		ringside_json_double(&j, "seconds", r->seconds, 6);
		ringside_json_i64(&j, "error", r->err);
		ringside_json_end(&j);
	} else {
		double total = (double)(r->anon_pages + r->file_pages);

		if (pc->nr_rows == 1)
			printf("%-10s %5s %10s %10s %9s %9s %6s %9s  %s\n", "SWAPPINESS", "ROUND",
			       "REQ(MiB)", "GOT(MiB)", "ANON(MiB)", "FILE(MiB)", "ANON%", "TIME(ms)",
			       "RESULT");
		printf("%-10d %5u %10.1f %10.1f %9.1f %9.1f %5.0f%% %9.2f  %s\n", r->swappiness, r->round,
		       r->requested / 1048576.0, r->reclaimed / 1048576.0, r->anon_pages * 4096 / 1048576.0,
		       r->file_pages * 4096 / 1048576.0, total ? 100.0 * r->anon_pages / total : 0.0,
		       r->seconds * 1e3, r->err ? ringside_strerror(r->err) : "ok");
	}
	fflush(stdout);
	return 0;
}

/* Bars per setting: anon share stacked under file share, reclaimed MiB on a line. */
static int write_svg(const struct profile_cli *pc, const char *path)
{
	FILE *f = fopen(path, "w");
	const int w = 720, h = 360, left = 60, bottom = 300, top = 40, plot = bottom - top;
	double max_mib = 1;
	unsigned int n = pc->nr_rows;

	if (!f)
		return -errno;
	for (unsigned int i = 0; i < n; i++)
		if (pc->rows[i].reclaimed / 1048576.0 > max_mib)
			max_mib = pc->rows[i].reclaimed / 1048576.0;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
	fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">Reclaim by swappiness: anon (red) vs "
		   "file (blue) share of reclaimed pages; line: MiB reclaimed (max %.1f)</text>\n",
		left, max_mib);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, bottom,
		w - 20, bottom);
	fprintf(f, "<text x=\"10\" y=\"%d\">0%%</text><text x=\"10\" y=\"%d\">100%%</text>\n", bottom,
		top + 4);
	for (unsigned int i = 0; i < n; i++) {
		const struct ringside_reclaim_profile_row *r = &pc->rows[i];
		double slot = (double)(w - left - 20) / (n ? n : 1), x = left + i * slot + slot * 0.15;
		double total = (double)(r->anon_pages + r->file_pages);
		double anon_h = total ? plot * r->anon_pages / total : 0, file_h = total ? plot - anon_h : 0;

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#d62728\"/>\n",
			x, bottom - anon_h, slot * 0.7, anon_h);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f77b4\"/>\n",
			x, bottom - anon_h - file_h, slot * 0.7, file_h);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%s</text>\n",
			x + slot * 0.35, bottom + 16, r->swappiness, r->err ? " !" : "");
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"black\"><title>%.1f MiB</title></circle>\n",
			x + slot * 0.35, bottom - plot * (r->reclaimed / 1048576.0) / max_mib,
			r->reclaimed / 1048576.0);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">swappiness (per round; ! = request failed)</text>\n",
		left, bottom + 36);
	fputs("</svg>\n", f);
	return fclose(f) ? -errno : 0;
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
		out[(*n)++] = (int)v;
	}
	free(copy);
	return *n ? 0 : -EINVAL;
}

int cmd_reclaim_profile(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "swappiness", required_argument, NULL, 's' },
		{ "amount", required_argument, NULL, 'a' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "workload", required_argument, NULL, 'w' },
		{ "setup-zram", required_argument, NULL, 'z' },
		{ "svg", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static int settings[MAX_SETTINGS] = { 0, 30, 60, 100, 200 };
	struct ringside_reclaim_profile_opts po = { .sz = sizeof(po), .swappiness = settings,
						    .nr_swappiness = 5, .amount = 32 << 20,
						    .rounds = 1, .stop = &profile_stop,
						    .on_note = print_note };
	struct profile_cli *pc = calloc(1, sizeof(*pc));
	const char *svg = NULL;
	unsigned long long v;
	struct sigaction sa = { .sa_handler = on_sigint };
	int opt, err, ret = 2, verbose = 0;

	if (!pc)
		return 1;
	while ((opt = cli_getopt(argc, argv, "hv", longopts)) != -1) {
		switch (opt) {
		case 'c': po.cgroup = optarg; break;
		case 's':
			if (parse_list(optarg, settings, &po.nr_swappiness)) {
				cli_err("bad --swappiness '%s': up to %d comma-separated values in 0..200",
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
		case 'r':
			if (cli_parse_uint(optarg, 1, MAX_ROUNDS_TOTAL, &v)) {
				cli_err("bad --rounds '%s': a whole number from 1 to %d", cli_quote(optarg),
					MAX_ROUNDS_TOTAL);
				goto out;
			}
			po.rounds = (unsigned int)v;
			break;
		case 'g': svg = optarg; break;
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
	/* Checked once all options are in: --rounds may come before --swappiness. */
	if (po.rounds * po.nr_swappiness > MAX_ROUNDS_TOTAL) {
		cli_err("%u rounds of %u settings is more than %d requests: lower --rounds",
			po.rounds, po.nr_swappiness, MAX_ROUNDS_TOTAL);
		goto out;
	}
	/* A chart that cannot be written should fail now, not after the profile. */
	if (svg && cli_check_writable(svg))
		goto out;
	ret = 1;
	cli_setup_libbpf_print(verbose);
	if (cli_require_bpf())
		goto out;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ringside_state_repair(cli_print_repair, NULL);
	err = ringside_reclaim_profile(&po, on_row, pc);
	if (err == -EINTR) {
		cli_err("interrupted: the workload, zram device and settings were cleaned up");
		goto out;
	}
	if (err) {
		cli_err("reclaim profile: %s", ringside_last_errmsg()[0] ? ringside_last_errmsg() :
							       ringside_strerror(err));
		goto out;
	}
	if (svg) {
		err = write_svg(pc, svg);
		if (err) {
			cli_err("cannot write %s: %s", svg, strerror(-err));
			goto out;
		}
		fprintf(stderr, "ringside: chart written to %s\n", svg);
	}
	ret = 0;
out:
	free(pc);
	return ret;
}
