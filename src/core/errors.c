// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "session_int.h"

static const char *const rs_err_text[] = {
	[RINGSIDE_ERR_NOBTF - RINGSIDE_ERR_BASE] =
		"kernel has no BTF (/sys/kernel/btf/vmlinux): rebuild it with CONFIG_DEBUG_INFO_BTF=y",
	[RINGSIDE_ERR_NOSYM - RINGSIDE_ERR_BASE] =
		"binary lacks the symbols this collector needs",
	[RINGSIDE_ERR_NOTELF - RINGSIDE_ERR_BASE] = "file is not an ELF object",
	[RINGSIDE_ERR_NOTBTRFS - RINGSIDE_ERR_BASE] = "path is not on a btrfs filesystem",
	[RINGSIDE_ERR_NOTCGROUP - RINGSIDE_ERR_BASE] = "path is not a cgroup directory",
	[RINGSIDE_ERR_NOMEMCG - RINGSIDE_ERR_BASE] =
		"cgroup hierarchy has no memory controller",
	[RINGSIDE_ERR_KERNEL - RINGSIDE_ERR_BASE] = "running kernel lacks a needed facility",
	[RINGSIDE_ERR_NOTRACEFS - RINGSIDE_ERR_BASE] =
		"tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing",
	[RINGSIDE_ERR_KTHREAD - RINGSIDE_ERR_BASE] = "process is a kernel thread: it has no user memory",
	[RINGSIDE_ERR_ZOMBIE - RINGSIDE_ERR_BASE] = "process has exited (zombie): its memory is gone",
	[RINGSIDE_ERR_EXECED - RINGSIDE_ERR_BASE] =
		"process exec'd another program: the libraries traced in it are gone",
};

const char *ringside_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err > RINGSIDE_ERR_BASE && err < RINGSIDE_ERR_MAX)
		return rs_err_text[err - RINGSIDE_ERR_BASE];
	if (err == EPERM || err == EACCES)
		return "operation not permitted: run as root (needs CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)";
	if (err == ESRCH)
		return "no such process";
	/* strerror() is thread-safe in glibc for known values; unknown ones get a fixed text. */
	return strerror(err);
}

unsigned int ringside_event_abi(void)
{
	return RINGSIDE_EVENT_ABI;
}

const char *ringside_version(void)
{
	return RINGSIDE_VERSION;
}

int rs_fail(struct ringside_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (s) {
		va_start(ap, fmt);
		vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
		va_end(ap);
	}
	return err < 0 ? err : -err;
}

/* Calls with no session to keep their reason in keep it per thread. */
static __thread char last_errmsg[512];

const char *ringside_last_errmsg(void)
{
	return last_errmsg;
}

const char *ringside_open_errmsg(void)
{
	return last_errmsg;
}

void rs_clear_last(void)
{
	last_errmsg[0] = '\0';
}

int rs_fail_last(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_errmsg, sizeof(last_errmsg), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void rs_note(struct ringside_session *s, const char *fmt, ...)
{
	size_t used = strlen(s->notes);
	va_list ap;

	if (used + 2 >= sizeof(s->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes + used, sizeof(s->notes) - used - 1, fmt, ap);
	va_end(ap);
	used = strlen(s->notes);
	s->notes[used] = '\n';
	s->notes[used + 1] = '\0';
}
