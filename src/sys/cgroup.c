// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/btf.h>

#include "kernel_btf.h"
#include "ringside/ringside.h"
#include "cgroup.h"
#include "mountinfo.h"

int rs_cgroup_subsys_id(const char *controller)
{
	char want[64];
	const struct rs_btf *btf;
	int id, ret = -ENOENT;

	if (snprintf(want, sizeof(want), "%s_cgrp_id", controller) >= (int)sizeof(want))
		return -EINVAL;
	btf = rs_kernel_btf_get();
	if (!btf) {
		rs_kernel_btf_put();
		return -RINGSIDE_ERR_NOBTF;
	}
	id = rs_btf_find(btf, "cgroup_subsys_id", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = rs_btf_type(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++, e++) {
			const char *name = rs_btf_name(btf, e->name_off);

			if (name && !strcmp(name, want)) {
				ret = e->val;
				break;
			}
		}
	}
	rs_kernel_btf_put();
	return ret;
}

/* True when the comma-separated list holds tok as a whole item. */
static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, tok, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* The cgroup mount holding a path: the longest mount-point prefix. */
struct cgroup_mount_search {
	const char *path;
	size_t best;
	bool v2;
	char *mnt, *opts;
	size_t mntlen, optslen;
};

static int longest_cgroup_prefix(void *ctx, const struct rs_mount_entry *m)
{
	struct cgroup_mount_search *q = ctx;
	size_t n = strlen(m->mp);

	if (strcmp(m->fstype, "cgroup") && strcmp(m->fstype, "cgroup2"))
		return 0;
	if (strncmp(q->path, m->mp, n) || (q->path[n] && q->path[n] != '/') || n <= q->best)
		return 0;
	q->best = n;
	q->v2 = !strcmp(m->fstype, "cgroup2");
	snprintf(q->mnt, q->mntlen, "%s", m->mp);
	snprintf(q->opts, q->optslen, "%s", m->super);
	return 0;
}

/*
 * Find the cgroup mount that holds path (longest mount-point prefix) in
 * /proc/self/mountinfo and return its mount point and super options.
 */
static int find_cgroup_mount(const char *path, bool *v2, char *mnt, size_t mntlen,
			     char *opts, size_t optslen)
{
	struct cgroup_mount_search q = { .path = path, .mnt = mnt, .opts = opts,
					 .mntlen = mntlen, .optslen = optslen };
	int err = rs_mountinfo_foreach(longest_cgroup_prefix, &q);

	if (err)
		return err;
	*v2 = q.v2;
	return q.best ? 0 : -RINGSIDE_ERR_NOTCGROUP;
}

/* Pick the first real controller out of a v1 super-options string. */
static int first_controller(const char *opts, char *out, size_t outlen)
{
	char copy[512], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", opts);
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "rw") || !strcmp(tok, "ro") || strchr(tok, '='))
			continue;
		if (rs_cgroup_subsys_id(tok) >= 0) {
			snprintf(out, outlen, "%s", tok);
			return 0;
		}
	}
	return -ENOENT;
}

static int hierarchy_mount(const char *controller, char *mnt, size_t len);

/* Any v1 hierarchy's mount under which rel names a directory. */
struct rel_search {
	const char *rel;
	char *out;
	size_t len;
};

static bool dir_under(const char *mnt, const char *rel, char *out, size_t len)
{
	struct stat st;

	return snprintf(out, len, "%s%s", mnt, rel) < (int)len && !stat(out, &st) &&
	       S_ISDIR(st.st_mode);
}

static int rel_match(void *ctx, const struct rs_mount_entry *m)
{
	struct rel_search *q = ctx;

	return !strcmp(m->fstype, "cgroup") && dir_under(m->mp, q->rel, q->out, q->len);
}

/*
 * A path as /proc/PID/cgroup shows it ("/a/b", relative to its hierarchy's
 * root) to the directory: under the v2 mount, else the v1 memory
 * controller's (ringside's domain), else any v1 hierarchy that has it.
 */
static int hierarchy_relative(const char *rel, char *out, size_t len)
{
	struct rel_search q = { rel, out, len };
	char mnt[512];

	if (!hierarchy_mount(NULL, mnt, sizeof(mnt)) && dir_under(mnt, rel, out, len))
		return 0;
	if (!hierarchy_mount("memory", mnt, sizeof(mnt)) && dir_under(mnt, rel, out, len))
		return 0;
	return rs_mountinfo_foreach(rel_match, &q) > 0 ? 0 : -ENOENT;
}

int rs_cgroup_resolve(const char *path, struct rs_cgroup_ref *out)
{
	char real[PATH_MAX], opts[512], found[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	if (!realpath(path, real)) {
		err = -errno;
		if (err != -ENOENT || path[0] != '/' || hierarchy_relative(path, found, sizeof(found)) ||
		    !realpath(found, real))
			return err;
	}
	if (statfs(real, &sfs) || stat(real, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) ||
	    (sfs.f_type != CGROUP2_SUPER_MAGIC && sfs.f_type != CGROUP_SUPER_MAGIC))
		return -RINGSIDE_ERR_NOTCGROUP;
	err = find_cgroup_mount(real, &out->v2, out->mount, sizeof(out->mount), opts, sizeof(opts));
	if (err)
		return err;
	out->id = st.st_ino;
	for (const char *p = real + strlen(out->mount); *p; p++)
		out->level += *p == '/' && p[1] && p[1] != '/';
	if (out->v2) {
		out->ssid = -1;
		return 0;
	}
	snprintf(out->controllers, sizeof(out->controllers), "%s", opts);
	{
		char ctl[64];

		if (first_controller(opts, ctl, sizeof(ctl)))
			return -RINGSIDE_ERR_NOTCGROUP; /* named hierarchy without controllers */
		out->ssid = rs_cgroup_subsys_id(ctl);
	}
	return out->ssid < 0 ? out->ssid : 0;
}

/* The mount of the v2 hierarchy (controller NULL) or of the v1 one with controller. */
struct hierarchy_search {
	const char *controller;
	char *mnt;
	size_t len;
};

static int hierarchy_match(void *ctx, const struct rs_mount_entry *m)
{
	struct hierarchy_search *q = ctx;
	bool match = q->controller ? !strcmp(m->fstype, "cgroup") && has_token(m->super, q->controller) :
				     !strcmp(m->fstype, "cgroup2");

	return match && snprintf(q->mnt, q->len, "%s", m->mp) < (int)q->len;
}

static int hierarchy_mount(const char *controller, char *mnt, size_t len)
{
	struct hierarchy_search q = { controller, mnt, len };
	int ret = rs_mountinfo_foreach(hierarchy_match, &q);

	return ret < 0 ? ret : ret ? 0 : -ENOENT;
}

int rs_cgroup_self_path(const char *controller, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096], mnt[512];
	int ret = -ENOENT;

	if (controller && !*controller)
		controller = NULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *rel;

		if (!ctl || !(rel = strchr(ctl + 1, ':')))
			continue;
		*rel++ = '\0';
		ctl++;
		rel[strcspn(rel, "\n")] = '\0';
		if (controller ? !has_token(ctl, controller) : *ctl != '\0')
			continue;
		ret = hierarchy_mount(controller, mnt, sizeof(mnt));
		if (!ret && snprintf(buf, len, "%s%s", mnt, strcmp(rel, "/") ? rel : "") >= (int)len)
			ret = -ENAMETOOLONG;
		break;
	}
	fclose(f);
	return ret;
}
