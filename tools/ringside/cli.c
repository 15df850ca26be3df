// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "ringside/resolve.h"

#include "cli.h"
#include "ringside/gcm.h"

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("ringside: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_fail(const struct ringside_session *s, int err, const char *what)
{
	const char *detail = ringside_session_errmsg(s);

	if (detail && *detail)
		cli_err("%s: %s", what, detail);
	else
		cli_err("%s: %s", what, ringside_strerror(err));
	return 1;
}

int cli_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	/* strtoull skips spaces and negates "-1" into a huge value: digits first. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (v > (~0ULL >> shift))
		return -ERANGE;
	v <<= shift;
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *cli_quote(const char *arg)
{
	/* A few buffers, so that one message can quote two arguments. */
	static char bufs[4][80];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	size_t n = arg ? strlen(arg) : 0;

	if (!arg)
		return "(none)";
	if (n < sizeof(bufs[0]))
		return arg;
	snprintf(b, sizeof(bufs[0]), "%.60s... (%zu bytes)", arg, n);
	return b;
}

int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
		   unsigned long long *out)
{
	char *end;
	unsigned long long v;

	/* strtoull takes "-1" as ULLONG_MAX and skips spaces: allow digits only. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_bad_option(const char *cmd, char **argv)
{
	/* getopt leaves optind past the word it stopped at. */
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (optopt && optopt < 256 && !strchr(word, optopt))
		cli_err("%s: unknown option '-%c' or a missing value: see ringside %s --help", cmd,
			optopt, cmd);
	else
		cli_err("%s: unknown option '%s' or a missing value: see ringside %s --help", cmd,
			cli_quote(word), cmd);
	return 2;
}

int cli_check_writable(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			cli_err("output file %s is a directory: name a file", cli_quote(path));
			return -1;
		}
		if (access(path, W_OK)) {
			cli_err("cannot write %s: %s", cli_quote(path), strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
		cli_err("cannot write %s: directory %s %s", cli_quote(path), cli_quote(dir),
			errno == ENOENT ? "does not exist" : "is not writable");
		return -1;
	}
	return 0;
}

void cli_print_repair(void *ctx, const char *line)
{
	(void)ctx;
	cli_err("%s", line);
}

int cli_parse_pid(const char *arg, pid_t *pid, const char *what)
{
	unsigned long long v;
	int err;

	if (cli_parse_uint(arg, 1, 0x3fffffff, &v)) {
		cli_err("%s '%s' is not a process id: give a positive number", what, cli_quote(arg));
		return -1;
	}
	*pid = (pid_t)v;
	err = ringside_proc_check(*pid);
	switch (err) {
	case 0:
		return 0;
	case -ESRCH:
		cli_err("no such %s: %llu (check with ps)", what, v);
		break;
	case -RINGSIDE_ERR_ZOMBIE:
		cli_err("%s %llu has exited (a zombie its parent has not reaped): nothing to trace",
			what, v);
		break;
	case -RINGSIDE_ERR_KTHREAD:
		cli_err("%s %llu is a kernel thread: it has no user-space code or memory to trace",
			what, v);
		break;
	case -EACCES:
	case -EPERM:
		if (geteuid())
			cli_err("not allowed to read %s %llu's memory map: run as root or as its owner",
				what, v);
		else
			cli_err("the kernel refuses root access to %s %llu's memory map (another user "
				"namespace, or Yama/LSM ptrace rules): trace it from its own namespace",
				what, v);
		break;
	default:
		cli_err("%s %llu: %s", what, v, ringside_strerror(err));
		break;
	}
	return -1;
}

int cli_common_opt(int opt, const char *arg, struct cli_opts *o)
{
	unsigned long long size;

	switch (opt) {
	case 'p':
		return cli_parse_pid(arg, &o->pid, "process") ? -1 : 1;
	case OPT_TID:
		return cli_parse_pid(arg, &o->tid, "thread") ? -1 : 1;
	case OPT_CGROUP:
		o->cgroup = arg;
		return 1;
	case OPT_COMM:
		if (strlen(arg) >= RS_COMM_LEN) {
			cli_err("--comm '%s' is longer than the kernel's %d-byte comm", cli_quote(arg),
				RS_COMM_LEN - 1);
			return -1;
		}
		o->comm = arg;
		return 1;
	case OPT_JSON:
		o->json = true;
		return 1;
	case 'd':
		if (cli_parse_seconds(arg, &o->duration) || o->duration == 0) {
			cli_err("--duration '%s' is not a positive number of seconds", cli_quote(arg));
			return -1;
		}
		return 1;
	case OPT_INTERVAL:
		if (cli_parse_seconds(arg, &o->interval) || o->interval < 0.01) {
			cli_err("--interval '%s' is not a number of seconds >= 0.01", cli_quote(arg));
			return -1;
		}
		return 1;
	case OPT_RINGBUF_SIZE:
		if (cli_parse_size(arg, &size) || size < 4096 || (size & (size - 1)) ||
		    size > (1ULL << 30)) {
			cli_err("--ringbuf-size '%s' must be a power of two from 4K to 1G", cli_quote(arg));
			return -1;
		}
		o->ringbuf_bytes = size;
		return 1;
	case 'v':
		o->verbose++;
		return 1;
	default:
		return 0;
	}
}

static int libbpf_verbose_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void cli_setup_libbpf_print(int verbose)
{
	libbpf_set_print(verbose ? libbpf_verbose_print : libbpf_quiet_print);
}

int cli_require_bpf(void)
{
	if (ringside_check_privileges()) {
		cli_err("missing privileges: run as root (needs CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)");
		return 1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		cli_err("%s", ringside_strerror(RINGSIDE_ERR_NOBTF));
		return 1;
	}
	return 0;
}

int cli_session_open(const struct cli_opts *o, ringside_event_fn on_event, void *ctx,
		     struct ringside_session **s)
{
	struct ringside_session_opts so;
	int err;

	cli_setup_libbpf_print(o->verbose);
	cli_session_opts(o, &so);
	so.on_event = on_event;
	so.ctx = ctx;
	err = ringside_session_open(&so, s);
	if (!err)
		return 0;
	/* With a --cgroup, what else fails here is resolving that path. */
	if (o->cgroup && err != -ESRCH && err != -ENOMEM && err != -EINVAL)
		cli_err("--cgroup %s: %s: give a cgroup directory (e.g. /sys/fs/cgroup/NAME, or "
			"/sys/fs/cgroup/memory/NAME on v1) or a path as /proc/PID/cgroup shows it",
			cli_quote(o->cgroup),
			err == -RINGSIDE_ERR_NOTCGROUP ? "not a cgroup directory" : strerror(-err));
	else if (err == -ESRCH && o->pid)
		cli_err("no such process: PID %d", (int)o->pid);
	else
		cli_err("cannot start: %s", ringside_last_errmsg()[0] ? ringside_last_errmsg() :
					    ringside_strerror(err));
	return 1;
}

void cli_session_opts(const struct cli_opts *o, struct ringside_session_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->sz = sizeof(*so);
	so->pid = o->pid;
	so->tid = o->tid;
	so->cgroup_path = o->cgroup;
	so->comm = o->comm;
	so->ringbuf_bytes = o->ringbuf_bytes;
}

/* The only process-wide state of the CLI: a signal flag, as signals require. */
static volatile sig_atomic_t cli_stop;

static void on_signal(int sig)
{
	(void)sig;
	cli_stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_json_hdr(struct ringside_json *j, const struct rs_event_hdr *hdr)
{
	ringside_json_u64(j, "ts_ns", hdr->ts_ns);
	ringside_json_u64(j, "pid", hdr->tgid);
	ringside_json_u64(j, "tid", hdr->tid);
	ringside_json_strn(j, "comm", hdr->comm, sizeof(hdr->comm));
	ringside_json_u64(j, "cgroup_id", hdr->cgroup_id);
}

void cli_json_hex(struct ringside_json *j, const char *key, uint64_t v)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v);
	ringside_json_str(j, key, hex);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	if (argc > 1 && !strcmp(argv[1], "--list-options")) {
		for (const struct option *o = longopts; o->name; o++)
			printf("--%s\n", o->name);
		exit(0);
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* {"type":TYPE,KEY:N} */
void cli_json_count(const char *type, const char *key, uint64_t n)
{
	struct ringside_json j;

	ringside_json_begin(&j, stdout);
	ringside_json_str(&j, "type", type);
	ringside_json_u64(&j, key, n);
	ringside_json_end(&j);
}

int cli_run(struct cli_loop *l)
{
	struct sigaction sa = { .sa_handler = on_signal };
	double start = now_s(), next_tick = l->o->interval > 0 ? start + l->o->interval : 0;
	struct ringside_stats st;
	int err = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!cli_stop) {
		double t = now_s();
		int timeout = 100;

		if (l->o->duration > 0 && t - start >= l->o->duration)
			break;
		if (next_tick && t >= next_tick) {
			if (l->summary)
				l->summary(l->ctx, t - start, false);
			next_tick += l->o->interval;
		}
		err = ringside_session_poll(l->s, timeout);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		/* Lines reach a pipe or file per batch, not per 4 KiB of buffer. */
		if (err > 0)
			fflush(stdout);
		err = ringside_session_target_check(l->s);
		if (err == -ESRCH) {
			/* The target finishing ends the trace; what it did is still reported. */
			cli_err("%s; stopping", ringside_session_errmsg(l->s));
			err = 0;
			break;
		}
		if (err < 0)
			break;
		if (l->check) {
			int c = l->check(l->ctx);

			if (c < 0) {
				/* check() said why: summarize, detach, exit 1. */
				ringside_session_poll(l->s, 0);
				if (l->summary)
					l->summary(l->ctx, now_s() - start, true);
				ringside_session_detach(l->s);
				return 1;
			}
			if (c > 0)
				break;
		}
	}
	/* Records already in the ring belong to this trace. */
	if (err >= 0)
		ringside_session_poll(l->s, 0);
	if (l->summary)
		l->summary(l->ctx, now_s() - start, true);
	ringside_session_stats(l->s, &st);
	if (l->o->verbose)
		fprintf(stderr, "ringside: records read: %llu (%llu bytes)\n",
			(unsigned long long)st.events, (unsigned long long)st.bytes);
	if (st.lost) {
		if (l->o->json)
			cli_json_count("lost", "events", st.lost);
		fprintf(stderr, "ringside: %llu events lost — raise --ringbuf-size\n",
			(unsigned long long)st.lost);
	}
	if (st.rows_lost) {
		if (l->o->json)
			cli_json_count("lost", "summary_ops", st.rows_lost);
		fprintf(stderr, "ringside: %llu operations missing from the summary: more than %d "
			"summary rows (narrow the trace with -p, --comm or --cgroup)\n",
			(unsigned long long)st.rows_lost, RS_TOTALS_MAX_ENTRIES);
	}
	ringside_session_detach(l->s);
	if (err < 0)
		return cli_fail(l->s, err, "tracing stopped");
	return 0;
}

void cli_json_gcm_point(struct ringside_json *j, const struct ringside_gcm_probe_point *pt)
{
	ringside_json_str(j, "function", pt->function);
	ringside_json_u64(j, "offset", pt->offset);
	cli_json_hex(j, "file_offset", pt->file_offset);
	ringside_json_str(j, "placement", ringside_gcm_placement_name(pt->placement));
	ringside_json_bool(j, "emulated", pt->emulated);
	if (pt->role[0])
		ringside_json_str(j, "role", pt->role);
	if (pt->kept_at_entry[0])
		ringside_json_str(j, "kept_at_entry", pt->kept_at_entry);
}

void cli_gcm_point_where(const struct ringside_gcm_probe_point *pt, char *buf, size_t len)
{
	unsigned long long at = (unsigned long long)pt->offset;

	switch (pt->placement) {
	case RINGSIDE_GCM_AT_ENTRY:
		snprintf(buf, len, "at its entry");
		break;
	case RINGSIDE_GCM_PAST_PROLOGUE:
		snprintf(buf, len, "+0x%llx, past its prologue", at);
		break;
	case RINGSIDE_GCM_AT_RET:
		snprintf(buf, len, "+0x%llx, a return instruction", at);
		break;
	case RINGSIDE_GCM_IN_PROLOGUE:
		snprintf(buf, len, "+0x%llx in its prologue, its arguments followed", at);
		break;
	default:
		snprintf(buf, len, "+0x%llx inside (%s)", at, pt->role);
	}
}

void cli_json_gcm_msg(struct ringside_json *j, unsigned int dir, unsigned int key_bits,
		      uint64_t aad, uint64_t payload, uint64_t latency_ns, unsigned int result,
		      int64_t retval)
{
	ringside_json_str(j, "dir", ringside_gcm_dir_name(dir));
	ringside_json_u64(j, "key_bits", key_bits);
	ringside_json_u64(j, "aad_bytes", aad);
	ringside_json_u64(j, "payload_bytes", payload);
	ringside_json_u64(j, "latency_ns", latency_ns);
	ringside_json_str(j, "result", ringside_gcm_result_name(result));
	ringside_json_i64(j, "retval", retval);
}
