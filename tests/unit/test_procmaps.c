// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* procmaps: text parser, PROCMAP_QUERY semantics, ioctl vs text equality. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/procmaps.h"
#include "procmaps_int.h"
#include "unit.h"
#include "../frozen_child.h"

static void parse_plain_line(void)
{
	struct ringside_vma v;

	CHECK_EQ_INT(ringside_procmaps_parse_line(
		"7f1c2a000000-7f1c2a022000 r-xp 00002000 fe:01 1234567                    /usr/lib/x86_64-linux-gnu/libc.so.6\n", &v), 0);
	CHECK_EQ_INT(v.start, 0x7f1c2a000000ULL);
	CHECK_EQ_INT(v.end, 0x7f1c2a022000ULL);
	CHECK_EQ_INT(v.offset, 0x2000);
	CHECK_EQ_INT(v.dev_major, 0xfe);
	CHECK_EQ_INT(v.dev_minor, 1);
	CHECK_EQ_INT(v.inode, 1234567);
	CHECK_EQ_INT(v.flags, RINGSIDE_VMA_READ | RINGSIDE_VMA_EXEC);
	CHECK_EQ_STR(v.name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

static void parse_special_names(void)
{
	struct ringside_vma v;

	CHECK_EQ_INT(ringside_procmaps_parse_line("55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]", &v), 0);
	CHECK_EQ_STR(v.name, "[heap]");
	CHECK_EQ_INT(v.flags, RINGSIDE_VMA_READ | RINGSIDE_VMA_WRITE);
	CHECK_EQ_INT(ringside_procmaps_parse_line("7ffd1000-7ffd2000 rw-s 00000000 00:00 0 \n", &v), 0);
	CHECK_EQ_STR(v.name, "");
	CHECK_EQ_INT(v.flags, RINGSIDE_VMA_READ | RINGSIDE_VMA_WRITE | RINGSIDE_VMA_SHARED);
	/* A nameless line must not take its name from the next line. */
	CHECK_EQ_INT(ringside_procmaps_parse_line("1000-2000 rw-p 00000000 00:00 0 \n3000-4000 r--p 0 00:00 0   [vvar]\n", &v), 0);
	CHECK_EQ_STR(v.name, "");
	CHECK_EQ_INT(ringside_procmaps_parse_line("1000-2000 r--p 00000000 08:02 99   /tmp/a file with  spaces (deleted)", &v), 0);
	CHECK_EQ_STR(v.name, "/tmp/a file with  spaces (deleted)");
	CHECK_EQ_INT(ringside_procmaps_parse_line("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]", &v), 0);
	CHECK_EQ_INT(v.start, 0xffffffffff600000ULL);
	CHECK_EQ_INT(v.flags, RINGSIDE_VMA_EXEC);
	CHECK_EQ_STR(v.name, "[vsyscall]");
}

static void parse_rejects_malformed(void)
{
	static const char *const bad[] = {
		"", "\n", "garbage", "1000-0500 r--p 0 00:00 0", "1000-2000 rwxq 0 00:00 0",
		"1000-2000 r--p zz 00:00 0", "1000 r--p 0 00:00 0", "1000-2000 r-- 0 00:00 0",
		"1000-2000 r--pp 0 00:00 0 x", "-1000-2000 r--p 0 00:00 0",
	};
	struct ringside_vma v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ringside_procmaps_parse_line(bad[i], &v) != -EINVAL) {
			printf("  accepted malformed line \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
}

/* Fuzz: mutate valid lines at random; the parser must never crash or accept start >= end. */
static void parse_fuzz(void)
{
	static const char seed[] = "7f1c2a000000-7f1c2a022000 r-xp 00002000 fe:01 1234567   /usr/lib/libc.so.6";
	static const char alphabet[] = "0123456789abcdefx- :rwxps/\n\t()[]";
	unsigned int rnd = 12345;
	struct ringside_vma v;
	char line[sizeof(seed) + 8];

	for (int iter = 0; iter < 200000; iter++) {
		int muts = 1 + iter % 6;

		memcpy(line, seed, sizeof(seed));
		for (int m = 0; m < muts; m++) {
			rnd = rnd * 1103515245 + 12345;
			size_t pos = (rnd >> 8) % (sizeof(seed) - 1);
			rnd = rnd * 1103515245 + 12345;
			line[pos] = alphabet[(rnd >> 8) % (sizeof(alphabet) - 1)];
		}
		if (iter % 7 == 0)
			line[(rnd >> 4) % sizeof(seed)] = '\0';
		if (!ringside_procmaps_parse_line(line, &v) && v.start >= v.end) {
			printf("  accepted start >= end in \"%s\"\n", line);
			CHECK(0);
			return;
		}
	}
}

struct vma_list {
	struct ringside_vma *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct ringside_vma *vma)
{
	struct vma_list *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			return -ENOMEM;
	}
	l->v[l->n++] = *vma;
	return 0;
}

static int snapshot(pid_t pid, enum ringside_procmaps_mode mode, uint32_t flags, struct vma_list *out)
{
	struct ringside_procmaps *pm;
	int err = ringside_procmaps_open(pid, mode, &pm);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	err = ringside_procmaps_foreach(pm, flags, collect, out);
	ringside_procmaps_close(pm);
	return err;
}

static bool vma_equal(const struct ringside_vma *a, const struct ringside_vma *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->flags == b->flags && a->page_size == b->page_size &&
	       a->build_id_size == b->build_id_size &&
	       !memcmp(a->build_id, b->build_id, a->build_id_size) && !strcmp(a->name, b->name);
}

static int compare_modes(pid_t pid, uint32_t flags)
{
	struct vma_list a, b;
	int bad = 0;

	if (snapshot(pid, RINGSIDE_PROCMAPS_IOCTL, flags, &a) || snapshot(pid, RINGSIDE_PROCMAPS_TEXT, flags, &b))
		return -1;
	if (a.n != b.n) {
		printf("  ioctl saw %zu VMAs, text %zu\n", a.n, b.n);
		bad++;
	}
	for (size_t i = 0; i < a.n && i < b.n && bad < 5; i++) {
		if (!vma_equal(&a.v[i], &b.v[i])) {
			printf("  VMA %zu differs: ioctl %llx-%llx f=%x ps=%llu bid=%u '%s' / text %llx-%llx f=%x ps=%llu bid=%u '%s'\n", i,
			       (unsigned long long)a.v[i].start, (unsigned long long)a.v[i].end, a.v[i].flags,
			       (unsigned long long)a.v[i].page_size, a.v[i].build_id_size, a.v[i].name,
			       (unsigned long long)b.v[i].start, (unsigned long long)b.v[i].end, b.v[i].flags,
			       (unsigned long long)b.v[i].page_size, b.v[i].build_id_size, b.v[i].name);
			bad++;
		}
	}
	free(a.v);
	free(b.v);
	return bad;
}

static bool have_ioctl(void)
{
	struct ringside_procmaps *pm;

	if (ringside_procmaps_open(getpid(), RINGSIDE_PROCMAPS_IOCTL, &pm))
		return false;
	ringside_procmaps_close(pm);
	return true;
}

/* Mappings a real process has that are hard for text parsers. */
static void make_odd_mappings(void)
{
	char path[] = "/tmp/ringside test map XXXXXX";
	int fd = mkstemp(path);
	long ps = sysconf(_SC_PAGESIZE);

	if (fd >= 0) {
		if (!ftruncate(fd, 2 * ps)) {
			mmap(NULL, ps, PROT_READ, MAP_SHARED, fd, ps);
			unlink(path); /* mapped, then deleted: "(deleted)" */
		}
		close(fd);
	}
	fd = memfd_create("ringside-memfd", 0);
	if (fd >= 0) {
		if (!ftruncate(fd, ps))
			mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	}
	mmap(NULL, 4 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void ioctl_matches_text_child(void)
{
	pid_t pid;

	if (!have_ioctl())
		return SKIP("kernel has no PROCMAP_QUERY (< 6.11): nothing to compare the text path with");
	pid = frozen_child_spawn(make_odd_mappings, 0);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK_EQ_INT(compare_modes(pid, 0), 0);
	CHECK_EQ_INT(compare_modes(pid, RINGSIDE_QUERY_BUILD_ID), 0);
	CHECK_EQ_INT(compare_modes(pid, RINGSIDE_VMA_EXEC), 0);
	CHECK_EQ_INT(compare_modes(pid, RINGSIDE_QUERY_FILE_BACKED), 0);
	CHECK_EQ_INT(compare_modes(pid, RINGSIDE_VMA_WRITE | RINGSIDE_VMA_SHARED), 0);
	frozen_child_reap(pid);
}

static void ioctl_matches_text_10k_mappings(void)
{
	struct vma_list l;
	pid_t pid;

	if (!have_ioctl())
		return SKIP("kernel has no PROCMAP_QUERY (< 6.11)");
	pid = frozen_child_spawn(make_odd_mappings, 12000);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK_EQ_INT(snapshot(pid, RINGSIDE_PROCMAPS_AUTO, 0, &l), 0);
	CHECK(l.n > 10000);
	free(l.v);
	CHECK_EQ_INT(compare_modes(pid, 0), 0);
	frozen_child_reap(pid);
}

/*
 * The resolver prices a line of the maps text by a sample of its first
 * lines: every whole line of the first read counted (build IDs read when
 * asked), and a full read after it still sees every VMA.
 */
static void text_sample_counts_whole_lines(void)
{
	pid_t pid = frozen_child_spawn(make_odd_mappings, 2000);
	char path[64], buf[RS_PROCMAPS_SAMPLE_BYTES];
	struct ringside_procmaps *pm;
	struct vma_list all;
	int want = 0, fd;
	ssize_t n;

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		want += buf[i] == '\n';
	CHECK(want > 10);
	CHECK_EQ_INT(snapshot(pid, RINGSIDE_PROCMAPS_TEXT, 0, &all), 0);
	CHECK(all.n > 2000);
	for (int mode = RINGSIDE_PROCMAPS_AUTO; mode <= RINGSIDE_PROCMAPS_TEXT; mode++) {
		struct vma_list after = { 0 };

		CHECK_EQ_INT(ringside_procmaps_open(pid, mode, &pm), 0);
		CHECK_EQ_INT(rs_procmaps_text_sample(pm, 0), want);
		CHECK_EQ_INT(rs_procmaps_text_sample(pm, RINGSIDE_QUERY_BUILD_ID), want);
		/* The same handle, read whole (or queried) after its samples. */
		CHECK_EQ_INT(ringside_procmaps_foreach(pm, 0, collect, &after), 0);
		CHECK_EQ_INT(after.n, all.n);
		free(after.v);
		ringside_procmaps_close(pm);
	}
	free(all.v);
	frozen_child_reap(pid);
	CHECK_EQ_INT(ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_TEXT, &pm), -ESRCH);
}

/* The cases of the kernel's proc-pid-vm selftest, through both modes. */
static void query_semantics(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, 3 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t va;

	CHECK(page != MAP_FAILED);
	if (page == MAP_FAILED)
		return;
	/* A lone r-x page with unmapped neighbours. */
	munmap(page, ps);
	munmap(page + 2 * ps, ps);
	mprotect(page + ps, ps, PROT_READ | PROT_EXEC);
	va = (uintptr_t)(page + ps);
	for (int mode = RINGSIDE_PROCMAPS_IOCTL; mode <= RINGSIDE_PROCMAPS_TEXT; mode++) {
		struct ringside_procmaps *pm;
		struct ringside_vma v;

		if (ringside_procmaps_open(getpid(), mode, &pm)) {
			CHECK(mode == RINGSIDE_PROCMAPS_IOCTL);
			continue;
		}
		CHECK_EQ_INT(ringside_procmaps_query(pm, va, 0, &v), 0);
		CHECK_EQ_INT(v.start, va);
		CHECK_EQ_INT(v.end, va + ps);
		CHECK_EQ_INT(v.flags, RINGSIDE_VMA_READ | RINGSIDE_VMA_EXEC);
		CHECK_EQ_INT(v.page_size, ps);
		CHECK_EQ_INT(ringside_procmaps_query(pm, va - 1, 0, &v), -ENOENT);
		CHECK_EQ_INT(ringside_procmaps_query(pm, va - 1, RINGSIDE_QUERY_COVERING_OR_NEXT, &v), 0);
		CHECK_EQ_INT(v.start, va);
		CHECK_EQ_INT(ringside_procmaps_query(pm, va, RINGSIDE_VMA_WRITE, &v), -ENOENT);
		CHECK_EQ_INT(ringside_procmaps_query(pm, va, RINGSIDE_QUERY_FILE_BACKED, &v), -ENOENT);
		CHECK_EQ_INT(ringside_procmaps_query(pm, UINT64_MAX - 1, RINGSIDE_QUERY_COVERING_OR_NEXT, &v), -ENOENT);
		ringside_procmaps_close(pm);
	}
	munmap(page + ps, ps);
}

static void exited_process(void)
{
	struct ringside_procmaps *auto_pm = NULL, *text_pm = NULL;
	struct ringside_vma v;
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	/* Handles opened while it lives must answer ESRCH once it is gone. */
	CHECK_EQ_INT(ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_AUTO, &auto_pm), 0);
	CHECK_EQ_INT(ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_TEXT, &text_pm), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (auto_pm)
		CHECK_EQ_INT(ringside_procmaps_query(auto_pm, 0, RINGSIDE_QUERY_COVERING_OR_NEXT, &v), -ESRCH);
	if (text_pm)
		CHECK_EQ_INT(ringside_procmaps_query(text_pm, 0, RINGSIDE_QUERY_COVERING_OR_NEXT, &v), -ESRCH);
	ringside_procmaps_close(auto_pm);
	ringside_procmaps_close(text_pm);
	CHECK_EQ_INT(ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_AUTO, &auto_pm), -ESRCH);
}

static void build_id_of_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	uint8_t id[RINGSIDE_BUILD_ID_MAX];

	CHECK(fd >= 0);
	CHECK_EQ_INT(ringside_read_build_id(fd, id, sizeof(id)), 20);
	close(fd);
	fd = open("/etc/hostname", O_RDONLY);
	if (fd >= 0) {
		CHECK_EQ_INT(ringside_read_build_id(fd, id, sizeof(id)), -ENOEXEC);
		close(fd);
	}
}

int main(void)
{
	RUN(parse_plain_line);
	RUN(parse_special_names);
	RUN(parse_rejects_malformed);
	RUN(parse_fuzz);
	RUN(build_id_of_self);
	RUN(query_semantics);
	RUN(exited_process);
	RUN(ioctl_matches_text_child);
	RUN(ioctl_matches_text_10k_mappings);
	RUN(text_sample_counts_whole_lines);
	UNIT_EXIT();
}
