// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringside agent: the collectors counting in the kernel, served as
 * Prometheus metrics over HTTP(S) by libmicrohttpd. One session per
 * collector, so one the kernel cannot run does not stop the others; the
 * main thread drains the sessions' rings, the HTTP thread writes the
 * exposition, one lock between them.
 */
#include <errno.h>
#include <stdarg.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <microhttpd.h>

#include "cli.h"
#include "dl_bind.h"
#include "web_config.h"
#include "ringside/btrfs.h"
#include "ringside/kaead.h"
#include "ringside/gcm.h"
#include "ringside/metrics.h"
#include "ringside/reclaim.h"

/* libmicrohttpd, opened by the agent alone (dl_bind.h): with its TLS stack, 2.5 MB of RSS. */
#define MHD_FNS(X) X(MHD_add_response_header) X(MHD_basic_auth_get_username_password) \
		   X(MHD_create_response_from_buffer) X(MHD_destroy_response) X(MHD_free) \
		   X(MHD_lookup_connection_value) X(MHD_queue_basic_auth_fail_response) \
		   X(MHD_queue_response) X(MHD_start_daemon) X(MHD_stop_daemon)
RS_DL_LIBRARY(mhd, "libmicrohttpd.so.12", "libmicrohttpd12", MHD_FNS)

#define DEFAULT_LISTEN "127.0.0.1:9477"
/*
 * Ring buffer bytes per collector when --ringbuf-size is not given. The
 * agent counts in the kernel: only tag failures, btrfs block-group events
 * and program starts cross its rings. A ring is mapped twice over and every
 * page of it is resident from the start: 256 KiB rings held 1.5 MB of the
 * agent's 9.4 MB, 64 KiB ones 0.4 MB.
 */
#define AGENT_DEFAULT_RINGBUF (64 * 1024)

static const char agent_usage[] =
	"Usage: ringside agent [OPTIONS]\n"
	"Serve the collectors' counts as Prometheus metrics. GCM messages are counted\n"
	"in the kernel by process name, library, direction and key bits (with a size\n"
	"histogram); only tag failures cross the ring buffer, and are logged. Reclaim\n"
	"is counted in the kernel per memory cgroup reclaimed and by trigger, with a\n"
	"duration histogram and the swappiness asked for. btrfs: block-group events\n"
	"(rare records, relocations and removals logged), relocations and their\n"
	"duration by filesystem and space_info type, and the reclaim threshold in\n"
	"force (a gauge). kernel-gcm:\n"
	"AES-GCM requests through the kernel crypto API by driver, direction and key\n"
	"bits (needs fentry or kprobes).\n"
	"\n"
	"      --web.listen-address ADDR  host:port to listen on (default " DEFAULT_LISTEN ",\n"
	"                         loopback only; \":9477\" for every address)\n"
	"      --web.telemetry-path PATH  where metrics are served (default /metrics)\n"
	"      --web.config.file FILE     TLS and basic auth, in the exporter-toolkit\n"
	"                         format: tls_server_config (cert_file, key_file),\n"
	"                         basic_auth_users (user: bcrypt hash)\n"
	"      --collector.gcm, --no-collector.gcm\n"
	"      --collector.reclaim, --no-collector.reclaim\n"
	"      --collector.btrfs, --no-collector.btrfs\n"
	"      --collector.kernel-gcm, --no-collector.kernel-gcm\n"
	"                         run a collector or not (default: each the kernel\n"
	"                         supports; one asked for by name must start)\n"
	"      --collector.gcm.latency\n"
	"                         also time each GCM message (a duration histogram; an\n"
	"                         OpenSSL message then takes one probe hit more)\n"
	"      --max-series N     label sets per metric; the rest fold into one\n"
	"                         __other__ series (default 2000)\n"
	"  -p, --pid PID          only this process\n"
	"      --cgroup PATH      only tasks in this cgroup subtree\n"
	"      --comm NAME        only tasks with this command name\n"
	"  -d, --duration SECS    stop after SECS seconds (default: until SIGTERM)\n"
	"      --ringbuf-size N   ring buffer bytes per collector, a power of two\n"
	"                         (default 64K: only rare records cross it)\n"
	"  -v, --verbose          show libbpf's messages\n"
	"  -h, --help             this help\n";

enum { COL_GCM, COL_RECLAIM, COL_BTRFS, COL_KGCM, NR_COLS };
static const char *const col_names[NR_COLS] = { "gcm", "reclaim", "btrfs", "kernel-gcm" };

enum agent_opt {
	OPT_LISTEN = 2000,
	OPT_TELEMETRY,
	OPT_WEB_CONFIG,
	OPT_MAX_SERIES,
	OPT_GCM_LATENCY,
	OPT_COL_ON,		/* + collector index */
	OPT_COL_OFF = OPT_COL_ON + NR_COLS,
};

struct agent {
	struct cli_opts o;
	const char *listen, *path;
	struct web_config web;
	unsigned int max_series;
	bool gcm_latency;			/* time GCM messages (one probe hit more each) */
	int want[NR_COLS];			/* -1 off, 0 default, 1 asked for */
	struct ringside_session *sessions[NR_COLS];
	size_t notes_said[NR_COLS];		/* of each session's notes, printed or passed */
	unsigned int nr_sessions;
	const char *down[NR_COLS + 1];
	unsigned int nr_down;
	pthread_mutex_t lock;			/* the sessions: main thread vs HTTP thread */
	volatile int ready;
	/* Whether gcm, started before the port is taken, may attach: 0 not yet told, 1 yes, -1 no. */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	int gate;
};

static volatile sig_atomic_t agent_stop;

static void on_signal(int sig)
{
	(void)sig;
	agent_stop = 1;
}

/*
 * The rare records agent mode still queues, logged one line each: GCM tag
 * failures, and btrfs block groups relocated or removed.
 */
static int on_event(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	const struct rs_gcm_event *e = (const void *)ev;
	const struct rs_btrfs_event *b = (const void *)ev;
	struct ringside_btrfs_fs fs;

	(void)ctx;
	if (ev->type == RS_EV_GCM_OP && size >= sizeof(*e) && e->result == RS_GCM_TAG_FAIL)
		fprintf(stderr, "ringside: tag failure: %s (pid %u) %s open, %u-bit key, %llu bytes\n",
			ev->comm, ev->tgid, ringside_gcm_lib_name(e->lib), e->key_bits,
			(unsigned long long)e->payload_bytes);
	if (ev->type == RS_EV_BTRFS_BG && size >= sizeof(*b) &&
	    (b->kind == RS_BTRFS_RECLAIM || b->kind == RS_BTRFS_REMOVE || b->kind == RS_BTRFS_RELOC_DONE)) {
		bool known = !ringside_btrfs_fs_of_fsid(b->fsid, &fs);

		fprintf(stderr, "ringside: btrfs %s: %s block group %llu (%llu bytes used) on %s\n",
			ringside_btrfs_kind_name(b->kind),
			ringside_btrfs_type_name(ringside_btrfs_flags_type(b->flags)),
			(unsigned long long)b->bytenr, (unsigned long long)b->used,
			known ? fs.mountpoint : "an unmounted btrfs");
	}
	return 0;
}

/* ---- HTTP --------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, const char *type,
			     char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.MHD_queue_response(conn, status, r);
	mhd.MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *conn, unsigned int status, const char *body)
{
	return reply(conn, status, "text/plain; charset=utf-8", (char *)body, strlen(body),
		     MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result serve_metrics(struct agent *a, struct MHD_Connection *conn)
{
	const char *accept = mhd.MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	struct ringside_metrics_opts mo = { .sz = sizeof(mo), .max_series = a->max_series,
					    .down = a->down };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int err;

	if (!out)
		return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	if (accept && strstr(accept, "application/openmetrics-text"))
		mo.format = RINGSIDE_METRICS_OPENMETRICS;
	pthread_mutex_lock(&a->lock);
	err = ringside_metrics_write(a->sessions, a->nr_sessions, &mo, out);
	pthread_mutex_unlock(&a->lock);
	fclose(out);
	if (err) {
		free(buf);
		return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the collectors' maps\n");
	}
	return reply(conn, MHD_HTTP_OK, ringside_metrics_content_type(mo.format), buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	static const char landing[] =
		"<html><head><title>ringside agent</title></head><body><h1>ringside agent</h1>"
		"<p>AES-GCM, memory reclaim: eBPF counts as Prometheus metrics.</p>"
		"<p><a href=\"%s\">Metrics</a></p></body></html>\n";
	struct agent *a = cls;
	char *user, *password = NULL;
	bool ok;

	(void)version;
	(void)upload;
	if (!*state) {		/* the headers: answer on the next call */
		*state = a;
		return MHD_YES;
	}
	if (*upload_size)
		return text(conn, MHD_HTTP_CONTENT_TOO_LARGE, "no request body expected\n");
	user = mhd.MHD_basic_auth_get_username_password(conn, &password);
	ok = web_config_auth(&a->web, user, password);
	mhd.MHD_free(user);
	mhd.MHD_free(password);
	if (!ok) {
		struct MHD_Response *r = mhd.MHD_create_response_from_buffer(
			13, (void *)"Unauthorized\n", MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret = r ? mhd.MHD_queue_basic_auth_fail_response(conn, "ringside", r) :
					  MHD_NO;

		if (r)
			mhd.MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (!strcmp(url, a->path))
		return serve_metrics(a, conn);
	if (!strcmp(url, "/-/healthy"))
		return text(conn, MHD_HTTP_OK, "Healthy\n");
	if (!strcmp(url, "/-/ready"))
		return a->ready ? text(conn, MHD_HTTP_OK, "Ready\n") :
				  text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "Not ready: attaching\n");
	if (!strcmp(url, "/")) {
		char *page;
		int n = asprintf(&page, landing, a->path);

		return n < 0 ? MHD_NO : reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", page,
					      (size_t)n, MHD_RESPMEM_MUST_FREE);
	}
	return text(conn, MHD_HTTP_NOT_FOUND, "Not found\n");
}

/* host:port, [v6]:port or :port into an address to listen on. */
static int parse_listen(const char *arg, struct sockaddr_storage *ss)
{
	char host[256] = "", port[16];
	const char *colon = strrchr(arg, ':');
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	size_t hl;

	if (!colon || !colon[1] || strlen(colon + 1) >= sizeof(port))
		return -1;
	snprintf(port, sizeof(port), "%s", colon + 1);
	hl = (size_t)(colon - arg);
	if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
		arg++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (getaddrinfo(hl ? host : NULL, port, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* libmicrohttpd's messages: the last one names why the daemon did not start. */
static char http_error[256];

static void http_log(void *cls, const char *fmt, va_list ap)
{
	int verbose = *(const int *)cls;

	vsnprintf(http_error, sizeof(http_error), fmt, ap);
	http_error[strcspn(http_error, "\n")] = '\0';
	if (verbose)
		fprintf(stderr, "ringside: http: %s\n", http_error);
}

static struct MHD_Daemon *start_http(struct agent *a)
{
	struct sockaddr_storage ss = { 0 };
	unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	struct MHD_Daemon *d;

	if (mhd_unavailable()) {
		cli_err("cannot serve /metrics: %s", mhd_unavailable());
		return NULL;
	}
	if (parse_listen(a->listen, &ss)) {
		cli_err("--web.listen-address %s: give host:port, [v6addr]:port or :port",
			cli_quote(a->listen));
		return NULL;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (a->web.cert_pem)
		flags |= MHD_USE_TLS;
	/* Bounded: connections, their idle time and the memory a request may use. */
	d = mhd.MHD_start_daemon(flags, 0, NULL, NULL, on_request, a,
			     MHD_OPTION_EXTERNAL_LOGGER, http_log, &a->o.verbose,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)256,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			     a->web.cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, a->web.cert_pem,
			     MHD_OPTION_HTTPS_MEM_KEY, a->web.key_pem, MHD_OPTION_END);
	if (!d) {
		const char *why = strrchr(http_error, ':');

		cli_err("cannot listen on %s%s: %s", a->listen, a->web.cert_pem ? " with TLS" : "",
			why ? why + 2 : http_error[0] ? http_error : "the HTTP server did not start");
	}
	return d;
}

/* ---- collectors ----------------------------------------------------------- */

/* col's session opened and its collector enabled: 0, or the enable's error (s kept to say it). */
static int enable_collector(struct agent *a, int col, struct ringside_session *s)
{
	if (col == COL_GCM) {
		/* The kernel holds rows for the label sets the exposition keeps, and some. */
		struct ringside_gcm_opts go = { .sz = sizeof(go), .aggregate = true,
						.count_only = !a->gcm_latency,
						.label_sets = a->max_series + a->max_series / 4 };

		return ringside_session_enable_gcm(s, &go);
	}
	if (col == COL_RECLAIM) {
		struct ringside_reclaim_opts ro = { .sz = sizeof(ro), .aggregate = true };

		return ringside_session_enable_reclaim(s, &ro);
	}
	if (col == COL_BTRFS) {
		struct ringside_btrfs_opts bo = { .sz = sizeof(bo), .aggregate = true };

		return ringside_session_enable_btrfs(s, &bo);
	}
	{
		struct ringside_kaead_opts ko = { .sz = sizeof(ko), .aggregate = true };

		return ringside_session_enable_kaead(s, &ko);
	}
}

/*
 * The enabled and attached session s said (err: its enable's or attach's
 * error): up, or not up with why. -1 when the agent cannot go on (a collector asked for by
 * name failed); s is the agent's or closed either way.
 */
static int attach_collector(struct agent *a, int col, struct ringside_session *s, int err)
{
	if (err) {
		if (a->want[col] > 0)
			cli_err("--collector.%s: %s", col_names[col], ringside_session_errmsg(s));
		else
			fprintf(stderr, "ringside: collector %s not up: %s\n", col_names[col],
				ringside_session_errmsg(s));
		ringside_session_close(s);
		a->down[a->nr_down++] = col_names[col];
		return a->want[col] > 0 ? -1 : 0;
	}
	if (a->o.verbose)
		fprintf(stderr, "%s", ringside_session_notes(s));
	fprintf(stderr, "ringside: collector %s up\n", col_names[col]);
	pthread_mutex_lock(&a->lock);
	a->notes_said[a->nr_sessions] = strlen(ringside_session_notes(s));
	a->sessions[a->nr_sessions++] = s;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* A collector's start, enabled then attached, on a thread of its own or the caller's. */
struct starting {
	struct agent *a;
	int col;
	struct ringside_session *s;	/* opened by the caller */
	bool gated;			/* attaches only once the gate opens (start_gate()) */
	pthread_t thread;
	bool threaded;
	int err;			/* the enable's or the attach's */
};

/* What the gate says, once it has said it. */
static int gate_wait(struct agent *a)
{
	int gate;

	pthread_mutex_lock(&a->gate_lock);
	while (!a->gate)
		pthread_cond_wait(&a->gate_cond, &a->gate_lock);
	gate = a->gate;
	pthread_mutex_unlock(&a->gate_lock);
	return gate;
}

static void start_gate(struct agent *a, bool open)
{
	pthread_mutex_lock(&a->gate_lock);
	a->gate = open ? 1 : -1;
	pthread_cond_broadcast(&a->gate_cond);
	pthread_mutex_unlock(&a->gate_lock);
}

static void *start_thread(void *arg)
{
	struct starting *st = arg;

	st->err = enable_collector(st->a, st->col, st->s);
	if (!st->err && st->gated && gate_wait(st->a) < 0)
		st->err = -ECANCELED;
	if (!st->err)
		st->err = ringside_session_attach(st->s);
	return NULL;
}

static void start_begin(struct starting *st, bool here)
{
	st->threaded = !here && !pthread_create(&st->thread, NULL, start_thread, st);
	if (!st->threaded)
		start_thread(st);
}

static int start_end(struct starting *st)
{
	if (st->threaded)
		pthread_join(st->thread, NULL);
	st->threaded = false;
	return st->err;
}

/*
 * Every collector asked for, each enabled and attached side by side: the
 * loads are the verifier's work in the kernel, a CPU each, and gcm's start
 * (its libraries read, 12-20 ms, then its feature tests and the biggest
 * load) is the longest, so it begins first, on a thread, even before the
 * HTTP server's library is loaded and the port taken (3-4 ms of this
 * thread's): it attaches only once the port is ours (start_gate()). The
 * sessions are all opened first: a session is starting from its open, and
 * while one is, another's failure does not wait for the feature tests'
 * threads (kernel-gcm, failing where the kernel has no kprobe or fentry,
 * waited ~80 ms for gcm's), and the tests' perf-event uprobes are released
 * only once all have started (their release holds the kernel's trace
 * event lock long enough to stall reclaim's attach of the syscall-exit
 * tracepoint by 120-270 ms with tracefs mounted). -1 when the agent cannot
 * go on (a session that could not open: said).
 */
static int collectors_begin(struct agent *a, struct starting st[NR_COLS])
{
	static const int order[] = { COL_GCM, COL_KGCM, COL_BTRFS, COL_RECLAIM };

	memset(st, 0, NR_COLS * sizeof(*st));
	for (size_t i = 0; i < NR_COLS; i++) {
		int col = order[i];

		st[col] = (struct starting){ .a = a, .col = col, .gated = col == COL_GCM };
		if (a->want[col] >= 0 && cli_session_open(&a->o, on_event, a, &st[col].s))
			return -1;
	}
	if (st[COL_GCM].s)
		start_begin(&st[COL_GCM], false);
	return 0;
}

/*
 * The rest, once the port is ours: kernel-gcm (fast either way) and reclaim
 * on this thread, btrfs on its own; each said, in a fixed order. With fail
 * set (the port, or a session's open, failed), nothing more starts and
 * what did is closed. -1 when the agent cannot go on.
 */
static int collectors_finish(struct agent *a, struct starting st[NR_COLS], bool fail)
{
	static const int order[] = { COL_KGCM, COL_BTRFS, COL_RECLAIM };
	static const bool here[NR_COLS] = { [COL_KGCM] = true, [COL_RECLAIM] = true };
	static const int said[] = { COL_KGCM, COL_RECLAIM, COL_BTRFS, COL_GCM };
	int ret = fail ? -1 : 0;

	start_gate(a, !fail);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && !ret; i++)
		if (st[order[i]].s)
			start_begin(&st[order[i]], here[order[i]]);
	for (size_t i = 0; i < NR_COLS; i++) {
		struct starting *c = &st[said[i]];
		int err;

		if (!c->s)
			continue;
		err = start_end(c);
		if (!ret)
			ret = attach_collector(a, c->col, c->s, err);
		else
			ringside_session_close(c->s);
		c->s = NULL;
	}
	return ret;
}

/* Drain every session's ring until asked to stop (or --duration). */
static void run(struct agent *a)
{
	struct epoll_event evs[NR_COLS];
	struct timespec t0, t;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	for (unsigned int i = 0; ep >= 0 && i < a->nr_sessions; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

		epoll_ctl(ep, EPOLL_CTL_ADD, ringside_session_epoll_fd(a->sessions[i]), &ev);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!agent_stop) {
		/* The timer bounds how long batched wakeups can keep records waiting. */
		if (ep >= 0)
			epoll_wait(ep, evs, NR_COLS, 500);
		pthread_mutex_lock(&a->lock);
		for (unsigned int i = 0; i < a->nr_sessions; i++) {
			const char *notes = ringside_session_notes(a->sessions[i]);

			ringside_session_poll(a->sessions[i], 0);
			/* A note made while running says what changed: always shown. */
			for (const char *l = notes + a->notes_said[i]; *l;) {
				size_t len = strcspn(l, "\n");

				fprintf(stderr, "ringside: %.*s\n", (int)len, l);
				l += len + (l[len] == '\n');
			}
			a->notes_said[i] = strlen(notes);
		}
		pthread_mutex_unlock(&a->lock);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (a->o.duration > 0 &&
		    (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= a->o.duration)
			break;
	}
	if (ep >= 0)
		close(ep);
}

static int parse_args(struct agent *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "web.listen-address", required_argument, NULL, OPT_LISTEN },
		{ "web.telemetry-path", required_argument, NULL, OPT_TELEMETRY },
		{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
		{ "collector.gcm", no_argument, NULL, OPT_COL_ON + COL_GCM },
		{ "no-collector.gcm", no_argument, NULL, OPT_COL_OFF + COL_GCM },
		{ "collector.reclaim", no_argument, NULL, OPT_COL_ON + COL_RECLAIM },
		{ "no-collector.reclaim", no_argument, NULL, OPT_COL_OFF + COL_RECLAIM },
		{ "collector.btrfs", no_argument, NULL, OPT_COL_ON + COL_BTRFS },
		{ "no-collector.btrfs", no_argument, NULL, OPT_COL_OFF + COL_BTRFS },
		{ "collector.kernel-gcm", no_argument, NULL, OPT_COL_ON + COL_KGCM },
		{ "no-collector.kernel-gcm", no_argument, NULL, OPT_COL_OFF + COL_KGCM },
		{ "max-series", required_argument, NULL, OPT_MAX_SERIES },
		{ "collector.gcm.latency", no_argument, NULL, OPT_GCM_LATENCY },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "duration", required_argument, NULL, 'd' },
		{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF_SIZE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	int opt, ret;

	while ((opt = cli_getopt(argc, argv, "p:d:vh", longopts)) != -1) {
		if (opt >= OPT_COL_ON && opt < OPT_COL_ON + NR_COLS) {
			a->want[opt - OPT_COL_ON] = 1;
			continue;
		}
		if (opt >= OPT_COL_OFF && opt < OPT_COL_OFF + NR_COLS) {
			a->want[opt - OPT_COL_OFF] = -1;
			continue;
		}
		switch (opt) {
		case OPT_LISTEN: a->listen = optarg; break;
		case OPT_GCM_LATENCY: a->gcm_latency = true; break;
		case OPT_TELEMETRY:
			if (optarg[0] != '/' || !strcmp(optarg, "/") || !strncmp(optarg, "/-/", 3)) {
				cli_err("--web.telemetry-path %s: give a path such as /metrics",
					cli_quote(optarg));
				return 2;
			}
			a->path = optarg;
			break;
		case OPT_WEB_CONFIG: {
			char why[512];

			web_config_free(&a->web);
			if (web_config_load(optarg, &a->web, why, sizeof(why))) {
				cli_err("%s", why);
				return 2;
			}
			break;
		}
		case OPT_MAX_SERIES:
			if (cli_parse_uint(optarg, 1, 1000000, &v)) {
				cli_err("--max-series %s: give a number from 1 to 1000000", cli_quote(optarg));
				return 2;
			}
			a->max_series = (unsigned int)v;
			break;
		case 'h': fputs(agent_usage, stdout); return 0;
		default:
			ret = cli_common_opt(opt, optarg, &a->o);
			if (ret < 0)
				return 2;
			if (!ret)
				return cli_bad_option("agent", argv);
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s': see ringside agent --help", cli_quote(argv[optind]));
		return 2;
	}
	if (!a->o.ringbuf_bytes)
		a->o.ringbuf_bytes = AGENT_DEFAULT_RINGBUF;
	return -1;
}

int cmd_agent(int argc, char **argv)
{
	struct agent a = { .listen = DEFAULT_LISTEN, .path = "/metrics",
			   .max_series = RINGSIDE_METRICS_MAX_SERIES,
			   .lock = PTHREAD_MUTEX_INITIALIZER, .gate_lock = PTHREAD_MUTEX_INITIALIZER,
			   .gate_cond = PTHREAD_COND_INITIALIZER };
	struct starting starting[NR_COLS];
	bool failed;
	struct sigaction sa = { .sa_handler = on_signal };
	struct MHD_Daemon *http = NULL;
	int ret = parse_args(&a, argc, argv);

	if (ret >= 0) {
		web_config_free(&a.web);
		return ret;
	}
	ret = 1;
	if (cli_require_bpf())
		goto out;
	/*
	 * gcm's start reads its libraries while the HTTP server's is loaded;
	 * the port is taken before anything is attached: a clash is one line,
	 * nothing left.
	 */
	failed = collectors_begin(&a, starting);
	if (!failed) {
		http = start_http(&a);
		failed = !http;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (collectors_finish(&a, starting, failed))
		goto out;
	if (!a.nr_sessions) {
		cli_err("no collector could start: see the lines above");
		goto out;
	}
	a.ready = 1;
	fprintf(stderr, "ringside: serving %s%s%s on %s\n", a.web.cert_pem ? "https" : "http",
		a.web.nr_users ? " (basic auth)" : "", "", a.listen);
	run(&a);
	ret = 0;
out:
	if (http)
		mhd.MHD_stop_daemon(http);
	for (unsigned int i = 0; i < a.nr_sessions; i++)
		ringside_session_close(a.sessions[i]);
	web_config_free(&a.web);
	return ret;
}
