// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringside_session_open() failures: a negative errno and one sentence naming the fix. */
#include <errno.h>

#include "ringside/reclaim.h"
#include "unit.h"
#include "ringside/ringside.h"

static int no_events(void *ctx, const struct rs_event_hdr *ev, size_t size)
{
	(void)ctx;
	(void)ev;
	(void)size;
	return 0;
}

static struct ringside_session_opts base_opts(void)
{
	struct ringside_session_opts o = { .sz = sizeof(o), .on_event = no_events };

	return o;
}

static void open_reasons(void)
{
	struct ringside_session_opts o = base_opts();
	struct ringside_session *s;

	CHECK_EQ_INT(ringside_session_open(NULL, &s), -EINVAL);
	CHECK(strstr(ringside_last_errmsg(), "opts.sz"));

	o.ringbuf_bytes = 1000;
	CHECK_EQ_INT(ringside_session_open(&o, &s), -EINVAL);
	CHECK(strstr(ringside_last_errmsg(), "1000 bytes") && strstr(ringside_last_errmsg(), "power of two"));

	o = base_opts();
	o.cgroup_path = "/no/such/ringside-cgroup";
	CHECK(ringside_session_open(&o, &s) < 0);
	CHECK(strstr(ringside_last_errmsg(), "/no/such/ringside-cgroup") &&
	      strstr(ringside_last_errmsg(), "/proc/PID/cgroup"));

	o = base_opts();
	o.pid = 0x3ffffff0;
	CHECK_EQ_INT(ringside_session_open(&o, &s), -ESRCH);
	CHECK(strstr(ringside_last_errmsg(), "no such process"));

	/* A success clears the last reason. */
	o = base_opts();
	CHECK_EQ_INT(ringside_session_open(&o, &s), 0);
	CHECK_EQ_STR(ringside_last_errmsg(), "");
	ringside_session_close(s);
}

/* The profile has no session either: its reason is the thread's last one too. */
static void profile_reason(void)
{
	static const int sw[] = { 60 };
	struct ringside_reclaim_profile_opts po = { .sz = sizeof(po), .cgroup = "/no/such/ringside-cg",
						    .swappiness = sw, .nr_swappiness = 1,
						    .amount = 1 << 20 };

	CHECK(ringside_reclaim_profile(&po, NULL, NULL) < 0);
	CHECK(strstr(ringside_last_errmsg(), "/no/such/ringside-cg is not a cgroup directory"));
	CHECK(ringside_open_errmsg() == ringside_last_errmsg());
}

int main(void)
{
	RUN(open_reasons);
	RUN(profile_reason);
	UNIT_EXIT();
}
