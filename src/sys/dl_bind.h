/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal (shared with the CLI): libraries that only some jobs need, opened
 * on first use instead of linked. Linked, each cost every command its
 * relocated pages and its load: capstone alone (Go return sites) was 3 MB of
 * every tracer's RSS, libmicrohttpd's TLS stack (the agent) 2.5 MB, cairo's
 * X11 and font stack (profile charts) 1.5 MB, libdw (--stacks) 0.5 MB.
 *
 * A user names the functions it calls, typed from the library's own header:
 *
 *	#define CS_FNS(X) X(cs_open) X(cs_close)
 *	RS_DL_LIBRARY(cs, "libcapstone.so.4", "libcapstone4", CS_FNS)
 *
 * which defines the table `cs` (call cs.cs_open(...)) and
 * `const char *cs_unavailable(void)`: it opens the library on its first call
 * and answers NULL once bound, else why not (which package to install).
 */
#ifndef RINGSIDE_DL_BIND_H
#define RINGSIDE_DL_BIND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define RS_DL_DECLARE(fn) __typeof__(fn) *fn;
#define RS_DL_NAME(fn) #fn,

struct rs_dl_once {
	pthread_mutex_t lock;
	bool tried;
	char why[256];		/* "" once bound */
};
#define RS_DL_ONCE_INIT { PTHREAD_MUTEX_INITIALIZER, false, "" }

/*
 * Open soname once and fill fns[i] (a struct of n function pointers) with
 * names[i]; NULL when bound, else why not.
 */
const char *rs_dl_bind_once(struct rs_dl_once *once, const char *soname, const char *package,
			    const char *const names[], void **fns, size_t n);

#define RS_DL_LIBRARY(table, soname, package, FNS)                                               \
	static struct {                                                                          \
		FNS(RS_DL_DECLARE)                                                               \
	} table;                                                                                 \
	static const char *const table##_names[] = { FNS(RS_DL_NAME) };                         \
	_Static_assert(sizeof(table) == sizeof(table##_names) / sizeof(table##_names[0]) *       \
						sizeof(void *),                                  \
		       "one pointer per name");                                                  \
	static struct rs_dl_once table##_once = RS_DL_ONCE_INIT;                                 \
	static const char *table##_unavailable(void)                                             \
	{                                                                                        \
		return rs_dl_bind_once(&table##_once, soname, package, table##_names,            \
				       (void **)&table,                                          \
				       sizeof(table##_names) / sizeof(table##_names[0]));        \
	}

#endif
