// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel feature probes themselves: real attach tests for the BPF
 * attach types, and the facts ringside reads elsewhere (the uretprobe
 * syscall, PROCMAP_QUERY, memcg, btrfs, tracefs). features.c runs each
 * once per process and keeps the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ringside/ringside.h"
#include "feature_probes.h"
#include "kernel_btf.h"
#include "ringside/gcm.h"
#include "ringside/procmaps.h"
#include "procmap_uapi.h"
#include "cgroup.h"
#include "memcg_io.h"
#include "probe.skel.h"
#include "uprobe_multi.h"

#define RS_NR_URETPROBE 335	/* x86-64; the same number upstream and in the 6.1 backport */
#define TRACEFS_MAGIC_NR 0x74726163

void rs_feature_set(struct ringside_feature_result *r, bool present, const char *fmt, ...)
{
	va_list ap;

	r->present = present;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

const char *rs_eperm_hint(int err)
{
	if (err != -EPERM && err != -EACCES)
		return "";
	return geteuid() ? " (not root: needs CAP_BPF+CAP_PERFMON)" :
			   " although root: the kernel refuses it (lockdown, or ftrace disabled)";
}

/* Load only the named program of the probe object. */
static struct probe_bpf *load_only(const char *prog_name, int *err)
{
	struct probe_bpf *skel = probe_bpf__open();
	struct bpf_program *p;

	if (!skel) {
		*err = -errno;
		return NULL;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), prog_name));
	*err = probe_bpf__load(skel);
	if (*err) {
		probe_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* ---- releasing probe links off the start-up path ------------------------------ */

/* The probes' links, and the registration warm-up's (uprobe_warm.c) */
#define MAX_RELEASES 40

static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t releases[MAX_RELEASES];
static unsigned int nr_releases;
/* Sessions starting, and the links kept meanwhile (rs_probe_session_starting()). */
static unsigned int sessions_starting;
static int kept_fds[MAX_RELEASES];
static unsigned int nr_kept;

static void *close_fd(void *arg)
{
	close((int)(long)arg);
	return NULL;
}

/* Close fd (the last reference to a probe's link) on a thread; at once if none can start. */
static void close_later(int fd)
{
	bool started = false;

	if (fd < 0)
		return;
	pthread_mutex_lock(&release_lock);
	if (sessions_starting && nr_kept < MAX_RELEASES) {
		kept_fds[nr_kept++] = fd;
		pthread_mutex_unlock(&release_lock);
		return;
	}
	if (nr_releases < MAX_RELEASES &&
	    !pthread_create(&releases[nr_releases], NULL, close_fd, (void *)(long)fd)) {
		nr_releases++;
		started = true;
	}
	pthread_mutex_unlock(&release_lock);
	if (!started)
		close(fd);
}

void rs_probe_close_later(int fd)
{
	close_later(fd);
}

int rs_own_code_offset(uintptr_t addr, struct ringside_vma *vma, uint64_t *off)
{
	struct ringside_procmaps *pm;
	int err = ringside_procmaps_open(getpid(), RINGSIDE_PROCMAPS_AUTO, &pm);

	if (!err)
		err = ringside_procmaps_query(pm, addr, RINGSIDE_QUERY_FILE_BACKED, vma);
	ringside_procmaps_close(pm);
	if (!err)
		*off = addr - vma->start + vma->offset;
	return err;
}

/*
 * A libbpf link: a duplicate of its fd keeps it alive past libbpf's own, fast,
 * close, and the duplicate is closed on a thread only after that: a thread
 * that ran first left libbpf's close as the last one, 100 ms on this thread.
 */
static void destroy_link_later(struct bpf_link *link)
{
	int dup = link ? fcntl(bpf_link__fd(link), F_DUPFD_CLOEXEC, 0) : -1;

	bpf_link__destroy(link);
	close_later(dup);
}

void rs_probe_session_starting(void)
{
	pthread_mutex_lock(&release_lock);
	sessions_starting++;
	pthread_mutex_unlock(&release_lock);
}

bool rs_probe_sessions_starting(void)
{
	bool any;

	pthread_mutex_lock(&release_lock);
	any = sessions_starting > 0;
	pthread_mutex_unlock(&release_lock);
	return any;
}

void rs_probe_session_started(void)
{
	int fds[MAX_RELEASES];
	unsigned int n = 0;

	pthread_mutex_lock(&release_lock);
	if (sessions_starting && !--sessions_starting) {
		n = nr_kept;
		memcpy(fds, kept_fds, n * sizeof(fds[0]));
		nr_kept = 0;
	}
	pthread_mutex_unlock(&release_lock);
	for (unsigned int i = 0; i < n; i++)
		close_later(fds[i]);
}

void rs_probe_links_released(void)
{
	pthread_mutex_lock(&release_lock);
	for (unsigned int i = 0; i < nr_releases; i++)
		pthread_join(releases[i], NULL);
	nr_releases = 0;
	pthread_mutex_unlock(&release_lock);
}

/* Attach test: load one program, attach it by its SEC() definition, detach. */
void rs_probe_attach(struct ringside_feature_result *r, const char *prog_name,
			 const char *what)
{
	struct bpf_link *link;
	struct bpf_program *prog;
	int err;
	struct probe_bpf *skel = load_only(prog_name, &err);

	if (!skel) {
		rs_feature_set(r, false, "%s: program load failed: %s%s", what, strerror(-err), rs_eperm_hint(err));
		return;
	}
	prog = bpf_object__find_program_by_name(skel->obj, prog_name);
	link = bpf_program__attach(prog);
	err = link ? 0 : -errno;
	if (link) {
		rs_feature_set(r, true, "%s: loaded and attached", what);
		destroy_link_later(link);
	} else if (err == -ENOENT && !strcmp(prog_name, "probe_kprobe") &&
		   access("/sys/bus/event_source/devices/kprobe", F_OK)) {
		rs_feature_set(r, false, "%s: no kprobe PMU and no kprobe_events: kernel built without CONFIG_KPROBES", what);
	} else {
		rs_feature_set(r, false, "%s: attach failed: %s%s", what, strerror(-err), rs_eperm_hint(err));
	}
	probe_bpf__destroy(skel);
}

/*
 * Attach test for a program that names its target by BTF id (tp_btf, fentry):
 * "return 0" loaded against ringside's one parse of the kernel's BTF and
 * attached. A libbpf object would parse /sys/kernel/btf/vmlinux again.
 */
void rs_probe_attach_btf(struct ringside_feature_result *r, const struct rs_btf *vmlinux,
			 enum bpf_attach_type type, const char *target, const char *what)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	bool tp = type == BPF_TRACE_RAW_TP;
	char name[64];
	int id, prog, link, err;

	/* A tracepoint's BTF is its btf_trace_<name> typedef; a function's, its FUNC. */
	snprintf(name, sizeof(name), "%s%s", tp ? "btf_trace_" : "", target);
	id = vmlinux ? rs_btf_find(vmlinux, name, tp ? BTF_KIND_TYPEDEF : BTF_KIND_FUNC) : -ENOENT;
	if (id <= 0) {
		rs_feature_set(r, false, "%s: %s is not in the kernel's BTF", what, name);
		return;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type, .attach_btf_id = id);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "probe_by_btf_id", "GPL", ret0, 2, &opts);
	if (prog < 0) {
		err = -errno;
		rs_feature_set(r, false, "%s: program load failed: %s%s", what, strerror(-err), rs_eperm_hint(err));
		return;
	}
	link = bpf_raw_tracepoint_open(NULL, prog);
	err = link < 0 ? -errno : 0;
	close(prog);
	if (link < 0) {
		rs_feature_set(r, false, "%s: attach failed: %s%s", what, strerror(-err), rs_eperm_hint(err));
		return;
	}
	rs_feature_set(r, true, "%s: loaded and attached", what);
	/* Detaching waits out an RCU grace period: off this thread. */
	close_later(link);
}

/*
 * Does the kernel know this uprobe_multi link type (uprobe_multi or
 * session)? Told without registering a uprobe, whose first registration
 * waits out a grace period: a link on a directory fails with EBADF in the
 * link's own checks on a kernel that has the type, and with EINVAL before
 * them (or at the program's load) on one that has not.
 */
bool rs_probe_uprobe_link_type(unsigned int attach_type)
{
	uint64_t offset = 0;
	int prog = rs_uprobe_noop_prog(attach_type);
	int fd;

	if (prog < 0)
		return false;
	fd = attach_type == RS_BPF_TRACE_UPROBE_SESSION ?
	     rs_uprobe_session_link(prog, "/", &offset, NULL, 1, 0) :
	     rs_uprobe_multi_link(prog, "/", &offset, NULL, 1, 0, false);
	close(prog);
	if (fd >= 0)
		close(fd);
	return fd == -EBADF;
}

/* A function of our own for the uprobe test; noinline and visible in the text. */
__attribute__((noinline)) static int rs_probe_target(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

/* The uprobe programs count only this process's hits, and tell a session's entry by this address. */
static void aim_at_target(struct probe_bpf *skel)
{
	skel->rodata->probe_tgid = getpid();
	skel->rodata->probe_target_ip = (uintptr_t)rs_probe_target;
}

static int rb_count(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	++*(int *)ctx;
	return 0;
}

/*
 * The probe object with only prog loaded, as a program of attach_type (the
 * uprobe_multi kinds Debian's libbpf does not know by section); NULL after
 * saying why in r.
 */
static struct probe_bpf *load_as(struct ringside_feature_result *r, const char *prog_name,
				 unsigned int attach_type, const char *what, const char *since)
{
	struct probe_bpf *skel = probe_bpf__open();
	struct bpf_program *p;
	int err;

	if (!skel) {
		rs_feature_set(r, false, "cannot open probe object: %s", strerror(errno));
		return NULL;
	}
	bpf_object__for_each_program(p, skel->obj) {
		bool mine = !strcmp(bpf_program__name(p), prog_name);

		bpf_program__set_autoload(p, mine);
		if (mine)
			bpf_program__set_expected_attach_type(p, attach_type);
	}
	aim_at_target(skel);
	err = probe_bpf__load(skel);
	if (err) {
		rs_feature_set(r, false, "%s program load failed: %s%s", what, strerror(-err),
			       err == -EINVAL || err == -ESRCH ? since : rs_eperm_hint(err));
		probe_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* A uprobe_multi link on our own function at file offset off: one hit when it is called. */
static void probe_uprobe_multi(struct ringside_feature_result *r, const char *path, size_t off,
			       struct probe_bpf *loaded)
{
	struct probe_bpf *skel = loaded ? loaded : load_as(r, "probe_uprobe_multi",
							   RS_BPF_TRACE_UPROBE_MULTI,
							   "uprobe_multi", " (Linux < 6.6)");
	uint64_t offset = off;
	int fd;

	if (!skel)
		return;
	fd = rs_uprobe_multi_link(bpf_program__fd(skel->progs.probe_uprobe_multi), path, &offset, NULL,
				  1, getpid(), false);
	if (fd < 0)
		rs_feature_set(r, false, "uprobe_multi link on %s+0x%zx failed: %s%s", path, off,
			       strerror(-fd), fd == -EINVAL ? " (Linux < 6.6)" : rs_eperm_hint(fd));
	else if (rs_probe_target(1) == 2 && skel->bss->uprobe_multi_hits == 1)
		rs_feature_set(r, true, "one link on our own function fired once");
	else
		rs_feature_set(r, false, "uprobe_multi link fired %llu times (expected 1)",
			       (unsigned long long)skel->bss->uprobe_multi_hits);
	close_later(fd);
	if (skel != loaded)
		probe_bpf__destroy(skel);
}

/* A uprobe session on our own function: the program runs once at entry and once at return. */
static void probe_uprobe_session(struct ringside_feature_result *r, const char *path, size_t off,
				 struct probe_bpf *loaded)
{
	struct probe_bpf *skel = loaded ? loaded : load_as(r, "probe_uprobe_session",
							   RS_BPF_TRACE_UPROBE_SESSION,
							   "uprobe session", " (Linux < 6.13)");
	uint64_t offset = off;
	int fd;

	if (!skel)
		return;
	fd = rs_uprobe_session_link(bpf_program__fd(skel->progs.probe_uprobe_session), path, &offset,
				    NULL, 1, getpid());
	if (fd < 0)
		rs_feature_set(r, false, "uprobe session link on %s+0x%zx failed: %s%s", path, off,
			       strerror(-fd), fd == -EINVAL ? " (Linux < 6.13)" : rs_eperm_hint(fd));
	else if (rs_probe_target(2) == 3 && skel->bss->session_entries == 1 &&
		 skel->bss->session_returns == 1)
		rs_feature_set(r, true, "one program ran at our function's entry and at its return");
	else
		rs_feature_set(r, false, "session ran %llu times at entry, %llu at return (expected 1/1)",
			       (unsigned long long)skel->bss->session_entries,
			       (unsigned long long)skel->bss->session_returns);
	close_later(fd);
	if (skel != loaded)
		probe_bpf__destroy(skel);
}

/*
 * The probe object with the four uprobe programs at once, each of its
 * attach type: one load instead of three on kernels with uprobe_multi and
 * sessions (each load is a millisecond or two of every start). NULL where
 * the kernel refuses any of them; then each is loaded alone, so that one
 * refusal does not hide the others.
 */
static struct probe_bpf *load_uprobe_kinds(void)
{
	struct probe_bpf *skel = probe_bpf__open();
	struct bpf_program *p;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.probe_uprobe ||
					      p == skel->progs.probe_uretprobe ||
					      p == skel->progs.probe_uprobe_multi ||
					      p == skel->progs.probe_uprobe_session);
	bpf_program__set_expected_attach_type(skel->progs.probe_uprobe_multi,
					      RS_BPF_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.probe_uprobe_session,
					      RS_BPF_TRACE_UPROBE_SESSION);
	aim_at_target(skel);
	if (probe_bpf__load(skel)) {
		probe_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

void rs_probe_uprobes(struct ringside_features *out)
{
	struct ringside_feature_result *r = &out->f[RINGSIDE_FEAT_UPROBE];
	struct ringside_feature_result *multi = &out->f[RINGSIDE_FEAT_UPROBE_MULTI];
	struct ringside_feature_result *session = &out->f[RINGSIDE_FEAT_UPROBE_SESSION];
	struct ringside_vma *vma = malloc(sizeof(*vma));
	struct bpf_link *entry = NULL, *ret = NULL;
	struct ring_buffer *rb = NULL;
	struct probe_bpf *skel, *all_kinds = NULL;
	uintptr_t addr = (uintptr_t)rs_probe_target;
	uint64_t file_off = 0;
	size_t off;
	int err, records = 0;

	if (!vma) {
		rs_feature_set(r, false, "out of memory");
		return;
	}
	err = rs_own_code_offset(addr, vma, &file_off);
	off = (size_t)file_off;
	if (err) {
		rs_feature_set(r, false, "cannot find own text mapping: %s", strerror(-err));
		rs_feature_set(multi, false, "cannot find own text mapping: %s", strerror(-err));
		rs_feature_set(session, false, "cannot find own text mapping: %s", strerror(-err));
		free(vma);
		return;
	}
	all_kinds = load_uprobe_kinds();
	skel = all_kinds ? all_kinds : probe_bpf__open();
	if (!skel) {
		rs_feature_set(r, false, "cannot open probe object: %s", strerror(errno));
		goto out;
	}
	if (!all_kinds) {
		struct bpf_program *p;

		bpf_object__for_each_program(p, skel->obj)
			bpf_program__set_autoload(p, p == skel->progs.probe_uprobe ||
						      p == skel->progs.probe_uretprobe);
		aim_at_target(skel);
	}
	err = all_kinds ? 0 : probe_bpf__load(skel);
	if (err) {
		rs_feature_set(r, false, "uprobe program load failed: %s%s", strerror(-err), rs_eperm_hint(err));
		goto out;
	}
	/*
	 * pid -1: a CPU-wide perf event, the programs keep to this process by
	 * tgid. A per-task event would be the system's first one more often
	 * than not, and the kernel answers that by enabling its context-switch
	 * hook and waiting out an RCU grace period (perf_sched_events): 20 ms
	 * of start-up here, for a check that needs none of it.
	 */
	entry = bpf_program__attach_uprobe(skel->progs.probe_uprobe, false, -1, vma->name, off);
	ret = entry ? bpf_program__attach_uprobe(skel->progs.probe_uretprobe, true, -1,
						 vma->name, off) : NULL;
	if (!entry || !ret) {
		err = -errno;
		rs_feature_set(r, false, "uprobe attach on %s+0x%zx failed: %s%s", vma->name, off,
		    strerror(-err), rs_eperm_hint(err));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), rb_count, &records, NULL);
	if (rs_probe_target(41) != 42 || !rb || ring_buffer__consume(rb) < 0) {
		rs_feature_set(r, false, "probed function misbehaved or ring buffer unusable");
		goto out;
	}
	if (skel->bss->uprobe_hits == 1 && skel->bss->uretprobe_hits == 1 &&
	    skel->bss->uretprobe_rc == 42 && records == 1)
		rs_feature_set(r, true, "entry+return probe fired once each, return value and ring buffer record seen");
	else
		rs_feature_set(r, false, "probes fired %llu/%llu times, %d records (expected 1/1/1)",
		    (unsigned long long)skel->bss->uprobe_hits,
		    (unsigned long long)skel->bss->uretprobe_hits, records);
out:
	ring_buffer__free(rb);
	destroy_link_later(ret);
	destroy_link_later(entry);
	if (skel != all_kinds)
		probe_bpf__destroy(skel);
	probe_uprobe_multi(multi, vma->name, off, all_kinds);
	probe_uprobe_session(session, vma->name, off, all_kinds);
	probe_bpf__destroy(all_kinds);
	free(vma);
}

/*
 * Fork a child that calls uretprobe() directly, optionally under a seccomp
 * filter that kills on it. A kernel with the syscall answers a call from
 * outside the trampoline with SIGILL; one without returns ENOSYS; one whose
 * seccomp does not pass the syscall through kills the child with SIGSYS.
 */
static int uretprobe_child_signal(bool with_seccomp)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (with_seccomp) {
			struct sock_filter insns[] = {
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
				BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RS_NR_URETPROBE, 0, 1),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			};
			struct sock_fprog prog = { .len = 4, .filter = insns };

			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
				_exit(3);
		}
		/* Quiet the core dump a SIGILL/SIGSYS would otherwise leave. */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		syscall(RS_NR_URETPROBE);
		_exit(errno == ENOSYS ? 2 : 4);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return -WEXITSTATUS(status) - 100;
}

void rs_probe_uretprobe_syscall(struct ringside_feature_result *sys,
				    struct ringside_feature_result *sec)
{
#if defined(__x86_64__)
	int sig = uretprobe_child_signal(false);

	if (sig == SIGILL) {
		rs_feature_set(sys, true, "syscall %d present: return probes use the syscall trampoline, not int3",
		    RS_NR_URETPROBE);
	} else {
		rs_feature_set(sys, false, "syscall %d returned ENOSYS: return probes trap with int3 (Linux < 6.11)",
		    RS_NR_URETPROBE);
		rs_feature_set(sec, false, "no uretprobe syscall, nothing for seccomp to pass through");
		return;
	}
	sig = uretprobe_child_signal(true);
	if (sig == SIGILL)
		rs_feature_set(sec, true, "seccomp passes the uretprobe syscall through (filtered processes survive)");
	else if (sig == SIGSYS)
		rs_feature_set(sec, false, "seccomp filters see the uretprobe syscall: traced processes "
				"with seccomp filters get killed on return probes");
	else
		rs_feature_set(sec, false, "could not install a seccomp filter in the probe child");
#else
	rs_feature_set(sys, false, "the uretprobe syscall exists only on x86-64");
	rs_feature_set(sec, false, "no uretprobe syscall on this architecture");
#endif
}

void rs_probe_procmap(struct ringside_feature_result *q, struct ringside_feature_result *bid)
{
	struct rs_procmap_query pq = { .size = sizeof(pq) };
	unsigned char build_id[RINGSIDE_BUILD_ID_MAX];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		rs_feature_set(q, false, "cannot open /proc/self/maps: %s", strerror(errno));
		rs_feature_set(bid, false, "no PROCMAP_QUERY");
		return;
	}
	pq.query_addr = (uintptr_t)rs_probe_target;
	pq.build_id_addr = (uintptr_t)build_id;
	pq.build_id_size = sizeof(build_id);
	if (ioctl(fd, RS_PROCMAP_QUERY, &pq)) {
		int err = errno;

		if (err == ENOTTY)
			rs_feature_set(q, false, "ioctl answered ENOTTY: kernel predates PROCMAP_QUERY (6.11); "
				      "maps are parsed as text");
		else
			rs_feature_set(q, false, "ioctl failed: %s", strerror(err));
		rs_feature_set(bid, false, "no PROCMAP_QUERY");
	} else {
		rs_feature_set(q, true, "ioctl on /proc/self/maps found our own text VMA");
		if (pq.build_id_size)
			rs_feature_set(bid, true, "returned a %u-byte build ID for our own binary", pq.build_id_size);
		else
			rs_feature_set(bid, false, "ioctl returned no build ID for our own binary");
	}
	close(fd);
}

void rs_probe_memcg(struct ringside_features *out)
{
	struct ringside_feature_result *v1 = &out->f[RINGSIDE_FEAT_MEMCG_V1];
	struct ringside_feature_result *v2 = &out->f[RINGSIDE_FEAT_MEMCG_V2];
	struct ringside_feature_result *sw = &out->f[RINGSIDE_FEAT_MEMCG_RECLAIM_SWAPPINESS];
	char path[4096];
	int err;

	if (!rs_cgroup_self_path("memory", path, sizeof(path)))
		rs_feature_set(v1, true, "memory controller on a v1 hierarchy (%s)", path);
	else
		rs_feature_set(v1, false, "no v1 hierarchy with the memory controller is mounted");

	err = rs_memcg_v2_self(path, sizeof(path));
	if (err) {
		rs_feature_set(v2, false, "%s", err == -ENOENT ? "no cgroup2 mount" :
			      "cgroup2 is mounted but the memory controller is not enabled on it");
		rs_feature_set(sw, false, "needs the cgroup v2 memory controller (memory.reclaim)");
		return;
	}
	rs_feature_set(v2, true, "memory controller enabled on cgroup2 (%s)", path);
	err = rs_memcg_probe_swappiness_key(path);
	if (!err)
		rs_feature_set(sw, true, "a scratch cgroup's memory.reclaim accepted \"0 swappiness=60\"");
	else if (err == -EINVAL)
		rs_feature_set(sw, false, "memory.reclaim rejected the swappiness= key (Linux < 6.11)");
	else
		rs_feature_set(sw, false, "could not probe memory.reclaim in a scratch cgroup: %s", strerror(-err));
}

static bool btf_struct_has(const struct rs_btf *btf, const char *type, const char *member)
{
	int id = rs_btf_find(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;

	if (id <= 0)
		return false;
	t = rs_btf_type(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = rs_btf_name(btf, m->name_off);

		if (name && !strcmp(name, member))
			return true;
	}
	return false;
}

void rs_probe_btrfs(struct ringside_features *out, const struct rs_btf *vmlinux)
{
	struct ringside_feature_result *dyn = &out->f[RINGSIDE_FEAT_BTRFS_DYNAMIC_RECLAIM];
	struct ringside_feature_result *per = &out->f[RINGSIDE_FEAT_BTRFS_PERIODIC_RECLAIM];
	struct rs_btf *mod = NULL;
	const struct rs_btf *btf = vmlinux;

	/* btrfs is either built in (vmlinux BTF) or a module with its own BTF. */
	if (btf && rs_btf_find(btf, "btrfs_space_info", BTF_KIND_STRUCT) <= 0) {
		mod = rs_kernel_btf_module(vmlinux, "btrfs");
		btf = mod;
	}
	if (!btf || rs_btf_find(btf, "btrfs_space_info", BTF_KIND_STRUCT) <= 0) {
		rs_feature_set(dyn, false, "btrfs not in the kernel's BTF (not built, or module not loaded)");
		rs_feature_set(per, false, "btrfs not in the kernel's BTF (not built, or module not loaded)");
		rs_btf_close(mod);
		return;
	}
	if (btf_struct_has(btf, "btrfs_space_info", "dynamic_reclaim"))
		rs_feature_set(dyn, true, "btrfs_space_info has dynamic_reclaim (sysfs allocation/*/dynamic_reclaim)");
	else
		rs_feature_set(dyn, false, "btrfs_space_info lacks dynamic_reclaim: fixed bg_reclaim_threshold only");
	if (btf_struct_has(btf, "btrfs_space_info", "periodic_reclaim"))
		rs_feature_set(per, true, "btrfs_space_info has periodic_reclaim (sweeps, urgent mode)");
	else
		rs_feature_set(per, false, "btrfs_space_info lacks periodic_reclaim");
	rs_btf_close(mod);
}

void rs_probe_tracefs(struct ringside_feature_result *r, struct ringside_feature_result *sys_exit)
{
	static const char *const paths[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct statfs sfs;
	char event[96];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (!statfs(paths[i], &sfs) && sfs.f_type == TRACEFS_MAGIC_NR) {
			rs_feature_set(r, true, "mounted at %s", paths[i]);
			snprintf(event, sizeof(event), "%s/events/syscalls/sys_exit_write", paths[i]);
			if (!access(event, F_OK))
				rs_feature_set(sys_exit, true, "%s exists", event);
			else
				rs_feature_set(sys_exit, false, "tracefs has no syscalls/sys_exit_write: kernel built "
					"without CONFIG_FTRACE_SYSCALLS");
			return;
		}
	}
	rs_feature_set(r, false, "not mounted: mount -t tracefs nodev /sys/kernel/tracing");
	rs_feature_set(sys_exit, false, "tracefs not mounted, so syscalls/sys_exit_write cannot be attached");
}

