// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CO-RE cut (src/core/core_btf.c) relocates every object exactly as
 * libbpf's own search of the whole kernel BTF does. Each object is loaded
 * twice, once each way, and libbpf's account of what it wrote into each
 * instruction ("relo #N: patched insn #M ... off A -> B", or a poisoned insn)
 * must match line for line. The relocations run before any program is loaded,
 * so the account is whole even where this kernel refuses a program (kaead's
 * fentry ones); the maps are created on the way, hence root.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>
#include <bpf/libbpf.h>

/* The skeletons' rodata types first, as the collectors include them. */
#include "session_int.h"
#include "ringside/btrfs.h"
#include "ringside/gcm.h"
#include "ringside/kaead.h"
#include "ringside/reclaim.h"
#include "btrfs.skel.h"
#include "core_btf.h"
#include "gcm.skel.h"
#include "kaead.skel.h"
#include "reclaim.skel.h"
#include "unit.h"

/* What libbpf said it did to instructions, one line each, during one load. */
struct relo_log {
	char *text;
	size_t len, cap;
	unsigned int lines;
};

static struct relo_log *capturing;

static int keep_patch_lines(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)level;
	if (!capturing)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (!strstr(line, ": relo #") ||
	    !(strstr(line, "patched insn") || strstr(line, "poison") || strstr(line, "substitut")))
		return 0;
	n = strlen(line);
	if (capturing->len + n + 1 > capturing->cap) {
		size_t cap = (capturing->cap + n + 1) * 2;
		char *text = realloc(capturing->text, cap);

		if (!text)
			return 0;
		capturing->text = text;
		capturing->cap = cap;
	}
	memcpy(capturing->text + capturing->len, line, n + 1);
	capturing->len += n;
	capturing->lines++;
	return 0;
}

/* Open elf as a skeleton's object, load it (success not needed) and log its relocations. */
static void load_and_log(const void *(*elf_bytes)(size_t *size), const char *name,
			 const struct bpf_object_open_opts *opts, struct relo_log *log)
{
	size_t size;
	const void *elf = elf_bytes(&size);
	struct bpf_object_open_opts named = *opts;
	struct bpf_object *obj;

	named.object_name = name;
	obj = bpf_object__open_mem(elf, size, &named);
	CHECK(obj != NULL);
	if (!obj)
		return;
	capturing = log;
	bpf_object__load(obj);
	capturing = NULL;
	bpf_object__close(obj);
}

static void same_relocations(const char *name, const void *(*elf_bytes)(size_t *size),
			     int cut_expected)
{
	struct bpf_object_open_opts plain = { .sz = sizeof(plain) }, cut = { .sz = sizeof(cut) };
	struct relo_log by_libbpf = { 0 }, by_cut = { 0 };
	struct rs_core_btf cb;
	size_t size;
	const void *elf = elf_bytes(&size);

	rs_core_btf_prepare(elf, size, &cb, &cut);
	if (cut_expected && cb.fd < 0)
		printf("  %s: no cut: %s\n", name, cb.why_not ? cb.why_not : "?");
	CHECK_EQ_INT(cb.fd >= 0, cut_expected);
	CHECK(cb.nr_relos > 0);
	load_and_log(elf_bytes, name, &plain, &by_libbpf);
	load_and_log(elf_bytes, name, &cut, &by_cut);
	rs_core_btf_close(&cb);
	/* Every relocation patches or poisons an instruction, each said once. */
	CHECK(by_libbpf.lines >= cb.nr_relos);
	CHECK_EQ_INT(by_cut.lines, by_libbpf.lines);
	CHECK(by_libbpf.text && by_cut.text && !strcmp(by_cut.text, by_libbpf.text));
	if (by_libbpf.text && by_cut.text && strcmp(by_cut.text, by_libbpf.text))
		printf("  %s: relocations differ:\n--- libbpf's search\n%s--- the cut\n%s", name,
		       by_libbpf.text, by_cut.text);
	printf("  %s: %u relocations, %u instructions patched or poisoned\n", name, cb.nr_relos,
	       by_libbpf.lines);
	free(by_libbpf.text);
	free(by_cut.text);
}

/*
 * btrfs reads struct map_lookup only where struct btrfs_chunk_map does not
 * exist: one of the two is always missing, and libbpf would look for it in
 * modules' BTF, which the cut leaves to libbpf's own search.
 */
static int no_module_btf(void)
{
	DIR *dir = opendir("/sys/kernel/btf");
	struct dirent *e;
	int none = 1;

	while (dir && none && (e = readdir(dir)))
		none = e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux");
	if (dir)
		closedir(dir);
	return none;
}

static void relocations_reclaim(void)
{
	same_relocations("reclaim_bpf", reclaim_bpf__elf_bytes, 1);
}

static void relocations_gcm(void)
{
	same_relocations("gcm_bpf", gcm_bpf__elf_bytes, 1);
}

static void relocations_btrfs(void)
{
	same_relocations("btrfs_bpf", btrfs_bpf__elf_bytes, no_module_btf());
}

static void relocations_kaead(void)
{
	same_relocations("kaead_bpf", kaead_bpf__elf_bytes, 1);
}

int main(void)
{
	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("SKIP core_btf: needs root and the kernel's BTF\n");
		return 0;
	}
	libbpf_set_print(keep_patch_lines);
	RUN(relocations_reclaim);
	RUN(relocations_gcm);
	RUN(relocations_btrfs);
	RUN(relocations_kaead);
	UNIT_EXIT();
}
