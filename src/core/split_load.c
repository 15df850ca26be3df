// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loading a collector's programs in two halves at once (split_load.h). */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "core_btf.h"
#include "libbpf_btf.h"
#include "session_int.h"
#include "split_load.h"

void rs_split_plan(struct rs_collector *c, struct bpf_object *obj, struct rs_split *sp)
{
	struct bpf_program *p;
	unsigned int i = 0;
	size_t insns = 0;

	memset(sp, 0, sizeof(*sp));
	/* Without the cut a half's CO-RE would ask libbpf's kernel BTF, routed for one object only. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || (c->core_btf.fd < 0 && c->core_btf.nr_relos))
		return;
	bpf_object__for_each_program(p, obj) {
		if (i == RS_SPLIT_MAX_PROGS)
			return;
		sp->want[i] = bpf_program__autoload(p);
		if (sp->want[i++])
			insns += bpf_program__insn_cnt(p);
	}
	if (insns < RS_SPLIT_MIN_INSNS)
		return;
	sp->nr_progs = i;
	sp->split = true;
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
}

/* A program only the caller's half may load: one libbpf looks up kernel types for. */
static bool needs_kernel_btf(const struct bpf_program *p)
{
	enum bpf_prog_type type = bpf_program__type(p);

	return type != BPF_PROG_TYPE_KPROBE && type != BPF_PROG_TYPE_TRACEPOINT &&
	       type != BPF_PROG_TYPE_RAW_TRACEPOINT && type != BPF_PROG_TYPE_PERF_EVENT;
}

/*
 * Half h of the programs, opened from the same image with open_opts, on
 * obj's maps; a map obj did not make is made only with make_missing.
 */
static int open_half(struct bpf_object *obj, const struct bpf_object_open_opts *open_opts,
		     const void *elf, size_t size, const unsigned char *half, unsigned int h,
		     bool make_missing, struct bpf_object **out)
{
	struct bpf_object_open_opts opts = *open_opts;
	struct bpf_program *p, *from;
	struct bpf_map *m, *own;
	struct bpf_object *o;
	unsigned int i = 0;
	int err = 0;

	opts.object_name = bpf_object__name(obj);	/* the same internal maps' names */
	o = bpf_object__open_mem(elf, size, &opts);
	if (!o)
		return -errno;
	bpf_object__for_each_map(m, o) {
		own = bpf_object__find_map_by_name(obj, bpf_map__name(m));
		if (own && bpf_map__fd(own) >= 0)
			err = bpf_map__reuse_fd(m, bpf_map__fd(own));
		else if (!make_missing)
			err = bpf_map__set_autocreate(m, false);
		if (err)
			goto fail;
	}
	from = bpf_object__next_program(obj, NULL);
	bpf_object__for_each_program(p, o) {
		if (!from) {
			err = -EINVAL;	/* not the same image */
			goto fail;
		}
		bpf_program__set_autoload(p, half[i++] == h + 1);
		bpf_program__set_type(p, bpf_program__type(from));
		bpf_program__set_expected_attach_type(p, bpf_program__expected_attach_type(from));
		bpf_program__set_flags(p, bpf_program__flags(from));
		from = bpf_object__next_program(obj, from);
	}
	*out = o;
	return 0;
fail:
	bpf_object__close(o);
	return err;
}

static void *load_half(void *arg)
{
	return (void *)(long)bpf_object__load(arg);
}

/* Must program p load on the caller's half: what libbpf looks kernel types up for, and what is attached later. */
static bool callers_half(const struct bpf_program *p, const char *main_prog, const char *later_prefix)
{
	const char *name = bpf_program__name(p);

	return needs_kernel_btf(p) || (main_prog && !strcmp(name, main_prog)) ||
	       (later_prefix && !strncmp(name, later_prefix, strlen(later_prefix)));
}

int rs_split_load(struct rs_collector *c, struct bpf_object *obj,
		  const void *(*elf_bytes)(size_t *size), const char *main_prog,
		  const char *later_prefix, struct rs_split *sp)
{
	unsigned char half[RS_SPLIT_MAX_PROGS] = { 0 };	/* 0 none, 1 the thread's, 2 the caller's */
	size_t weight[2] = { 0, 0 }, size;
	const void *elf = elf_bytes(&size);
	struct bpf_program *p;
	pthread_t thread;
	unsigned int i;
	bool started;
	int err;

	if (!sp->split)
		return 0;
	/* Heaviest first, each to the lighter half; what only the caller may load, there. */
	for (;;) {
		struct bpf_program *best = NULL;
		unsigned int best_i = 0;
		size_t best_n = 0;

		i = 0;
		bpf_object__for_each_program(p, obj) {
			size_t n = bpf_program__insn_cnt(p);

			if (i < sp->nr_progs && sp->want[i] && !half[i] && (!best || n > best_n)) {
				best = p;
				best_i = i;
				best_n = n;
			}
			i++;
		}
		if (!best)
			break;
		if (callers_half(best, main_prog, later_prefix))
			half[best_i] = 2;
		else
			half[best_i] = weight[0] <= weight[1] ? 1 : 2;
		weight[half[best_i] - 1] += best_n;
	}
	err = open_half(obj, &c->open_opts, elf, size, half, 0, false, &sp->objs[0]);
	if (!err)
		err = open_half(obj, &c->open_opts, elf, size, half, 1, false, &sp->objs[1]);
	if (err)
		goto fail;
	started = !pthread_create(&thread, NULL, load_half, sp->objs[0]);
	rs_libbpf_btf_loading(sp->objs[1], true, elf, size);
	err = bpf_object__load(sp->objs[1]);
	if (started) {
		void *thread_err;

		pthread_join(thread, &thread_err);
		if (!err)
			err = (int)(long)thread_err;
	} else if (!err) {
		err = bpf_object__load(sp->objs[0]);
	}
	rs_unmap_object_bytes(elf_bytes);	/* read again by the two opens */
	if (!err) {
		rs_note(c->s, "%s: programs verified in two halves at once (%zu and %zu instructions)%s",
			c->ops->name, weight[0], weight[1], started ? "" : ", one after the other: no thread");
		return 0;
	}
fail:
	rs_split_free(sp);
	return err;
}

int rs_split_load_late(struct rs_collector *c, struct bpf_object *obj,
		       const void *(*elf_bytes)(size_t *size), const char *prefix, struct rs_split *sp)
{
	unsigned char which[RS_SPLIT_MAX_PROGS] = { 0 };
	struct bpf_object_open_opts opts = { .sz = sizeof(opts) };
	struct rs_core_btf cb;
	struct bpf_program *p;
	unsigned int i = 0;
	size_t size;
	const void *elf = elf_bytes(&size);
	int err;

	if (sp->late)
		return 0;
	bpf_object__for_each_program(p, obj) {
		if (i == RS_SPLIT_MAX_PROGS)
			return -E2BIG;
		which[i++] = !strncmp(bpf_program__name(p), prefix, strlen(prefix));
	}
	/* The cut the start's load read was closed with it: again (kept for the boot, most likely). */
	rs_core_btf_prepare(elf, size, &cb, &opts);
	err = open_half(obj, &opts, elf, size, which, 0, true, &sp->late);
	if (!err) {
		rs_libbpf_btf_loading(sp->late, cb.fd >= 0 || !cb.nr_relos, elf, size);
		err = bpf_object__load(sp->late);
		rs_libbpf_btf_loaded();
	}
	rs_core_btf_close(&cb);
	rs_unmap_object_bytes(elf_bytes);
	if (err) {
		bpf_object__close(sp->late);
		sp->late = NULL;
		return err;
	}
	rs_note(c->s, "%s: programs %s* loaded once needed", c->ops->name, prefix);
	return 0;
}

struct bpf_program *rs_split_prog(const struct rs_split *sp, struct bpf_object *obj,
				  const char *name)
{
	struct bpf_object *objs[RS_SPLIT_MAX_OBJECTS];
	unsigned int n = rs_split_objects(sp, obj, objs);

	/* Each object holds every program, loaded or not: the loaded one. */
	for (unsigned int i = 0; i < n; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(objs[i], name);

		if (p && bpf_program__fd(p) >= 0)
			return p;
	}
	return NULL;
}

unsigned int rs_split_objects(const struct rs_split *sp, struct bpf_object *obj,
			      struct bpf_object *out[RS_SPLIT_MAX_OBJECTS])
{
	unsigned int n = 0;

	if (!sp->split || !sp->objs[1]) {
		out[n++] = obj;
	} else {
		if (sp->objs[0])
			out[n++] = sp->objs[0];
		out[n++] = sp->objs[1];
	}
	if (sp->late)
		out[n++] = sp->late;
	return n;
}

void rs_split_release(struct rs_split *sp)
{
	if (!sp->split || sp->released || !sp->objs[1])
		return;
	bpf_object__close(sp->objs[0]);
	sp->objs[0] = NULL;
	sp->released = true;
}

void rs_split_free(struct rs_split *sp)
{
	for (unsigned int i = 0; i < 2; i++) {
		bpf_object__close(sp->objs[i]);
		sp->objs[i] = NULL;
	}
	bpf_object__close(sp->late);
	sp->late = NULL;
}
