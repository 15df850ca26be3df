/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Program variants as data. A collector splits its job into parts (how a
 * btrfs event is caught, how a relocation is timed); each part lists ways
 * of doing it, best first, with the kernel feature each needs. The core
 * picks the first the running kernel has (ringside_feature(), probed once
 * per process), sets bpf_program__set_autoload() from the pick before the
 * one load, and `ringside features` prints the same pick: the two cannot
 * disagree.
 */
#ifndef RINGSIDE_VARIANTS_H
#define RINGSIDE_VARIANTS_H

#include <bpf/libbpf.h>
#include "ringside/ringside.h"

#define RS_MAX_PARTS 4
#define RS_NR(a) (sizeof(a) / sizeof((a)[0]))

struct rs_variant {
	const char *name;		/* short key, shown by ringside features */
	enum ringside_feature needs;	/* RINGSIDE_FEAT_COUNT: needs nothing */
	/* Also needed in the kernel's BTF (a function for fentry/fexit, or
	 * btf_trace_NAME for a tracepoint), in btf_module's BTF if set; or NULL. */
	const char *btf_name;
	const char *btf_module;
	const char *progs;		/* its programs' name prefixes, space-separated */
	const char *gives;		/* what the user gets with it, one phrase */
	/* btf_name's function must take at least this many arguments (a
	 * signature that grew: the variant reads the new ones); 0: any. */
	unsigned int btf_min_params;
};

struct rs_part {
	const char *name;
	const struct rs_variant *variants;	/* best first */
	unsigned int nr_variants;
};

struct rs_choice {
	int variant;			/* index into the part's variants; -1: none possible */
	/* The feature that decided: the best variant's, present when it was
	 * chosen, missing when a fallback was. */
	const char *decided_by;
	bool present;
	char why[448];
	bool claimed;			/* rests on a kernel's claim, its test still running */
	bool unused;			/* of no use to the collector: its last variant */
};

/*
 * Pick part's variant on this kernel: settled, from the features' tests;
 * else from what the kernel claims where a test is still under way
 * (rs_feature_claimed()), for a load that does not wait for it.
 */
void rs_part_choose(const struct rs_part *part, struct rs_choice *out, bool settled);

/*
 * Set autoload for every program of obj that belongs to a variant of these
 * parts: on for the chosen ones, off for the others. Programs of no variant
 * are the collector's to decide and are left as they are.
 */
void rs_parts_autoload(struct bpf_object *obj, const struct rs_part *parts, unsigned int nr_parts,
		       const struct rs_choice *chosen);

#endif
