// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "cli.h"

static const char features_usage[] =
	"Usage: ringside features [--json] [-v]\n"
	"Probe the running kernel for what ringside uses, with a real attach test where\n"
	"it is cheap and safe. Each line: name, yes/no, and what was tried.\n"
	"  --json         one JSON object per feature\n"
	"  -v, --verbose  show libbpf's messages\n";

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
	return 0;
}
