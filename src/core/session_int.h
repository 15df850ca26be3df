/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: the session object and the contract every collector follows. */
#ifndef RINGSIDE_SESSION_INT_H
#define RINGSIDE_SESSION_INT_H

#include <sys/types.h>
#include <bpf/libbpf.h>
#include "ringside/ringside.h"
#include "core_btf.h"
#include "variants.h"

struct rs_collector;
struct rs_metrics;

struct rs_collector_ops {
	const char *name;
	/*
	 * The parts of the job that have program variants (variants.h): the
	 * core picks one per part before load() and rs_collector_prepare()
	 * sets the programs' autoload from the pick.
	 */
	const struct rs_part *parts;
	unsigned int nr_parts;
	/*
	 * Optional: is this part of no use to this collector's job (a watch of
	 * program starts when the libraries are named)? Then its last variant,
	 * which must need nothing, is taken without asking any feature.
	 */
	bool (*part_unused)(const struct rs_collector *c, unsigned int part);
	/* Open the skeleton, set .rodata (filter included) and load it. */
	int (*load)(struct rs_collector *c);
	/* Its attach registers uprobes: the loads keep that fast (uprobe_warm.h). */
	bool attaches_uprobes;
	/* Attach programs; store links in c->links. */
	int (*attach)(struct rs_collector *c);
	/*
	 * Optional: look at each record before the application does (e.g. to
	 * symbolize or keep state). Return 0 to deliver, >0 to swallow it.
	 */
	int (*inspect)(struct rs_collector *c, const struct rs_event_hdr *ev, size_t size);
	/* Undo load(): free the skeleton and what attach() made besides links. */
	void (*destroy)(struct rs_collector *c);
	/* Free c->priv when the session closes. */
	void (*release)(struct rs_collector *c);
	/* Optional: add the collector's metric families (metrics_int.h). */
	int (*metrics)(struct rs_collector *c, struct rs_metrics *m);
	/* Optional: work deferred until the application drains the session. */
	void (*poll)(struct rs_collector *c);
};

struct rs_collector {
	const struct rs_collector_ops *ops;
	struct ringside_session *s;
	void *priv;			/* collector's own state (skeleton, options) */
	struct bpf_object *obj;		/* set by load() */
	struct rs_choice choice[RS_MAX_PARTS];	/* per ops->parts, made before load() */
	bool choices_settled;			/* from the features' tests, not a claim */
	struct rs_core_btf core_btf;		/* CO-RE's kernel types, open until load() ends */
	struct bpf_object_open_opts open_opts;	/* what load() opens its skeleton with */
	const void *(*elf_bytes)(size_t *size);	/* the skeleton's embedded object, once prepared */
	struct bpf_link **links;
	unsigned int nr_links, cap_links;
	int *link_fds;			/* links made by raw BPF_LINK_CREATE */
	unsigned int nr_link_fds, cap_link_fds;
	struct rs_collector *next;
};

struct ringside_session {
	struct ringside_session_opts opts;
	char *cgroup_path;
	struct rs_filter_cfg filter;
	struct ring_buffer *rb;
	struct rs_collector *collectors;
	bool attached;
	bool starting;			/* counted by rs_probe_session_starting() */
	bool keeps_btf;			/* the kernel's BTF, until variants are chosen */
	struct ringside_stats st;
	uint64_t lost_before;
	uint64_t rows_lost_before;
	uint64_t target_start;		/* identity of opts.pid: start time... */
	dev_t target_exe_dev;		/* ...and the program it runs */
	ino_t target_exe_ino;		/* drops counted by collectors since unloaded */
	int cb_err;
	char errmsg[512];
	char notes[8192];
};

/* Record a detailed message for the session and return err (negative). */
int rs_fail(struct ringside_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * For calls without a session: keep the reason of a failure for
 * ringside_last_errmsg() in this thread and return err (negative);
 * rs_clear_last() at the start of such a call.
 */
int rs_fail_last(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rs_clear_last(void);

/* Append an informational line to the session's notes. */
void rs_note(struct ringside_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The session's collector of that kind, NULL when not enabled. */
const struct rs_collector *rs_session_collector(const struct ringside_session *s,
						const struct rs_collector_ops *ops);

/*
 * In load(), the options to open the skeleton with: CO-RE against the
 * kernel types its relocations name (core_btf.h). elf_bytes is the
 * skeleton's X_bpf__elf_bytes.
 */
const struct bpf_object_open_opts *rs_collector_open_opts(struct rs_collector *c,
							  const void *(*elf_bytes)(size_t *size));

/* Add a collector to the session; it is loaded and attached by attach(). */
int rs_session_add(struct ringside_session *s, const struct rs_collector_ops *ops,
		   void *priv);

/*
 * Give back the pages of an object's embedded ELF image (X__elf_bytes) once
 * libbpf has its copies: read-only file pages, faulted back in if read.
 */
void rs_unmap_object_bytes(const void *(*elf_bytes)(size_t *size));
/*
 * Common pre-load step for a skeleton just opened: size the ring buffer,
 * copy the filter into the object's .rodata copy pointed to by
 * rodata_filter, set the programs' autoload from the chosen variants, and
 * unmap the object bytes the binary embeds (the skeleton's X__elf_bytes),
 * which libbpf has copied what it needs from.
 */
int rs_collector_prepare(struct rs_collector *c, struct rs_filter_cfg *rodata_filter,
			 const void *(*elf_bytes)(size_t *size));

/* The variant chosen for the collector's part (an index into its variants). */
static inline int rs_collector_variant(const struct rs_collector *c, unsigned int part)
{
	return c->choice[part].variant;
}

/* Every collector ringside has, for `ringside features`; NULL-terminated. */
extern const struct rs_collector_ops *const rs_collectors[];

/* Message for a failed skeleton load: verifier rejection vs missing privilege. */
int rs_load_failed(struct rs_collector *c, int err);

/*
 * Attach every program of c->obj that is set to load, keeping the links.
 * optional may fail to attach: a note says so and the others go on.
 */
int rs_collector_attach_all(struct rs_collector *c, const struct bpf_program *optional);

/* Keep a raw link fd; on failure it is closed. */
int rs_collector_keep_link_fd(struct rs_collector *c, int fd);

/* Detach the links kept after the first nr_links (and nr_link_fds raw ones). */
void rs_collector_drop_links(struct rs_collector *c, unsigned int nr_links, unsigned int nr_link_fds);

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
size_t rs_utf8_len(const unsigned char *p, size_t n);

/* Keep a link; on failure the link is destroyed. */
int rs_collector_keep_link(struct rs_collector *c, struct bpf_link *link);

#endif
