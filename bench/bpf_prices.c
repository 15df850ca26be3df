// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What each building block of a ringside probe program costs on this
 * kernel: one program per block (bpf_prices.bpf.c), attached in turn to a
 * function of this binary that is then called in a loop, its BPF run time
 * taken from the kernel's own statistics (BPF_ENABLE_STATS, held only for
 * the run). A block's price is its program's time per run less the empty
 * program's, the median of interleaved rounds.
 *
 * The GCM bench gives the price of a probe hit itself (probe_floor); these
 * are what the programs add on top of it, so the table shows where a
 * tracer's time over its floor goes and which part no program can avoid
 * (the counting path's 16-byte user read).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ringside/resolve.h"
#include "../tests/median.h"
#include "feature_probes.h"
#include "uprobe_multi.h"
#include "bpf_prices.skel.h"

#define ROUNDS 7
#define CALLS_PER_ROUND 100000

struct price_block {
	const char *name;		/* as printed */
	struct bpf_program *prog;
	bool session;			/* attached as a uprobe session */
	double ns[ROUNDS];		/* BPF ns per run, each round */
};

/* The probed function: the lengths the read program takes are its argument. */
__attribute__((noinline)) void price_target(const unsigned long long *lengths)
{
	__asm__ volatile("" : : "r"(lengths) : "memory");
}

static int prog_stats(int fd, unsigned long long *run_ns, unsigned long long *runs)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*run_ns = info.run_time_ns;
	*runs = info.run_cnt;
	return 0;
}

/* One round of one block: attach, call the target, detach; BPF ns per run. */
static int measure(struct price_block *b, const char *path, uint64_t off, double *ns)
{
	static const unsigned long long lengths[2] = { 13, 16 };
	unsigned long long t0 = 0, n0 = 0, t1 = 0, n1 = 0;
	int fd = bpf_program__fd(b->prog), link, i, err;

	link = b->session ? rs_uprobe_session_link(fd, path, &off, NULL, 1, getpid()) :
			    rs_uprobe_multi_link(fd, path, &off, NULL, 1, getpid(), false);
	if (link < 0) {
		fprintf(stderr, "bpf_prices: cannot attach %s: %s\n", b->name, strerror(-link));
		return link;
	}
	err = prog_stats(fd, &t0, &n0);
	for (i = 0; i < CALLS_PER_ROUND && !err; i++)
		price_target(lengths);
	if (!err)
		err = prog_stats(fd, &t1, &n1);
	close(link);
	if (err)
		return err;
	if (n1 - n0 != CALLS_PER_ROUND) {
		fprintf(stderr, "bpf_prices: %s ran %llu times for %d calls\n", b->name, n1 - n0,
			CALLS_PER_ROUND);
		return -EIO;
	}
	*ns = (double)(t1 - t0) / (double)(n1 - n0);
	return 0;
}

int main(void)
{
	struct ringside_resolver *r = NULL;
	struct bpf_prices_bpf *skel;
	struct ringside_sym sym;
	int stats_fd, round, i, n, err = 1;
	bool has_session;

	skel = bpf_prices_bpf__open();
	if (!skel)
		return 1;
	/* Sessions (6.13+) where the kernel has them: the block is left out before. */
	has_session = rs_probe_uprobe_link_type(RS_BPF_TRACE_UPROBE_SESSION);
	{
		struct bpf_program *p;

		bpf_object__for_each_program(p, skel->obj)
			bpf_program__set_expected_attach_type(p, RS_BPF_TRACE_UPROBE_MULTI);
	}
	bpf_program__set_expected_attach_type(skel->progs.price_is_return,
					      RS_BPF_TRACE_UPROBE_SESSION);
	bpf_program__set_autoload(skel->progs.price_is_return, has_session);
	bpf_program__set_expected_attach_type(skel->progs.price_ip_is_return,
					      RS_BPF_TRACE_UPROBE_SESSION);
	bpf_program__set_autoload(skel->progs.price_ip_is_return, has_session);
	if (bpf_prices_bpf__load(skel)) {
		fprintf(stderr, "bpf_prices: cannot load the programs\n");
		goto out;
	}
	struct price_block blocks[] = {
		{ "empty program (bpf_stats' own share)", skel->progs.price_empty },
		{ "16-byte user read (bpf_probe_read_user)", skel->progs.price_user_read },
		{ "the same, sleepable (bpf_copy_from_user)", skel->progs.price_user_copy },
		{ "a helper call (bpf_get_current_pid_tgid)", skel->progs.price_helper },
		{ "the clock (bpf_ktime_get_ns)", skel->progs.price_clock },
		{ "hash lookup, 16-byte key (an OpenSSL context)", skel->progs.price_hash_lookup },
		{ "per-CPU hash row, 32-byte key, 2 adds (an agent row)", skel->progs.price_pcpu_row },
		{ "per-CPU array slot, 2 adds (inlined lookup)", skel->progs.price_pcpu_slot },
		{ "task storage get (a message parked for its return)", skel->progs.price_task_storage },
		{ "bpf_session_is_return() in a session's entry", skel->progs.price_is_return, true },
		{ "the same by the instruction pointer (gcm's way)", skel->progs.price_ip_is_return, true },
	};
	n = sizeof(blocks) / sizeof(blocks[0]) - 2 * !has_session;
	{
		struct { unsigned long long a, b; } k16 = { 1, 2 };
		struct { unsigned long long comm[2], a, b; } k32 = {
			{ 0x6c726f776b726f77ULL, 0x64616fULL }, 3, 4 };
		unsigned long long row[8] = {};
		int ncpu = libbpf_num_possible_cpus();
		unsigned long long *rows = ncpu > 0 ? calloc(ncpu, sizeof(row)) : NULL;

		if (!rows || bpf_map_update_elem(bpf_map__fd(skel->maps.price_hash), &k16, row, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.price_pcpu_hash), &k32, rows, BPF_ANY)) {
			fprintf(stderr, "bpf_prices: cannot fill the maps\n");
			free(rows);
			goto out;
		}
		free(rows);
	}
	if (ringside_resolver_new(NULL, &r) ||
	    ringside_resolve(r, getpid(), (uintptr_t)price_target, &sym)) {
		fprintf(stderr, "bpf_prices: cannot find price_target in this binary\n");
		goto out;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bpf_prices: cannot enable BPF run-time statistics: %s\n",
			strerror(errno));
		goto out;
	}
	/* Rounds interleave the blocks, so a drift of the machine's speed is shared. */
	for (round = 0; round < ROUNDS; round++)
		for (i = 0; i < n; i++)
			if (measure(&blocks[i], sym.path, sym.file_offset, &blocks[i].ns[round]))
				goto out_stats;
	printf("BPF time per run (bpf_stats), medians of %d rounds of %d calls, interleaved:\n", ROUNDS,
	       CALLS_PER_ROUND);
	{
		double empty = median_double(blocks[0].ns, ROUNDS);

		printf("  %-56s %6.1f ns\n", blocks[0].name, empty);
		for (i = 1; i < n; i++)
			printf("  %-56s %+6.1f ns\n", blocks[i].name, median_double(blocks[i].ns, ROUNDS) - empty);
	}
	err = 0;
out_stats:
	close(stats_fd);
out:
	ringside_resolver_free(r);
	bpf_prices_bpf__destroy(skel);
	return err;
}
