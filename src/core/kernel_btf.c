// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BTF, shared by reference count and kept while a session starts (kernel_btf.h). */
#include <pthread.h>
#include <stddef.h>
#include <bpf/btf.h>

#include "kernel_btf.h"

static pthread_mutex_t btf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct btf *vmlinux_btf;
static unsigned int refs, keeps;

/* With the lock held: free the parse once nobody uses or keeps it. */
static void release_if_unused(void)
{
	if (!refs && !keeps && vmlinux_btf) {
		btf__free(vmlinux_btf);
		vmlinux_btf = NULL;
	}
}

const struct btf *rs_kernel_btf_get(void)
{
	struct btf *btf;

	pthread_mutex_lock(&btf_lock);
	if (!vmlinux_btf)
		vmlinux_btf = btf__load_vmlinux_btf();
	refs++;
	btf = vmlinux_btf;
	pthread_mutex_unlock(&btf_lock);
	return btf;
}

void rs_kernel_btf_put(void)
{
	pthread_mutex_lock(&btf_lock);
	if (refs)
		refs--;
	release_if_unused();
	pthread_mutex_unlock(&btf_lock);
}

void rs_kernel_btf_keep(bool keep)
{
	pthread_mutex_lock(&btf_lock);
	if (keep)
		keeps++;
	else if (keeps)
		keeps--;
	release_if_unused();
	pthread_mutex_unlock(&btf_lock);
}
