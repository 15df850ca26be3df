/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A collector's programs verified on two CPUs at once.
 *
 * The verifier runs programs of privileged loaders in parallel, but libbpf
 * loads an object's programs one after another: gcm's 40 programs took
 * 50-60 ms of one CPU, half or more of its start. So the collector's object
 * is loaded for its maps alone, and its programs are loaded by two more
 * opens of the same ELF image that take those maps over, one on a thread
 * and one on the caller's: the two halves balanced by size.
 *
 *   rs_split_plan()   before the load: which programs, and whether to split
 *   (load the object: its maps, and its programs when not split)
 *   rs_split_load()   after it: the programs, in the two program objects
 *   rs_split_prog()   a loaded program by name, wherever it was loaded
 */
#ifndef RINGSIDE_SPLIT_LOAD_H
#define RINGSIDE_SPLIT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

struct rs_collector;

/*
 * Fewer instructions than this load in the object itself: the two more
 * opens cost what the halves save. Measured (medians of 15 interleaved
 * starts): gcm on one library, 4,199 instructions (libcrypto) and 7,468
 * (libgnutls), started in the same time either way (45.8/45.2 and
 * 48.2/47.1 ms); system-wide, 18,312, in 81 ms instead of 102.
 */
#define RS_SPLIT_MIN_INSNS 12000
#define RS_SPLIT_MAX_PROGS 128
/* The objects programs may be loaded in: the collector's, or its two halves, and one loaded late. */
#define RS_SPLIT_MAX_OBJECTS 3

struct rs_split {
	bool split;			/* the programs load in objs[], not in the object */
	bool released;			/* objs[0] closed once attached (rs_split_release()) */
	struct bpf_object *objs[2];	/* [0] on a thread, [1] on the caller's */
	struct bpf_object *late;	/* programs loaded once needed (rs_split_load_late()) */
	unsigned int nr_progs;		/* the object's programs, in its order */
	bool want[RS_SPLIT_MAX_PROGS];	/* which of them load */
};

/*
 * Before loading obj (autoload set): split when its programs are big enough,
 * there is a second CPU, and each half's CO-RE reads the cut (core_btf.h). Splitting
 * switches every program of obj off, so its load makes the maps alone;
 * main_prog (NULL: none) must load on the caller's thread, which libbpf's
 * kernel BTF lookups are routed for (libbpf_btf.h). Nothing to undo.
 */
void rs_split_plan(struct rs_collector *c, struct bpf_object *obj, struct rs_split *sp);
/*
 * After obj's load: load the programs it was planned with, split, from
 * elf_bytes' image. main_prog and the programs whose names start with
 * later_prefix (NULL: none), those attached after the start, load in the
 * caller's half. 0 (nothing to do when not split), or the first failing
 * half's error, with nothing of either left.
 */
int rs_split_load(struct rs_collector *c, struct bpf_object *obj,
		  const void *(*elf_bytes)(size_t *size), const char *main_prog,
		  const char *later_prefix, struct rs_split *sp);
/*
 * Once the start's attaches are made: close the thread's half, whose
 * programs the links hold in the kernel (a libbpf object keeps its BTF and
 * instructions: ~0.4 MB of gcm's). From then on only the caller's half's
 * programs are found.
 */
void rs_split_release(struct rs_split *sp);
/*
 * After the start, once they are needed: the programs whose names start
 * with prefix, left out of obj's load (autoload off), loaded in an object
 * of their own on obj's maps; the maps obj did not make, which only they
 * use, it makes. 0, or the load's error with nothing of it left. Said in
 * the session's notes.
 */
int rs_split_load_late(struct rs_collector *c, struct bpf_object *obj,
		       const void *(*elf_bytes)(size_t *size), const char *prefix, struct rs_split *sp);
/* The program named name as loaded: in a half, in obj when not split, or loaded late. */
struct bpf_program *rs_split_prog(const struct rs_split *sp, struct bpf_object *obj,
				  const char *name);
/* The objects holding the loaded programs (obj, or the halves; the late one): their count. */
unsigned int rs_split_objects(const struct rs_split *sp, struct bpf_object *obj,
			      struct bpf_object *out[RS_SPLIT_MAX_OBJECTS]);
void rs_split_free(struct rs_split *sp);

#endif
