// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gcm: probe-point choice on real prologue bytes, histogram buckets, aggregation. */
#include <stdint.h>

#include "ringside/gcm.h"
#include "probe_argmap.h"
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

/* rs_probe_point_follow() on a function's bytes: 0 and pp filled, or refused. */
#define FOLLOW(nargs, pp, ...)                                                                   \
	({                                                                                       \
		static const uint8_t c_[] = { __VA_ARGS__ };                                     \
		char why_[96] = "";                                                              \
		int e_ = rs_probe_point_follow(c_, sizeof(c_), nargs, pp, why_, sizeof(why_));   \
		if (e_)                                                                          \
			printf("  refused: %s\n", why_);                                         \
		e_;                                                                              \
	})

static void probe_point_follows_prologues(void)
{
	struct rs_probe_point pp;

	/* nettle_gcm_aes128_set_iv (libnettle.so.8): lea 0x1000(%rdi),%rax; mov %rdx,%rcx;
	 * mov %rsi,%rdx; mov %rdi,%rsi; mov %rax,%rdi; jmp nettle_gcm_set_iv@plt. At the jmp
	 * its context (argument 0) is in rsi, the stack untouched. */
	pp = (struct rs_probe_point){ 0 };
	CHECK_EQ_INT(FOLLOW(1, &pp, 0x48, 0x8d, 0x87, 0x00, 0x10, 0x00, 0x00, 0x48, 0x89, 0xd1,
			    0x48, 0x89, 0xf2, 0x48, 0x89, 0xfe, 0x48, 0x89, 0xc7,
			    0xe9, 0x78, 0x2e, 0xff, 0xff), 0);
	CHECK_EQ_INT(pp.skip, 0x13);
	CHECK(pp.emulated && (pp.argmap & RS_ARGMAP_ON));
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 0), 6);		/* rsi */
	CHECK_EQ_INT(RS_ARGMAP_RA_WORDS(pp.argmap), 0);
	/* nettle_gcm_aes128_update: the same shuffle; the length (argument 1) ends in rdx. */
	pp = (struct rs_probe_point){ 0 };
	CHECK_EQ_INT(FOLLOW(2, &pp, 0x48, 0x8d, 0x87, 0x00, 0x10, 0x00, 0x00, 0x48, 0x89, 0xd1,
			    0x48, 0x89, 0xf2, 0x48, 0x89, 0xfe, 0x48, 0x89, 0xc7,
			    0xe9, 0x08, 0x26, 0xff, 0xff), 0);
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 0), 6);
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 1), 2);		/* rdx */
	/* nettle_gcm_aes128_encrypt: sub $0x10,%rsp; lea; mov %rsi,%r8; mov %rdx,%r9; push %rcx:
	 * probed on the push, arguments in their own registers, the return address 2 words up. */
	pp = (struct rs_probe_point){ 0 };
	CHECK_EQ_INT(FOLLOW(2, &pp, 0x48, 0x83, 0xec, 0x10, 0x48, 0x8d, 0x87, 0x00, 0x10, 0x00, 0x00,
			    0x49, 0x89, 0xf0, 0x49, 0x89, 0xd1, 0x51,
			    0x48, 0x8b, 0x0d, 0x07, 0x22, 0x03, 0x00, 0x48, 0x83, 0xc4, 0x18, 0xc3), 0);
	CHECK_EQ_INT(pp.skip, 0x11);
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 0), 7);		/* rdi */
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 1), 6);		/* rsi, its own before r8 */
	CHECK_EQ_INT(RS_ARGMAP_RA_WORDS(pp.argmap), 2);
	/* gnutls_cipher_tag (3.7.9): sub $0x8,%rsp; mov 0x8(%rdi),%rcx; test %rcx,%rcx; je +0x23;
	 * ...; ret. Probed on the je, one word of stack moved. */
	pp = (struct rs_probe_point){ 0 };
	CHECK_EQ_INT(FOLLOW(1, &pp, 0x48, 0x83, 0xec, 0x08, 0x48, 0x8b, 0x4f, 0x08, 0x48, 0x85, 0xc9,
			    0x74, 0x05, 0x31, 0xc0, 0x48, 0x83, 0xc4, 0x08, 0xc3,
			    0xb8, 0xce, 0xff, 0xff, 0xff, 0x48, 0x83, 0xc4, 0x08, 0xc3), 0);
	CHECK_EQ_INT(pp.skip, 0xb);
	CHECK_EQ_INT(RS_ARGMAP_REG(pp.argmap, 0), 7);
	CHECK_EQ_INT(RS_ARGMAP_RA_WORDS(pp.argmap), 1);

	/* Refused: the context overwritten with nothing holding it (mov %rax,%rdi first). */
	CHECK(FOLLOW(1, &pp, 0x48, 0x89, 0xc7, 0xe9, 0, 0, 0, 0) != 0);
	/* ... a store before the emulated instruction (mov %rdi,0x8(%rsp)). */
	CHECK(FOLLOW(1, &pp, 0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x7c, 0x24, 0x08, 0x53, 0xc3) != 0);
	/* ... a branch back to the probed je (a loop over the start's end). */
	CHECK(FOLLOW(1, &pp, 0x48, 0x83, 0xec, 0x08, 0x48, 0x85, 0xff, 0x74, 0x02, 0xeb, 0xfc,
		     0x48, 0x83, 0xc4, 0x08, 0xc3) != 0);
	/* ... the stack pointer moved by a register (sub %rax,%rsp). */
	CHECK(FOLLOW(1, &pp, 0x48, 0x29, 0xc4, 0x53, 0xc3) != 0);
	/* ... a 32-bit copy of an argument (mov %edi,%eax; mov %rax... ): not whole. */
	CHECK(FOLLOW(1, &pp, 0x89, 0xf8, 0x48, 0x89, 0xc7, 0x48, 0x31, 0xff, 0x89, 0xc7, 0x53, 0xc3) != 0);
	/* ... an emulated first instruction: nothing to follow. */
	CHECK(FOLLOW(1, &pp, 0x53, 0xc3) != 0);
	/* ... an indirect jump anywhere in the function (a jump table may land in the start). */
	CHECK(FOLLOW(1, &pp, 0x48, 0x83, 0xec, 0x08, 0x53, 0xff, 0xe0) != 0);
	/* ... a function that runs off its end. */
	CHECK(FOLLOW(1, &pp, 0x48, 0x83, 0xec, 0x08, 0x53) != 0);
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
	RUN(probe_point_follows_prologues);
	RUN(hist_buckets_separate_message_sizes);
	RUN(aggregation_rows_and_percentiles);
	RUN(kernel_histograms_match_records);
	RUN(names);
	UNIT_EXIT();
}
