// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringside btrfs: block-group reclaim and relocation; ringside btrfs threshold. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ringside/btrfs.h"

static const char btrfs_usage[] =
	"Usage: ringside btrfs [--fs MOUNTPOINT] [OPTIONS]\n"
	"       ringside btrfs threshold MOUNTPOINT [--json]\n"
	"Trace btrfs block-group reclaim and relocation: blocks groups queued for\n"
	"reclaim (with the threshold in force and why), relocated, removed, unused\n"
	"cleanup, chunk allocation and freeing. Tracepoints always; fexit timing of\n"
	"btrfs_relocate_block_group where the kernel allows it.\n"
	"Reclaim decisions are always printed with their explanation; a summary per\n"
	"filesystem follows every --interval and the end.\n"
	"\n"
	"  -f, --fs MOUNTPOINT    only this filesystem (tracing stops if it is unmounted)\n"
	"  -e, --events           print every block-group and chunk event\n"
	"\n"
	"threshold: print the reclaim threshold of each space_info (data, metadata,\n"
	"system) now, with the computation.\n"
	"\n" CLI_COMMON_HELP;

static const char threshold_usage[] =
	"Usage: ringside btrfs threshold MOUNTPOINT [--json]\n"
	"Print the reclaim threshold of each space_info (data, metadata, system) of\n"
	"a mounted btrfs now, with the computation (dynamic reclaim where the kernel\n"
	"has it, else the fixed bg_reclaim_threshold).\n"
	"\n"
	"  --json         one JSON object per space_info\n";

#define MAX_FS 16

struct fs_tally {
	uint64_t kinds[RS_BTRFS_KIND_MAX];
	uint64_t relocations, bytes_moved, balance_removals;
};

struct fs_stats {
	struct ringside_btrfs_fs fs;
	bool mounted;
	struct fs_tally interval, run;	/* since the last summary; since the start */
	struct ringside_btrfs_counters base[3];	/* sysfs counters at the last summary */
	struct ringside_btrfs_counters start[3];	/* ... and when tracing began */
	bool have_base;
};

static void tally(struct fs_tally *t, const struct rs_btrfs_event *e, unsigned int trig)
{
	t->kinds[e->kind]++;
	if (e->kind == RS_BTRFS_RECLAIM) {
		t->relocations++;
		t->bytes_moved += e->used;
	}
	if (e->kind == RS_BTRFS_REMOVE && trig == RS_BTRFS_TRIG_BALANCE)
		t->balance_removals++;
}

struct btrfs_cli {
	struct cli_opts o;
	const char *fs_path;
	bool events;
	struct ringside_session *s;
	struct ringside_btrfs_fs want;
	struct fs_stats fs[MAX_FS];
	unsigned int nr_fs;
	double last_tick;
};


static void human(uint64_t v, char *out, size_t len)
{
	if (v >= 1ULL << 30)
		snprintf(out, len, "%.1fGiB", (double)v / (1ULL << 30));
	else if (v >= 1ULL << 20)
		snprintf(out, len, "%.1fMiB", (double)v / (1ULL << 20));
	else
		snprintf(out, len, "%lluKiB", (unsigned long long)(v >> 10));
}

static struct fs_stats *fs_stats_of(struct btrfs_cli *b, const uint8_t fsid[16])
{
	struct fs_stats *f;

	for (unsigned int i = 0; i < b->nr_fs; i++)
		if (!memcmp(b->fs[i].fs.fsid, fsid, 16))
			return &b->fs[i];
	if (b->nr_fs == MAX_FS)
		return NULL;
	f = &b->fs[b->nr_fs++];
	memset(f, 0, sizeof(*f));
	f->mounted = !ringside_btrfs_fs_of_fsid(fsid, &f->fs);
	return f;
}

static void sysfs_counters(struct fs_stats *f, struct ringside_btrfs_counters now[3])
{
	for (int t = 0; t < 3; t++) {
		struct rs_btrfs_space sp;

		if (!f->mounted || ringside_btrfs_space_read(&f->fs, (enum ringside_btrfs_type)t, &sp,
							     &now[t]))
			memset(&now[t], 0, sizeof(now[t]));
	}
}

/* "23% used < threshold 40% (dynamic: ...) -> reclaim"; with_bg prefixes "bg 1.2GiB DATA ". */
static void explain(const struct rs_btrfs_event *e, bool with_bg, char *out, size_t len)
{
	struct ringside_btrfs_threshold th;
	char size[32], flags[48], bg[96] = "";
	unsigned int used_pct = e->len ? (unsigned int)(e->used * 100 / e->len) : 0;

	ringside_btrfs_threshold(&e->space, &th);
	if (with_bg) {
		human(e->len, size, sizeof(size));
		ringside_btrfs_flags_str(e->flags, flags, sizeof(flags));
		snprintf(bg, sizeof(bg), "bg %s %s ", size, flags);
	}
	snprintf(out, len, "%s%u%% used %s threshold %d%% (%s%s) -> reclaim", bg, used_pct,
		 used_pct < (unsigned int)th.pct ? "<" : ">=", th.pct, th.why,
		 e->space.periodic_reclaim ? "; periodic reclaim on" : "");
}

static void print_timing(const struct ringside_btrfs_timing *tm, bool first)
{
	const char *sep = first ? "" : "; ";

	if (tm->queued_to_relocate_ns) {
		printf("%squeued->relocate %.1f ms", sep, tm->queued_to_relocate_ns / 1e6);
		sep = ", ";
	}
	if (tm->relocate_to_removed_ns) {
		printf("%srelocate->removed %.1f ms", sep, tm->relocate_to_removed_ns / 1e6);
		sep = ", ";
	}
	if (tm->queued_to_removed_ns)
		printf("%squeued->removed %.1f ms", sep, tm->queued_to_removed_ns / 1e6);
}

static void print_json_event(const struct rs_btrfs_event *e, unsigned int trig,
			     const struct fs_stats *f, const char *explanation,
			     const struct ringside_btrfs_timing *tm)
{
	char flags[48];

	struct ringside_json j;

	ringside_btrfs_flags_str(e->flags, flags, sizeof(flags));
	ringside_json_begin(&j, stdout);
	ringside_json_str(&j, "type", "btrfs_event");
	ringside_json_u64(&j, "ts_ns", e->hdr.ts_ns);
	ringside_json_str(&j, "event", ringside_btrfs_kind_name(e->kind));
	ringside_json_str(&j, "trigger", ringside_btrfs_trigger_name(trig));
	ringside_json_str(&j, "fsid", f ? f->fs.uuid : "");
	ringside_json_str(&j, "mountpoint", f && f->mounted ? f->fs.mountpoint : "");
	ringside_json_str(&j, "label", f ? f->fs.label : "");
	ringside_json_u64(&j, "bytenr", e->bytenr);
	ringside_json_u64(&j, "length", e->len);
	ringside_json_u64(&j, "used", e->used);
	ringside_json_u64(&j, "flags", e->flags);
	ringside_json_str(&j, "profile", flags);
	ringside_json_u64(&j, "pid", e->hdr.tgid);
	ringside_json_strn(&j, "comm", e->hdr.comm, sizeof(e->hdr.comm));
	if (e->kind <= RS_BTRFS_REMOVE) {
		struct ringside_btrfs_threshold th;

		ringside_btrfs_threshold(&e->space, &th);
		ringside_json_i64(&j, "threshold_pct", th.pct);
		ringside_json_bool(&j, "threshold_dynamic", th.dynamic);
		ringside_json_u64(&j, "unallocated", th.unallocated);
		ringside_json_u64(&j, "unalloc_target", th.target);
		ringside_json_u64(&j, "space_unused", th.unused);
		ringside_json_bool(&j, "periodic_reclaim", e->space.periodic_reclaim);
	}
	if (explanation)
		ringside_json_str(&j, "explanation", explanation);
	if (tm) {
		ringside_json_u64(&j, "queued_to_relocate_ns", tm->queued_to_relocate_ns);
		ringside_json_u64(&j, "relocate_to_removed_ns", tm->relocate_to_removed_ns);
		ringside_json_u64(&j, "queued_to_removed_ns", tm->queued_to_removed_ns);
	}
	if (e->kind == RS_BTRFS_RELOC_DONE) {
		ringside_json_i64(&j, "ret", e->ret);
		ringside_json_u64(&j, "duration_ns", e->duration_ns);
	}
	ringside_json_end(&j);
}

static int on_event(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	struct btrfs_cli *b = ctx;
	const struct rs_btrfs_event *e = (const void *)ev;
	struct ringside_btrfs_timing tm;
	char explanation[400], size_s[32], flags[48];
	struct fs_stats *f;
	unsigned int trig;
	bool timed;

	if (ev->type != RS_EV_BTRFS_BG || size < sizeof(*e) || e->kind >= RS_BTRFS_KIND_MAX)
		return 0;
	trig = ringside_btrfs_trigger(b->s, e);
	timed = ringside_btrfs_track(b->s, e, &tm) == 1;
	f = fs_stats_of(b, e->fsid);
	if (f) {
		tally(&f->interval, e, trig);
		tally(&f->run, e, trig);
	}
	explanation[0] = '\0';
	if (e->kind == RS_BTRFS_ADD_RECLAIM)
		explain(e, b->o.json, explanation, sizeof(explanation));
	if (!b->events && e->kind != RS_BTRFS_ADD_RECLAIM && !(timed && e->kind == RS_BTRFS_REMOVE))
		return 0;
	if (b->o.json) {
		print_json_event(e, trig, f, explanation[0] ? explanation : NULL, timed ? &tm : NULL);
		return 0;
	}
	human(e->len, size_s, sizeof(size_s));
	ringside_btrfs_flags_str(e->flags, flags, sizeof(flags));
	printf("%-13s %-14s %-24s bg %-14llu %9s %-16s used %-9llu %s",
	       ringside_btrfs_kind_name(e->kind), ringside_btrfs_trigger_name(trig),
	       f && f->mounted ? f->fs.mountpoint : f ? f->fs.uuid : "?",
	       (unsigned long long)e->bytenr, size_s, flags, (unsigned long long)e->used,
	       explanation);
	if (timed && e->kind != RS_BTRFS_RELOC_DONE)
		print_timing(&tm, !explanation[0]);
	if (e->kind == RS_BTRFS_RELOC_DONE)
		printf("ret %lld in %.3f ms", (long long)e->ret, e->duration_ns / 1e6);
	putchar('\n');
	return 0;
}

static void summarize(void *ctx, double elapsed, bool final)
{
	struct btrfs_cli *b = ctx;
	double secs = final ? elapsed : elapsed - b->last_tick;

	if (b->want.uuid[0])
		fs_stats_of(b, b->want.fsid);
	for (unsigned int i = 0; i < b->nr_fs; i++) {
		struct fs_stats *f = &b->fs[i];
		const struct fs_tally *k = final ? &f->run : &f->interval;
		const struct ringside_btrfs_counters *from = final ? f->start : f->base;
		struct ringside_btrfs_counters now[3];

		sysfs_counters(f, now);
		for (int t = 0; t < 3; t++) {
			struct ringside_btrfs_counters d = now[t];
			struct rs_btrfs_space sp;
			struct ringside_btrfs_threshold th = { 0 };

			if (f->have_base) {
				d.reclaim_count -= from[t].reclaim_count;
				d.reclaim_bytes -= from[t].reclaim_bytes;
				d.reclaim_errors -= from[t].reclaim_errors;
			}
			if (f->mounted &&
			    !ringside_btrfs_space_read(&f->fs, (enum ringside_btrfs_type)t, &sp, NULL))
				ringside_btrfs_threshold(&sp, &th);
			if (b->o.json) {
				struct ringside_json j;

				ringside_json_begin(&j, stdout);
				ringside_json_str(&j, "type", "btrfs_summary");
				ringside_json_str(&j, "scope", final ? "run" : "interval");
				ringside_json_double(&j, "interval_s", secs, 3);
				ringside_json_str(&j, "fsid", f->fs.uuid);
				ringside_json_str(&j, "mountpoint", f->mounted ? f->fs.mountpoint : "");
				ringside_json_str(&j, "space_info", ringside_btrfs_type_name(t));
				ringside_json_u64(&j, "reclaim_count", d.reclaim_count);
				ringside_json_u64(&j, "reclaim_bytes", d.reclaim_bytes);
				ringside_json_u64(&j, "reclaim_errors", d.reclaim_errors);
				ringside_json_i64(&j, "threshold_pct", th.pct);
				ringside_json_bool(&j, "threshold_dynamic", th.dynamic);
				if (t == 0) {
					ringside_json_u64(&j, "queued", k->kinds[RS_BTRFS_ADD_RECLAIM]);
					ringside_json_u64(&j, "relocations", k->relocations);
					ringside_json_u64(&j, "bytes_moved", k->bytes_moved);
					ringside_json_u64(&j, "balance_removals", k->balance_removals);
					ringside_json_u64(&j, "removed", k->kinds[RS_BTRFS_REMOVE]);
					ringside_json_u64(&j, "unused_queued", k->kinds[RS_BTRFS_ADD_UNUSED]);
					ringside_json_u64(&j, "chunks_allocated", k->kinds[RS_BTRFS_CHUNK_ALLOC]);
					ringside_json_u64(&j, "chunks_freed", k->kinds[RS_BTRFS_CHUNK_FREE]);
				}
				ringside_json_end(&j);
				continue;
			}
			if (t == 0) {
				char moved[32];

				human(k->bytes_moved, moved, sizeof(moved));
				printf("\n%s (%s%s%s) %s %.1f s: %llu queued, %llu relocated (%s moved), "
				       "%llu removed (%llu by balance), %llu unused queued, chunks +%llu -%llu\n",
				       f->mounted ? f->fs.mountpoint : "(unmounted)", f->fs.uuid,
				       f->fs.label[0] ? ", " : "", f->fs.label,
				       final && b->o.interval ? "in the whole run," : "over", secs,
				       (unsigned long long)k->kinds[RS_BTRFS_ADD_RECLAIM],
				       (unsigned long long)k->relocations, moved,
				       (unsigned long long)k->kinds[RS_BTRFS_REMOVE],
				       (unsigned long long)k->balance_removals,
				       (unsigned long long)k->kinds[RS_BTRFS_ADD_UNUSED],
				       (unsigned long long)k->kinds[RS_BTRFS_CHUNK_ALLOC],
				       (unsigned long long)k->kinds[RS_BTRFS_CHUNK_FREE]);
			}
			printf("  %-8s reclaim_count +%llu, reclaim_bytes +%llu, errors +%llu; threshold now %d%% (%s)\n",
			       ringside_btrfs_type_name(t), (unsigned long long)d.reclaim_count,
			       (unsigned long long)d.reclaim_bytes, (unsigned long long)d.reclaim_errors,
			       th.pct, th.why[0] ? th.why : "-");
		}
		memcpy(f->base, now, sizeof(now));
		if (!f->have_base)
			memcpy(f->start, now, sizeof(now));
		f->have_base = true;
		f->interval = (struct fs_tally){ 0 };
	}
	fflush(stdout);
	b->last_tick = elapsed;
}


/* --fs: stop when the filesystem goes away under us. */
static int check_mounted(void *ctx)
{
	struct btrfs_cli *b = ctx;
	struct ringside_btrfs_fs now;

	if (!b->want.uuid[0] || !ringside_btrfs_fs_of_fsid(b->want.fsid, &now))
		return 0;
	cli_err("%s (%s) was unmounted; stopping", b->want.mountpoint, b->want.uuid);
	for (unsigned int i = 0; i < b->nr_fs; i++)
		b->fs[i].mounted = false;
	return -1;
}

static int threshold_cmd(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ringside_btrfs_fs fs;
	bool json = false;
	int opt, err;

	while ((opt = cli_getopt(argc, argv, "jh", longopts)) != -1) {
		if (opt == 'j') {
			json = true;
		} else if (opt == 'h') {
			fputs(threshold_usage, stdout);
			return 0;
		} else {
			return cli_bad_option("btrfs threshold", argv);
		}
	}
	if (optind != argc - 1) {
		cli_err("btrfs threshold needs one MOUNTPOINT: see ringside btrfs --help");
		return 2;
	}
	err = ringside_btrfs_fs_of_path(argv[optind], &fs);
	if (err == -RINGSIDE_ERR_NOTBTRFS) {
		cli_err("%s is not on a btrfs filesystem", argv[optind]);
		return 1;
	}
	if (err) {
		cli_err("%s: %s", argv[optind], ringside_strerror(err));
		return 1;
	}
	for (int t = 0; t < 3; t++) {
		struct rs_btrfs_space sp;
		struct ringside_btrfs_threshold th;
		char unalloc[32], target[32], unused[32];

		err = ringside_btrfs_space_read(&fs, (enum ringside_btrfs_type)t, &sp, NULL);
		if (err == -ENOENT)
			continue;
		if (err) {
			cli_err("%s: cannot read its space info: %s", argv[optind], ringside_strerror(err));
			return 1;
		}
		ringside_btrfs_threshold(&sp, &th);
		if (json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "btrfs_threshold");
			ringside_json_str(&j, "fsid", fs.uuid);
			ringside_json_str(&j, "mountpoint", fs.mountpoint);
			ringside_json_str(&j, "space_info", ringside_btrfs_type_name(t));
			ringside_json_i64(&j, "threshold_pct", th.pct);
			ringside_json_bool(&j, "dynamic", th.dynamic);
			ringside_json_bool(&j, "periodic_reclaim", sp.periodic_reclaim);
			ringside_json_u64(&j, "chunk_size", th.chunk_size);
			ringside_json_u64(&j, "unalloc_target", th.target);
			ringside_json_u64(&j, "unallocated", th.unallocated);
			ringside_json_u64(&j, "space_unused", th.unused);
			ringside_json_i64(&j, "sysfs_bg_reclaim_threshold", sp.bg_reclaim_threshold);
			ringside_json_str(&j, "why", th.why);
			ringside_json_end(&j);
			continue;
		}
		human(th.unallocated, unalloc, sizeof(unalloc));
		human(th.target, target, sizeof(target));
		human(th.unused, unused, sizeof(unused));
		printf("%-8s threshold %3d%%  %s%s%s\n", ringside_btrfs_type_name(t), th.pct, th.why,
		       sp.periodic_reclaim ? "; periodic reclaim on" : "",
		       sp.has_dynamic ? "" : " (kernel has no dynamic_reclaim)");
	}
	return 0;
}

int cmd_btrfs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fs", required_argument, NULL, 'f' },
		{ "events", no_argument, NULL, 'e' },
		CLI_COMMON_LONGOPTS,
		{ 0 },
	};
	struct btrfs_cli b = { 0 };
	struct ringside_btrfs_opts bo = { .sz = sizeof(bo) };
	struct cli_loop loop;
	int opt, err, ret;

	if (argc > 1 && !strcmp(argv[1], "threshold"))
		return threshold_cmd(argc - 1, argv + 1);
	while ((opt = cli_getopt(argc, argv, "f:e" CLI_COMMON_SHORTOPTS, longopts)) != -1) {
		switch (opt) {
		case 'f': b.fs_path = optarg; break;
		case 'e': b.events = true; break;
		case 'h': fputs(btrfs_usage, stdout); return 0;
		default:
			ret = cli_common_opt(opt, optarg, &b.o);
			if (ret < 0)
				return 2;
			if (!ret)
				return cli_bad_option("btrfs", argv);
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s': see ringside btrfs --help", argv[optind]);
		return 2;
	}
	if (b.fs_path) {
		err = ringside_btrfs_fs_of_path(b.fs_path, &b.want);
		if (err == -RINGSIDE_ERR_NOTBTRFS) {
			cli_err("%s is not on a btrfs filesystem", b.fs_path);
			return 1;
		}
		if (err) {
			cli_err("%s: %s", b.fs_path, ringside_strerror(err));
			return 1;
		}
	}
	if (cli_require_bpf())
		return 1;
	if (cli_session_open(&b.o, on_event, &b, &b.s))
		return 1;
	bo.fs = b.fs_path;
	ret = 1;
	err = ringside_session_enable_btrfs(b.s, &bo);
	if (err) {
		cli_fail(b.s, err, "btrfs");
		goto out;
	}
	err = ringside_session_attach(b.s);
	if (err) {
		cli_fail(b.s, err, "cannot attach");
		goto out;
	}
	if (b.o.verbose || !b.o.json)
		fprintf(stderr, "%s", ringside_session_notes(b.s));
	/* Counters start from now: summaries show what happened while tracing. */
	if (b.want.uuid[0]) {
		struct fs_stats *f = fs_stats_of(&b, b.want.fsid);

		if (f) {
			sysfs_counters(f, f->base);
			memcpy(f->start, f->base, sizeof(f->start));
			f->have_base = true;
		}
	}
	fprintf(stderr, "ringside: tracing btrfs block groups%s%s... Ctrl-C to end\n",
		b.fs_path ? " on " : "", b.fs_path ? b.fs_path : "");
	loop = (struct cli_loop){ .s = b.s, .o = &b.o, .summary = summarize,
				  .check = b.fs_path ? check_mounted : NULL, .ctx = &b };
	ret = cli_run(&loop);
out:
	ringside_session_close(b.s);
	return ret;
}
