// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The btrfs reclaim threshold, against values the 6.18 kernel itself showed
 * in /sys/fs/btrfs/UUID/allocation/data/bg_reclaim_threshold (dynamic_reclaim
 * on) for real loop-mounted filesystems; inputs were read from sysfs and
 * BTRFS_IOC_DEV_INFO at the same moment.
 */
#include "ringside/btrfs.h"
#include "unit.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct rs_btrfs_space space(uint64_t total, uint64_t used, uint64_t unalloc, uint64_t devs)
{
	struct rs_btrfs_space s = { 0 };

	s.total_bytes = total;
	s.bytes_used = used;
	s.data_chunk_size = 10 * GiB;	/* sysfs data/chunk_size on these filesystems */
	s.free_chunk_space = unalloc;
	s.total_rw_bytes = devs;
	s.has_dynamic = 1;
	s.dynamic_reclaim = 1;
	return s;
}

static void kernel_values_2g(void)
{
	struct ringside_btrfs_threshold th;
	struct rs_btrfs_space s;

	/* 2 GiB: after filling 12 x 100 MiB and deleting half. Kernel: 72. */
	s = space(1317011456, 629145600, 598999040, 2147483648);
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 72);
	CHECK(th.dynamic);
	CHECK_EQ_INT(th.chunk_size, 214748364);	/* 10% of the device */
	CHECK_EQ_INT(th.target, 2147483640);
	/* Full: less than one chunk unused. Kernel: 0. */
	s = space(1317011456, 1258291200, 598999040, 2147483648);
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 0);
	/* Fresh: 8 MiB data chunk, nothing used. Kernel: 0. */
	s = space(8388608, 0, 1907621888, 2147483648);
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 0);
}

static void formula_edges(void)
{
	struct ringside_btrfs_threshold th;
	struct rs_btrfs_space s;

	/* 100 GiB: chunks capped at 1 GiB, target 10 GiB; unalloc 2.5 GiB -> 75. */
	s = space(80 * GiB, 40 * GiB, 5 * GiB / 2, 100 * GiB);
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.chunk_size, GiB);
	CHECK_EQ_INT(th.pct, 75);
	/* Unallocated beyond the target: no reclaim pressure. */
	s.free_chunk_space = 20 * GiB;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 0);
	/* Nothing unallocated: 100. */
	s.free_chunk_space = 0;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 100);
	/* A space_info chunk_size smaller than 10%: it wins. */
	s.data_chunk_size = 256 * MiB;
	s.free_chunk_space = 1280 * MiB;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.chunk_size, 256 * MiB);
	CHECK_EQ_INT(th.pct, 50);
	/* reserved/pinned/readonly count as used. */
	s = space(10 * GiB, 8 * GiB, 0, 100 * GiB);
	s.bytes_pinned = GiB + GiB / 2;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.unused, GiB / 2);
	CHECK_EQ_INT(th.pct, 0);
	/* Fixed threshold when dynamic is off. */
	s.dynamic_reclaim = 0;
	s.bg_reclaim_threshold = 75;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 75);
	CHECK(!th.dynamic);
	/* Huge sizes do not overflow the percentage. */
	s = space(1ULL << 62, 0, 0, 1ULL << 62);
	s.data_chunk_size = 1ULL << 62;
	ringside_btrfs_threshold(&s, &th);
	CHECK_EQ_INT(th.pct, 100);
}

static void flags_text(void)
{
	char buf[48];

	ringside_btrfs_flags_str(1, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "DATA|single");
	ringside_btrfs_flags_str(4 | 32, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "METADATA|DUP");
	ringside_btrfs_flags_str(2 | 16, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "SYSTEM|RAID1");
	CHECK_EQ_STR(ringside_btrfs_kind_name(RS_BTRFS_ADD_RECLAIM), "queue-reclaim");
	CHECK_EQ_STR(ringside_btrfs_trigger_name(RS_BTRFS_TRIG_BALANCE), "balance");
}

int main(void)
{
	RUN(kernel_values_2g);
	RUN(formula_edges);
	RUN(flags_text);
	UNIT_EXIT();
}
