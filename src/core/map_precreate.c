// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A preallocated map made on a thread during a collector's start (map_precreate.h). */
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "map_precreate.h"

static void *make_map(void *arg)
{
	struct rs_map_precreate *p = arg;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = p->map_flags);

	p->fd = bpf_map_create(p->type, p->name, p->key_size, p->value_size, p->max_entries, &opts);
	return NULL;
}

void rs_map_precreate_start(struct rs_map_precreate *p, enum bpf_map_type type, const char *name,
			    __u32 key_size, __u32 value_size, __u32 max_entries, __u32 map_flags)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->type = type;
	strncpy(p->name, name, sizeof(p->name) - 1);
	p->key_size = key_size;
	p->value_size = value_size;
	p->max_entries = max_entries;
	p->map_flags = map_flags;
	p->armed = true;
	p->started = !pthread_create(&p->thread, NULL, make_map, p);
}

static void join(struct rs_map_precreate *p)
{
	if (p->started) {
		pthread_join(p->thread, NULL);
		p->started = false;
	}
}

int rs_map_precreate_use(struct rs_map_precreate *p, struct bpf_map *map)
{
	int err = 0;

	if (!p->armed)
		return 0;
	join(p);
	if (p->fd < 0)
		return 0;
	/* Declared otherwise (the object changed): libbpf makes the object's own. */
	if (bpf_map__type(map) == p->type && bpf_map__key_size(map) == p->key_size &&
	    bpf_map__value_size(map) == p->value_size &&
	    bpf_map__max_entries(map) == p->max_entries && bpf_map__map_flags(map) == p->map_flags &&
	    bpf_map__autocreate(map))
		err = bpf_map__reuse_fd(map, p->fd);	/* a dup: ours is closed below */
	close(p->fd);
	p->fd = -1;
	return err;
}

void rs_map_precreate_drop(struct rs_map_precreate *p)
{
	if (!p->armed)
		return;
	join(p);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
