// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The PROCMAP_QUERY ioctl checked against its UAPI: "procmap_check present"
 * runs the cases of the upstream selftest (exact match, no match below,
 * covering-or-next, no match after, permission filter) plus the build ID,
 * a walk over every VMA compared with the text of /proc/self/maps, and the
 * size handshake and error codes. "procmap_check absent" checks that an old
 * kernel answers ENOTTY. Prints PASS/FAIL lines; exit status 1 on a failure.
 * Used by the 6.1 guest (tests/guest/run.sh) and on the host
 * (tests/integration/kernel_abi.sh), where an upstream kernel answers.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "procmap_uapi.h"
#include "ringside/procmaps.h"

#define PAGE 4096UL
#define VADDR 0x10000000UL	/* below every usual mapping, nothing around it */

static int failures;

static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS %s\n", name);
		return;
	}
	failures++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ioctl result as 0 or -errno */
static int query(int fd, struct rs_procmap_query *q)
{
	return ioctl(fd, RS_PROCMAP_QUERY, q) ? -errno : 0;
}

static struct rs_procmap_query new_query(unsigned long addr, unsigned long flags)
{
	struct rs_procmap_query q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr;
	q.query_flags = flags;
	return q;
}

/* The GNU build ID note of an ELF file, read the plain way. */
static int elf_build_id(const char *path, unsigned char *out, size_t cap)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 0);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;

	if (fd >= 0)
		close(fd);
	if (len < (ssize_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return -1;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff + i * eh->e_phentsize);
		size_t pos;

		if ((char *)(ph + 1) > buf + len || ph->p_type != PT_NOTE)
			continue;
		for (pos = ph->p_offset; pos + sizeof(Elf64_Nhdr) <= ph->p_offset + ph->p_filesz &&
					 pos + sizeof(Elf64_Nhdr) <= (size_t)len;) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(buf + pos);
			size_t name_at = pos + sizeof(*nh), desc_at = name_at + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(buf + name_at, "GNU", 4) && nh->n_descsz <= cap &&
			    desc_at + nh->n_descsz <= (size_t)len) {
				memcpy(out, buf + desc_at, nh->n_descsz);
				return (int)nh->n_descsz;
			}
			pos = desc_at + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return -1;
}

/* The selftest's cases, on a deleted file mapped r-x at VADDR. */
static void selftest_cases(int fd)
{
	char tmpl[] = "/tmp/procmap_check.XXXXXX", expect[256], name[256];
	static char page[PAGE];
	struct rs_procmap_query q;
	struct stat st;
	void *map;
	int file = mkstemp(tmpl), err;

	if (file < 0 || write(file, page, sizeof(page)) != (ssize_t)sizeof(page) || fstat(file, &st)) {
		check(false, "procmap_setup", "scratch file in /tmp: %s", strerror(errno));
		return;
	}
	map = mmap((void *)VADDR, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
		   file, 0);
	close(file);
	unlink(tmpl);
	if (map != (void *)VADDR) {
		check(false, "procmap_setup", "mmap at %#lx: %s", VADDR, strerror(errno));
		return;
	}
	snprintf(expect, sizeof(expect), "%s (deleted)", tmpl);

	q = new_query(VADDR, 0);
	q.vma_name_addr = (unsigned long)name;
	q.vma_name_size = sizeof(name);
	err = query(fd, &q);
	check(!err && q.query_addr == VADDR && q.query_flags == 0 && q.vma_start == VADDR &&
		      q.vma_end == VADDR + PAGE &&
		      q.vma_flags == (RINGSIDE_VMA_READ | RINGSIDE_VMA_EXEC) &&
		      q.vma_page_size == PAGE && q.vma_offset == 0 && q.inode == st.st_ino &&
		      q.dev_major == major(st.st_dev) && q.dev_minor == minor(st.st_dev) &&
		      q.vma_name_size == strlen(expect) + 1 && !strcmp(name, expect),
	      "procmap_exact_match",
	      "err %d range %llx-%llx flags %llx page %llu ino %llu/%lu dev %u:%u name \"%.*s\" (%u)",
	      err, q.vma_start, q.vma_end, q.vma_flags, q.vma_page_size, q.inode,
	      (unsigned long)st.st_ino, q.dev_major, q.dev_minor, (int)sizeof(name), name,
	      q.vma_name_size);

	q = new_query(VADDR - 1, 0);
	err = query(fd, &q);
	check(err == -ENOENT, "procmap_no_match_below", "got %d, want -ENOENT", err);

	q = new_query(VADDR - 1, RINGSIDE_QUERY_COVERING_OR_NEXT);
	err = query(fd, &q);
	check(!err && q.query_addr == VADDR - 1 &&
		      q.query_flags == RINGSIDE_QUERY_COVERING_OR_NEXT && q.vma_start == VADDR &&
		      q.vma_end == VADDR + PAGE,
	      "procmap_covering_or_next", "err %d range %llx-%llx", err, q.vma_start, q.vma_end);

	q = new_query(VADDR + PAGE, 0);
	err = query(fd, &q);
	check(err == -ENOENT, "procmap_no_match_after", "got %d, want -ENOENT", err);

	q = new_query(VADDR, RINGSIDE_VMA_WRITE);
	err = query(fd, &q);
	check(err == -ENOENT, "procmap_writable_filter", "got %d, want -ENOENT", err);

	/* Past the last VMA nothing is next. */
	q = new_query(~0UL - PAGE, RINGSIDE_QUERY_COVERING_OR_NEXT);
	err = query(fd, &q);
	check(err == -ENOENT, "procmap_no_next_after_last", "got %d, want -ENOENT", err);
	munmap(map, PAGE);
}

static void build_id_case(int fd)
{
	unsigned char want[20], got[20];
	int want_len = elf_build_id("/proc/self/exe", want, sizeof(want)), err;
	struct rs_procmap_query q = new_query((unsigned long)&build_id_case, 0);

	q.build_id_addr = (unsigned long)got;
	q.build_id_size = sizeof(got);
	err = query(fd, &q);
	check(want_len > 0 && !err && q.build_id_size == (unsigned)want_len &&
		      !memcmp(got, want, want_len),
	      "procmap_build_id_matches_elf_note", "err %d, %u bytes returned, note has %d", err,
	      q.build_id_size, want_len);

	/* an anonymous VMA has no build ID and no name, which is not an error */
	void *anon = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	char name[64] = "untouched";

	q = new_query((unsigned long)anon, 0);
	q.build_id_addr = (unsigned long)got;
	q.build_id_size = sizeof(got);
	q.vma_name_addr = (unsigned long)name;
	q.vma_name_size = sizeof(name);
	err = query(fd, &q);
	check(!err && q.build_id_size == 0 && q.vma_name_size == 0 && q.inode == 0 &&
		      !strcmp(name, "untouched"),
	      "procmap_anonymous_vma", "err %d build_id_size %u name_size %u inode %llu", err,
	      q.build_id_size, q.vma_name_size, q.inode);
	munmap(anon, PAGE);
}

/*
 * Walk every VMA with covering-or-next and compare with the maps text read
 * just before: same ranges, permissions, offsets, inodes and names.
 */
static void walk_case(int fd)
{
	static char text[1 << 16];
	char name[4096], *line, *save;
	unsigned long addr = 0;
	int text_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), n = 0, bad = 0;
	ssize_t len = 0, got;

	while (text_fd >= 0 && (got = read(text_fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += got;
	if (text_fd >= 0)
		close(text_fd);
	text[len] = '\0';

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long start, end, off, ino;
		char perms[5], text_name[4096] = "";
		struct rs_procmap_query q;
		unsigned int maj, min;
		int err;

		if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %4095[^\n]", &start, &end, perms, &off,
			   &maj, &min, &ino, text_name) < 7)
			continue;
		if (!strcmp(text_name + strspn(text_name, " "), "[vsyscall]"))
			continue;	/* the gate area is not a VMA */
		q = new_query(addr, RINGSIDE_QUERY_COVERING_OR_NEXT);
		q.vma_name_addr = (unsigned long)name;
		q.vma_name_size = sizeof(name);
		err = query(fd, &q);
		n++;
		if (err || q.vma_start != start || q.vma_end != end || q.vma_offset != off ||
		    q.inode != ino || q.dev_major != maj || q.dev_minor != min ||
		    !!(q.vma_flags & RINGSIDE_VMA_READ) != (perms[0] == 'r') ||
		    !!(q.vma_flags & RINGSIDE_VMA_WRITE) != (perms[1] == 'w') ||
		    !!(q.vma_flags & RINGSIDE_VMA_EXEC) != (perms[2] == 'x') ||
		    (q.vma_name_size ? strcmp(name, text_name + strspn(text_name, " ")) :
				       text_name[strspn(text_name, " ")] != '\0')) {
			if (!bad++)
				printf("# mismatch at text line \"%s\": err %d ioctl %llx-%llx name \"%s\"\n",
				       line, err, q.vma_start, q.vma_end, q.vma_name_size ? name : "");
		}
		addr = err ? end : q.vma_end;
	}
	check(n > 5 && !bad, "procmap_walk_equals_text_maps", "%d of %d VMAs differ", bad, n);
}

/* The size handshake and the error codes of the UAPI. */
static void handshake_cases(int fd)
{
	struct {
		struct rs_procmap_query q;
		unsigned long long future_field;
	} big;
	unsigned char id[20];
	char small[4];
	struct rs_procmap_query q;
	unsigned long text = (unsigned long)&handshake_cases;
	int err;

	q = new_query(text, 0);
	q.size = 16;	/* ends before query_addr */
	check(query(fd, &q) == -EINVAL, "procmap_size_too_small_einval", "not EINVAL");

	q = new_query(text, 0);
	q.size = 24;	/* the oldest struct a caller may know: only the inputs */
	q.vma_start = 0xdead;
	err = query(fd, &q);
	check(!err && q.vma_start == 0xdead, "procmap_short_struct_not_overwritten",
	      "err %d vma_start %llx", err, q.vma_start);

	memset(&big, 0, sizeof(big));
	big.q = new_query(text, 0);
	big.q.size = sizeof(big);
	big.future_field = 1;
	check(query(fd, &big.q) == -E2BIG, "procmap_unknown_nonzero_field_e2big", "not E2BIG");
	big.future_field = 0;
	err = query(fd, &big.q);
	check(!err && big.q.vma_start <= text && text < big.q.vma_end && big.future_field == 0,
	      "procmap_larger_struct_zero_tail_ok", "err %d", err);

	q = new_query(text, 0);
	q.size = 8192;
	check(query(fd, &q) == -E2BIG, "procmap_size_over_page_e2big", "not E2BIG");

	q = new_query(text, 0x40);
	check(query(fd, &q) == -EINVAL, "procmap_unknown_flag_einval", "not EINVAL");

	q = new_query(text, 0);
	q.vma_name_addr = (unsigned long)small;
	check(query(fd, &q) == -EINVAL, "procmap_name_addr_without_size_einval", "not EINVAL");
	q = new_query(text, 0);
	q.build_id_size = sizeof(id);
	check(query(fd, &q) == -EINVAL, "procmap_build_id_size_without_addr_einval", "not EINVAL");

	q = new_query(text, 0);
	q.vma_name_addr = (unsigned long)small;
	q.vma_name_size = sizeof(small);
	check(query(fd, &q) == -ENAMETOOLONG, "procmap_name_buffer_too_small", "not ENAMETOOLONG");
	q = new_query(text, 0);
	q.build_id_addr = (unsigned long)id;
	q.build_id_size = 1;
	check(query(fd, &q) == -ENAMETOOLONG, "procmap_build_id_buffer_too_small",
	      "not ENAMETOOLONG");
}

int main(int argc, char **argv)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (argc != 2 || (strcmp(argv[1], "present") && strcmp(argv[1], "absent"))) {
		fprintf(stderr, "usage: procmap_check present|absent\n");
		return 2;
	}
	if (fd < 0) {
		check(false, "procmap_open", "/proc/self/maps: %s", strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "absent")) {
		struct rs_procmap_query q = new_query((unsigned long)&main, 0);
		int err = query(fd, &q);

		check(err == -ENOTTY, "procmap_absent_enotty", "got %d, want -ENOTTY", err);
		return failures > 0;
	}
	selftest_cases(fd);
	build_id_case(fd);
	walk_case(fd);
	handshake_cases(fd);
	close(fd);
	return failures > 0;
}
