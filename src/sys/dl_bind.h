/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal (shared with the CLI): libraries that only some jobs need, opened
 * on first use instead of linked. Linked, each cost every command its
 * relocated pages and its load: capstone alone (Go return sites) was 3 MB of
 * every tracer's RSS, libmicrohttpd's TLS stack (the agent) 2.5 MB, cairo's
 * X11 and font stack (profile charts) 1.5 MB, libdw (--stacks) 0.5 MB.
 *
 * A user declares a table of pointers typed from the library's own header:
 *
 *	#define CS_FNS(X) X(cs_open) X(cs_close)
 *	static struct { CS_FNS(RS_DL_DECLARE) } cs;
 *	static const char *const cs_names[] = { CS_FNS(RS_DL_NAME) };
 *
 * and binds it once: rs_dl_bind("libcapstone.so.4", cs_names, (void **)&cs, ...).
 */
#ifndef RINGSIDE_DL_BIND_H
#define RINGSIDE_DL_BIND_H

#include <stddef.h>

#define RS_DL_DECLARE(fn) __typeof__(fn) *fn;
#define RS_DL_NAME(fn) #fn,

/*
 * Open soname and fill fns[i] with names[i] for i < n (fns: the table, a
 * struct of n function pointers). 0, or -ENOENT with why saying which
 * library or symbol is missing and which Debian package brings it.
 */
int rs_dl_bind(const char *soname, const char *package, const char *const names[], void **fns,
	       size_t n, char *why, size_t len);

#endif
