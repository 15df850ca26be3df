// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BTF, shared by reference count (kernel_btf.h). */
#include <pthread.h>
#include <stddef.h>
#include <bpf/btf.h>

#include "kernel_btf.h"

static pthread_mutex_t btf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct btf *vmlinux_btf;
static unsigned int refs;

const struct btf *rs_kernel_btf_get(void)
{
	struct btf *btf;

	pthread_mutex_lock(&btf_lock);
	if (!refs++)
		vmlinux_btf = btf__load_vmlinux_btf();
	btf = vmlinux_btf;
	pthread_mutex_unlock(&btf_lock);
	return btf;
}

void rs_kernel_btf_put(void)
{
	pthread_mutex_lock(&btf_lock);
	if (refs && !--refs) {
		btf__free(vmlinux_btf);
		vmlinux_btf = NULL;
	}
	pthread_mutex_unlock(&btf_lock);
}
