// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <malloc.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char main_usage[] =
	"Usage: ringside COMMAND [OPTIONS]\n"
	"eBPF tracing of AES-GCM crypto work, memory-cgroup reclaim and btrfs reclaim.\n"
	"\n"
	"Commands:\n"
	"  features   probe what the running kernel supports\n"
	"  gcm        trace AES-GCM in OpenSSL, GnuTLS, libgcrypt and nettle (uprobes)\n"
	"  btrfs      trace btrfs block-group reclaim and relocation; show thresholds\n"
	"  reclaim    trace memory reclaim (memcg and global); profile swappiness\n"
	"  maps       dump a process's mappings (PROCMAP_QUERY) with build IDs\n"
	"  sym        symbolize addresses of a process\n"
	"  agent      serve the collectors' counts as Prometheus metrics\n"
	"  cleanup    undo what killed runs left changed (zram, cgroup settings)\n"
	"\n"
	"Run 'ringside COMMAND --help' for a command's options; see ringside(1).\n"
	"  --version  print version and event ABI\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

int main(int argc, char **argv)
{
	static const struct command commands[] = {
		{ "features", cmd_features },
		{ "gcm", cmd_gcm },
		{ "btrfs", cmd_btrfs },
		{ "reclaim", cmd_reclaim },
		{ "maps", cmd_maps },
		{ "sym", cmd_sym },
		{ "agent", cmd_agent },
		{ "cleanup", cmd_cleanup },
	};

	/*
	 * Blocks of 128 KiB and more are mapped and unmapped whole. glibc's
	 * default raises that threshold once such a block is freed (libbpf's
	 * share of the kernel's BTF, its objects' instructions), after which
	 * they come from a heap whose freed top a tracer running for hours
	 * keeps resident: a thread's heap is never trimmed below it.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/*
	 * One heap for every thread: the agent's loads side by side each made
	 * one of their own (peak 9.7 MB against 9.4), and the threads
	 * allocate too little for the lock to matter.
	 */
	mallopt(M_ARENA_MAX, 1);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(main_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ringside %s (event ABI %u)\n", ringside_version(), ringside_event_abi());
		return 0;
	}
	/*
	 * Output reaches a pipe or file once per poll batch (cli.c flushes).
	 * stdio's own buffer there is st_blksize, 4 KiB: a flood's JSON lines
	 * then cost a write(2) every few records, the reader's largest cost
	 * per record on these VMs. A terminal keeps its line buffering.
	 */
	static char stdout_buf[64 * 1024];	/* glibc ignores a size given without a buffer */

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	/* Option errors are reported by the commands, in one line each. */
	opterr = 0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_err("unknown command '%s': see ringside --help", cli_quote(argv[1]));
	return 2;
}
