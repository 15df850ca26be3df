// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BTF, shared by reference count and kept while a session starts (kernel_btf.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "kernel_btf.h"

#define VMLINUX_BTF_PATH "/sys/kernel/btf/vmlinux"

static pthread_mutex_t btf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct btf *vmlinux_btf;
static unsigned int refs, keeps;

/*
 * Defined (true) by the ringside binary's libbpf_vmlinux_btf.c only; a
 * program that links the library without it leaves this weak reference
 * unresolved, and its libbpf parses on its own.
 */
extern const bool rs_libbpf_borrows_kernel_btf __attribute__((weak));

bool rs_kernel_btf_lent_to_libbpf(void)
{
	return &rs_libbpf_borrows_kernel_btf && rs_libbpf_borrows_kernel_btf;
}

/*
 * A fresh parse from a read-only private mapping (Linux 6.16+), or NULL with
 * errno where the kernel refuses it. libbpf 1.1 reads the file 4 KiB a call
 * (1,340 calls) into one buffer and copies that into another: 10 MB at once.
 * Mapped, the file's pages are the kernel's and only the parse's copy is the
 * process's own (half the peak), and the parse takes about half the time.
 */
static struct btf *parse_mapped(void)
{
	int fd = open(VMLINUX_BTF_PATH, O_RDONLY | O_CLOEXEC), err;
	struct btf *btf;
	struct stat st;
	void *raw;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0) {
		err = errno ? errno : EINVAL;
		close(fd);
		errno = err;
		return NULL;
	}
	/* Read-only and private: the only mapping the kernel allows. */
	raw = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (raw == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	btf = btf__new(raw, (__u32)st.st_size);	/* a copy: the mapping can go */
	err = errno;
	munmap(raw, (size_t)st.st_size);
	errno = err;
	return btf;
}

/* With the lock held: the parse, made now if nobody holds one. */
static struct btf *load_locked(void)
{
	if (!vmlinux_btf)
		vmlinux_btf = parse_mapped();
	/* Before 6.16 the file cannot be mapped: read it (not through
	 * btf__load_vmlinux_btf(), which the ringside binary routes here). */
	if (!vmlinux_btf)
		vmlinux_btf = btf__parse(VMLINUX_BTF_PATH, NULL);
	refs++;		/* NULL too: every get is paired with a put */
	return vmlinux_btf;
}

/*
 * Unlock, freeing the parse once nobody uses or keeps it: outside the lock,
 * since the ringside binary's btf__free() asks rs_kernel_btf_unshare().
 */
static void unlock_and_release(void)
{
	struct btf *unused = NULL;

	if (!refs && !keeps) {
		unused = vmlinux_btf;
		vmlinux_btf = NULL;
	}
	pthread_mutex_unlock(&btf_lock);
	btf__free(unused);
}

const struct btf *rs_kernel_btf_get(void)
{
	struct btf *btf;

	pthread_mutex_lock(&btf_lock);
	btf = load_locked();
	pthread_mutex_unlock(&btf_lock);
	return btf;
}

struct btf *rs_kernel_btf_share(void)
{
	struct btf *btf = (struct btf *)rs_kernel_btf_get();
	int err = errno;

	/* Nothing for the holder to free: no reference either. */
	if (!btf) {
		rs_kernel_btf_put();
		errno = err ? err : ENOENT;
	}
	return btf;
}

void rs_kernel_btf_put(void)
{
	pthread_mutex_lock(&btf_lock);
	if (refs)
		refs--;
	unlock_and_release();
}

bool rs_kernel_btf_unshare(struct btf *btf)
{
	bool shared;

	pthread_mutex_lock(&btf_lock);
	shared = btf && btf == vmlinux_btf;
	if (shared && refs)
		refs--;
	unlock_and_release();
	return shared;
}

void rs_kernel_btf_keep(bool keep)
{
	pthread_mutex_lock(&btf_lock);
	if (keep)
		keeps++;
	else if (keeps)
		keeps--;
	unlock_and_release();
}
