// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gcm: probe-point choice on real prologue bytes, histogram buckets, aggregation. */
#include <stdint.h>

#include "ringside/gcm.h"
#include "probe_point.h"
#include "unit.h"

#define PP(...) ({ static const uint8_t c_[] = { __VA_ARGS__ }; rs_probe_point_choose(c_, sizeof(c_)); })

static void probe_point_prologues(void)
{
	struct rs_probe_point pp;

	/* push %r15: libcrypto's CRYPTO_gcm128_setiv. Emulated at the entry. */
	pp = PP(0x41, 0x57, 0x66, 0x0f, 0xef, 0xc0);
	CHECK_EQ_INT(pp.skip, 0);
	CHECK(pp.emulated);
	/* lea 0x135a31(%rip),%rax; push %r12: libgcrypt's gcry_cipher_setiv. */
	pp = PP(0x48, 0x8d, 0x05, 0x31, 0x5a, 0x13, 0x00, 0x41, 0x54, 0x49, 0x89, 0xd4);
	CHECK_EQ_INT(pp.skip, 7);
	CHECK(pp.emulated);
	/* endbr64; push %rbp: a CET-built function. */
	pp = PP(0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5);
	CHECK_EQ_INT(pp.skip, 4);
	CHECK(pp.emulated);
	/* endbr64; lea x(%rip),%rax; push %rbx */
	pp = PP(0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8d, 0x05, 0, 0, 0, 0, 0x53);
	CHECK_EQ_INT(pp.skip, 11);
	CHECK(pp.emulated);
	/* lea x(%rip),%rdi writes an argument: never skipped. */
	pp = PP(0x48, 0x8d, 0x3d, 0, 0, 0, 0, 0x53);
	CHECK_EQ_INT(pp.skip, 0);
	CHECK(!pp.emulated);
	/* sub $0x18,%rsp moves the stack: the return address would be lost. */
	pp = PP(0x48, 0x83, 0xec, 0x18, 0x48, 0x8b, 0x4f, 0x08);
	CHECK_EQ_INT(pp.skip, 0);
	CHECK(!pp.emulated);
	/* jmp rel32 (a tail call, gcry_cipher_close): emulated in place. */
	pp = PP(0xe9, 0x9b, 0xc1, 0x00, 0x00);
	CHECK_EQ_INT(pp.skip, 0);
	CHECK(pp.emulated);
	/* Truncated input never reads past its end. */
	pp = PP(0xf3, 0x0f, 0x1e);
	CHECK(!pp.emulated);
}

static void hist_buckets_separate_message_sizes(void)
{
	static const uint64_t sizes[] = { 16, 64, 256, 1420, 4096, 16384 };

	for (unsigned int i = 0; i + 1 < sizeof(sizes) / sizeof(sizes[0]); i++)
		CHECK(ringside_hist_slot(sizes[i]) < ringside_hist_slot(sizes[i + 1]));
	CHECK_EQ_INT(ringside_hist_slot(0), 0);
	CHECK_EQ_INT(ringside_hist_slot(1), 1);
	CHECK_EQ_INT(ringside_hist_slot(16), 5);
	CHECK_EQ_INT(ringside_hist_slot(31), 5);
	CHECK_EQ_INT(ringside_hist_slot(UINT64_MAX), 64);
}

static struct rs_gcm_event ev(uint32_t tgid, uint8_t dir, uint16_t bits, uint64_t bytes,
			      uint64_t lat, uint8_t result)
{
	struct rs_gcm_event e = { 0 };

	e.hdr.type = RS_EV_GCM_OP;
	e.hdr.size = sizeof(e);
	e.hdr.tgid = tgid;
	memcpy(e.hdr.comm, "w", 2);
	e.lib = RS_GCM_LIB_OPENSSL;
	e.dir = dir;
	e.key_bits = bits;
	e.payload_bytes = bytes;
	e.aad_bytes = 13;
	e.latency_ns = lat;
	e.result = result;
	return e;
}

struct rows {
	struct ringside_gcm_row r[8];
	int n;
};

static int collect(void *ctx, const struct ringside_gcm_row *row)
{
	struct rows *rows = ctx;

	if (rows->n < 8)
		rows->r[rows->n++] = *row;
	return 0;
}

static void aggregation_rows_and_percentiles(void)
{
	struct ringside_gcm_agg *agg = ringside_gcm_agg_new();
	struct rows rows = { .n = 0 };
	struct rs_gcm_event e;

	CHECK(agg != NULL);
	if (!agg)
		return;
	/* 100 seals with latencies 1000..100000 ns; p50 ≈ 50 µs, p99 ≈ 99 µs. */
	for (int i = 1; i <= 100; i++) {
		e = ev(7, RS_GCM_SEAL, 128, 64, (uint64_t)i * 1000, RS_GCM_OK);
		CHECK_EQ_INT(ringside_gcm_agg_add(agg, &e.hdr, sizeof(e)), 0);
	}
	e = ev(7, RS_GCM_OPEN, 256, 16, 500, RS_GCM_TAG_FAIL);
	ringside_gcm_agg_add(agg, &e.hdr, sizeof(e));
	e = ev(3, RS_GCM_SEAL, 128, 16, 500, RS_GCM_OK);
	ringside_gcm_agg_add(agg, &e.hdr, sizeof(e));
	/* Not a GCM record: ignored. */
	e.hdr.type = RS_EV_RECLAIM;
	ringside_gcm_agg_add(agg, &e.hdr, sizeof(e));
	ringside_gcm_agg_foreach(agg, collect, &rows);
	CHECK_EQ_INT(rows.n, 3);
	/* Ordered by process, then direction. */
	CHECK_EQ_INT(rows.r[0].tgid, 3);
	CHECK_EQ_INT(rows.r[1].tgid, 7);
	CHECK_EQ_INT(rows.r[1].dir, RS_GCM_SEAL);
	CHECK_EQ_INT(rows.r[1].ops, 100);
	CHECK_EQ_INT(rows.r[1].payload_bytes, 6400);
	CHECK_EQ_INT(rows.r[1].aad_bytes, 1300);
	CHECK(rows.r[1].lat_p50_ns >= 47000 && rows.r[1].lat_p50_ns <= 53000);
	CHECK(rows.r[1].lat_p99_ns >= 95000 && rows.r[1].lat_p99_ns <= 100000);
	CHECK_EQ_INT(rows.r[1].lat_max_ns, 100000);
	CHECK_EQ_INT(rows.r[2].tag_failures, 1);
	CHECK_EQ_INT(rows.r[2].key_bits, 256);
	ringside_gcm_agg_reset(agg);
	rows.n = 0;
	ringside_gcm_agg_foreach(agg, collect, &rows);
	CHECK_EQ_INT(rows.n, 0);
	/* The row the last record went to went with the reset: a new one is made. */
	e = ev(3, RS_GCM_SEAL, 128, 16, 500, RS_GCM_OK);
	CHECK_EQ_INT(ringside_gcm_agg_add(agg, &e.hdr, sizeof(e)), 0);
	ringside_gcm_agg_foreach(agg, collect, &rows);
	CHECK_EQ_INT(rows.n, 1);
	CHECK_EQ_INT(rows.r[0].ops, 1);
	ringside_gcm_agg_free(agg);
}

/* Cumulative kernel histogram slots, as ringside_gcm_hist() hands them over. */
static void set_latencies(struct ringside_gcm_agg *agg, const uint64_t *count, uint64_t lat_step,
			  uint64_t max_ns, const struct ringside_gcm_agg *base)
{
	uint64_t by_slot[(RINGSIDE_HIST_SLOTS + 1) * RS_GCM_FINE_SUB] = { 0 };
	unsigned int max_slot = RS_GCM_FINE_SLOT(max_ns, ringside_hist_slot(max_ns));

	for (int i = 1; i <= 100; i++) {
		uint64_t v = (uint64_t)i * lat_step;
		unsigned int s = ringside_hist_slot(v);

		by_slot[RS_GCM_FINE_SLOT(v, s)] += count[i];
	}
	for (unsigned int slot = 0; slot < sizeof(by_slot) / sizeof(by_slot[0]); slot++) {
		struct ringside_gcm_hist_slot h = { .tgid = 7, .lib = RS_GCM_LIB_OPENSSL,
						    .dir = RS_GCM_SEAL, .key_bits = 128,
						    .kind = RS_GCM_HIST_LATENCY, .slot = (uint16_t)slot,
						    .count = by_slot[slot],
						    .max_ns = slot == max_slot ? max_ns : 0 };

		if (h.count)
			CHECK_EQ_INT(ringside_gcm_agg_set_hist(agg, &h, base), 0);
	}
}

/*
 * The kernel's histograms give the percentiles records give: the same
 * slots, filled from cumulative counts; an interval's share is the counts
 * minus the run's before it, and its maximum is the kernel's for it.
 */
static void kernel_histograms_match_records(void)
{
	struct ringside_gcm_agg *run = ringside_gcm_agg_new(), *interval = ringside_gcm_agg_new();
	struct ringside_gcm_total t = { .tgid = 7, .lib = RS_GCM_LIB_OPENSSL, .dir = RS_GCM_SEAL,
					.key_bits = 128, .ops = 100 };

	struct rows rows = { .n = 0 };
	uint64_t once[101], twice[101];

	CHECK(run && interval);
	if (!run || !interval)
		return;
	memcpy(t.comm, "w", 2);
	for (int i = 0; i <= 100; i++) {
		once[i] = i ? 1 : 0;
		twice[i] = i ? 2 : 0;
	}
	/* First interval: 100 seals of 1..100 us, as in the records test. */
	CHECK_EQ_INT(ringside_gcm_agg_set_total(run, &t, NULL), 0);
	set_latencies(run, once, 1000, 100000, NULL);
	ringside_gcm_agg_foreach(run, collect, &rows);
	CHECK_EQ_INT(rows.n, 1);
	CHECK_EQ_INT(rows.r[0].events, 100);
	CHECK(rows.r[0].lat_p50_ns >= 47000 && rows.r[0].lat_p50_ns <= 53000);
	CHECK(rows.r[0].lat_p99_ns >= 95000 && rows.r[0].lat_p99_ns <= 100000);
	CHECK_EQ_INT(rows.r[0].lat_max_ns, 100000);
	CHECK_EQ_INT(rows.r[0].lat_hist.slot[17], 35);	/* 65.5..131 us: 66..100 */
	CHECK(!strcmp(rows.r[0].comm, "w"));
	/* Second interval: 100 more; its share alone, its own maximum. */
	t.ops = 200;
	/* The longest since the last read, not cumulative. */
	CHECK_EQ_INT(ringside_gcm_agg_set_total(interval, &t, run), 0);
	set_latencies(interval, twice, 1000, 99000, run);
	CHECK_EQ_INT(ringside_gcm_agg_set_total(run, &t, NULL), 0);
	set_latencies(run, twice, 1000, 99000, NULL);
	rows.n = 0;
	ringside_gcm_agg_foreach(interval, collect, &rows);
	CHECK_EQ_INT(rows.n, 1);
	CHECK_EQ_INT(rows.r[0].ops, 100);
	CHECK_EQ_INT(rows.r[0].events, 100);
	CHECK_EQ_INT(rows.r[0].lat_max_ns, 99000);
	CHECK(rows.r[0].lat_p50_ns >= 47000 && rows.r[0].lat_p50_ns <= 53000);
	rows.n = 0;
	ringside_gcm_agg_foreach(run, collect, &rows);
	CHECK_EQ_INT(rows.r[0].ops, 200);
	CHECK_EQ_INT(rows.r[0].events, 200);
	CHECK_EQ_INT(rows.r[0].lat_max_ns, 100000);
	CHECK_EQ_INT(rows.r[0].lat_hist.slot[17], 70);
	ringside_gcm_agg_free(run);
	ringside_gcm_agg_free(interval);
}

static void names(void)
{
	CHECK_EQ_STR(ringside_gcm_lib_name(RS_GCM_LIB_GNUTLS), "gnutls");
	CHECK_EQ_STR(ringside_gcm_dir_name(RS_GCM_OPEN), "open");
	CHECK_EQ_STR(ringside_gcm_result_name(RS_GCM_TAG_FAIL), "tag-fail");
	CHECK_EQ_STR(ringside_gcm_lib_name(200), "?");
}

int main(void)
{
	RUN(probe_point_prologues);
	RUN(hist_buckets_separate_message_sizes);
	RUN(aggregation_rows_and_percentiles);
	RUN(kernel_histograms_match_records);
	RUN(names);
	UNIT_EXIT();
}
