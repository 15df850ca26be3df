/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probing a feature group ahead of need, and what the kernel claims
 * meanwhile (features.c; the name features.h is glibc's). The uprobe test
 * waits out an RCU grace period at its first registration (the kernel's
 * dup_mmap_sem writer lock: 10-20 ms here); started on a thread when a
 * collector that needs it is enabled, that wait overlaps the symbol reads,
 * the BTF parse and the load instead of adding to them.
 */
#ifndef RINGSIDE_FEATURE_PREFETCH_H
#define RINGSIDE_FEATURE_PREFETCH_H

#include "ringside/ringside.h"

/* Start probing f's group on a thread unless probed or under way. */
void rs_features_prefetch(enum ringside_feature f);
/*
 * Probe f's group on this thread unless probed or under way on another:
 * never waits, so that what can be probed meanwhile is.
 */
void rs_features_probe_unless_under_way(enum ringside_feature f);
/* f's name as `ringside features` prints it. */
const char *rs_feature_name(enum ringside_feature f);
/*
 * f as the kernel claims it, without waiting for a test under way where a
 * claim can be had without one (the uprobe_multi link types); else f's
 * result. why gets what decided; claim_only whether it was a claim.
 */
bool rs_feature_claimed(enum ringside_feature f, char *why, size_t len, bool *claim_only);
/* Wait for the threads rs_features_prefetch() started. */
void rs_features_prefetched(void);

#endif
