// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the running kernel lets ringside do: each feature probed once per
 * process (feature_probes.c) and kept, for ringside_features_probe(),
 * ringside_feature() and the collectors' choice of program variants.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kernel_btf.h"
#include "ringside/ringside.h"
#include "feature_probes.h"
#include "feature_prefetch.h"
#include "uprobe_multi.h"

static const char *const feature_names[RINGSIDE_FEAT_COUNT] = {
	[RINGSIDE_FEAT_BTF] = "btf",
	[RINGSIDE_FEAT_RINGBUF] = "ringbuf",
	[RINGSIDE_FEAT_TP_BTF] = "tp_btf",
	[RINGSIDE_FEAT_RAW_TP] = "raw_tracepoint",
	[RINGSIDE_FEAT_FENTRY] = "fentry",
	[RINGSIDE_FEAT_KPROBE] = "kprobe",
	[RINGSIDE_FEAT_UPROBE] = "uprobe",
	[RINGSIDE_FEAT_URETPROBE_SYSCALL] = "uretprobe_syscall",
	[RINGSIDE_FEAT_URETPROBE_SECCOMP] = "uretprobe_seccomp_passthrough",
	[RINGSIDE_FEAT_PROCMAP_QUERY] = "procmap_query",
	[RINGSIDE_FEAT_PROCMAP_BUILD_ID] = "procmap_query_build_id",
	[RINGSIDE_FEAT_MEMCG_V1] = "memcg_v1",
	[RINGSIDE_FEAT_MEMCG_V2] = "memcg_v2",
	[RINGSIDE_FEAT_MEMCG_RECLAIM_SWAPPINESS] = "memory_reclaim_swappiness",
	[RINGSIDE_FEAT_BTRFS_DYNAMIC_RECLAIM] = "btrfs_dynamic_reclaim",
	[RINGSIDE_FEAT_BTRFS_PERIODIC_RECLAIM] = "btrfs_periodic_reclaim",
	[RINGSIDE_FEAT_TRACEFS] = "tracefs",
	[RINGSIDE_FEAT_UPROBE_MULTI] = "uprobe_multi",
	[RINGSIDE_FEAT_SYSCALL_EXIT_TP] = "syscall_exit_tracepoint",
	[RINGSIDE_FEAT_UPROBE_SESSION] = "uprobe_session",
};

/*
 * Probe groups: each fills the features it can tell in one go (a uprobe
 * test answers both uprobe lines). Features are probed on first use and
 * kept for the life of the process: what `ringside features` prints and
 * what a collector picks come from the same result. A group runs without
 * the lock, so that one started early on a thread (rs_features_prefetch)
 * does not hold up the others; who needs its result waits for it.
 */
enum probe_state { NOT_PROBED, PROBING, PROBED };

#define MAX_PREFETCH 4

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	pthread_cond_t probed;
	enum probe_state state[RINGSIDE_FEAT_COUNT];
	struct ringside_features f;
	pthread_t prefetch[MAX_PREFETCH];
	unsigned int nr_prefetch;
} cache = { .once = PTHREAD_ONCE_INIT };

static const struct ringside_feature_result *need(enum ringside_feature f);

static bool have_btf(void)
{
	return need(RINGSIDE_FEAT_BTF)->present;
}

/*
 * The file and its header, not a parse (megabytes, and what needs the types
 * parses them once, kernel_btf.c): a kernel that exports BTF exports it whole.
 */
static void group_btf(struct ringside_features *out)
{
	struct ringside_feature_result *r = &out->f[RINGSIDE_FEAT_BTF];
	struct btf_header hdr;
	struct stat st;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	bool read_ok = fd >= 0 && !fstat(fd, &st) && read(fd, &hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr);

	if (fd >= 0)
		close(fd);
	if (fd < 0)
		rs_feature_set(r, false, "no /sys/kernel/btf/vmlinux: kernel built without CONFIG_DEBUG_INFO_BTF");
	else if (!read_ok || hdr.magic != BTF_MAGIC)
		rs_feature_set(r, false, "/sys/kernel/btf/vmlinux is not BTF");
	else
		rs_feature_set(r, true, "/sys/kernel/btf/vmlinux present (%lld KiB of types)",
			       (long long)st.st_size / 1024);
}

static void group_ringbuf(struct ringside_features *out)
{
	int ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);

	if (ret == 1)
		rs_feature_set(&out->f[RINGSIDE_FEAT_RINGBUF], true, "BPF_MAP_TYPE_RINGBUF map created");
	else
		rs_feature_set(&out->f[RINGSIDE_FEAT_RINGBUF], false, "ring buffer map not creatable: %s%s",
		    ret ? strerror(-ret) : "unsupported (Linux < 5.8)", rs_eperm_hint(ret));
}

/* One attach test, for a kernel with BTF: ringside's objects are CO-RE. */
static void attach_test(struct ringside_features *out, enum ringside_feature f, const char *prog,
			const char *what)
{
	if (have_btf())
		rs_probe_attach(&out->f[f], prog, what);
	else
		rs_feature_set(&out->f[f], false, "not tested: ringside's BPF needs kernel BTF");
}

/* The same for a program that attaches by BTF id, with the shared parse. */
static void attach_btf_test(struct ringside_features *out, enum ringside_feature f,
			    enum bpf_attach_type type, const char *target, const char *what)
{
	if (!have_btf()) {
		rs_feature_set(&out->f[f], false, "not tested: ringside's BPF needs kernel BTF");
		return;
	}
	rs_probe_attach_btf(&out->f[f], rs_kernel_btf_get(), type, target, what);
	rs_kernel_btf_put();
}

static void group_tp_btf(struct ringside_features *out)
{
	attach_btf_test(out, RINGSIDE_FEAT_TP_BTF, BPF_TRACE_RAW_TP, "sched_switch", "tp_btf/sched_switch");
}

static void group_fentry(struct ringside_features *out)
{
	attach_btf_test(out, RINGSIDE_FEAT_FENTRY, BPF_TRACE_FENTRY, "vfs_read", "fentry/vfs_read");
}

static void group_raw_tp(struct ringside_features *out)
{
	attach_test(out, RINGSIDE_FEAT_RAW_TP, "probe_raw_tp", "raw_tp/sched_switch");
}

static void group_kprobe(struct ringside_features *out)
{
	attach_test(out, RINGSIDE_FEAT_KPROBE, "probe_kprobe", "kprobe/vfs_read");
}

static void group_uprobes(struct ringside_features *out)
{
	if (have_btf()) {
		rs_probe_uprobes(out);
		return;
	}
	rs_feature_set(&out->f[RINGSIDE_FEAT_UPROBE], false, "not tested: ringside's BPF needs kernel BTF");
	rs_feature_set(&out->f[RINGSIDE_FEAT_UPROBE_MULTI], false, "not tested: ringside's BPF needs kernel BTF");
	rs_feature_set(&out->f[RINGSIDE_FEAT_UPROBE_SESSION], false, "not tested: ringside's BPF needs kernel BTF");
}

static void group_uretprobe(struct ringside_features *out)
{
	rs_probe_uretprobe_syscall(&out->f[RINGSIDE_FEAT_URETPROBE_SYSCALL],
				&out->f[RINGSIDE_FEAT_URETPROBE_SECCOMP]);
}

static void group_procmap(struct ringside_features *out)
{
	rs_probe_procmap(&out->f[RINGSIDE_FEAT_PROCMAP_QUERY], &out->f[RINGSIDE_FEAT_PROCMAP_BUILD_ID]);
}

static void group_btrfs(struct ringside_features *out)
{
	rs_probe_btrfs(out, rs_kernel_btf_get());
	rs_kernel_btf_put();
}

static void group_tracefs(struct ringside_features *out)
{
	rs_probe_tracefs(&out->f[RINGSIDE_FEAT_TRACEFS], &out->f[RINGSIDE_FEAT_SYSCALL_EXIT_TP]);
}

static void (*const group_of[RINGSIDE_FEAT_COUNT])(struct ringside_features *) = {
	[RINGSIDE_FEAT_BTF] = group_btf,
	[RINGSIDE_FEAT_RINGBUF] = group_ringbuf,
	[RINGSIDE_FEAT_TP_BTF] = group_tp_btf,
	[RINGSIDE_FEAT_RAW_TP] = group_raw_tp,
	[RINGSIDE_FEAT_FENTRY] = group_fentry,
	[RINGSIDE_FEAT_KPROBE] = group_kprobe,
	[RINGSIDE_FEAT_UPROBE] = group_uprobes,
	[RINGSIDE_FEAT_UPROBE_MULTI] = group_uprobes,
	[RINGSIDE_FEAT_UPROBE_SESSION] = group_uprobes,
	[RINGSIDE_FEAT_URETPROBE_SYSCALL] = group_uretprobe,
	[RINGSIDE_FEAT_URETPROBE_SECCOMP] = group_uretprobe,
	[RINGSIDE_FEAT_PROCMAP_QUERY] = group_procmap,
	[RINGSIDE_FEAT_PROCMAP_BUILD_ID] = group_procmap,
	[RINGSIDE_FEAT_MEMCG_V1] = rs_probe_memcg,
	[RINGSIDE_FEAT_MEMCG_V2] = rs_probe_memcg,
	[RINGSIDE_FEAT_MEMCG_RECLAIM_SWAPPINESS] = rs_probe_memcg,
	[RINGSIDE_FEAT_BTRFS_DYNAMIC_RECLAIM] = group_btrfs,
	[RINGSIDE_FEAT_BTRFS_PERIODIC_RECLAIM] = group_btrfs,
	[RINGSIDE_FEAT_TRACEFS] = group_tracefs,
	[RINGSIDE_FEAT_SYSCALL_EXIT_TP] = group_tracefs,
};

static void cache_init(void)
{
	pthread_mutex_init(&cache.lock, NULL);
	pthread_cond_init(&cache.probed, NULL);
	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++) {
		cache.f.f[i].name = feature_names[i];
		snprintf(cache.f.f[i].why, sizeof(cache.f.f[i].why), "not probed");
	}
}

/*
 * RINGSIDE_FEATURES_OFF=fentry,uprobe_multi,...: treat these as missing, so
 * that a kernel that has them can run (and test, and benchmark) the
 * fallbacks. Names as `ringside features` prints them.
 */
static bool switched_off(const char *name)
{
	const char *p = getenv("RINGSIDE_FEATURES_OFF");
	size_t n = strlen(name);

	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		p += strspn(p, ",");
	}
	return false;
}

/* With the lock held: probe f's group here, unlocked while it runs. */
static void probe_group_locked(enum ringside_feature f)
{
	void (*group)(struct ringside_features *) = group_of[f];

	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++)
		if (group_of[i] == group)
			cache.state[i] = PROBING;
	pthread_mutex_unlock(&cache.lock);
	group(&cache.f);
	pthread_mutex_lock(&cache.lock);
	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++) {
		if (group_of[i] != group)
			continue;
		cache.state[i] = PROBED;
		if (cache.f.f[i].present && switched_off(feature_names[i])) {
			cache.f.f[i].present = false;
			snprintf(cache.f.f[i].why, sizeof(cache.f.f[i].why),
				 "switched off by RINGSIDE_FEATURES_OFF");
		}
	}
	pthread_cond_broadcast(&cache.probed);
}

/*
 * f's result, probing its group unless done; a group another thread is
 * probing is waited for. The group runs unlocked (it may need another
 * group, BTF), and writes only its own features, which nobody reads until
 * they are marked probed.
 */
static const struct ringside_feature_result *need(enum ringside_feature f)
{
	pthread_once(&cache.once, cache_init);
	pthread_mutex_lock(&cache.lock);
	while (cache.state[f] == PROBING)
		pthread_cond_wait(&cache.probed, &cache.lock);
	if (cache.state[f] == NOT_PROBED)
		probe_group_locked(f);
	pthread_mutex_unlock(&cache.lock);
	return &cache.f.f[f];
}

void rs_features_probe_unless_under_way(enum ringside_feature f)
{
	pthread_once(&cache.once, cache_init);
	pthread_mutex_lock(&cache.lock);
	if (cache.state[f] == NOT_PROBED)
		probe_group_locked(f);
	pthread_mutex_unlock(&cache.lock);
}

const struct ringside_feature_result *ringside_feature(enum ringside_feature f)
{
	if ((int)f < 0 || f >= RINGSIDE_FEAT_COUNT)
		return NULL;
	return need(f);
}

static void *prefetch_one(void *arg)
{
	need((enum ringside_feature)(long)arg);
	return NULL;
}

const char *rs_feature_name(enum ringside_feature f)
{
	return (int)f >= 0 && f < RINGSIDE_FEAT_COUNT ? feature_names[f] : "none";
}

/*
 * The uretprobe syscall as the kernel's release claims it: x86-64 from 6.11.
 * A backport or a distribution's patch can make it wrong either way; the
 * test (two forked children) settles it.
 */
static bool uretprobe_syscall_claimed(char *why, size_t len)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;
	bool claim;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2) {
		snprintf(why, len, "the kernel's release is unreadable (its test still running)");
		return false;
	}
	claim = !strcmp(u.machine, "x86_64") && (major > 6 || (major == 6 && minor >= 11));
	snprintf(why, len, "the kernel is %s on %s: %s (its test still running)", u.release, u.machine,
		 claim ? "6.11 or later on x86-64" : "not 6.11 or later on x86-64");
	return claim;
}

/*
 * What the kernel claims for f, without waiting for a test under way on
 * another thread where a claim can be read without it: the uprobe_multi
 * link types (the test's uprobe registration waits out a grace period),
 * and the uretprobe syscall (the test forks twice). Kept per process; the
 * test's own result settles it later.
 */
bool rs_feature_claimed(enum ringside_feature f, char *why, size_t len, bool *claim_only)
{
	static int known[2] = { -1, -1 };	/* uprobe_multi, session: -1 not asked yet */
	bool session = f == RINGSIDE_FEAT_UPROBE_SESSION, under_way;
	const struct ringside_feature_result *r;
	int claim;

	pthread_once(&cache.once, cache_init);
	pthread_mutex_lock(&cache.lock);
	under_way = cache.state[f] == PROBING;
	pthread_mutex_unlock(&cache.lock);
	*claim_only = under_way && (f == RINGSIDE_FEAT_UPROBE_MULTI || session ||
				    f == RINGSIDE_FEAT_URETPROBE_SYSCALL);
	if (!*claim_only) {
		r = need(f);
		snprintf(why, len, "%s", r->why);
		return r->present;
	}
	if (f == RINGSIDE_FEAT_URETPROBE_SYSCALL)
		return uretprobe_syscall_claimed(why, len);
	pthread_mutex_lock(&cache.lock);
	if (known[session] < 0)
		known[session] = rs_probe_uprobe_link_type(session ? RS_BPF_TRACE_UPROBE_SESSION :
							       RS_BPF_TRACE_UPROBE_MULTI);
	claim = known[session];
	pthread_mutex_unlock(&cache.lock);
	snprintf(why, len, "the kernel %s %s links (their test still running)",
		 claim ? "knows" : "does not know", feature_names[f]);
	return claim;
}

/* A thread that cannot start is no loss: the group is probed when first needed. */
void rs_features_prefetch(enum ringside_feature f)
{
	pthread_once(&cache.once, cache_init);
	pthread_mutex_lock(&cache.lock);
	if (cache.state[f] == NOT_PROBED && cache.nr_prefetch < MAX_PREFETCH &&
	    !pthread_create(&cache.prefetch[cache.nr_prefetch], NULL, prefetch_one, (void *)(long)f))
		cache.nr_prefetch++;
	pthread_mutex_unlock(&cache.lock);
}

void rs_features_prefetched(void)
{
	pthread_t threads[MAX_PREFETCH];
	unsigned int n;

	pthread_once(&cache.once, cache_init);
	pthread_mutex_lock(&cache.lock);
	n = cache.nr_prefetch;
	memcpy(threads, cache.prefetch, n * sizeof(threads[0]));
	cache.nr_prefetch = 0;
	pthread_mutex_unlock(&cache.lock);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
}

int ringside_features_probe(struct ringside_features *out)
{
	/* Every group asks the kernel's BTF: one parse for all. */
	rs_kernel_btf_get();
	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++)
		need(i);
	pthread_mutex_lock(&cache.lock);
	*out = cache.f;
	pthread_mutex_unlock(&cache.lock);
	rs_kernel_btf_put();
	rs_features_prefetched();
	/* A caller without a session has no attach to wait in: nothing outlives this call. */
	rs_probe_links_released();
	return 0;
}

static bool cap_set(unsigned long long caps, int bit)
{
	return caps & (1ULL << bit);
}

int ringside_check_privileges(void)
{
	enum { CAP_SYS_ADMIN_BIT = 21, CAP_PERFMON_BIT = 38, CAP_BPF_BIT = 39 };
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	if (!cap_set(eff, CAP_BPF_BIT) && !cap_set(eff, CAP_SYS_ADMIN_BIT))
		return -EPERM;
	if (!cap_set(eff, CAP_PERFMON_BIT) && !cap_set(eff, CAP_SYS_ADMIN_BIT))
		return -EPERM;
	return 0;
}

int ringside_uretprobe_mechanism(bool *seccomp_safe, char *why, size_t len)
{
	struct ringside_feature_result sys = *ringside_feature(RINGSIDE_FEAT_URETPROBE_SYSCALL);
	struct ringside_feature_result sec = *ringside_feature(RINGSIDE_FEAT_URETPROBE_SECCOMP);

	if (seccomp_safe)
		*seccomp_safe = !sys.present || sec.present;
	if (why)
		snprintf(why, len, "%s%s%s", sys.why, sys.present ? "; " : "",
			 sys.present ? sec.why : "");
	return sys.present ? 1 : 0;
}
