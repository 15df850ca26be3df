// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringside cleanup: undo what killed runs left changed (their state journals). */
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char cleanup_usage[] =
	"Usage: ringside cleanup\n"
	"Undo what ringside runs that were killed (SIGKILL, a crash) left changed:\n"
	"cgroup settings (memory.swappiness, memory.limit_in_bytes), zram swap devices,\n"
	"workload processes and temp files, as written down in their state journals\n"
	"under /run/ringside ($RINGSIDE_STATE_DIR). Runs still alive are left alone.\n"
	"The reclaim profiler does this by itself before it starts.\n"
	"  -h, --help\n";

int cmd_cleanup(int argc, char **argv)
{
	int n;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cleanup_usage, stdout);
		return 0;
	}
	if (argc > 1) {
		cli_err("cleanup takes no arguments, got '%s': see ringside cleanup --help",
			cli_quote(argv[1]));
		return 2;
	}
	if (geteuid()) {
		cli_err("cleanup restores system settings: run as root");
		return 1;
	}
	n = ringside_state_repair(cli_print_repair, NULL);
	if (n < 0) {
		cli_err("cannot read the state journals (/run/ringside or $RINGSIDE_STATE_DIR): %s",
			ringside_strerror(n));
		return 1;
	}
	if (!n)
		cli_err("nothing to repair: no run left changes behind");
	else
		cli_err("repaired what %d killed run%s left behind", n, n == 1 ? "" : "s");
	return 0;
}
