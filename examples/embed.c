// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Embedding libringside: probe the kernel, then resolve an address of this
 * very program to its mapping. Build: cc embed.c $(pkg-config --cflags --libs ringside)
 */
#include <stdio.h>
#include <unistd.h>
#include <ringside/ringside.h>
#include <ringside/procmaps.h>

int main(void)
{
	struct ringside_features f;
	struct ringside_procmaps *pm;
	struct ringside_vma vma;
	int err;

	if (ringside_event_abi() != RINGSIDE_EVENT_ABI) {
		fprintf(stderr, "library event ABI %u, built against %u\n", ringside_event_abi(),
			RINGSIDE_EVENT_ABI);
		return 1;
	}
	ringside_features_probe(&f);
	printf("uretprobe syscall: %s\n", f.f[RINGSIDE_FEAT_URETPROBE_SYSCALL].present ? "yes" : "no");

	err = ringside_procmaps_open(getpid(), RINGSIDE_PROCMAPS_AUTO, &pm);
	if (!err)
		err = ringside_procmaps_query(pm, (unsigned long)main, RINGSIDE_QUERY_BUILD_ID, &vma);
	if (err) {
		fprintf(stderr, "embed: %s\n", ringside_strerror(err));
		ringside_procmaps_close(pm);
		return 1;
	}
	printf("main is in %s (%s, build ID %u bytes)\n", vma.name,
	       ringside_procmaps_uses_ioctl(pm) ? "PROCMAP_QUERY" : "text maps", vma.build_id_size);
	ringside_procmaps_close(pm);
	return 0;
}
