/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The ringside CLI: options shared by subcommands, and the tracing loop. */
#ifndef RINGSIDE_CLI_H
#define RINGSIDE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ringside/ringside.h"

struct cli_opts {
	pid_t pid;
	pid_t tid;
	const char *cgroup;
	const char *comm;
	bool json;
	int verbose;
	double duration;	/* seconds; 0: until SIGINT */
	double interval;	/* seconds between summaries; 0: at exit only */
	size_t ringbuf_bytes;
};

/*
 * getopt_long values of long options without a short letter: named, above
 * any character, one list for the common and the per-command ones.
 */
enum cli_long_opt {
	OPT_TID = 1000,
	OPT_CGROUP,
	OPT_COMM,
	OPT_JSON,
	OPT_INTERVAL,
	OPT_RINGBUF_SIZE,
	OPT_PERF_UPROBES,	/* gcm */
	OPT_STACK_WINDOW,	/* gcm */
	OPT_TARGET_CGROUP,	/* reclaim */
	OPT_COUNT_ONLY,		/* gcm */
	OPT_KERNEL,		/* gcm */
};

/* getopt_long entries every tracing subcommand accepts; ends with a zero entry. */
#define CLI_COMMON_LONGOPTS                                            \
	{ "pid", required_argument, NULL, 'p' },                       \
	{ "tid", required_argument, NULL, OPT_TID },                      \
	{ "cgroup", required_argument, NULL, OPT_CGROUP },                   \
	{ "comm", required_argument, NULL, OPT_COMM },                     \
	{ "json", no_argument, NULL, OPT_JSON },                           \
	{ "duration", required_argument, NULL, 'd' },                  \
	{ "interval", required_argument, NULL, OPT_INTERVAL },                 \
	{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF_SIZE },             \
	{ "verbose", no_argument, NULL, 'v' },                         \
	{ "help", no_argument, NULL, 'h' }
#define CLI_COMMON_SHORTOPTS "p:d:vh"

#define CLI_COMMON_HELP                                                                   \
	"  -p, --pid PID          only this process\n"                                      \
	"      --tid TID          only this thread\n"                                       \
	"      --cgroup PATH      only tasks in this cgroup subtree: its directory, or its\n"   \
	"                         path as /proc/PID/cgroup shows it (v1 or v2)\n"         \
	"      --comm NAME        only tasks with this command name\n"                      \
	CLI_COMMON_HELP_TAIL
#define CLI_COMMON_HELP_TAIL                                                              \
	"      --json             JSON Lines output, one object per record\n"               \
	"  -d, --duration SECS    stop after SECS seconds (default: until Ctrl-C)\n"        \
	"      --interval SECS    print a summary every SECS seconds\n"                     \
	"      --ringbuf-size N   ring buffer bytes per collector, power of two (256K;\n"  \
	"                         gcm --events: 1M)\n"                                     \
	"  -v, --verbose          show libbpf's messages, the variants chosen, and at exit\n" \
	"                         how many records were read from the ring\n"               \
	"  -h, --help             this help\n"

/*
 * Handle a common option. Returns 1 when handled, 0 when opt is not common,
 * -1 after printing an error for a bad value.
 */
int cli_common_opt(int opt, const char *arg, struct cli_opts *o);

/* Parse "64M"-style sizes (K, M, G; powers of 1024). */
int cli_parse_size(const char *s, unsigned long long *out);
/* Parse a decimal integer in [min, max]: digits only, no wrap. -EINVAL or -ERANGE. */
int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
		   unsigned long long *out);
/* An argument as error messages show it: long ones cut, with their length. */
const char *cli_quote(const char *arg);
/* getopt's '?': one line naming the word and the help to read; returns 2. */
int cli_bad_option(const char *cmd, char **argv);
/* Can an output file be created or replaced at path? -1 after an error line. */
int cli_check_writable(const char *path);
/* ringside_state_repair() callback: each repair as a "ringside: ..." line. */
void cli_print_repair(void *ctx, const char *line);
/* Parse a non-negative number of seconds. */
int cli_parse_seconds(const char *s, double *out);

/* Print "ringside: ..." to stderr; the one-line error convention. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print an error for a failed library call, with the session's detail. */
int cli_fail(const struct ringside_session *s, int err, const char *what);

/* Check privileges and kernel basics; prints the error and returns non-zero. */
int cli_require_bpf(void);
/* Route libbpf's messages: shown with -v, otherwise silent. */
void cli_setup_libbpf_print(int verbose);

/* Fill session options from the common CLI options. */
void cli_session_opts(const struct cli_opts *o, struct ringside_session_opts *so);
/*
 * Open a session from the common options (libbpf's log routed by -v), with
 * one error line naming the offending --cgroup path or PID. 0, or 1 (the
 * exit status) after the error.
 */
int cli_session_open(const struct cli_opts *o, ringside_event_fn on_event, void *ctx,
		     struct ringside_session **s);

/*
 * The tracing loop: poll until duration or SIGINT/SIGTERM, call summary()
 * every interval and at the end. Returns the exit status.
 */
struct cli_loop {
	struct ringside_session *s;
	const struct cli_opts *o;
	/*
	 * Called every --interval (final false: that interval's summary) and
	 * once at the end (final true: the whole run's), with seconds since the
	 * start, while the session is still attached.
	 */
	void (*summary)(void *ctx, double elapsed, bool final);
	/* Optional, between polls: 0 go on, 1 stop (done), <0 stop with an error printed. */
	int (*check)(void *ctx);
	void *ctx;
};
int cli_run(struct cli_loop *loop);

/*
 * Parse a PID argument and check the process can be traced, with one-line
 * errors naming the cause (no such process, zombie, kernel thread,
 * permission); what is "process" or "thread". 0 or -1 after the error.
 */
int cli_parse_pid(const char *arg, pid_t *pid, const char *what);
void cli_build_id_hex(const uint8_t *id, uint32_t n, char *out, size_t len);
void cli_perms(uint32_t flags, char out[5]);

/* JSON: the record header's common members (ts_ns, pid, tid, comm, cgroup_id). */
void cli_json_hdr(struct ringside_json *j, const struct rs_event_hdr *hdr);
/* What every AES-GCM message record says, user space or kernel (struct
 * rs_gcm_event and rs_kaead_event share the meanings). */
void cli_json_gcm_msg(struct ringside_json *j, unsigned int dir, unsigned int key_bits,
		      uint64_t aad, uint64_t payload, uint64_t latency_ns, unsigned int result,
		      int64_t retval);
struct ringside_gcm_probe_point;
/* A GCM probe point's members: gcm -v's start record and `features` share them. */
void cli_json_gcm_point(struct ringside_json *j, const struct ringside_gcm_probe_point *pt);
/* Where a GCM probe point sits, as text: "at its entry", "+0x54 inside (its tag compare)"... */
void cli_gcm_point_where(const struct ringside_gcm_probe_point *pt, char *buf, size_t len);
/* An address as "0x..." (JSON numbers lose 64-bit precision in many readers). */
void cli_json_hex(struct ringside_json *j, const char *key, uint64_t v);
/* A one-number record, {"type":TYPE,KEY:N}, on stdout. */
void cli_json_count(const char *type, const char *key, uint64_t n);

/*
 * getopt_long() for a command's table. Also answers the hidden first
 * argument --list-options: the table's long options, one per line, then
 * exit 0; a test checks them against --help and the man page.
 */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Subcommands. */
int cmd_features(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_gcm(int argc, char **argv);
/* ringside gcm --kernel (cmd_gcm_kernel.c); events: a line per request. */
int gcm_kernel_run(const struct cli_opts *o, bool events);
int cmd_btrfs(int argc, char **argv);
int cmd_reclaim(int argc, char **argv);
int cmd_maps(int argc, char **argv);
int cmd_sym(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);

#endif
