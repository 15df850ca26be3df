/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: finding crypto libraries and the probe points inside them. */
#ifndef RINGSIDE_GCM_LIBS_H
#define RINGSIDE_GCM_LIBS_H

#include <sys/types.h>

#include "ringside/events.h"
#include "ringside/gcm.h"

/* One function to probe: entry program, and return program when needed. */
struct gcm_probe_spec {
	const char *symbol;
	const char *entry_prog;
	const char *ret_prog;	/* NULL: entry only */
	bool required;
	/* Where uprobe sessions are used: one program for entry and return instead. */
	const char *session_prog;
	bool latency_only;	/* probed only to time messages: left out when counting */
	/*
	 * The entry program reads its first args_followed arguments and its
	 * return address through the probe's argument map (probe_argmap.h),
	 * so where the function's first instruction is single-stepped it may
	 * be probed further into its prologue (rs_probe_point_follow()).
	 */
	unsigned int args_followed;
};

struct gcm_family {
	enum rs_gcm_lib lib;
	const char *soname_prefix;	/* "libcrypto.so" */
	const char *version_mark;	/* text before the version in its rodata; NULL: none */
	const struct gcm_probe_spec *specs;
	unsigned int nr_specs;
};

const struct gcm_family *gcm_family_of(enum rs_gcm_lib lib);

/* A resolved probe point in one library file. */
struct gcm_probe {
	unsigned int lib_id;
	const struct gcm_probe_spec *spec;
	uint64_t file_off;
	uint64_t func_size;		/* bytes of its function, where known (0: not followed) */
	uint64_t at;			/* bytes past the function's first instruction */
	enum ringside_gcm_placement placement;
	bool emulated;
	const char *role;		/* RINGSIDE_GCM_INSIDE: what the point reads */
	char kept_at_entry[96];		/* single-stepped though followable: why it stayed */
	uint32_t argmap;		/* RINGSIDE_GCM_IN_PROLOGUE: probe_argmap.h */
	uint32_t layout;		/* OpenSSL's finish probed inside: ossl_finish_layout.h */
	unsigned int backend;		/* GnuTLS backend probes: index within the library */
	struct rs_gcm_backend disc;	/* ... and how its context shows the key size */
};

struct gcm_libset {
	struct ringside_gcm_lib *libs;
	unsigned int nr_libs;
	struct gcm_probe *probes;
	unsigned int nr_probes;
	struct rs_gcm_go *go;	/* per library: a Go program's layout (in_use 0 otherwise) */
	dev_t *devs;		/* (dev, inode) of each library: no file is probed twice */
	ino_t *inos;
	char err[512];
	char (*skipped)[320];	/* files found but not traced, and why */
	unsigned int nr_skipped;
	bool count_only;	/* no latency: probe points only timing needs are left out */
	/* Without stacks: OpenSSL's finish probed inside (ossl_finish_points.h) where it can be. */
	bool finish_inside;
};

/*
 * Add one file: detect its family from its symbols and resolve the probe
 * points. want: a family to require, or RS_GCM_LIB_NONE to detect.
 * Returns 1 when added, 0 when already present, negative on error (err set).
 */
int gcm_libset_add(struct gcm_libset *set, const char *path, enum rs_gcm_lib want);
/* The libraries a process has mapped (its own view, through /proc/PID/root). */
int gcm_libset_add_pid(struct gcm_libset *set, pid_t pid);
/*
 * The system's libraries (/etc/ld.so.cache, then the standard directories)
 * and the running Go programs; programs that cannot be traced are listed in
 * skipped.
 */
int gcm_libset_add_system(struct gcm_libset *set);
/* A program as its start was seen: the path given to exec and the file's identity. */
struct gcm_exec_file {
	const char *path;
	dev_t dev;
	ino_t ino;
};
/*
 * A process that began running a program after the set was made (file: how
 * it was started, for when the process is gone): 1 when it
 * is a Go program with AES-GCM code and its probes were added (the last
 * library), 0 when there is nothing to probe, a negative errno when it
 * cannot be traced (named in skipped).
 */
int gcm_libset_add_exec(struct gcm_libset *set, pid_t pid, const struct gcm_exec_file *file);
/* Name a program found but not traced, and why. */
void gcm_libset_note_skipped(struct gcm_libset *set, const char *why);
void gcm_libset_free(struct gcm_libset *set);

/* Keep a sentence for set->err and return err. */
int gcm_libset_fail(struct gcm_libset *set, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The family a file's name says it is (libcrypto.so.3...), RS_GCM_LIB_NONE if none. */
enum rs_gcm_lib gcm_family_by_soname(const char *path);

/* Resize array arr to n elements in place; false (arr untouched) without memory. */
#define GROW(arr, n)                                                         \
	({                                                                   \
		__typeof__(arr) grown_ = reallocarray((arr), (n), sizeof(*(arr))); \
		if (grown_)                                                  \
			(arr) = grown_;                                      \
		grown_ != NULL;                                              \
	})


/* Add probe p, moved to the cheapest point of the function's prologue (probe_point.h). */
int gcm_libset_place_probe(struct gcm_libset *set, int fd, struct ringside_gcm_lib *lib,
			   struct gcm_probe p);
/* Add probe p exactly where it is (a RET, p.at bytes into its function), counted as single-stepped. */
int gcm_libset_push_exact_probe(struct gcm_libset *set, struct ringside_gcm_lib *lib,
				struct gcm_probe p);

struct rs_gobin;
/*
 * A Go program (go_gcm.c): probes for its AES-GCM functions as library
 * lib_id, and the layout its BPF programs read. Negative with why set when
 * the program cannot be traced.
 */
int go_gcm_resolve(struct gcm_libset *set, int fd, const struct rs_gobin *gb,
		   struct ringside_gcm_lib *lib, unsigned int lib_id, struct rs_gcm_go *layout,
		   char *why, size_t whylen);

#endif
