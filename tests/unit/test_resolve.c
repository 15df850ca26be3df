// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The resolver against real processes: symbols, caches, and every way a PID can go wrong. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/ringside.h"
#include "ringside/resolve.h"
#include "unit.h"
#include "../frozen_child.h"

__attribute__((noinline)) int resolve_known_function(int x)
{
	asm volatile("" : "+r"(x));
	return x + 7;
}

static struct ringside_resolver *new_resolver(enum ringside_procmaps_mode mode, unsigned int max_files)
{
	struct ringside_resolver_opts o = { .sz = sizeof(o), .mode = mode, .want_build_id = 1,
					    .max_files = max_files };
	struct ringside_resolver *r = NULL;

	CHECK_EQ_INT(ringside_resolver_new(&o, &r), 0);
	return r;
}

static void pie_function_exact(void)
{
	for (int mode = RINGSIDE_PROCMAPS_AUTO; mode <= RINGSIDE_PROCMAPS_TEXT; mode++) {
		struct ringside_resolver *r = new_resolver(mode, 0);
		uint64_t a = (uintptr_t)resolve_known_function;
		struct ringside_sym s;

		if (!r)
			return;
		CHECK_EQ_INT(ringside_resolve(r, getpid(), a, &s), 0);
		CHECK(s.symbol && !strcmp(s.symbol, "resolve_known_function"));
		CHECK_EQ_INT(s.sym_offset, 0);
		CHECK_EQ_INT(ringside_resolve(r, getpid(), a + 2, &s), 0);
		CHECK(s.symbol && !strcmp(s.symbol, "resolve_known_function"));
		CHECK_EQ_INT(s.sym_offset, 2);
		CHECK(strstr(s.path, "test_resolve") != NULL);
		CHECK_EQ_INT(s.build_id_size, 20);
		ringside_resolver_free(r);
	}
}

static void dlopened_library(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW);
	struct ringside_resolver *r;
	struct ringside_sym s;
	void *fn;

	if (!h)
		return SKIP("libz.so.1 not installed");
	fn = dlsym(h, "deflate");
	r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	CHECK(fn && r);
	if (fn && r) {
		CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)fn + 3, &s), 0);
		CHECK(s.symbol && !strcmp(s.symbol, "deflate"));
		CHECK_EQ_INT(s.sym_offset, 3);
		CHECK(strstr(s.path, "libz.so") != NULL);
	}
	ringside_resolver_free(r);
	dlclose(h);
}

/* Start a helper program that prints addresses on one line, then waits. */
static pid_t spawn_reader(const char *prog, char *line, size_t len)
{
	int pfd[2];
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], line, len - 1);
	close(pfd[0]);
	line[n > 0 ? n : 0] = '\0';
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void non_pie_process(void)
{
	char prog[4096], line[128];
	unsigned long alpha = 0, beta = 0;
	struct ringside_resolver *r;
	struct ringside_sym s;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/nopie_target", getenv("RS_PROGS") ? getenv("RS_PROGS") : "build/tests/progs");
	if (access(prog, X_OK))
		return SKIP("nopie_target not built (make tests)");
	pid = spawn_reader(prog, line, sizeof(line));
	CHECK(sscanf(line, "%lx %lx", &alpha, &beta) == 2);
	r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	CHECK(alpha < 0x1000000); /* really non-PIE: linked at 0x400000 */
	CHECK_EQ_INT(ringside_resolve(r, pid, alpha, &s), 0);
	CHECK(s.symbol && !strcmp(s.symbol, "nopie_alpha"));
	CHECK_EQ_INT(s.elf_addr, alpha);
	CHECK_EQ_INT(ringside_resolve(r, pid, beta + 1, &s), 0);
	CHECK(s.symbol && !strcmp(s.symbol, "nopie_beta"));
	CHECK_EQ_INT(s.sym_offset, 1);
	ringside_resolver_free(r);
	reap(pid);
}

static void deleted_file_and_memfd(void)
{
	char path[] = "/tmp/ringside-resolve-XXXXXX";
	long ps = sysconf(_SC_PAGESIZE);
	int fd = mkstemp(path), mfd = memfd_create("rs-resolve", 0);
	struct ringside_resolver *r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	struct ringside_sym s;
	char *a, *b;

	CHECK(fd >= 0 && mfd >= 0 && !ftruncate(fd, 4 * ps) && !ftruncate(mfd, ps));
	a = mmap(NULL, 2 * ps, PROT_READ, MAP_SHARED, fd, 2 * ps);
	b = mmap(NULL, ps, PROT_READ, MAP_SHARED, mfd, 0);
	unlink(path);
	close(fd);
	close(mfd);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)a + ps + 16, &s), 0);
	CHECK(strstr(s.path, "(deleted)") != NULL);
	CHECK_EQ_INT(s.file_offset, 3 * ps + 16);
	CHECK(s.symbol == NULL);
	CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)b, &s), 0);
	CHECK(strstr(s.path, "memfd:rs-resolve") != NULL);
	munmap(a, 2 * ps);
	munmap(b, ps);
	ringside_resolver_free(r);
}

static void vdso_symbols(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	struct ringside_resolver *r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	struct ringside_sym s;
	int found = 0;

	if (!base)
		return SKIP("no vdso in this process");
	for (uintptr_t off = 0; off < 0x2000; off += 0x40)
		if (!ringside_resolve(r, getpid(), base + off, &s) && s.symbol &&
		    (!strncmp(s.symbol, "__vdso_", 7) || !strncmp(s.symbol, "__kernel_", 9)))
			found++;
	CHECK(found > 3);
	CHECK(!ringside_resolve(r, getpid(), base, &s) && !strcmp(s.path, "[vdso]"));
	ringside_resolver_free(r);
}

static void warm_lookups_hit_cache(void)
{
	struct ringside_resolver *r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	struct ringside_resolver_stats st;
	struct ringside_sym s;

	for (int i = 0; i < 100; i++)
		CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)resolve_known_function + i, &s), 0);
	ringside_resolver_stats(r, &st);
	CHECK_EQ_INT(st.vma_queries, 1);
	CHECK_EQ_INT(st.vma_hits, 99);
	CHECK_EQ_INT(st.sym_tables_loaded, 1);
	ringside_resolver_free(r);
}

static void lru_bounds_files(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW);
	struct ringside_resolver *r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 1);
	struct ringside_resolver_stats st;
	struct ringside_sym s;
	void *deflate_fn = h ? dlsym(h, "deflate") : NULL;

	if (!deflate_fn)
		return SKIP("libz.so.1 not installed");
	/* One table slot, two files, alternating: every switch reloads, answers stay right. */
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)resolve_known_function, &s), 0);
		CHECK(s.symbol && !strcmp(s.symbol, "resolve_known_function"));
		CHECK_EQ_INT(ringside_resolve(r, getpid(), (uintptr_t)deflate_fn, &s), 0);
		CHECK(s.symbol && !strcmp(s.symbol, "deflate"));
	}
	ringside_resolver_stats(r, &st);
	CHECK_EQ_INT(st.sym_tables_loaded, 6);
	ringside_resolver_free(r);
	dlclose(h);
}

static void exec_drops_old_mappings(void)
{
	struct ringside_resolver_opts o = { .sz = sizeof(o), .vma_ttl_ms = 50 };
	struct ringside_resolver *r = NULL;
	uint64_t a = (uintptr_t)resolve_known_function;
	struct ringside_sym s;
	int go[2];
	pid_t pid;
	char c = 'x';

	CHECK_EQ_INT(ringside_resolver_new(&o, &r), 0);
	CHECK(!pipe(go));
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	/* Before exec the child is a copy of us. */
	CHECK_EQ_INT(ringside_resolve(r, pid, a, &s), 0);
	CHECK(s.symbol && !strcmp(s.symbol, "resolve_known_function"));
	CHECK(write(go[1], &c, 1) == 1);
	close(go[1]);
	for (int i = 0; i < 200; i++) {	/* wait until the exec is done */
		char exe[256] = "";
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		if (readlink(path, exe, sizeof(exe) - 1) > 0 && strstr(exe, "sleep"))
			break;
		usleep(5000);
	}
	/*
	 * Same PID, same start time, new image. A cache hit costs no syscall, so
	 * it cannot notice; once the TTL has passed the old symbol must be gone.
	 */
	usleep(100000);
	memset(&s, 0, sizeof(s));
	ringside_resolve(r, pid, a, &s);
	CHECK(!s.symbol || strcmp(s.symbol, "resolve_known_function"));
	/* And forget() makes it immediate. */
	ringside_resolver_forget(r, pid);
	memset(&s, 0, sizeof(s));
	ringside_resolve(r, pid, a, &s);
	CHECK(!s.symbol || strcmp(s.symbol, "resolve_known_function"));
	ringside_resolver_free(r);
	reap(pid);
}

static void bad_pids(void)
{
	struct ringside_resolver *r = new_resolver(RINGSIDE_PROCMAPS_AUTO, 0);
	struct ringside_sym s;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	/* Zombie until reaped. */
	usleep(50000);
	CHECK_EQ_INT(ringside_proc_check(pid), -RINGSIDE_ERR_ZOMBIE);
	CHECK(ringside_resolve(r, pid, 0x1000, &s) < 0);
	waitpid(pid, NULL, 0);
	CHECK_EQ_INT(ringside_proc_check(pid), -ESRCH);
	CHECK_EQ_INT(ringside_resolve(r, pid, 0x1000, &s), -ESRCH);
	CHECK_EQ_INT(ringside_proc_check(2), -RINGSIDE_ERR_KTHREAD); /* kthreadd */
	CHECK_EQ_INT(ringside_resolve(r, getpid(), 0x10, &s), -ENOENT);
	ringside_resolver_free(r);
}

static void not_permitted(void)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return SKIP("needs root to drop to another user");
	pid = fork();
	if (pid == 0) {
		/* As nobody, another user's process (pid 1) is off limits. */
		struct ringside_resolver *r = NULL;
		struct ringside_sym s;
		int err;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (ringside_resolver_new(NULL, &r))
			_exit(11);
		err = ringside_resolve(r, 1, 0x1000, &s);
		ringside_resolver_free(r);
		_exit(err == -EACCES || err == -EPERM ? 0 : 12);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

struct vma_list {
	uint64_t start[4096], end[4096];
	size_t n;
};

static int add_vma(void *ctx, const struct ringside_vma *v)
{
	struct vma_list *l = ctx;

	if (l->n < 4096) {
		l->start[l->n] = v->start;
		l->end[l->n] = v->end;
		l->n++;
	}
	return 0;
}

#define NORM_ADDRS 6000

/* Normalize addrs with a fresh resolver of this policy; -errno or the mapped count. */
static int normalize_with(pid_t pid, enum ringside_procmaps_mode mode, enum ringside_batch_policy batch,
			  bool precache, const uint64_t *addrs, uint64_t *offs, uint64_t *starts,
			  uint64_t *queries)
{
	struct ringside_resolver_opts o = { .sz = sizeof(o), .mode = mode, .batch = batch };
	static const struct ringside_mapping *maps[NORM_ADDRS];
	struct ringside_resolver_stats st;
	struct ringside_resolver *r = NULL;
	struct ringside_sym sym;
	int ret;

	CHECK_EQ_INT(ringside_resolver_new(&o, &r), 0);
	/* VMAs cached before the batch must survive a text read merged around them. */
	for (int i = 0; precache && i < NORM_ADDRS; i += 97)
		ringside_resolve(r, pid, addrs[i], &sym);
	ret = ringside_normalize(r, pid, addrs, NORM_ADDRS, offs, maps);
	for (int i = 0; i < NORM_ADDRS; i++)
		starts[i] = maps[i] ? maps[i]->start : 0;
	ringside_resolver_stats(r, &st);
	*queries = st.vma_queries;
	ringside_resolver_free(r);
	return ret;
}

/*
 * A batch is answered alike whether the resolver queries each VMA, reads
 * the whole text once, or chooses: for batches touching every VMA, every
 * 4th VMA, or a few, with unmapped addresses among them, with and without
 * VMAs cached beforehand, through PROCMAP_QUERY and through text alone.
 */
static void normalize_policies_agree(void)
{
	static uint64_t addrs[NORM_ADDRS], want_off[NORM_ADDRS], want_start[NORM_ADDRS];
	static uint64_t off[NORM_ADDRS], start[NORM_ADDRS];
	static struct vma_list l;
	struct ringside_procmaps *pm;
	pid_t pid = frozen_child_spawn(NULL, 2000);
	static const size_t strides[] = { 1, 4, 500 };

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	l.n = 0;
	CHECK_EQ_INT(ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_TEXT, &pm), 0);
	ringside_procmaps_foreach(pm, 0, add_vma, &l);
	ringside_procmaps_close(pm);
	CHECK(l.n > 2000);
	for (size_t sh = 0; sh < sizeof(strides) / sizeof(strides[0]); sh++) {
		size_t stride = strides[sh], k = 0;
		uint64_t q_query, q;

		/* Sorted: each chosen VMA's first and last byte, and the byte past its end. */
		for (size_t i = 0; i < l.n && k + 3 <= NORM_ADDRS; i += stride) {
			addrs[k++] = l.start[i];
			addrs[k++] = l.end[i] - 1;
			addrs[k++] = l.end[i];
		}
		while (k < NORM_ADDRS)
			addrs[k++] = UINT64_MAX - 4096;	/* never mapped */
		int mapped = normalize_with(pid, RINGSIDE_PROCMAPS_AUTO, RINGSIDE_BATCH_QUERY, false,
					    addrs, want_off, want_start, &q_query);

		CHECK(mapped > 0);
		for (int pre = 0; pre < 2; pre++) {
			CHECK_EQ_INT(normalize_with(pid, RINGSIDE_PROCMAPS_AUTO, RINGSIDE_BATCH_SNAPSHOT, pre,
						    addrs, off, start, &q), mapped);
			CHECK(!memcmp(off, want_off, sizeof(off)) && !memcmp(start, want_start, sizeof(start)));
			/* One text read answers the whole batch: no query but the pre-cached ones. */
			if (!pre)
				CHECK_EQ_INT(q, 0);
			CHECK_EQ_INT(normalize_with(pid, RINGSIDE_PROCMAPS_AUTO, RINGSIDE_BATCH_AUTO, pre,
						    addrs, off, start, &q), mapped);
			CHECK(!memcmp(off, want_off, sizeof(off)) && !memcmp(start, want_start, sizeof(start)));
			CHECK_EQ_INT(normalize_with(pid, RINGSIDE_PROCMAPS_TEXT, RINGSIDE_BATCH_AUTO, pre,
						    addrs, off, start, &q), mapped);
			CHECK(!memcmp(off, want_off, sizeof(off)) && !memcmp(start, want_start, sizeof(start)));
		}
	}
	frozen_child_reap(pid);
}

int main(void)
{
	RUN(pie_function_exact);
	RUN(dlopened_library);
	RUN(non_pie_process);
	RUN(deleted_file_and_memfd);
	RUN(vdso_symbols);
	RUN(warm_lookups_hit_cache);
	RUN(lru_bounds_files);
	RUN(exec_drops_old_mappings);
	RUN(bad_pids);
	RUN(not_permitted);
	RUN(normalize_policies_agree);
	UNIT_EXIT();
}
