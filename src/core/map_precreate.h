/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A map made on a thread while a collector's start goes on, for its load
 * to take over. An LRU hash preallocates every entry when it is made: 65,536
 * of them took 11 ms of kernel time on one machine of this kind (3 on
 * another), on the start's path between the BTF parse and the load. Made
 * while the libraries are read and the BTF parsed, it costs the start none
 * of that where a second CPU is free.
 */
#ifndef RINGSIDE_MAP_PRECREATE_H
#define RINGSIDE_MAP_PRECREATE_H

#include <pthread.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

struct rs_map_precreate {
	pthread_t thread;
	bool armed;		/* started once: a zeroed one holds nothing */
	bool started;
	int fd;			/* the map, once the thread is joined; -1: none */
	enum bpf_map_type type;
	char name[16];
	__u32 key_size, value_size, max_entries, map_flags;
};

/* Start making the map on a thread; if no thread can start, the load makes it. */
void rs_map_precreate_start(struct rs_map_precreate *p, enum bpf_map_type type, const char *name,
			    __u32 key_size, __u32 value_size, __u32 max_entries, __u32 map_flags);
/*
 * Before the load: wait for the map and hand it to map if it is what the
 * object declares (type, sizes, flags); otherwise libbpf makes its own. 0,
 * or libbpf's error from taking it.
 */
int rs_map_precreate_use(struct rs_map_precreate *p, struct bpf_map *map);
/* Wait for the thread and close a map nobody took. */
void rs_map_precreate_drop(struct rs_map_precreate *p);

#endif
