/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The shape of gcm_handles, the LRU hash of known GCM contexts (gcm.bpf.c):
 * the loader makes it ahead of the load (map_precreate.h) and must make
 * what the object declares.
 */
#ifndef RINGSIDE_GCM_HANDLES_H
#define RINGSIDE_GCM_HANDLES_H

#define GCM_HANDLES_MAX 65536
#define GCM_HANDLES_KEY_SIZE 16		/* struct gcm_hkey */
#define GCM_HANDLES_VALUE_SIZE 40	/* struct gcm_msg */

#endif
