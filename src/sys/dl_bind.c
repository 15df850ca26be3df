// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Binding a library's functions at first use (dl_bind.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dl_bind.h"

static void bind(struct rs_dl_once *once, const char *soname, const char *package,
		 const char *const names[], void **fns, size_t n)
{
	/* Never closed: a bound table is kept for the life of the process. */
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(once->why, sizeof(once->why), "cannot open %s: %s: install %s", soname,
			 dlerror(), package);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		fns[i] = dlsym(lib, names[i]);
		if (!fns[i]) {
			snprintf(once->why, sizeof(once->why), "%s has no %s: install %s as Debian 12 "
				 "ships it", soname, names[i], package);
			memset(fns, 0, n * sizeof(*fns));
			dlclose(lib);
			return;
		}
	}
}

const char *rs_dl_bind_once(struct rs_dl_once *once, const char *soname, const char *package,
			    const char *const names[], void **fns, size_t n)
{
	pthread_mutex_lock(&once->lock);
	if (!once->tried) {
		bind(once, soname, package, names, fns, n);
		once->tried = true;
	}
	pthread_mutex_unlock(&once->lock);
	return once->why[0] ? once->why : NULL;
}
