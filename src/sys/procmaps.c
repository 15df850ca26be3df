// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/procmaps.h"
#include "procmap_uapi.h"
#include "procmaps_int.h"

#define RS_QUERY_KERNEL_BITS 0x3f
#define RS_VMA_PERM_BITS (RINGSIDE_VMA_READ | RINGSIDE_VMA_WRITE | RINGSIDE_VMA_EXEC | RINGSIDE_VMA_SHARED)

struct ringside_procmaps {
	pid_t pid;
	int fd;			/* /proc/PID/maps */
	bool use_ioctl;
	bool ioctl_unknown;	/* AUTO: not asked yet; the first query tells */
	long page_size;
	char *text;		/* text mode: last read of the maps file */
	size_t text_cap;
	int gate_known;		/* ioctl mode: 1 once gate[] was looked up */
	bool has_gate;
	struct ringside_vma gate;	/* [vsyscall]: not in the mm's VMA tree */
};

/*
 * One hex or decimal field and the separator after it. By hand, not sscanf:
 * glibc's sscanf takes strlen of its whole input first, and a line here is
 * followed by the rest of the maps text, which made a 10,000-VMA read
 * quadratic (56 ms, ten times what the kernel took to write it).
 */
static const char *num_field(const char *p, unsigned int base, char sep, unsigned long long *out)
{
	unsigned long long v = 0;
	int digits = 0;

	for (;; p++, digits++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			break;
		if (v > (~0ULL - d) / base)
			return NULL;	/* more than 64 bits */
		v = v * base + d;
	}
	if (!digits || (sep && *p != sep))
		return NULL;
	*out = v;
	return sep ? p + 1 : p;
}

int ringside_procmaps_parse_line(const char *line, struct ringside_vma *v)
{
	unsigned long long start, end, off, maj, min, ino;
	const char *p = line;
	size_t n;

	memset(v, 0, offsetof(struct ringside_vma, name));
	v->name[0] = '\0';
	/* "start-end perms offset major:minor inode   name" */
	if (!(p = num_field(p, 16, '-', &start)) || !(p = num_field(p, 16, ' ', &end)) ||
	    start >= end)
		return -EINVAL;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 's' && p[3] != 'p') || p[4] != ' ')
		return -EINVAL;
	v->flags = (p[0] == 'r' ? RINGSIDE_VMA_READ : 0) | (p[1] == 'w' ? RINGSIDE_VMA_WRITE : 0) |
		   (p[2] == 'x' ? RINGSIDE_VMA_EXEC : 0) | (p[3] == 's' ? RINGSIDE_VMA_SHARED : 0);
	p += 5;
	if (!(p = num_field(p, 16, ' ', &off)) || !(p = num_field(p, 16, ':', &maj)) ||
	    !(p = num_field(p, 16, ' ', &min)) || !(p = num_field(p, 10, 0, &ino)) ||
	    maj > 0xffffffffu || min > 0xffffffffu)
		return -EINVAL;
	if (*p && *p != ' ' && *p != '\n')
		return -EINVAL;
	v->start = start;
	v->end = end;
	v->offset = off;
	v->inode = ino;
	v->dev_major = (uint32_t)maj;
	v->dev_minor = (uint32_t)min;
	/* The padding before the name is spaces; a nameless line ends after the inode. */
	while (*p == ' ')
		p++;
	n = strcspn(p, "\n");
	if (n >= sizeof(v->name))
		n = sizeof(v->name) - 1;
	memcpy(v->name, p, n);
	v->name[n] = '\0';
	return 0;
}

int ringside_read_build_id(int fd, uint8_t *buf, size_t len)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff;
	unsigned int phnum, phentsize;
	bool is64;

	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident))
		return -ENOEXEC;
	if (memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	is64 = ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			return -ENOEXEC;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	} else {
		Elf32_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			return -ENOEXEC;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	}
	for (unsigned int i = 0; i < phnum && i < 64; i++) {
		uint64_t noff, nsz, pos;
		unsigned char notes[1024];
		ssize_t got;

		if (is64) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), phoff + (uint64_t)i * phentsize) != (ssize_t)sizeof(ph))
				return -ENOEXEC;
			if (ph.p_type != PT_NOTE)
				continue;
			noff = ph.p_offset, nsz = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), phoff + (uint64_t)i * phentsize) != (ssize_t)sizeof(ph))
				return -ENOEXEC;
			if (ph.p_type != PT_NOTE)
				continue;
			noff = ph.p_offset, nsz = ph.p_filesz;
		}
		if (nsz > sizeof(notes))
			nsz = sizeof(notes);
		got = pread(fd, notes, nsz, noff);
		if (got <= 0)
			continue;
		for (pos = 0; pos + sizeof(Elf64_Nhdr) <= (uint64_t)got;) {
			Elf64_Nhdr nh; /* Elf32_Nhdr has the same layout */
			uint64_t name_off = pos + sizeof(nh), desc_off;

			memcpy(&nh, notes + pos, sizeof(nh));
			desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
			if (desc_off + nh.n_descsz > (uint64_t)got)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(notes + name_off, "GNU", 4) && nh.n_descsz <= len && nh.n_descsz) {
				memcpy(buf, notes + desc_off, nh.n_descsz);
				return (int)nh.n_descsz;
			}
			pos = desc_off + ((nh.n_descsz + 3) & ~3u);
		}
	}
	return -ENODATA;
}

static int open_maps(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Whether the running kernel has PROCMAP_QUERY, once any handle has learned
 * it: 0 unknown, 1 yes, -1 no. It is the kernel's, the same for every maps
 * file, so a process asks once; a resolver opening a new process's maps then
 * spends no probe (a syscall, about a microsecond here) before its queries.
 */
static int kernel_has_query;

static void learned_query_support(bool supported)
{
	__atomic_store_n(&kernel_has_query, supported ? 1 : -1, __ATOMIC_RELAXED);
}

static bool ioctl_supported(int fd)
{
	struct rs_procmap_query q = { .size = sizeof(q), .query_addr = 0,
				      .query_flags = RINGSIDE_QUERY_COVERING_OR_NEXT };
	/* ENOTTY is the only answer that means "kernel has no PROCMAP_QUERY". */
	bool supported = ioctl(fd, RS_PROCMAP_QUERY, &q) == 0 || errno != ENOTTY;

	learned_query_support(supported);
	return supported;
}

int ringside_procmaps_open(pid_t pid, enum ringside_procmaps_mode mode,
			   struct ringside_procmaps **out)
{
	struct ringside_procmaps *pm;

	*out = NULL;
	if (pid <= 0)
		return -EINVAL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->pid = pid;
	pm->page_size = sysconf(_SC_PAGESIZE);
	pm->fd = open_maps(pid);
	if (pm->fd < 0) {
		int err = errno == ENOENT ? -ESRCH : -errno;

		free(pm);
		return err;
	}
	/*
	 * AUTO learns from its first real query, sparing a cold lookup a probe,
	 * unless an earlier handle already learned what this kernel has.
	 */
	pm->use_ioctl = mode != RINGSIDE_PROCMAPS_TEXT;
	if (mode == RINGSIDE_PROCMAPS_AUTO) {
		int known = __atomic_load_n(&kernel_has_query, __ATOMIC_RELAXED);

		pm->ioctl_unknown = !known;
		pm->use_ioctl = known >= 0;
	}
	if (mode == RINGSIDE_PROCMAPS_IOCTL && !ioctl_supported(pm->fd)) {
		ringside_procmaps_close(pm);
		return -ENOTTY;
	}
	*out = pm;
	return 0;
}

void ringside_procmaps_close(struct ringside_procmaps *pm)
{
	if (!pm)
		return;
	if (pm->fd >= 0)
		close(pm->fd);
	free(pm->text);
	free(pm);
}

bool ringside_procmaps_uses_ioctl(const struct ringside_procmaps *pm)
{
	if (pm->ioctl_unknown)
		return ioctl_supported(pm->fd);
	return pm->use_ioctl;
}

static bool vma_passes(const struct ringside_vma *v, uint32_t flags)
{
	uint32_t need = flags & RS_VMA_PERM_BITS;

	if ((v->flags & need) != need)
		return false;
	/* The kernel calls a VMA file-backed when it has a file, whatever its name says. */
	if ((flags & RINGSIDE_QUERY_FILE_BACKED) && !v->inode && !(v->dev_major | v->dev_minor))
		return false;
	return true;
}

/* Build ID of a file-backed VMA, read from the ELF file as the kernel would. */
static void text_build_id(struct ringside_procmaps *pm, struct ringside_vma *v)
{
	char path[4200];
	int fd;

	v->build_id_size = 0;
	if (!v->inode)
		return;
	/* map_files reaches deleted and namespaced files; the plain path is a fallback. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pm->pid,
		 v->start, v->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && v->name[0] == '/') {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pm->pid, v->name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return;
	int n = ringside_read_build_id(fd, v->build_id, sizeof(v->build_id));
	if (n > 0)
		v->build_id_size = n;
	close(fd);
}

/* Text mode: read the whole maps file again (it changes under us). */
static int text_reload(struct ringside_procmaps *pm)
{
	size_t used = 0;
	ssize_t n;

	if (lseek(pm->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		if (pm->text_cap - used < 4096) {
			size_t cap = pm->text_cap ? pm->text_cap * 2 : 65536;
			char *p = realloc(pm->text, cap);

			if (!p)
				return -ENOMEM;
			pm->text = p;
			pm->text_cap = cap;
		}
		n = read(pm->fd, pm->text + used, pm->text_cap - used - 1);
		if (n < 0)
			return errno == EINTR ? text_reload(pm) : -errno;
		if (n == 0)
			break;
		used += n;
	}
	pm->text[used] = '\0';
	/* A process that exited leaves an empty maps file. */
	return used ? 0 : -ESRCH;
}

static void set_page_size(struct ringside_procmaps *pm, struct ringside_vma *v);

static int text_query(struct ringside_procmaps *pm, uint64_t addr, uint32_t flags,
		      struct ringside_vma *out)
{
	int err = text_reload(pm);

	if (err)
		return err;
	for (char *line = pm->text; line && *line;) {
		char *nl = strchr(line, '\n');

		if (!ringside_procmaps_parse_line(line, out) && out->end > addr) {
			if (out->start > addr && !(flags & RINGSIDE_QUERY_COVERING_OR_NEXT))
				return -ENOENT;
			if (vma_passes(out, flags)) {
				set_page_size(pm, out);
				if (flags & RINGSIDE_QUERY_BUILD_ID)
					text_build_id(pm, out);
				return 0;
			}
			if (!(flags & RINGSIDE_QUERY_COVERING_OR_NEXT))
				return -ENOENT;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

static int ioctl_query(struct ringside_procmaps *pm, uint64_t addr, uint32_t flags,
		       struct ringside_vma *out)
{
	struct rs_procmap_query q = {
		.size = sizeof(q),
		.query_flags = flags & RS_QUERY_KERNEL_BITS,
		.query_addr = addr,
		.vma_name_addr = (uintptr_t)out->name,
		.vma_name_size = sizeof(out->name),
	};

	if (flags & RINGSIDE_QUERY_BUILD_ID) {
		q.build_id_addr = (uintptr_t)out->build_id;
		q.build_id_size = sizeof(out->build_id);
	}
	out->name[0] = '\0';
	if (ioctl(pm->fd, RS_PROCMAP_QUERY, &q))
		return -errno;
	out->start = q.vma_start;
	out->end = q.vma_end;
	out->offset = q.vma_offset;
	out->page_size = q.vma_page_size;
	out->inode = q.inode;
	out->dev_major = q.dev_major;
	out->dev_minor = q.dev_minor;
	out->flags = (uint32_t)q.vma_flags & RS_VMA_PERM_BITS;
	out->build_id_size = (flags & RINGSIDE_QUERY_BUILD_ID) ? q.build_id_size : 0;
	if (!q.vma_name_size)
		out->name[0] = '\0';
	return 0;
}

/*
 * The vsyscall page is an architecture "gate" area outside the mm's VMA
 * tree: the ioctl never returns it, the text shows it. Look it up in the
 * text once so both modes agree.
 */
static const struct ringside_vma *gate_vma(struct ringside_procmaps *pm)
{
	if (!pm->gate_known) {
		pm->gate_known = 1;
		if (!text_reload(pm)) {
			char *last = strstr(pm->text, "[vsyscall]");

			while (last && last > pm->text && last[-1] != '\n')
				last--;
			if (last && !ringside_procmaps_parse_line(last, &pm->gate)) {
				pm->gate.page_size = pm->page_size;
				pm->has_gate = true;
			}
		}
	}
	return pm->has_gate ? &pm->gate : NULL;
}

static void set_page_size(struct ringside_procmaps *pm, struct ringside_vma *v)
{
	char path[64], line[256];
	unsigned long kb = 0;
	bool in_vma = false;
	FILE *f;

	v->page_size = pm->page_size;
	/* Only hugetlb mappings differ; the kernel names them like this. */
	if (!strstr(v->name, "anon_hugepage") && !strstr(v->name, "hugepages"))
		return;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pm->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
			in_vma = s == v->start;
		else if (in_vma && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	if (kb)
		v->page_size = (uint64_t)kb * 1024;
}

int ringside_procmaps_query(struct ringside_procmaps *pm, uint64_t addr, uint32_t flags,
			    struct ringside_vma *out)
{
	const struct ringside_vma *gate;
	int err;

	if (!pm->use_ioctl)
		return text_query(pm, addr, flags, out);
	err = ioctl_query(pm, addr, flags, out);
	if (pm->ioctl_unknown) {
		pm->ioctl_unknown = false;
		learned_query_support(err != -ENOTTY);
		if (err == -ENOTTY) {
			pm->use_ioctl = false;
			return text_query(pm, addr, flags, out);
		}
	}
	if (err != -ENOENT)
		return err;
	gate = gate_vma(pm);
	if (!gate || gate->end <= addr || !vma_passes(gate, flags))
		return err;
	if (gate->start > addr && !(flags & RINGSIDE_QUERY_COVERING_OR_NEXT))
		return err;
	*out = *gate;
	return 0;
}

/* Every VMA in text (NUL-terminated maps lines) passing flags, to fn. */
static int text_lines_foreach(struct ringside_procmaps *pm, char *text, uint32_t flags,
			      ringside_vma_fn fn, void *ctx)
{
	struct ringside_vma *v = malloc(sizeof(*v));
	/* A file's VMAs come one after another: its build ID is read once. */
	uint64_t bid_ino = 0, bid_dev = 0;
	uint8_t bid[RINGSIDE_BUILD_ID_MAX];
	uint32_t bid_size = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (char *line = text; line && *line && !ret;) {
		char *nl = strchr(line, '\n');

		if (!ringside_procmaps_parse_line(line, v) && vma_passes(v, flags)) {
			uint64_t dev = (uint64_t)v->dev_major << 32 | v->dev_minor;

			set_page_size(pm, v);
			if ((flags & RINGSIDE_QUERY_BUILD_ID) && v->inode &&
			    v->inode == bid_ino && dev == bid_dev) {
				v->build_id_size = bid_size;
				memcpy(v->build_id, bid, sizeof(bid));
			} else if (flags & RINGSIDE_QUERY_BUILD_ID) {
				text_build_id(pm, v);
				bid_ino = v->inode;
				bid_dev = dev;
				bid_size = v->build_id_size;
				memcpy(bid, v->build_id, sizeof(bid));
			}
			ret = fn(ctx, v);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(v);
	return ret;
}

int rs_procmaps_text_foreach(struct ringside_procmaps *pm, uint32_t flags, ringside_vma_fn fn,
			     void *ctx)
{
	/* One read, one pass: re-querying text per VMA would be quadratic. */
	int err = text_reload(pm);

	return err ? err : text_lines_foreach(pm, pm->text, flags, fn, ctx);
}

static int count_line(void *ctx, const struct ringside_vma *v)
{
	(void)v;
	++*(int *)ctx;
	return 0;
}

int rs_procmaps_text_sample(struct ringside_procmaps *pm, uint32_t flags)
{
	char buf[RS_PROCMAPS_SAMPLE_BYTES + 1], *end;
	int lines = 0, err;
	ssize_t n;

	/* Offset 0 restarts the kernel's walk, wherever the last read left it. */
	n = pread(pm->fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* Whole lines only: the read may stop inside one. */
	end = strrchr(buf, '\n');
	if (!end)
		return 0;
	end[1] = '\0';
	err = text_lines_foreach(pm, buf, flags, count_line, &lines);
	return err ? err : lines;
}

int ringside_procmaps_foreach(struct ringside_procmaps *pm, uint32_t flags,
			      ringside_vma_fn fn, void *ctx)
{
	struct ringside_vma *v = malloc(sizeof(*v));
	uint64_t addr = 0;
	int err, ret = 0;

	if (!v)
		return -ENOMEM;
	flags |= RINGSIDE_QUERY_COVERING_OR_NEXT;
	if (pm->ioctl_unknown) {
		pm->ioctl_unknown = false;
		pm->use_ioctl = ioctl_supported(pm->fd);
	}
	if (!pm->use_ioctl) {
		free(v);
		return rs_procmaps_text_foreach(pm, flags, fn, ctx);
	}
	for (;;) {
		err = ringside_procmaps_query(pm, addr, flags, v);
		if (err)
			break;
		ret = fn(ctx, v);
		if (ret || v->end == 0 || v->end <= addr)
			break;
		addr = v->end;
	}
	free(v);
	if (ret)
		return ret;
	return err == -ENOENT ? 0 : err;
}
