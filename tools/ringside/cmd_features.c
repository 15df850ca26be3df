// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "cli.h"
#include "ringside/gcm.h"
#include "ringside/json.h"

static const char features_usage[] =
	"Usage: ringside features [--json] [-v]\n"
	"Probe the running kernel for what ringside uses, with a real attach test where\n"
	"it is cheap and safe. Each line: name, yes/no, and what was tried. Then each\n"
	"collector's program variants, and where `ringside gcm` puts each probe in this\n"
	"machine's crypto libraries (in both its modes, or only when timing).\n"
	"  --json         one JSON object per feature\n"
	"  -v, --verbose  show libbpf's messages\n";

/*
 * Every probe point of `ringside gcm` on this machine: a system-wide gcm
 * session, enabled (its libraries and probe points found) but not attached.
 * Counting takes the same points but those only timing needs.
 */
static void print_gcm_points(bool json)
{
	struct ringside_session_opts so = { .sz = sizeof(so) };
	struct ringside_gcm_opts go = { .sz = sizeof(go) };
	struct ringside_session *s;
	unsigned int last_lib = ~0u;
	int err = ringside_session_open(&so, &s);

	if (err) {
		cli_err("features: gcm probe points not listed: %s", ringside_strerror(err));
		return;
	}
	if (ringside_session_enable_gcm(s, &go)) {
		cli_err("features: gcm probe points not listed: %s", ringside_session_errmsg(s));
		ringside_session_close(s);
		return;
	}
	if (!json)
		printf("\nGCM PROBE POINTS (as `ringside gcm` places them here; mode: both, or timing only)\n");
	for (unsigned int i = 0; i < ringside_gcm_nr_probe_points(s); i++) {
		struct ringside_gcm_probe_point pt;
		const struct ringside_gcm_lib *lib;
		const char *mode;
		char where[128];

		if (ringside_gcm_probe_point(s, i, &pt))
			continue;
		lib = ringside_gcm_lib(s, pt.lib_id);
		mode = pt.timing_only ? "timing" : "both";
		if (json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "gcm_probe_point");
			ringside_json_str(&j, "lib", ringside_gcm_lib_name(lib->family));
			ringside_json_str(&j, "path", lib->path);
			ringside_json_str(&j, "mode", mode);
			cli_json_gcm_point(&j, &pt);
			ringside_json_end(&j);
			continue;
		}
		if (pt.lib_id != last_lib) {
			printf("%s %s %s\n", ringside_gcm_lib_name(lib->family),
			       lib->version[0] ? lib->version : "?", lib->path);
			last_lib = pt.lib_id;
		}
		cli_gcm_point_where(&pt, where, sizeof(where));
		printf("  %-36s %-58s %-15s %s", pt.function, where,
		       pt.emulated ? "emulated" : "single-stepped", mode);
		if (pt.kept_at_entry[0])
			printf("  (not moved: %s)", pt.kept_at_entry);
		putchar('\n');
	}
	ringside_session_close(s);
}

int cmd_features(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ringside_features f;
	bool json = false;
	int verbose = 0, opt;

	while ((opt = cli_getopt(argc, argv, "jvh", longopts)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'v': verbose++; break;
		case 'h': fputs(features_usage, stdout); return 0;
		default: return cli_bad_option("features", argv);
		}
	}
	if (optind < argc) {
		cli_err("features: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	cli_setup_libbpf_print(verbose);
	if (ringside_check_privileges())
		cli_err("warning: not root: BPF lines will say so");
	ringside_features_probe(&f);
	ringside_features_print(&f, stdout, json);
	print_gcm_points(json);
	return 0;
}
