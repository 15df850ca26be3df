// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Binding a library's functions at first use (dl_bind.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dl_bind.h"

int rs_dl_bind(const char *soname, const char *package, const char *const names[], void **fns,
	       size_t n, char *why, size_t len)
{
	/* Never closed: a bound table is kept for the life of the process. */
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(why, len, "cannot open %s: %s: install %s", soname, dlerror(), package);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		fns[i] = dlsym(lib, names[i]);
		if (!fns[i]) {
			snprintf(why, len, "%s has no %s: install %s as Debian 12 ships it", soname,
				 names[i], package);
			memset(fns, 0, n * sizeof(*fns));
			dlclose(lib);
			return -ENOENT;
		}
	}
	return 0;
}
