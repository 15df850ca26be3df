// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hold a no-op probe on libcrypto's CRYPTO_gcm128_finish, placed and linked
 * as ringside places and links its own (the same prologue skip, a
 * uprobe_multi link, a session where the kernel has them), until stdin
 * closes. gcm_bench.sh measures the seal loop under it: the floor of the
 * probe ringside's counting path takes per message.
 *
 *	probe_floor session|session-read|entry
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "ringside/resolve.h"
#include "probe_point.h"
#include "uprobe_multi.h"
#include "probe_floor.skel.h"

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	bool session = !strncmp(mode, "session", 7);
	struct ringside_resolver *r = NULL;
	struct probe_floor_bpf *skel;
	struct rs_probe_point pp;
	struct ringside_sym sym;
	struct bpf_program *prog, *p;
	void *lib, *fn;
	uint64_t off;
	char c;
	int link;

	if (argc != 2 || (strcmp(mode, "session") && strcmp(mode, "session-read") && strcmp(mode, "entry"))) {
		fprintf(stderr, "usage: probe_floor session|session-read|entry  (holds the probe until stdin closes)\n");
		return 2;
	}
	lib = dlopen("libcrypto.so.3", RTLD_NOW);
	fn = lib ? dlsym(lib, "CRYPTO_gcm128_finish") : NULL;
	if (!fn) {
		fprintf(stderr, "probe_floor: no CRYPTO_gcm128_finish in libcrypto.so.3\n");
		return 1;
	}
	pp = rs_probe_point_choose(fn, 32);
	if (ringside_resolver_new(NULL, &r) || ringside_resolve(r, getpid(), (uintptr_t)fn + pp.skip, &sym)) {
		fprintf(stderr, "probe_floor: cannot resolve CRYPTO_gcm128_finish\n");
		return 1;
	}
	off = sym.file_offset;
	skel = probe_floor_bpf__open();
	if (!skel)
		return 1;
	prog = !strcmp(mode, "session") ? skel->progs.floor_session :
	       !strcmp(mode, "session-read") ? skel->progs.floor_session_read : skel->progs.floor_entry;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == prog);
	bpf_program__set_expected_attach_type(prog, session ? RS_BPF_TRACE_UPROBE_SESSION :
								   RS_BPF_TRACE_UPROBE_MULTI);
	if (probe_floor_bpf__load(skel)) {
		fprintf(stderr, "probe_floor: cannot load the %s program\n", mode);
		return 1;
	}
	link = session ? rs_uprobe_session_link(bpf_program__fd(prog), sym.path, &off, NULL, 1, 0) :
			 rs_uprobe_multi_link(bpf_program__fd(prog), sym.path, &off, NULL, 1, 0, false);
	if (link < 0) {
		fprintf(stderr, "probe_floor: cannot attach: %s\n", strerror(-link));
		return 1;
	}
	printf("probe_floor: %s probe on %s+0x%llx (%s)\n", mode, sym.path,
	       (unsigned long long)off, pp.emulated ? "emulated" : "single-stepped");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(link);
	probe_floor_bpf__destroy(skel);
	ringside_resolver_free(r);
	return 0;
}
