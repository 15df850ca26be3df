// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringside gcm: AES-GCM messages in OpenSSL, GnuTLS, libgcrypt, nettle and Go
 * programs. Longer than the other commands: it also announces what is probed
 * and what is not (start-up and programs started later), symbolizes callers
 * and stacks, and lists unattributed hits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "text_buf.h"
#include "ringside/gcm.h"
#include "ringside/resolve.h"
#include "ringside/unwind.h"

#define GCM_DEFAULT_RINGBUF (1024 * 1024)	/* --ringbuf-size when not given */

static const char gcm_usage[] =
	"Usage: ringside gcm [OPTIONS]\n"
	"Trace AES-GCM seal/open operations in OpenSSL 3 libcrypto (EVP, providers,\n"
	"libssl records), GnuTLS (gnutls_aead_cipher_*, gnutls_cipher_*), libgcrypt\n"
	"(gcry_cipher_* on GCM handles) and nettle (nettle_gcm_aes*), through uprobes\n"
	"and return probes; and in Go programs built with Go 1.17 to 1.23 (crypto/aes\n"
	"and crypto/cipher, found through Go's own function table, stripped or not),\n"
	"with probes on the functions' RET instructions.\n"
	"Without -p or --lib, the system's libraries are traced for every process,\n"
	"with the Go programs running at start and those that start later (probed\n"
	"when their start is seen); programs that cannot be traced are named on\n"
	"stderr (\"not traced\").\n"
	"GnuTLS's TLS 1.2 records pass its internal AES-GCM backend, which child\n"
	"processes without privileges locate at start; what they find for a build\n"
	"of the library on this CPU is kept in /var/cache/ringside\n"
	"($RINGSIDE_CACHE_DIR; empty: nothing kept) for later starts.\n"
	"\n"
	"  -l, --lib PATH         probe this library (repeatable)\n"
	"  -b, --binary PATH      probe this program (statically linked crypto or a Go\n"
	"                         program; repeatable)\n"
	"  -e, --events           print one line per message\n"
	"  -H, --hist             print log2 histograms of message size and latency\n"
	"  -s, --stacks[=MODE]    with --events: add the user stack. MODE fp (default):\n"
	"                         the kernel walks frame pointers (cheap; stops at code\n"
	"                         built without them, as Debian's crypto libraries are);\n"
	"                         dwarf: copy the stack and unwind it with the files'\n"
	"                         .eh_frame, like perf --call-graph dwarf\n"
	"      --stack-window BYTES  dwarf mode: stack copied per record, whole 4 KiB\n"
	"                         pages from the one sp is in (4096-16384, default\n"
	"                         12288); frames beyond it are not shown\n"
	"      --perf-uprobes     one perf-event uprobe per probe point (the pre-6.6 way)\n"
	"                         instead of uprobe_multi links\n"
	"      --count-only       count without timing: an OpenSSL message takes one probe\n"
	"                         hit fewer (none where it starts: a seal is one hit,\n"
	"                         inside CRYPTO_gcm128_finish); its latency shows as -\n"
	"      --kernel           trace the kernel crypto API instead (crypto_aead_* on\n"
	"                         gcm(aes), rfc4106, rfc4543: kTLS, IPsec, AF_ALG...):\n"
	"                         requests by submitter, key size and the driver that\n"
	"                         did the work; needs fentry/fexit or kprobes\n"
	"\n"
	"Tag failures (an open whose authentication failed) are always printed.\n"
	"A summary per process, library, direction and key size is printed every\n"
	"--interval (that interval's) and at exit (the whole run's): ops, ops/s, MB/s,\n"
	"p50/p99 latency, tag failures. Counts, latency percentiles and histograms\n"
	"are kept in the kernel for every message, and no record crosses the ring\n"
	"but a tag failure's; an OpenSSL message whose thread moved CPU, or set\n"
	"another context's IV, before its tag is counted but not timed (the run's\n"
	"row says how many were). With --events every message is a record: counts stay\n"
	"exact, latency comes from the delivered records, and a row says so when\n"
	"some were lost. With -v each probe point is listed: where in its function it\n"
	"sits and whether the kernel emulates or single-steps it (`ringside features`\n"
	"lists them without tracing).\n"
	"\n" CLI_COMMON_HELP;

struct gcm_cli {
	struct cli_opts o;
	const char *paths[64];
	unsigned int nr_paths;
	bool events, hist, stacks, perf_uprobes, count_only, kernel;
	unsigned int stack_window;		/* 0: frame pointers; else dwarf, bytes */
	struct ringside_unwinder *unwinder;
	struct ringside_session *s;
	struct ringside_gcm_agg *agg;		/* this interval */
	struct ringside_gcm_agg *run;		/* the whole run */
	struct ringside_resolver *resolver;
	double last_tick;
	unsigned int libs_shown, skipped_shown;	/* announced so far */
};

static void json_lib(struct ringside_json *j, const struct gcm_cli *g, uint32_t lib_id)
{
	const struct ringside_gcm_lib *lib = ringside_gcm_lib(g->s, lib_id);

	ringside_json_str(j, "lib_path", lib ? lib->path : "");
	ringside_json_str(j, "lib_version", lib ? lib->version : "");
}

/*
 * "CRYPTO_gcm128_tag+0x20", or "libcrypto.so.3+0x1234" without a symbol;
 * with_file adds " (libcrypto.so.3)" to a symbol, as stack frames show it.
 */
static void format_addr(struct gcm_cli *g, pid_t pid, uint64_t addr, char *out, size_t len,
			bool with_file)
{
	struct text_buf t = text_buf(out, len);
	struct ringside_sym sym;
	const char *base;

	if (!addr || ringside_resolve(g->resolver, pid, addr, &sym)) {
		text_hex(&t, addr);
	} else if (sym.symbol) {
		text_str(&t, sym.symbol, 0);
		text_str(&t, "+", 0);
		text_hex(&t, sym.sym_offset);
		if (with_file) {
			base = strrchr(sym.path, '/');
			text_str(&t, " (", 0);
			text_str(&t, base ? base + 1 : sym.path, 0);
			text_str(&t, ")", 0);
		}
	} else {
		base = strrchr(sym.path, '/');
		base = base ? base + 1 : sym.path;
		text_str(&t, base[0] ? base : "[anon]", 0);
		text_str(&t, "+", 0);
		text_hex(&t, sym.file_offset);
	}
	text_end(&t);
}

/*
 * The frame-pointer walk stops being a walk where a library without frame
 * pointers reused %rbp: from there on the "frames" are stack slots. A stack
 * is printed up to its first address outside executable code, never past.
 */
static unsigned int code_frames(struct gcm_cli *g, pid_t pid, const uint64_t *stack, unsigned int n)
{
	struct ringside_sym sym;

	for (unsigned int i = 0; i < n; i++)
		if (!stack[i] || ringside_resolve(g->resolver, pid, stack[i], &sym) ||
		    !(sym.vma_flags & RINGSIDE_VMA_EXEC))
			return i;
	return n;
}

#define MAX_FRAMES 64

/* The record's user stack as code addresses, innermost first: walked by the kernel or unwound here. */
static unsigned int event_frames(struct gcm_cli *g, const struct rs_gcm_event *e, size_t size,
				 uint64_t *frames)
{
	pid_t pid = (pid_t)e->hdr.tgid;
	unsigned int n = 0;

	if (e->flags & RS_GCM_F_STACK) {
		n = e->nr_stack < MAX_FRAMES ? e->nr_stack : MAX_FRAMES;
		if (sizeof(*e) + n * sizeof(e->stack[0]) > size)
			n = 0;
		memcpy(frames, e->stack, n * sizeof(frames[0]));
	} else if ((e->flags & RS_GCM_F_STACK_COPY) && g->unwinder) {
		int got = ringside_unwind(g->unwinder, pid, (const void *)e->stack, size - sizeof(*e),
					  frames, MAX_FRAMES);

		n = got > 0 ? (unsigned int)got : 0;
	}
	return code_frames(g, pid, frames, n);
}

/* Microseconds, or "-" for what was not timed (--count-only). */
#define usecs(ns, buf) usecs_fmt((ns), (buf), sizeof(buf))
static const char *usecs_fmt(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		return "-";
	snprintf(buf, len, "%.3f", ns / 1000.0);
	return buf;
}

static void print_event(struct gcm_cli *g, const struct rs_gcm_event *e, size_t size)
{
	char caller[512];
	uint64_t stack[MAX_FRAMES];
	unsigned int nr_stack = event_frames(g, e, size, stack);

	format_addr(g, (pid_t)e->hdr.tgid, e->caller, caller, sizeof(caller), false);
	if (g->o.json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", e->result == RS_GCM_TAG_FAIL ? "gcm_tag_failure" : "gcm_op");
		cli_json_hdr(&j, &e->hdr);
		ringside_json_str(&j, "lib", ringside_gcm_lib_name(e->lib));
		json_lib(&j, g, e->lib_id);
		cli_json_gcm_msg(&j, e->dir, e->key_bits, e->aad_bytes, e->payload_bytes, e->latency_ns,
				 e->result, e->retval);
		ringside_json_str(&j, "caller", caller);
		if ((e->flags & RS_GCM_F_STACK_COPY) && size >= sizeof(*e) + sizeof(struct rs_stack_copy))
			ringside_json_u64(&j, "stack_copied", ((const struct rs_stack_copy *)e->stack)->len);
		if (nr_stack) {
			ringside_json_array(&j, "stack");
			for (unsigned int i = 0; i < nr_stack; i++) {
				char frame[512];

				format_addr(g, (pid_t)e->hdr.tgid, stack[i], frame, sizeof(frame), true);
				ringside_json_str(&j, NULL, frame);
			}
		}
		ringside_json_end(&j);
		return;
	}
	/* The columns of the header line (gcm_run): COMM PID TID LIB DIR BITS AAD BYTES LAT_US RESULT CALLER. */
	char line[1024];
	struct text_buf t = text_buf(line, sizeof(line));

	text_strn(&t, e->hdr.comm, sizeof(e->hdr.comm), -16);
	text_str(&t, " ", 0);
	text_u64(&t, e->hdr.tgid, 7);
	text_str(&t, " ", 0);
	text_u64(&t, e->hdr.tid, 7);
	text_str(&t, " ", 0);
	text_str(&t, ringside_gcm_lib_name(e->lib), -9);
	text_str(&t, " ", 0);
	text_str(&t, ringside_gcm_dir_name(e->dir), -4);
	text_str(&t, " ", 0);
	text_u64(&t, e->key_bits, 4);
	text_str(&t, " ", 0);
	text_u64(&t, e->aad_bytes, 6);
	text_str(&t, " ", 0);
	text_u64(&t, e->payload_bytes, 8);
	text_str(&t, " ", 0);
	if (e->latency_ns)
		text_usecs(&t, e->latency_ns, 10);
	else
		text_str(&t, "-", 10);	/* not timed (--count-only) */
	text_str(&t, " ", 0);
	text_str(&t, ringside_gcm_result_name(e->result), -9);
	text_str(&t, " ", 0);
	text_str(&t, caller, 0);
	text_str(&t, "\n", 0);
	fwrite(line, 1, text_end(&t), stdout);
	for (unsigned int i = 0; i < nr_stack; i++) {
		char frame[512];

		format_addr(g, (pid_t)e->hdr.tgid, stack[i], frame, sizeof(frame), true);
		printf("%20s#%-2u %s\n", "", i, frame);
	}
}

static int on_event(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	struct gcm_cli *g = ctx;
	const struct rs_gcm_event *e = (const void *)ev;

	if (ev->type != RS_EV_GCM_OP || size < sizeof(*e))
		return 0;
	if (g->events || e->result == RS_GCM_TAG_FAIL) {
		if (!g->events && !g->o.json)
			fputs("TAG FAILURE: ", stdout);
		print_event(g, e, size);
	}
	/* The kernel's histograms count this message already. */
	if (!g->events)
		return 0;
	int err = ringside_gcm_agg_add(g->agg, ev, size);

	return err ? err : ringside_gcm_agg_add(g->run, ev, size);
}

struct row_ctx {
	struct gcm_cli *g;
	double secs;
	bool any;
	bool final;
};

/* Exact counts from the kernel: the interval's share, and the run's total. */
static int take_total(void *ctx, const struct ringside_gcm_total *t)
{
	struct gcm_cli *g = ctx;
	int err = ringside_gcm_agg_set_total(g->agg, t, g->run);

	return err ? err : ringside_gcm_agg_set_total(g->run, t, NULL);
}

/* The kernel's latency and size histograms (without --events): the interval's share, and the run's. */
static int take_hist(void *ctx, const struct ringside_gcm_hist_slot *h)
{
	struct gcm_cli *g = ctx;
	int err = ringside_gcm_agg_set_hist(g->agg, h, g->run);

	return err ? err : ringside_gcm_agg_set_hist(g->run, h, NULL);
}

static int print_row(void *ctx, const struct ringside_gcm_row *r)
{
	struct row_ctx *rc = ctx;
	struct gcm_cli *g = rc->g;
	double secs = rc->secs > 0 ? rc->secs : 1;

	if (g->o.json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "gcm_summary");
		ringside_json_double(&j, "interval_s", rc->secs, 3);
		ringside_json_u64(&j, "pid", r->tgid);
		ringside_json_strn(&j, "comm", r->comm, sizeof(r->comm));
		ringside_json_str(&j, "lib", ringside_gcm_lib_name(r->lib));
		json_lib(&j, g, r->lib_id);
		ringside_json_str(&j, "dir", ringside_gcm_dir_name(r->dir));
		ringside_json_u64(&j, "key_bits", r->key_bits);
		ringside_json_u64(&j, "ops", r->ops);
		ringside_json_double(&j, "ops_per_s", r->ops / secs, 1);
		ringside_json_u64(&j, "aad_bytes", r->aad_bytes);
		ringside_json_u64(&j, "payload_bytes", r->payload_bytes);
		ringside_json_double(&j, "mb_per_s", r->payload_bytes / secs / 1e6, 3);
		ringside_json_u64(&j, "lat_p50_ns", r->lat_p50_ns);
		ringside_json_u64(&j, "lat_p99_ns", r->lat_p99_ns);
		ringside_json_u64(&j, "lat_max_ns", r->lat_max_ns);
		ringside_json_u64(&j, "tag_failures", r->tag_failures);
		ringside_json_u64(&j, "errors", r->errors);
		ringside_json_u64(&j, "unchecked", r->unchecked);
		ringside_json_u64(&j, "records", r->events);
		ringside_json_str(&j, "scope", rc->final ? "run" : "interval");
		if (g->hist) {
			ringside_hist_json(&r->size_hist, &j, "size_hist");
			ringside_hist_json(&r->lat_hist, &j, "latency_hist");
		}
		ringside_json_end(&j);
		return 0;
	}
	if (!rc->any)
		printf("%-7s %-16s %-9s %-4s %4s %9s %10s %9s %9s %9s %7s\n", "PID", "COMM", "LIB", "DIR",
		       "BITS", "OPS", "OPS/s", "MB/s", "P50(us)", "P99(us)", "TAGFAIL");
	rc->any = true;
	char p50[24], p99[24];

	printf("%-7u %-16s %-9s %-4s %4u %9llu %10.1f %9.3f %9s %9s %7llu", r->tgid, r->comm,
	       ringside_gcm_lib_name(r->lib), ringside_gcm_dir_name(r->dir), r->key_bits,
	       (unsigned long long)r->ops, r->ops / secs, r->payload_bytes / secs / 1e6,
	       usecs(r->lat_max_ns ? r->lat_p50_ns : 0, p50), usecs(r->lat_p99_ns, p99),
	       (unsigned long long)r->tag_failures);
	if (r->unchecked)
		printf("  %llu unchecked", (unsigned long long)r->unchecked);
	/*
	 * The counts are exact; the latency columns are not when records were
	 * lost. (Without --events they come from the kernel's histograms, read
	 * a moment apart from the counts: a histogram row lost is said at exit.)
	 */
	if (g->events && r->events < r->ops)
		printf("  (latency from %llu of %llu: records lost)", (unsigned long long)r->events,
		       (unsigned long long)r->ops);
	/*
	 * Kernel histograms: a message is untimed when its start was not seen
	 * (it began before the trace, or its thread moved CPU or set another
	 * context's IV in between), or its latency row did not fit (said at
	 * exit). Said for the run: an interval's rows are read a moment after
	 * its counts.
	 */
	else if (!g->events && !g->count_only && rc->final && r->events < r->ops)
		printf("  (latency from %llu of %llu: %s)", (unsigned long long)r->events,
		       (unsigned long long)r->ops,
		       ringside_gcm_hist_lost(g->s) ? "start not seen or row full" : "start of the rest not seen");
	putchar('\n');
	if (g->hist) {
		ringside_hist_print(&r->size_hist, "payload bytes", stdout);
		ringside_hist_print(&r->lat_hist, "latency ns", stdout);
	}
	return 0;
}

struct unattr_ctx {
	struct gcm_cli *g;
	uint64_t total;
};

/* Hits that could not be tied to a message: listed at exit, never dropped unseen. */
static int print_unattributed(void *ctx, const struct ringside_gcm_unattributed *u)
{
	struct unattr_ctx *uc = ctx;
	const struct ringside_gcm_lib *lib = ringside_gcm_lib(uc->g->s, u->lib_id);
	const char *name = lib ? ringside_gcm_lib_name(lib->family) : "?";

	uc->total += u->hits;
	if (uc->g->o.json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "unattributed");
		ringside_json_u64(&j, "pid", u->tgid);
		ringside_json_str(&j, "lib", name);
		json_lib(&j, uc->g, u->lib_id);
		ringside_json_str(&j, "reason", ringside_gcm_unattr_reason_name(u->reason));
		ringside_json_u64(&j, "probe_hits", u->hits);
		ringside_json_end(&j);
	} else {
		printf("%-7u %-16s %-9s unattributed: %llu probe hits (%s)\n", u->tgid, "", name,
		       (unsigned long long)u->hits, ringside_gcm_unattr_reason_name(u->reason));
	}
	return 0;
}

static void summarize(void *ctx, double elapsed, bool final)
{
	struct gcm_cli *g = ctx;
	struct row_ctx rc = { g, final ? elapsed : elapsed - g->last_tick, false, final };

	ringside_gcm_totals(g->s, take_total, g);
	ringside_gcm_hist(g->s, take_hist, g);
	if (!g->o.json) {
		time_t now = time(NULL);
		char ts[16];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		printf("\n%s AES-GCM %s %.1f s\n", ts, final && g->o.interval ? "in the whole run," :
		       "over", rc.secs);
	}
	ringside_gcm_agg_foreach(final ? g->run : g->agg, print_row, &rc);
	if (!rc.any && !g->o.json)
		puts("(no AES-GCM operations)");
	if (final) {
		struct unattr_ctx uc = { g, 0 };
		uint64_t hist_lost = ringside_gcm_hist_lost(g->s);

		if (hist_lost) {
			if (g->o.json)
				cli_json_count("lost", "latency_samples", hist_lost);
			fprintf(stderr, "ringside: %llu messages missing from the latency percentiles: "
				"more than %d histogram rows (narrow the trace with -p, --comm or "
				"--cgroup)\n", (unsigned long long)hist_lost, RS_GCM_HIST_MAX_ENTRIES);
		}

		ringside_gcm_unattributed(g->s, print_unattributed, &uc);
		if (uc.total)
			fprintf(stderr, "ringside: warning: %llu GCM probe hits could not be tied to a "
				"message (calls on a handle created before the trace began, or inside "
				"the library): the counts above miss that work\n",
				(unsigned long long)uc.total);
	}
	fflush(stdout);
	ringside_gcm_agg_reset(g->agg);
	g->last_tick = elapsed;
}


/* What cannot be seen in this file: its own reason, else its family's. */
static const char *lib_not_seen(const struct ringside_gcm_lib *lib)
{
	const char *family = ringside_gcm_lib_blind_spot(lib->family);

	return lib->not_seen[0] ? lib->not_seen : family ? family : "";
}

/* One library's JSON fields: the gcm_start list and a late gcm_lib record share them. */
static void json_lib_fields(struct ringside_json *j, const struct gcm_cli *g, unsigned int i)
{
	const struct ringside_gcm_lib *lib = ringside_gcm_lib(g->s, i);

	ringside_json_u64(j, "id", i);
	ringside_json_str(j, "lib", ringside_gcm_lib_name(lib->family));
	ringside_json_str(j, "path", lib->path);
	ringside_json_str(j, "version", lib->version);
	ringside_json_u64(j, "probes", lib->probes);
	ringside_json_u64(j, "single_stepped", lib->stepped);
	ringside_json_bool(j, "late", lib->late);
	ringside_json_str(j, "not_seen", lib_not_seen(lib));
	if (lib->entries[0])
		ringside_json_str(j, "entries", lib->entries);
	if (!g->o.verbose)
		return;
	ringside_json_array(j, "probe_points");
	for (unsigned int k = 0; k < ringside_gcm_nr_probe_points(g->s); k++) {
		struct ringside_gcm_probe_point pt;

		if (ringside_gcm_probe_point(g->s, k, &pt) || pt.lib_id != i)
			continue;
		ringside_json_object(j, NULL);
		cli_json_gcm_point(j, &pt);
		ringside_json_close(j);
	}
	ringside_json_close(j);
}

static void text_lib(const struct gcm_cli *g, unsigned int i)
{
	const struct ringside_gcm_lib *lib = ringside_gcm_lib(g->s, i);

	fprintf(stderr, "ringside: %s %s %s: %u probes", ringside_gcm_lib_name(lib->family),
		lib->version[0] ? lib->version : "?", lib->path, lib->probes);
	if (lib->stepped)
		fprintf(stderr, ", %u single-stepped", lib->stepped);
	if (lib->late)
		fputs(" (started after tracing began: probed from now on)", stderr);
	fputc('\n', stderr);
	for (unsigned int k = 0; g->o.verbose && k < ringside_gcm_nr_probe_points(g->s); k++) {
		struct ringside_gcm_probe_point pt;
		char where[128];

		if (ringside_gcm_probe_point(g->s, k, &pt) || pt.lib_id != i)
			continue;
		cli_gcm_point_where(&pt, where, sizeof(where));
		fprintf(stderr, "ringside:   %s %s, %s%s%s (file offset 0x%" PRIx64 ")\n", pt.function,
			where, pt.emulated ? "emulated" : "single-stepped",
			pt.kept_at_entry[0] ? ": not moved, " : "", pt.kept_at_entry, pt.file_offset);
	}
	if (lib_not_seen(lib)[0])
		fprintf(stderr, "ringside: %s: not seen: %s\n", ringside_gcm_lib_name(lib->family),
			lib_not_seen(lib));
}

static void announce(struct gcm_cli *g)
{
	char why[400];
	bool seccomp_safe;
	int sys = ringside_uretprobe_mechanism(&seccomp_safe, why, sizeof(why));
	unsigned int n = ringside_gcm_nr_libs(g->s);

	if (g->o.json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "gcm_start");
		ringside_json_str(&j, "uretprobe", sys ? "syscall" : "int3");
		ringside_json_bool(&j, "seccomp_safe", seccomp_safe);
		ringside_json_bool(&j, "watches_starts", ringside_gcm_watches_starts(g->s));
		ringside_json_array(&j, "libs");
		for (unsigned int i = 0; i < n; i++) {
			ringside_json_object(&j, NULL);
			json_lib_fields(&j, g, i);
			ringside_json_close(&j);
		}
		ringside_json_close(&j);
		ringside_json_array(&j, "not_traced");
		for (unsigned int i = 0; i < ringside_gcm_nr_skipped(g->s); i++)
			ringside_json_str(&j, NULL, ringside_gcm_skipped(g->s, i));
		ringside_json_end(&j);
		fflush(stdout);
	}
	if (g->o.verbose)
		fprintf(stderr, "%s", ringside_session_notes(g->s));
	fprintf(stderr, "ringside: return probes: %s\n", sys ? "uretprobe syscall (fast path)" :
								"int3 trap");
	if (!seccomp_safe)
		fprintf(stderr, "ringside: warning: %s\n", why);
	for (unsigned int i = 0; i < n; i++)
		text_lib(g, i);
	for (unsigned int i = 0; i < ringside_gcm_nr_skipped(g->s); i++)
		fprintf(stderr, "ringside: not traced: %s\n", ringside_gcm_skipped(g->s, i));
	g->libs_shown = n;
	g->skipped_shown = ringside_gcm_nr_skipped(g->s);
	/* Libraries are probed by file, so later processes are covered; a Go
	 * program carries its own crypto: system-wide, each one that starts is
	 * probed when its start is seen, where the kernel can report starts. */
	if (!g->nr_paths && !g->o.pid && !ringside_gcm_watches_starts(g->s))
		fprintf(stderr, "ringside: not traced: Go programs that start from now on "
			"(this kernel does not report program starts to BPF: name one with "
			"--binary PATH)\n");
	if (g->events && !g->o.json)
		printf("%-16s %7s %7s %-9s %-4s %4s %6s %8s %10s %-9s %s\n", "COMM", "PID", "TID", "LIB",
		       "DIR", "BITS", "AAD", "BYTES", "LAT(us)", "RESULT", "CALLER");
	fprintf(stderr, "ringside: tracing AES-GCM... Ctrl-C to end\n");
	fflush(stdout);
}

/*
 * Between polls: Go programs that started after tracing began and were
 * probed, or found untraceable, are announced as the start-up ones were.
 */
static int announce_late(void *ctx)
{
	struct gcm_cli *g = ctx;
	unsigned int n = ringside_gcm_nr_libs(g->s), skipped = ringside_gcm_nr_skipped(g->s);

	for (; g->libs_shown < n; g->libs_shown++) {
		if (g->o.json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "gcm_lib");
			json_lib_fields(&j, g, g->libs_shown);
			ringside_json_end(&j);
		} else {
			text_lib(g, g->libs_shown);
		}
	}
	for (; g->skipped_shown < skipped; g->skipped_shown++) {
		const char *why = ringside_gcm_skipped(g->s, g->skipped_shown);

		if (g->o.json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "gcm_not_traced");
			ringside_json_str(&j, "why", why);
			ringside_json_end(&j);
		} else {
			fprintf(stderr, "ringside: not traced: %s\n", why);
		}
	}
	fflush(stdout);
	return 0;
}

/* Warn about seccomp-filtered targets when the uretprobe syscall would kill them. */
static void warn_seccomp_target(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	bool safe = true;

	if (!pid || ringside_uretprobe_mechanism(&safe, NULL, 0) != 1 || safe)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8) && atoi(line + 8) == 2)
			cli_err("warning: PID %d runs under a seccomp filter and this kernel's "
				"uretprobe syscall does not pass seccomp: it will be killed", (int)pid);
	fclose(f);
}

int cmd_gcm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, NULL, 'l' },
		{ "binary", required_argument, NULL, 'b' },
		{ "events", no_argument, NULL, 'e' },
		{ "hist", no_argument, NULL, 'H' },
		{ "stacks", optional_argument, NULL, 's' },
		{ "stack-window", required_argument, NULL, OPT_STACK_WINDOW },
		{ "perf-uprobes", no_argument, NULL, OPT_PERF_UPROBES },
		{ "count-only", no_argument, NULL, OPT_COUNT_ONLY },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		CLI_COMMON_LONGOPTS,
		{ 0 },
	};
	struct gcm_cli g = { 0 };
	struct ringside_gcm_opts go = { .sz = sizeof(go) };
	struct ringside_resolver_opts ro = { .sz = sizeof(ro) };
	struct cli_loop loop;
	const char *stack_mode = NULL;
	unsigned long long window = 0;
	int opt, err, ret;

	while ((opt = cli_getopt(argc, argv, "l:b:eHs" CLI_COMMON_SHORTOPTS, longopts)) != -1) {
		switch (opt) {
		case 'l':
		case 'b':
			if (g.nr_paths + 1 >= sizeof(g.paths) / sizeof(g.paths[0])) {
				cli_err("too many --lib/--binary paths");
				return 2;
			}
			g.paths[g.nr_paths++] = optarg;
			break;
		case 'e': g.events = true; break;
		case 'H': g.hist = true; break;
		case 's':
			g.stacks = true;
			stack_mode = optarg;
			break;
		case OPT_STACK_WINDOW:
			if (cli_parse_uint(optarg, RS_STACK_PAGE, RS_STACK_WINDOW_MAX, &window)) {
				cli_err("--stack-window %s: give bytes from %d to %d", cli_quote(optarg),
					RS_STACK_PAGE, RS_STACK_WINDOW_MAX);
				return 2;
			}
			break;
		case OPT_PERF_UPROBES: g.perf_uprobes = true; break;
		case OPT_COUNT_ONLY: g.count_only = true; break;
		case OPT_KERNEL: g.kernel = true; break;
		case 'h': fputs(gcm_usage, stdout); return 0;
		default:
			ret = cli_common_opt(opt, optarg, &g.o);
			if (ret < 0)
				return 2;
			if (!ret)
				return cli_bad_option("gcm", argv);
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s': see ringside gcm --help", argv[optind]);
		return 2;
	}
	if (g.kernel) {
		const char *user_only = g.nr_paths ? "--lib/--binary" : g.hist ? "--hist" :
					g.stacks ? "--stacks" : g.perf_uprobes ? "--perf-uprobes" :
					g.count_only ? "--count-only" : NULL;

		if (user_only) {
			cli_err("%s is for user-space libraries, not --kernel: drop one", user_only);
			return 2;
		}
		return gcm_kernel_run(&g.o, g.events);
	}
	if (g.count_only && g.hist) {
		cli_err("--hist includes latency, which --count-only does not measure: drop one");
		return 2;
	}
	if (g.stacks && !g.events) {
		cli_err("--stacks shows stacks of --events lines: add --events");
		return 2;
	}
	if (stack_mode && strcmp(stack_mode, "fp") && strcmp(stack_mode, "dwarf")) {
		cli_err("--stacks=%s: the mode is fp (frame pointers) or dwarf (unwind with .eh_frame)",
			stack_mode);
		return 2;
	}
	if (window && !(stack_mode && !strcmp(stack_mode, "dwarf"))) {
		cli_err("--stack-window sizes the copied stack of --stacks=dwarf: add --stacks=dwarf");
		return 2;
	}
	if (stack_mode && !strcmp(stack_mode, "dwarf"))
		g.stack_window = window ? (unsigned int)window : 3 * RS_STACK_PAGE;
	/*
	 * --events is a record per message: at a million a second a 256 KiB
	 * ring holds under a millisecond, and a reader preempted for longer
	 * loses records (bench/ringbuf_bench: 1 MiB lost none in 24 runs at 0.5
	 * and 1 M/s). Without it only tag failures are records (the summaries
	 * are the kernel's): the library's default, mapped twice, is plenty.
	 */
	if (!g.o.ringbuf_bytes && g.events)
		g.o.ringbuf_bytes = GCM_DEFAULT_RINGBUF;
	if (cli_require_bpf())
		return 1;
	if (cli_session_open(&g.o, on_event, &g, &g.s))
		return 1;
	go.paths = g.nr_paths ? g.paths : NULL;
	go.stacks = g.stacks;
	go.stack_window = g.stack_window;
	go.perf_uprobes = g.perf_uprobes;
	go.count_only = g.count_only;
	/* Without --events the summaries need no record per message: the kernel keeps them. */
	go.kernel_hist = !g.events;
	go.size_hist = g.hist;
	ret = 1;
	err = ringside_session_enable_gcm(g.s, &go);
	if (err) {
		cli_fail(g.s, err, "gcm");
		goto out;
	}
	g.agg = ringside_gcm_agg_new();
	g.run = ringside_gcm_agg_new();
	if (g.stack_window && ringside_unwinder_unavailable()) {
		cli_err("--stacks: %s", ringside_unwinder_unavailable());
		goto out;
	}
	if (!g.agg || !g.run || ringside_resolver_new(&ro, &g.resolver) ||
	    (g.stack_window && ringside_unwinder_new(&g.unwinder))) {
		cli_err("out of memory");
		goto out;
	}
	err = ringside_session_attach(g.s);
	if (err) {
		cli_fail(g.s, err, "cannot attach");
		goto out;
	}
	warn_seccomp_target(g.o.pid);
	announce(&g);
	loop = (struct cli_loop){ .s = g.s, .o = &g.o, .summary = summarize,
				  .check = announce_late, .ctx = &g };
	ret = cli_run(&loop);
out:
	ringside_resolver_free(g.resolver);
	ringside_unwinder_free(g.unwinder);
	ringside_gcm_agg_free(g.agg);
	ringside_gcm_agg_free(g.run);
	ringside_session_close(g.s);
	return ret;
}
