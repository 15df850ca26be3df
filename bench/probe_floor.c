// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hold no-op probes on libcrypto, placed and linked as ringside places and
 * links its own (the same prologue skip, uprobe_multi links, a session where
 * the kernel has them), until stdin closes. gcm_bench.sh measures the seal
 * loop under them: the floor of the probes a ringside mode takes per message.
 *
 *	session       CRYPTO_gcm128_finish as a session skipping its return:
 *	              the counting path's one hit (the agent)
 *	session-read  the same plus the 16-byte read counting cannot do without
 *	entry         a plain entry on CRYPTO_gcm128_finish
 *	inside        plain entries where ringside probes CRYPTO_gcm128_finish
 *	              (ossl_finish_points.h): on its first branch, which every
 *	              message hits, and on its tail jump to CRYPTO_memcmp, which
 *	              only an open given a tag hits: the agent's one hit a seal
 *	records       the same and an entry on CRYPTO_gcm128_setiv: the two
 *	              hits of a seal timed by `ringside gcm`
 *	nettle-entry  plain entries on nettle's nettle_gcm_aes128_set_iv, update,
 *	              encrypt and digest, where the kernel single-steps them
 *	nettle-followed  the same four where ringside places them, inside the
 *	              prologue on an instruction the kernel emulates
 *	              (rs_probe_point_follow())
 *
 * With a second argument, a copy of libcrypto (the same bytes, another
 * inode), the probes go on the copy at the same offsets: gcm_workload's
 * paired loop then runs seals through a tracer's libcrypto, this copy and
 * an untraced copy in turn, a millisecond apart.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "ringside/resolve.h"
#include "ossl_finish_points.h"
#include "probe_point.h"
#include "symtab.h"
#include "uprobe_multi.h"
#include "probe_floor.skel.h"

struct floor_probe {
	const char *func;		/* in the mode's library */
	struct bpf_program *prog;
	bool session;
	unsigned int follow_args;	/* nonzero: placed by rs_probe_point_follow() with this many */
	int link;
	bool emulated;			/* placed on an instruction the kernel emulates */
	int inside;			/* 1: finish's first branch, 2: its tail jump (ossl_finish_points.h) */
	char path[512];
	uint64_t off;
};

/* Inside finish, where counting probes it: the same search ringside makes. */
static int place_inside(struct floor_probe *fp)
{
	struct ossl_finish_points pts;
	struct rs_symtab *st = NULL;
	char why[160] = "";
	int fd = open(fp->path, O_RDONLY | O_CLOEXEC), err = -1;

	if (fd >= 0 && !rs_symtab_load_fd(fd, NULL, &st) &&
	    !ossl_finish_points_find(fd, st, &pts, why, sizeof(why)))
		err = rs_symtab_vaddr_to_offset(st, fp->inside == 1 ? pts.regs_vaddr : pts.cmp_vaddr,
						&fp->off);
	if (err)
		fprintf(stderr, "probe_floor: no probe point inside %s: %s\n", fp->func,
			why[0] ? why : "its file could not be read");
	fp->emulated = true;	/* a jcc and a jmp */
	rs_symtab_free(st);
	if (fd >= 0)
		close(fd);
	return err ? -1 : 0;
}

/* Past a single-stepped start, as ringside follows it: pp moved, or left as it is. */
static void follow(const char *path, void *fn, struct floor_probe *fp, struct rs_probe_point *pp)
{
	struct rs_symtab *st = NULL;
	uint64_t vaddr, size;
	char why[96] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && !rs_symtab_load_fd(fd, NULL, &st) && !rs_symtab_find(st, fp->func, &vaddr, &size) &&
	    rs_probe_point_follow(fn, size, fp->follow_args, pp, why, sizeof(why)))
		fprintf(stderr, "probe_floor: %s stays at its entry: %s\n", fp->func, why);
	rs_symtab_free(st);
	if (fd >= 0)
		close(fd);
}

/* Where ringside would put func's probe: its file and offset. */
static int place(struct ringside_resolver *r, void *lib, struct floor_probe *fp)
{
	void *fn = dlsym(lib, fp->func);
	struct rs_probe_point pp;
	struct ringside_sym sym;

	if (!fn) {
		fprintf(stderr, "probe_floor: no %s in its library\n", fp->func);
		return -1;
	}
	pp = rs_probe_point_choose(fn, 32);
	if (fp->follow_args && !pp.emulated) {
		if (ringside_resolve(r, getpid(), (uintptr_t)fn, &sym)) {
			fprintf(stderr, "probe_floor: cannot resolve %s\n", fp->func);
			return -1;
		}
		follow(sym.path, fn, fp, &pp);
	}
	if (ringside_resolve(r, getpid(), (uintptr_t)fn + pp.skip, &sym)) {
		fprintf(stderr, "probe_floor: cannot resolve %s\n", fp->func);
		return -1;
	}
	snprintf(fp->path, sizeof(fp->path), "%s", sym.path);
	fp->off = sym.file_offset;
	fp->emulated = pp.emulated;
	return fp->inside ? place_inside(fp) : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct ringside_resolver *r = NULL;
	struct probe_floor_bpf *skel;
	static const char *const nettle_funcs[] = { "nettle_gcm_aes128_set_iv", "nettle_gcm_aes128_update",
						    "nettle_gcm_aes128_encrypt", "nettle_gcm_aes128_digest" };
	static const unsigned int nettle_args[] = { 1, 2, 2, 1 };
	const char *soname = "libcrypto.so.3";
	struct floor_probe probes[4] = {};
	unsigned int nr = 0, i;
	struct bpf_program *p;
	void *lib;
	char c;

	skel = probe_floor_bpf__open();
	if (!skel)
		return 1;
	if (!strcmp(mode, "session"))
		probes[nr++] = (struct floor_probe){ "CRYPTO_gcm128_finish", skel->progs.floor_session, true };
	else if (!strcmp(mode, "session-read"))
		probes[nr++] = (struct floor_probe){ "CRYPTO_gcm128_finish", skel->progs.floor_session_read, true };
	else if (!strcmp(mode, "entry"))
		probes[nr++] = (struct floor_probe){ "CRYPTO_gcm128_finish", skel->progs.floor_entry, false };
	else if (!strcmp(mode, "inside") || !strcmp(mode, "records"))
		for (int at = 1; at <= 2; at++)
			probes[nr++] = (struct floor_probe){ "CRYPTO_gcm128_finish", skel->progs.floor_entry,
							     false, .inside = at };
	if (!strcmp(mode, "records"))
		probes[nr++] = (struct floor_probe){ "CRYPTO_gcm128_setiv", skel->progs.floor_entry, false };
	if (!strcmp(mode, "nettle-entry") || !strcmp(mode, "nettle-followed")) {
		bool followed = !strcmp(mode, "nettle-followed");

		soname = "libnettle.so.8";
		for (int i = 0; i < 4; i++)
			probes[nr++] = (struct floor_probe){ nettle_funcs[i], skel->progs.floor_entry, false,
							     followed ? nettle_args[i] : 0 };
	}
	if ((argc != 2 && argc != 3) || !nr) {
		fprintf(stderr, "usage: probe_floor session|session-read|entry|inside|records|nettle-entry|nettle-followed [COPY]  (holds the probes until stdin closes)\n");
		return 2;
	}
	lib = dlopen(soname, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "probe_floor: cannot open %s: %s\n", soname, dlerror());
		return 1;
	}
	if (ringside_resolver_new(NULL, &r))
		return 1;
	bpf_object__for_each_program(p, skel->obj) {
		bool used = false;

		for (i = 0; i < nr; i++)
			used |= probes[i].prog == p;
		bpf_program__set_autoload(p, used);
	}
	for (i = 0; i < nr; i++) {
		if (place(r, lib, &probes[i]))
			return 1;
		if (argc == 3)
			snprintf(probes[i].path, sizeof(probes[i].path), "%s", argv[2]);
		bpf_program__set_expected_attach_type(probes[i].prog, probes[i].session ?
						      RS_BPF_TRACE_UPROBE_SESSION : RS_BPF_TRACE_UPROBE_MULTI);
	}
	if (probe_floor_bpf__load(skel)) {
		fprintf(stderr, "probe_floor: cannot load the %s programs\n", mode);
		return 1;
	}
	for (i = 0; i < nr; i++) {
		struct floor_probe *fp = &probes[i];
		int fd = bpf_program__fd(fp->prog);

		fp->link = fp->session ? rs_uprobe_session_link(fd, fp->path, &fp->off, NULL, 1, 0) :
					 rs_uprobe_multi_link(fd, fp->path, &fp->off, NULL, 1, 0, false);
		if (fp->link < 0) {
			fprintf(stderr, "probe_floor: cannot attach to %s: %s\n", fp->func, strerror(-fp->link));
			return 1;
		}
	}
	printf("probe_floor: %s", mode);
	for (i = 0; i < nr; i++)
		printf("%s %s probe on %s+0x%llx (%s)", i ? ";" : "", probes[i].session ? "session" : "entry",
		       probes[i].path, (unsigned long long)probes[i].off,
		       probes[i].emulated ? "emulated" : "single-stepped");
	printf("\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (i = 0; i < nr; i++)
		close(probes[i].link);
	probe_floor_bpf__destroy(skel);
	ringside_resolver_free(r);
	return 0;
}
