// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BTF, shared by reference count and kept while a session starts (kernel_btf.h). */
#include <pthread.h>
#include <stdio.h>

#include "kernel_btf.h"

static pthread_mutex_t btf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rs_btf *vmlinux_btf;
static unsigned int refs, keeps;

/*
 * With the lock held: close the view once nobody uses or keeps it, if it
 * is a copy (read before 6.16: 5.5 MB of the process's memory). A mapping
 * stays for the process's life: its pages are the kernel's, its index is
 * 8 KiB, and a later reader (the kernel symbols' iterator, a collector
 * added later) would map and index it again.
 */
static void release_locked(void)
{
	if (!refs && !keeps && vmlinux_btf && !rs_btf_mapped(vmlinux_btf)) {
		rs_btf_close(vmlinux_btf);
		vmlinux_btf = NULL;
	}
}

const struct rs_btf *rs_kernel_btf_get(void)
{
	struct rs_btf *btf;

	pthread_mutex_lock(&btf_lock);
	if (!vmlinux_btf)
		rs_btf_open(RS_VMLINUX_BTF_PATH, NULL, &vmlinux_btf);
	refs++;		/* NULL too: every get is paired with a put */
	btf = vmlinux_btf;
	pthread_mutex_unlock(&btf_lock);
	return btf;
}

void rs_kernel_btf_put(void)
{
	pthread_mutex_lock(&btf_lock);
	if (refs)
		refs--;
	release_locked();
	pthread_mutex_unlock(&btf_lock);
}

void rs_kernel_btf_keep(bool keep)
{
	pthread_mutex_lock(&btf_lock);
	if (keep)
		keeps++;
	else if (keeps)
		keeps--;
	release_locked();
	pthread_mutex_unlock(&btf_lock);
}

struct rs_btf *rs_kernel_btf_module(const struct rs_btf *vmlinux, const char *module)
{
	struct rs_btf *mod = NULL;
	char path[128];

	if (!vmlinux || snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module) >= (int)sizeof(path))
		return NULL;
	rs_btf_open(path, vmlinux, &mod);
	return mod;
}
