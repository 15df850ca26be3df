// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Every collector ringside has: the one list to add a new one to. */
#include "session_int.h"

extern const struct rs_collector_ops rs_gcm_ops, rs_reclaim_ops, rs_btrfs_ops, rs_kaead_ops;

const struct rs_collector_ops *const rs_collectors[] = {
	&rs_gcm_ops,
	&rs_reclaim_ops,
	&rs_btrfs_ops,
	&rs_kaead_ops,
	NULL,
};
