// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Finding what to probe: the libraries a process has mapped and the Go
 * program it runs (-p), the system's libraries (ld.so.cache and the standard
 * directories), the Go programs running now, and a program that starts
 * later (system-wide). Each found file goes through gcm_libset_add().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcm_libs.h"
#include "ringside/procmaps.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct pid_walk {
	struct gcm_libset *set;
	pid_t pid;
	int err;
};

static int pid_vma(void *ctx, const struct ringside_vma *vma)
{
	struct pid_walk *w = ctx;
	enum rs_gcm_lib lib;
	char path[4200];
	int err;

	if (vma->name[0] != '/' || !(lib = gcm_family_by_soname(vma->name)))
		return 0;
	/* The process's own view of the file: right inside containers too. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)w->pid, vma->name);
	err = gcm_libset_add(w->set, path, lib);
	if (err < 0)
		w->err = err;
	return 0;
}

/*
 * The process's executable when it is a Go program (its own view of the
 * file, as for libraries). 0 when it is not Go or is gone; negative with
 * set->err when it is Go but cannot be traced.
 */
/*
 * The program PID runs. file, when known, is the path it was started with
 * and the file's identity from the kernel: where that path still leads to
 * the same file it is used (it outlives the process and reads better);
 * else /proc/PID/exe, which is right across mount namespaces. Nothing to
 * add when neither reaches it.
 */
static int add_pid_exe(struct gcm_libset *set, pid_t pid, const struct gcm_exec_file *file)
{
	char link[64], target[4096], path[4200];
	struct stat st;
	ssize_t n;
	int err;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (file && file->path[0] == '/' && !stat(file->path, &st) && st.st_dev == file->dev &&
	    st.st_ino == file->ino) {
		snprintf(path, sizeof(path), "%s", file->path);
	} else if ((n = readlink(link, target, sizeof(target) - 1)) > 0) {
		target[n] = '\0';
		/* An executable replaced since it started: only the link still reaches it. */
		if (n > 10 && !strcmp(target + n - 10, " (deleted)"))
			snprintf(path, sizeof(path), "%s", link);
		else
			snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, target);
	} else {
		return 0;
	}
	err = gcm_libset_add(set, path, RS_GCM_LIB_GO);
	return err == -ENOEXEC || err == -ENOENT || err == -ESRCH ? 0 : err;
}

int gcm_libset_add_pid(struct gcm_libset *set, pid_t pid)
{
	struct ringside_procmaps *pm;
	struct pid_walk w = { set, pid, 0 };
	unsigned int before = set->nr_libs;
	int err;

	err = add_pid_exe(set, pid, NULL);
	if (err < 0)
		return gcm_libset_fail(set, err, "PID %d: %s", (int)pid, set->err);

	err = ringside_procmaps_open(pid, RINGSIDE_PROCMAPS_AUTO, &pm);
	if (err)
		return gcm_libset_fail(set, err, "PID %d: cannot read its mappings: %s", (int)pid,
			       ringside_strerror(err));
	err = ringside_procmaps_foreach(pm, RINGSIDE_VMA_EXEC, pid_vma, &w);
	ringside_procmaps_close(pm);
	if (err < 0)
		return gcm_libset_fail(set, err, "PID %d: cannot read its mappings: %s", (int)pid,
			       ringside_strerror(err));
	if (w.err)
		return w.err;
	if (set->nr_libs == before)
		return gcm_libset_fail(set, -RINGSIDE_ERR_NOSYM,
			       "PID %d is no Go program and has no libcrypto, libgnutls, libgcrypt or "
			       "libnettle mapped: use --binary for a statically linked program", (int)pid);
	return 0;
}

/* ld.so.cache (glibc's "new" format): entries point at strings by file offset. */
struct ldcache_entry {
	int32_t flags;
	uint32_t key, value;
	uint32_t osversion;
	uint64_t hwcap;
};

static void add_from_ldcache(struct gcm_libset *set)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	size_t hdr = sizeof(magic) - 1 + 4 + 4 + 1 + 3 + 4 + 12;
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *img, *base;
	uint32_t nlibs;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || (size_t)st.st_size < hdr) {
		close(fd);
		return;
	}
	img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	base = memmem(img, st.st_size, magic, sizeof(magic) - 1);
	if (base && (size_t)(base - img) + hdr <= (size_t)st.st_size) {
		memcpy(&nlibs, base + sizeof(magic) - 1, sizeof(nlibs));
		for (uint32_t i = 0; i < nlibs; i++) {
			struct ldcache_entry e;
			size_t at = (base - img) + hdr + (size_t)i * sizeof(e);
			const char *path;
			enum rs_gcm_lib lib;

			if (at + sizeof(e) > (size_t)st.st_size)
				break;
			memcpy(&e, img + at, sizeof(e));
			if (e.value >= (size_t)st.st_size)
				continue;
			path = img + e.value;
			if (!memchr(path, '\0', st.st_size - e.value))
				continue;
			lib = gcm_family_by_soname(path);
			/* A broken or foreign copy must not stop the others. */
			if (lib)
				gcm_libset_add(set, path, lib);
		}
	}
	munmap((void *)img, st.st_size);
}


/*
 * Running Go programs: every process whose executable is Go. Each file is
 * read once however many processes run it; one that cannot be traced is
 * named in skipped, with the reason.
 */
static void add_running_go(struct gcm_libset *set)
{
	struct dirent *de;
	dev_t *seen_dev = NULL;
	ino_t *seen_ino = NULL;
	unsigned int nr_seen = 0;
	DIR *d = opendir("/proc");
	int err;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char link[64];
		struct stat sb;
		unsigned int i;
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		if (stat(link, &sb))
			continue;	/* a kernel thread, or gone */
		for (i = 0; i < nr_seen; i++)
			if (seen_dev[i] == sb.st_dev && seen_ino[i] == sb.st_ino)
				break;
		if (i < nr_seen)
			continue;
		if (!GROW(seen_dev, nr_seen + 1) || !GROW(seen_ino, nr_seen + 1))
			break;
		seen_dev[nr_seen] = sb.st_dev;
		seen_ino[nr_seen++] = sb.st_ino;
		err = add_pid_exe(set, pid, NULL);
		/* A Go program without AES-GCM code has nothing to trace. */
		if (err < 0 && err != -RINGSIDE_ERR_NOSYM)
			gcm_libset_note_skipped(set, set->err);
	}
	closedir(d);
	free(seen_dev);
	free(seen_ino);
}

int gcm_libset_add_exec(struct gcm_libset *set, pid_t pid, const struct gcm_exec_file *file)
{
	unsigned int before = set->nr_libs;
	int err = add_pid_exe(set, pid, file);

	if (err == -RINGSIDE_ERR_NOSYM)
		return 0;	/* a Go program without AES-GCM code */
	if (err < 0) {
		gcm_libset_note_skipped(set, set->err);
		return err;
	}
	return set->nr_libs > before;
}

int gcm_libset_add_system(struct gcm_libset *set)
{
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
		"/usr/local/lib", "/usr/lib",
	};
	static const char *const names[] = { "libcrypto.so.3", "libgnutls.so.30", "libgcrypt.so.20",
					     "libnettle.so.8" };

	add_from_ldcache(set);
	for (size_t d = 0; d < N(dirs); d++) {
		for (size_t n = 0; n < N(names); n++) {
			char path[512];

			snprintf(path, sizeof(path), "%s/%s", dirs[d], names[n]);
			if (!access(path, R_OK))
				gcm_libset_add(set, path, gcm_family_by_soname(path));
		}
	}
	add_running_go(set);
	if (!set->nr_libs)
		return gcm_libset_fail(set, -ENOENT, "no libcrypto.so.3, libgnutls.so.30, libgcrypt.so.20 or libnettle.so.8 "
					     "found: name one with --lib PATH");
	set->err[0] = '\0';
	return 0;
}

